"""Snapshots, resume packs and sessions over GraphQL: the same Memory calls, access rules first."""

import pytest

from graphmem.api import AccessPolicy
from tests.api.conftest import GraphQLClient, sample_memory, serve

CHECKPOINT = """mutation($session: String!, $title: String!, $scope: String!) {
  recordCheckpoint(input: {session: $session, title: $title, content: "All ranking tests pass.", scope: $scope}) {
    __typename
    ... on RecordEventSuccess { status event { kind thread } }
    ... on RecordEventError { code field }
  }
}"""
FINALIZE = """mutation($session: String!) {
  finalizeSession(session: $session) {
    __typename
    ... on RecordEventSuccess { status event { kind content } }
    ... on RecordEventError { code field }
  }
}"""
SNAPSHOT = """query($scopes: [String!], $id: ID) {
  snapshot(scopes: $scopes, snapshotId: $id, limitRecent: 2) { id pinnedMd scopes recentEvents { id } }
}"""


@pytest.fixture
def memory():
    m = sample_memory()
    yield m
    m.close()


def test_checkpoint_then_finalize_then_resume(memory):
    with serve(memory) as http:
        gql = GraphQLClient(http)
        done = gql.data(CHECKPOINT, {"session": "team-log", "title": "Ranking fixed", "scope": "global"})
        assert done["recordCheckpoint"] == {"__typename": "RecordEventSuccess", "status": "created",
                                            "event": {"kind": "checkpoint", "thread": "team-log"}}
        final = gql.data(FINALIZE, {"session": "team-log"})["finalizeSession"]
        assert final["status"] == "created" and final["event"]["kind"] == "summary"
        assert "Checkpoints:\n- 2026-01-01 Ranking fixed" in final["event"]["content"]
        assert gql.data(FINALIZE, {"session": "team-log"})["finalizeSession"]["status"] == "duplicate"
        missing = gql.data(FINALIZE, {"session": "nope"})["finalizeSession"]
        assert missing == {"__typename": "RecordEventError", "code": "not_found", "field": "session"}
        pack = gql.data('{ resumePack(session: "team-log", tokenBudget: 200) { tokens sections markdown } }')
        assert pack["resumePack"]["tokens"] <= 200 and "session" in pack["resumePack"]["sections"]


def test_a_snapshot_id_reads_the_same_snapshot_and_access_is_checked_first(memory):
    policy = AccessPolicy.from_config({"agents": {
        "bob": {"token": "bob-token-0123456789", "read": ["global"], "write": ["global"]},
        "ann": {"token": "ann-token-0123456789", "read": ["global", "project:search"], "write": ["global"]},
    }})
    with serve(memory, policy) as http:
        ann, bob = GraphQLClient(http, "ann-token-0123456789"), GraphQLClient(http, "bob-token-0123456789")
        snap = ann.data(SNAPSHOT, {"scopes": ["global", "project:search"]})["snapshot"]
        assert "decision:search-index" in snap["pinnedMd"]
        memory.record(content="A later event.", occurred_at="2026-02-01")
        assert ann.data(SNAPSHOT, {"id": snap["id"]})["snapshot"] == snap
        refused = bob(SNAPSHOT, {"id": snap["id"]})
        assert refused["data"] is None
        assert refused["errors"][0]["extensions"]["code"] == "forbidden"
        assert refused["errors"][0]["extensions"]["field"] == "snapshot_id"
        own = bob.data(SNAPSHOT)["snapshot"]
        assert own["scopes"] == ["agent:bob", "global"] and "search-index" not in own["pinnedMd"]
        foreign = bob(CHECKPOINT, {"session": "team-log", "title": "x", "scope": "project:search"})
        assert foreign["data"]["recordCheckpoint"]["code"] == "forbidden"
        summary = bob(FINALIZE, {"session": "team-log"})["data"]["finalizeSession"]
        assert summary == {"__typename": "RecordEventError", "code": "forbidden", "field": "session"}


def test_an_entity_page_over_graphql_is_the_memory_page(memory):
    with serve(memory) as http:
        page = GraphQLClient(http).data('{ entity(name: "Peter") { page } }')["entity"]["page"]
    assert page == memory.entity_page("Peter")
    assert "## Current" in page and "Marrakesh" in page


def test_promotion_candidates_over_graphql(memory):
    state = memory.as_of("2026-01-31").states(subject="Peter", predicate="lives_in")[0]
    for day in (1, 2, 3):
        ev = memory.record(content=f"Peter is still in Marrakesh ({day}).", occurred_at=f"2026-01-0{day}")
        memory.confirm_state(state.id, evidence=[ev.id])
    with serve(memory) as http:
        report = GraphQLClient(http).data(
            "{ promotionCandidates { candidates { state { id text } confirmations } heldBack { reason } } }")
    found = report["promotionCandidates"]["candidates"]
    assert [c["state"]["id"] for c in found] == [state.id] and found[0]["confirmations"] == 4
