"""GraphQL recall and the /v1/search route: same Memory.recall underneath, bounded by the caller's token."""

import pytest

from graphmem.api import AccessPolicy
from tests.api.conftest import GraphQLClient, sample_memory, serve

RECALL = """query($q: String!, $k: Int, $p: Boolean, $scopes: [String!]) {
  recall(query: $q, k: $k, includePrivate: $p, scopes: $scopes) {
    hits { id type scope refs eventIds parts { lexical } }
    degraded vectorLag
  }
}"""
TOKENS = {
    "roles": {"search-team": {"read": ["project:search"], "private": ["project:search"]}},
    "agents": {
        "ana": {"token": "ana-token-0123456789", "read": ["global"], "write": ["global"]},
        "hr": {"token": "hr-token-0123456789", "read": ["global"], "private": ["global"]},
        "lead": {"token": "lead-token-0123456789", "read": ["global"], "roles": ["search-team"],
                 "write": ["global"]},
    },
}


@pytest.fixture(scope="module")
def app():
    memory = sample_memory()
    with serve(memory, AccessPolicy.from_config(TOKENS)) as http:
        yield http, memory
    memory.close()


def hits(http, token, **variables):
    answer = GraphQLClient(http, token)(RECALL, {"k": 25, **variables})
    assert "errors" not in answer, answer
    return answer["data"]["recall"]


def test_hits_carry_refs_and_ids_that_lead_to_full_events(app):
    http, memory = app
    found = hits(http, "lead-token-0123456789", q="Peter Marrakesh")
    first = found["hits"][0]
    assert first["refs"] and first["parts"]["lexical"] > 0
    got = GraphQLClient(http, "lead-token-0123456789")(
        "query($ids: [ID!]!) { get(ids: $ids) { id source { ref } } }", {"ids": first["eventIds"]})
    assert [e["source"]["ref"] for e in got["data"]["get"]] == first["refs"][: len(got["data"]["get"])]


def test_a_token_sees_only_its_scopes(app):
    http, memory = app
    ana = {h["scope"] for h in hits(http, "ana-token-0123456789", q="search index Kuzu")["hits"]}
    lead = {h["scope"] for h in hits(http, "lead-token-0123456789", q="search index Kuzu")["hits"]}
    assert ana <= {"global"} and "project:search" in lead
    narrowed = hits(http, "ana-token-0123456789", q="search index Kuzu", scopes=["project:search"])
    assert narrowed["hits"] == []


def test_private_hits_need_both_the_flag_and_the_grant(app):
    http, memory = app
    note = next(e for e in memory.events(limit=100, include_private=True) if "private" in e.privacy)
    assert note.scope == "global"

    def found(token, p):
        return note.id in {h["id"] for h in hits(http, token, q=note.content, p=p)["hits"]}

    assert not found("hr-token-0123456789", False)
    assert found("hr-token-0123456789", True)
    assert not found("lead-token-0123456789", True)  # may read private items of project:search only
    assert not found("ana-token-0123456789", True)


def test_bad_arguments_are_typed_errors(app):
    http, _ = app
    answer = GraphQLClient(http, "ana-token-0123456789")(RECALL, {"q": "x", "k": 0})
    assert answer["errors"][0]["extensions"]["code"] == "invalid_input"
    assert answer["errors"][0]["extensions"]["field"] == "k"


def test_search_route_answers_in_the_envelope(app):
    http, _ = app
    auth = {"Authorization": "Bearer lead-token-0123456789"}
    answer = http.post("/v1/search", json={"query": "Peter Marrakesh", "limit": 3, "since": "2025"},
                       headers=auth).json()
    assert answer["ok"] and answer["meta"]["count"] == len(answer["items"]) <= 3
    assert answer["meta"]["ranking"].startswith("hybrid") and answer["meta"]["filters"] == {"since": "2025"}
    assert {"id", "refs", "event_ids", "score", "parts", "content"} <= set(answer["items"][0])
    bad = http.post("/v1/search", json={"limit": 3}, headers=auth)
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "query"
    unknown = http.post("/v1/search", json={"query": "x", "colour": "red"}, headers=auth)
    assert unknown.status_code == 400 and unknown.json()["error"]["field"] == "colour"
