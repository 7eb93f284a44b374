"""Opinions, preferences and write plans over GraphQL: the same Memory calls, errors as data."""

import pytest

from graphmem.api import AccessPolicy
from tests.api.conftest import GraphQLClient, sample_memory, serve

WEIGH = """mutation($o: ID!, $e: ID!, $s: String!) {
  weighOpinion(input: {opinionId: $o, eventId: $e, stance: $s}) {
    __typename
    ... on OpinionSuccess { opinion { confidence history { before after stance } } }
    ... on OpinionError { code field }
  }
}"""
HOLD = """mutation($s: String!, $about: [String!]!, $scope: String!) {
  holdOpinion(input: {statement: $s, about: $about, confidence: 0.5, scope: $scope}) {
    __typename
    ... on OpinionSuccess { opinion { id statement holder about confidence } }
    ... on OpinionError { code field message }
  }
}"""
PREF = """mutation($op: String!, $pol: String!) {
  updatePreference(input: {op: $op, subject: "short answers", polarity: $pol, domain: "style"}) {
    __typename
    ... on PreferenceSuccess { preference { subject polarity status domain } }
    ... on UpdatePreferenceError { code field }
  }
}"""
PLAN = """mutation($e: ID!, $plan: JSON!) {
  applyWritePlan(input: {eventId: $e, plan: $plan}) {
    __typename
    ... on ApplyWritePlanSuccess { states { predicate object } }
    ... on ApplyWritePlanError { code message problems { field } }
  }
}"""


@pytest.fixture
def gql():
    memory = sample_memory()
    with serve(memory) as http:
        yield GraphQLClient(http), memory
    memory.close()


def test_form_then_weigh_an_opinion(gql):
    client, memory = gql
    formed = client.data(HOLD, {"s": "Globex will poach more of the team", "about": ["Globex"], "scope": "global"})
    opinion = formed["holdOpinion"]["opinion"]
    assert (opinion["holder"], opinion["about"], opinion["confidence"]) == ("self", ["Globex"], 0.5)
    event = next(e for e in memory.events(limit=100) if e.content.startswith("Aiko left Acme"))
    answer = client.data(WEIGH, {"o": opinion["id"], "e": event.id, "s": "supports"})["weighOpinion"]
    assert answer["__typename"] == "OpinionSuccess"
    assert answer["opinion"]["history"][-1] == {"before": 0.5, "after": 0.58, "stance": "SUPPORTS"}
    bad = client.data(WEIGH, {"o": opinion["id"], "e": event.id, "s": "sideways"})["weighOpinion"]
    assert bad == {"__typename": "OpinionError", "code": "invalid_input", "field": "stance"}
    missing = client.data(WEIGH, {"o": opinion["id"], "e": "ev_missing", "s": "supports"})["weighOpinion"]
    assert missing["code"] == "not_found"


def test_preferences_cycle_over_graphql(gql):
    client, _ = gql
    first = client.data(PREF, {"op": "upsert_candidate", "pol": "like"})["updatePreference"]
    assert first["preference"]["status"] == "CANDIDATE"
    client.data(PREF, {"op": "confirm", "pol": "like"})
    client.data(PREF, {"op": "confirm", "pol": "dislike"})
    listed = client.data("""{ preferences(includeRevoked: true) { subject polarity status } }""")["preferences"]
    assert sorted((p["polarity"], p["status"]) for p in listed) == [("dislike", "ACTIVE"), ("like", "REVOKED")]


def test_a_bad_write_plan_is_an_error_naming_every_field_and_writes_nothing(gql):
    client, memory = gql
    event = memory.events(limit=1)[0]
    before = memory.stats()
    plan = {"state_updates": [{"kind": "fact", "op": "upsert", "body_text": "x", "evidence_event_ids": [],
                               "reason": "r"},
                              {"kind": "fact", "op": "upsert", "body_text": "y", "evidence_event_ids": [event.id],
                               "reason": "r", "valid_from_ts": "someday"}]}
    answer = client.data(PLAN, {"e": event.id, "plan": plan})["applyWritePlan"]
    assert answer["__typename"] == "ApplyWritePlanError" and answer["code"] == "invalid_input"
    assert [p["field"] for p in answer["problems"]] == ["state_updates.0.evidence_event_ids"]
    plan["state_updates"].pop(0)
    answer = client.data(PLAN, {"e": event.id, "plan": plan})["applyWritePlan"]
    assert [p["field"] for p in answer["problems"]] == ["state_updates.0.valid_from_ts"]
    not_object = client.data(PLAN, {"e": event.id, "plan": [1, 2]})["applyWritePlan"]
    assert not_object["code"] == "invalid_input"
    assert memory.stats() == before


def test_a_token_cannot_write_opinions_outside_its_scopes_or_plan_on_events_it_cannot_read():
    tokens = {"agents": {"ana": {"token": "ana-token-0123456789", "read": ["global"], "write": ["global"]}}}
    memory = sample_memory()
    try:
        with serve(memory, AccessPolicy.from_config(tokens)) as http:
            client = GraphQLClient(http, "ana-token-0123456789")
            denied = client.data(HOLD, {"s": "x", "about": ["Acme"], "scope": "project:search"})["holdOpinion"]
            assert denied["code"] == "forbidden"
            hidden = next(e for e in memory.events(limit=100) if e.scope == "project:search")
            answer = client.data(PLAN, {"e": hidden.id, "plan": {}})["applyWritePlan"]
            assert answer["code"] == "not_found"
            listed = client.data("{ opinions { statement } }")["opinions"]
            assert {o["statement"] for o in listed} == {"The Kuzu migration will finish before January",
                                                        "The new on-call rota is fairer"}
    finally:
        memory.close()
