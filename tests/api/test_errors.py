"""Bad input gets a typed error naming the field, never an internal error, never a partial write."""

import pytest

from graphmem import Memory
from graphmem.api.schema import Limits
from tests.api.conftest import GraphQLClient, serve


def codes(body):
    return [e["extensions"]["code"] for e in body.get("errors", [])]


@pytest.mark.parametrize("query,code,field", [
    ('{ entity(name: "Nobody") { name } }', "not_found", "name"),
    ('{ entity { name } }', "invalid_input", "name"),
    ('{ asOf(at: "the day after never") { states { id } } }', "malformed_time", "at"),
    ('{ asOf(at: "from May to July 2024") { states { id } } }', "invalid_input", "at"),
    ('{ during(period: "Nov 2025", predicate: "lives_at") { states { id } } }', "unknown_predicate", "predicate"),
    ('{ events(first: 0) { nodes { id } } }', "invalid_input", "first"),
    ('{ events(first: 5, after: "not-a-cursor") { nodes { id } } }', "invalid_input", "after"),
    ('{ events(kinds: ["gossip"]) { nodes { id } } }', "ontology_error", "kinds"),
    ('{ event(id: "ev_missing") { id } }', "not_found", "id"),
    ('{ thread(key: "nope") { key } }', "not_found", "key"),
    ('{ entity(name: "Peter") { neighbors(depth: 9) { distance } } }', "invalid_input", "depth"),
])
def test_query_errors_carry_code_and_field(gql, query, code, field):
    body = gql(query)
    assert body["errors"][0]["extensions"] == {"code": code, "field": field}, body
    assert "Traceback" not in body["errors"][0]["message"]


@pytest.mark.parametrize("query,code", [
    ("{ entity(name: ", "graphql_parse_failed"),
    ("{ nosuchfield }", "graphql_validation_failed"),
    ('{ entity(name: 3) { name } }', "graphql_validation_failed"),
    # the parser accepts a selection set that selects nothing; the depth limit could not measure one
    ("{}", "graphql_validation_failed"),
    ("query { stats {} }", "graphql_validation_failed"),
    ("fragment f on Query {} { ...f }", "graphql_validation_failed"),
    ("{ stats { ...on Stats {} } }", "graphql_validation_failed"),
])
def test_graphql_errors_are_typed(gql, query, code):
    response = gql.post(query)
    assert response.status_code in (200, 400)
    assert codes(response.json()) == [code]


def test_depth_alias_and_token_limits(gql):
    deep = "{ entity(name: \"Peter\") { " + "neighbors { entity { " * 6 + "name" + " } }" * 6 + " } }"
    assert "depth" in gql.post(deep).json()["errors"][0]["message"]
    aliases = "{ " + " ".join(f"a{i}: stats {{ events }}" for i in range(Limits.MAX_ALIASES + 1)) + " }"
    assert "aliases" in gql.post(aliases).json()["errors"][0]["message"]
    tokens = "{ " + " ".join("stats { events }" for _ in range(Limits.MAX_TOKENS)) + " }"
    assert "tokens" in gql.post(tokens).json()["errors"][0]["message"]


def test_oversized_bodies_are_refused_before_reading(gql):
    response = gql.http.post("/graphql", content=b"x" * 2_000_000, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert codes(response.json()) == ["request_too_large"]


def test_a_batch_with_one_bad_event_writes_nothing(sample):
    before = sample.stats().events
    with serve(sample) as http:
        result = GraphQLClient(http).data(
            "mutation($i: RecordEventsInput!) { recordEvents(input: $i) { __typename "
            "... on RecordEventsError { code field message } } }",
            {"i": {"events": [{"content": "fine one"}, {"content": "bad one", "confidence": 7}]}},
        )["recordEvents"]
    assert result["__typename"] == "RecordEventsError"
    assert result["code"] == "invalid_input" and result["field"] == "[1].confidence"
    assert sample.stats().events == before


def test_mutation_errors_name_the_field(gql):
    result = gql.data('mutation { assertState(input: {subject: "Peter", predicate: "lives_at", object: "Rome"}) '
                      '{ ... on AssertStateError { code field problems { field } } } }')["assertState"]
    assert result["code"] == "unknown_predicate" and result["field"] == "predicate"
    result = gql.data('mutation { retractState(input: {id: "st_missing", reason: "wrong"}) '
                      '{ ... on RetractStateError { code field } } }')["retractState"]
    assert result == {"code": "not_found", "field": "state_id"}


class BrokenStore:
    """A store whose reads fail the way a bug would (not a graphmem error)."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        if name == "stats":
            def fail():
                raise RuntimeError("secret internals /var/lib/db")
            return fail
        return getattr(self._store, name)


def test_unexpected_failures_are_masked_as_internal_errors():
    memory = Memory(BrokenStore(Memory.in_memory(extract=False).store), extract=False)
    with serve(memory) as http:
        body = GraphQLClient(http)("{ stats { events } }")
    assert codes(body) == ["internal_error"]
    assert "secret" not in body["errors"][0]["message"]
