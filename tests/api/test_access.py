"""Who sees and writes what: every token x scope x private x operation, against a plainly written oracle."""

import hashlib
import itertools
import json

import pytest

from graphmem import Memory
from graphmem.api import AccessPolicy
from graphmem.errors import InvalidInput, NotFound
from tests.api.conftest import GraphQLClient, serve
from tests.conftest import FakeClock

TOKENS = {name: f"token-of-{name}-0123456789" for name in ("alice", "bob", "overseer", "carol")}
CONFIG = {
    "roles": {"supervisor": {"read": ["project:apollo", "project:hermes"], "private": ["project:apollo"]}},
    "agents": {
        "alice": {"token": TOKENS["alice"], "read": ["global", "project:apollo"],
                  "write": ["global", "project:apollo"]},
        "bob": {"token": TOKENS["bob"], "read": ["global"], "write": ["global"]},
        "overseer": {"token": TOKENS["overseer"], "roles": ["supervisor"]},
        "carol": {"token_sha256": hashlib.sha256(TOKENS["carol"].encode()).hexdigest(),
                  "read": ["project:hermes"], "write": ["project:hermes"]},
    },
}
# the oracle: exactly what each agent may read, write, and read privately
READ = {
    "alice": {"global", "project:apollo", "agent:alice"},
    "bob": {"global", "agent:bob"},
    "overseer": {"project:apollo", "project:hermes", "agent:overseer"},
    "carol": {"project:hermes", "agent:carol"},
}
WRITE = {
    "alice": {"global", "project:apollo", "agent:alice"},
    "bob": {"global", "agent:bob"},
    "overseer": {"agent:overseer"},
    "carol": {"project:hermes", "agent:carol"},
}
PRIVATE = {"alice": {"agent:alice"}, "bob": {"agent:bob"}, "overseer": {"project:apollo", "agent:overseer"},
           "carol": {"agent:carol"}}
SCOPES = ["global", "project:apollo", "project:hermes", "agent:alice", "agent:bob", "agent:carol"]
ITEMS = [(scope, private) for scope in SCOPES for private in (False, True)]


def label(scope, private):
    return f"{scope} {'private' if private else 'normal'}"


def expected(agent, include_private):
    return {label(s, p) for s, p in ITEMS
            if s in READ[agent] and (not p or (include_private and s in PRIVATE[agent]))}


@pytest.fixture(scope="module")
def world():
    memory = Memory.in_memory(clock=FakeClock(), extract=False)
    for i, (scope, private) in enumerate(ITEMS):
        ev = memory.record(content=f"note {label(scope, private)}", occurred_at=f"2025-11-{i + 1:02d}",
                           scope=scope, privacy=["private"] if private else [], entities=[f"thing {i}"])
        memory.assert_state(subject=f"thing {i}", predicate="status", object=label(scope, private),
                            valid_from="2025-11-01", scope=scope, private=private, evidence=[ev.id])
    policy = AccessPolicy.from_config(CONFIG)
    with serve(memory, policy) as http:
        yield memory, GraphQLClient(http)
    memory.close()


AGENTS = sorted(TOKENS)


@pytest.mark.parametrize("agent,include_private", list(itertools.product(AGENTS, [False, True])))
def test_events_states_and_get_show_exactly_what_the_token_allows(world, agent, include_private):
    memory, gql = world
    client = gql.as_(TOKENS[agent])
    want = expected(agent, include_private)
    events = client.data("query($p: Boolean!) { events(first: 100, includePrivate: $p) { nodes { content } } }",
                         {"p": include_private})["events"]["nodes"]
    assert {e["content"].removeprefix("note ") for e in events} == want
    states = client.data("query($p: Boolean!) { asOf(at: \"2025-12\", includePrivate: $p) { states { object "
                         "evidence { event { content } } } } }", {"p": include_private})["asOf"]["states"]
    assert {s["object"] for s in states} == want
    for s in states:  # evidence never shows an event the caller could not read directly
        assert {e["event"]["content"].removeprefix("note ") for e in s["evidence"]} <= want
    every_id = [e.id for e in memory.events(limit=100, include_private=True)]
    got = client.data("query($ids: [ID!]!, $p: Boolean!) { get(ids: $ids, includePrivate: $p) { content } }",
                      {"ids": every_id, "p": include_private})["get"]
    assert {e["content"].removeprefix("note ") for e in got} == want


@pytest.mark.parametrize("agent", AGENTS)
def test_entities_exist_only_for_callers_who_can_see_something_about_them(world, agent):
    _, gql = world
    client = gql.as_(TOKENS[agent])
    for i, (scope, private) in enumerate(ITEMS):
        body = client('query($n: String!) { entity(name: $n) { name } }', {"n": f"thing {i}"})
        visible = scope in READ[agent] and (not private or scope in PRIVATE[agent])
        if visible:
            assert body["data"]["entity"]["name"] == f"thing {i}"
        else:
            assert body["errors"][0]["extensions"]["code"] == "not_found", (agent, scope, private)


@pytest.mark.parametrize("agent,scope", list(itertools.product(AGENTS, SCOPES)))
def test_record_event_writes_exactly_the_allowed_scopes(world, agent, scope):
    memory, gql = world
    before = memory.stats().events
    result = gql.as_(TOKENS[agent]).data(
        "mutation($i: RecordEventInput!) { recordEvent(input: $i) { __typename "
        "... on RecordEventSuccess { status event { agentId } } ... on RecordEventError { code field } } }",
        {"i": {"content": f"{agent} writes to {scope}", "scope": scope, "occurredAt": "2025-12-01"}},
    )["recordEvent"]
    if scope in WRITE[agent]:
        assert result["__typename"] == "RecordEventSuccess"
        assert result["event"]["agentId"] == agent  # recorded under the token's agent
        assert memory.stats().events == before + 1
    else:
        assert result == {"__typename": "RecordEventError", "code": "forbidden", "field": "input.scope"}
        assert memory.stats().events == before


def test_a_public_note_with_a_private_ones_key_and_text_is_stored_and_names_no_private_event():
    memory = Memory.in_memory(clock=FakeClock(), extract=False)
    record = ("mutation($i: RecordEventInput!) { recordEvent(input: $i) { ... on RecordEventSuccess { status id } "
              "... on RecordEventError { code } } }")
    note = {"content": "Rotate the deploy key on Fridays.", "scope": "global", "dedupeKey": "deploy-key"}
    with serve(memory, AccessPolicy.from_config(CONFIG)) as http:
        gql = GraphQLClient(http)
        private = gql.as_(TOKENS["alice"]).data(record, {"i": {**note, "privacy": ["private"]}})["recordEvent"]
        bob = gql.as_(TOKENS["bob"])
        public = bob.data(record, {"i": note})["recordEvent"]
        again = bob.data(record, {"i": note})["recordEvent"]
        seen = bob.data("{ events(first: 10) { nodes { id content } } }")["events"]["nodes"]
    memory.close()
    assert private["status"] == public["status"] == "created" and public["id"] != private["id"]
    assert again == {"status": "duplicate", "id": public["id"]}
    assert seen == [{"id": public["id"], "content": note["content"]}]


class _GatedEmbedder:
    """Embeds only once its gate opens: what is written meanwhile waits for its vectors."""

    name, dim = "gated", 4

    def __init__(self):
        import threading

        self.gate = threading.Event()

    def embed(self, texts):
        import numpy as np

        self.gate.wait()
        return np.ones((len(texts), self.dim), np.float32) / 2


def test_documents_waiting_for_vectors_are_counted_in_the_callers_view_only():
    embedder = _GatedEmbedder()
    memory = Memory.in_memory(clock=FakeClock(), extract=False, embedder=embedder)
    for i, (scope, private) in enumerate(ITEMS):
        memory.record(content=f"note {label(scope, private)}", occurred_at=f"2025-11-{i + 1:02d}", scope=scope,
                      privacy=["private"] if private else [])
    lag = {}
    with serve(memory, AccessPolicy.from_config(CONFIG)) as http:
        gql = GraphQLClient(http)
        for agent in AGENTS:
            client = gql.as_(TOKENS[agent])
            lag[agent] = (client.data("{ health { vectorLag } }")["health"]["vectorLag"],
                          client.data("{ recall(query: \"note\") { vectorLag } }")["recall"]["vectorLag"],
                          client.data("{ recall(query: \"note\", includePrivate: true) { vectorLag } }")
                          ["recall"]["vectorLag"])
        anonymous = http.get("/health").json()["vector_lag"]
        embedder.gate.set()
    memory.close()
    assert lag == {agent: (len(expected(agent, True)), len(expected(agent, False)), len(expected(agent, True)))
                   for agent in AGENTS}
    assert anonymous == 0


SHARED = ["global", "project:apollo", "project:hermes"]


@pytest.mark.parametrize("agent,scope", list(itertools.product(AGENTS, SHARED)))
def test_assert_state_writes_exactly_the_allowed_scopes(world, agent, scope):
    memory, gql = world
    before = memory.stats().states
    result = gql.as_(TOKENS[agent]).data(
        "mutation($i: AssertStateInput!) { assertState(input: $i) { __typename ... on AssertStateError { code } } }",
        {"i": {"subject": f"{agent}-{scope}", "predicate": "status", "object": "set", "scope": scope}},
    )["assertState"]
    allowed = scope in WRITE[agent]
    assert result["__typename"] == ("StateSuccess" if allowed else "AssertStateError")
    assert memory.stats().states == before + (1 if allowed else 0)


def test_closing_a_state_needs_write_access_to_its_scope(world):
    memory, gql = world
    apollo = next(s for s in memory.as_of("2025-12").states(scopes=["project:apollo"]))
    query = ("mutation($i: CloseStateInput!) { closeState(input: $i) { __typename "
             "... on CloseStateError { code } } }")
    variables = {"i": {"id": apollo.id, "at": "2025-12-15"}}
    assert gql.as_(TOKENS["bob"]).data(query, variables)["closeState"]["code"] == "not_found"  # cannot even see it
    assert gql.as_(TOKENS["overseer"]).data(query, variables)["closeState"]["code"] == "forbidden"  # reads only
    assert memory.state(apollo.id).valid.end is None


def test_a_token_cannot_write_as_another_agent(world):
    memory, gql = world
    before = memory.stats().events
    result = gql.as_(TOKENS["alice"]).data(
        "mutation { recordEvent(input: {content: \"spoof\", agentId: \"bob\"}) { __typename "
        "... on RecordEventError { code field } } }"
    )["recordEvent"]
    assert result == {"__typename": "RecordEventError", "code": "forbidden", "field": "input.agentId"}
    assert memory.stats().events == before


CITING = {  # mutations that point at an event by id, with the answer's fields that tell how it went
    "evidence": "mutation($e: ID!) { assertState(input: {subject: \"x\", predicate: \"status\", object: \"y\", "
                "evidence: [$e]}) { __typename ... on AssertStateError { code field message } } }",
    "supersedes": "mutation($e: ID!) { recordEvent(input: {content: \"a correction\", supersedes: $e}) "
                  "{ __typename ... on RecordEventError { code field message } } }",
    "links": "mutation($e: ID!) { recordEvent(input: {content: \"a reply\", links: [{label: \"reply_to\", "
             "to: [$e]}]}) { __typename ... on RecordEventError { code field message } } }",
    "batch": "mutation($e: ID!) { recordEvents(input: {events: [{content: \"first\"}, {content: \"second\", "
             "supersedes: $e}]}) { __typename ... on RecordEventsError { code field message } } }",
    "weighed": "mutation($e: ID!, $o: ID!) { weighOpinion(input: {opinionId: $o, eventId: $e}) "
               "{ __typename ... on OpinionError { code field message } } }",
    "preference": "mutation($e: ID!) { updatePreference(input: {op: \"confirm\", subject: \"tea\", "
                  "polarity: \"like\", evidence: [$e]}) "
                  "{ __typename ... on UpdatePreferenceError { code field message } } }",
}


@pytest.mark.parametrize("mutation", sorted(CITING))
def test_citing_an_event_the_writer_cannot_read_answers_as_citing_none(world, mutation):
    """Evidence, supersedes and links may point only at events the writer can read; one it cannot is reported
    exactly as an id nothing has, so a write never tells whether an event exists where the writer cannot look."""
    memory, gql = world
    secret = next(e for e in memory.events(limit=100, include_private=True) if e.scope == "agent:bob")
    missing = "ev_" + "0" * 24
    opinion = memory.hold_opinion("the plan holds", scope="global").id
    client = gql.as_(TOKENS["alice"])
    before = (memory.stats().events, memory.stats().states)
    hidden = client(CITING[mutation], {"e": secret.id, "o": opinion})
    absent = client(CITING[mutation], {"e": missing, "o": opinion})
    answer = next(iter(hidden["data"].values()))
    assert answer["code"] == "not_found" and answer["message"].startswith(f"no event {secret.id!r}"), answer
    assert json.dumps(hidden).replace(secret.id, missing) == json.dumps(absent)
    assert (memory.stats().events, memory.stats().states) == before
    readable = next(e for e in memory.events(limit=100) if e.scope == "global")  # and a readable one is cited
    cited = next(iter(client(CITING[mutation], {"e": readable.id, "o": opinion})["data"].values()))
    assert "Error" not in cited["__typename"], cited


@pytest.mark.parametrize("header", [None, "Bearer nope-not-a-token-at-all", "Basic abc"])
def test_requests_without_a_valid_token_are_refused(world, header):
    _, gql = world
    headers = {"Authorization": header} if header else {}
    response = gql.http.post("/graphql", json={"query": "{ stats { events } }"}, headers=headers)
    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == "forbidden"


def test_health_is_public_but_counts_need_a_token(world):
    _, gql = world
    assert "stats" not in gql.http.get("/health").json()
    with_token = gql.http.get("/health", headers={"Authorization": f"Bearer {TOKENS['bob']}"}).json()
    assert with_token["stats"]["events"] > 0 and with_token["auth"] is True


PLAN = ('mutation($e: ID!, $p: JSON!) { applyWritePlan(input: {eventId: $e, plan: $p}) { __typename '
        '... on ApplyWritePlanSuccess { states { id object } } '
        '... on ApplyWritePlanError { code field message problems { field message } } } }')


def test_a_plan_names_only_states_and_events_the_token_may_see():
    """A write plan on a token's own event that names a state or links to an event of a scope it may not
    read is answered exactly as one naming an id nothing has, and changes nothing: it had closed another
    agent's project state, and its answer showed it."""
    memory = Memory.in_memory(clock=FakeClock(), extract=False)
    own = memory.record(content="bob's note", occurred_at="2025-11-20", scope="global", agent_id="bob")
    hidden_state = memory.assert_state("Peter", "lives_in", "Oslo", valid_from="2025-11-01",
                                       scope="project:hermes")
    hidden_event = memory.record(content="carol's note", scope="project:hermes", agent_id="carol")
    plans = {
        "close": lambda i: {"state_updates": [{"kind": "fact", "op": "close", "state_id": i, "reason": "r",
                                               "evidence_event_ids": [own.id]}]},
        "link": lambda i: {"context_updates": {"links": [{"label": "reply_to", "to_event_id": i}]}},
    }
    with serve(memory, AccessPolicy.from_config(CONFIG)) as http:
        client = GraphQLClient(http).as_(TOKENS["bob"])
        for kind, hidden, missing in (("close", hidden_state.id, "st_" + "0" * 24),
                                      ("link", hidden_event.id, "ev_" + "0" * 24)):
            before = memory.stats()
            answer = client(PLAN, {"e": own.id, "p": plans[kind](hidden)})["data"]["applyWritePlan"]
            absent = client(PLAN, {"e": own.id, "p": plans[kind](missing)})["data"]["applyWritePlan"]
            assert answer["code"] == "invalid_input", answer
            assert json.dumps(answer).replace(hidden, missing) == json.dumps(absent), kind
            assert memory.stats() == before and memory.state(hidden_state.id).valid.end is None
    memory.close()


PRIVATE_WRITES = {
    "assertState": 'mutation($s: String!) { assertState(input: {subject: "Peter", predicate: "lives_in", '
                   'object: "Lisbon", validFrom: "2025-10-01", scope: $s, private: true}) { __typename '
                   '... on StateSuccess { state { id object } } '
                   '... on AssertStateError { code field message } } }',
    "holdOpinion": 'mutation($s: String!) { holdOpinion(input: {statement: "Peter should stay", '
                   'about: ["Peter"], confidence: 0.4, scope: $s, private: true}) { __typename '
                   '... on OpinionSuccess { opinion { id about confidence } } '
                   '... on OpinionError { code field message } } }',
}


@pytest.mark.parametrize("mutation", sorted(PRIVATE_WRITES))
def test_a_private_state_is_written_only_by_a_token_that_reads_the_scopes_private_items(mutation):
    """A private state joins its scope's private timeline (held again, restated, superseded), and the answer
    shows what that timeline holds: a token that may write a scope but not read its private items is
    refused, naming the field, and nothing is written; the others see their write."""
    memory = Memory.in_memory(clock=FakeClock(), extract=False)
    scopes = sorted({*SCOPES, "agent:overseer"})
    for scope in scopes:  # what the scope's private timeline holds already
        memory.assert_state("Peter", "lives_in", f"Porto of {scope}", valid_from="2025-06-01", scope=scope,
                            private=True)
        memory.hold_opinion("Peter should stay", about=["Peter", f"someone of {scope}"], confidence=0.9,
                            scope=scope, private=True)
    with serve(memory, AccessPolicy.from_config(CONFIG)) as http:
        gql = GraphQLClient(http)
        for agent, scope in itertools.product(AGENTS, scopes):
            before = memory.stats()
            data = gql.as_(TOKENS[agent])(PRIVATE_WRITES[mutation], {"s": scope})["data"]
            answer = next(iter(data.values()))
            if scope not in WRITE[agent] or scope not in PRIVATE[agent]:
                assert answer["__typename"].endswith("Error"), (agent, scope, answer)
                assert answer["code"] == "forbidden", (agent, scope, answer)
                assert answer["field"] == "input.scope" and memory.stats() == before
            else:
                assert not answer["__typename"].endswith("Error"), (agent, scope, answer)
                written = memory.state((answer.get("state") or answer.get("opinion"))["id"])
                assert (written.scope, written.visibility.value) == (scope, "private")
                if mutation == "holdOpinion":  # held again: the scope's private opinion, and only that one
                    assert f"someone of {scope}" in answer["opinion"]["about"], answer
                    assert sum("someone of" in name for name in answer["opinion"]["about"]) == 1, answer
    memory.close()


RECORD = ("mutation($i: RecordEventInput!) { recordEvent(input: $i) { __typename "
          "... on RecordEventSuccess { status extractedStates } ... on RecordEventError { code field } } }")


def test_a_private_event_read_for_states_is_recorded_only_by_a_token_that_reads_the_scopes_private_items():
    """What a private event's text states joins the scope's private timeline, as a private state does: a
    token that may write the scope but not read its private items is refused, naming the field, and nothing
    is written, unless it records the event unread (extract false); over the shared-memory protocol too."""
    memory = Memory.in_memory(clock=FakeClock())  # (text is read)
    with serve(memory, AccessPolicy.from_config(CONFIG)) as http:
        gql = GraphQLClient(http)
        for n, (agent, scope) in enumerate(itertools.product(AGENTS, sorted({*SCOPES, "agent:overseer"}))):
            if scope not in WRITE[agent]:
                continue
            item = {"content": f"Peter moved to Lisbon. ({n})", "scope": scope, "privacy": ["private"],
                    "occurredAt": "2025-12-01"}
            before = memory.stats()
            answer = gql.as_(TOKENS[agent]).data(RECORD, {"i": item})["recordEvent"]
            if scope in PRIVATE[agent]:
                assert answer == {"__typename": "RecordEventSuccess", "status": "created", "extractedStates": 1}
                continue
            assert answer == {"__typename": "RecordEventError", "code": "forbidden", "field": "input.extract"}
            assert memory.stats() == before, (agent, scope)
            unread = gql.as_(TOKENS[agent]).data(RECORD, {"i": {**item, "extract": False}})["recordEvent"]
            assert unread == {"__typename": "RecordEventSuccess", "status": "created", "extractedStates": 0}
            assert (memory.stats().events, memory.stats().states) == (before.events + 1, before.states)
            public = gql.as_(TOKENS[agent]).data(RECORD, {"i": {**item, "privacy": []}})["recordEvent"]
            assert public["__typename"] == "RecordEventSuccess", public
        before = memory.stats()
        auth = {"Authorization": f"Bearer {TOKENS['alice']}"}
        refused = http.post("/v1/memory/append", headers=auth, json={
            "content_md": "Peter moved to Porto.", "scope": "global", "privacy": ["sensitive"]})
        assert (refused.status_code, refused.json()["error"]["field"]) == (403, "privacy")
        assert memory.stats() == before
    memory.close()


def test_counts_are_of_what_the_token_may_read():
    """Counts of other scopes would show a token how they change (another agent's activity): ``stats``,
    ``health`` and ``GET /health`` count only what the token may read, private items only where it may."""
    memory = Memory.in_memory(clock=FakeClock(), extract=False)
    for i, (scope, private) in enumerate(ITEMS):  # per item: an event in a thread, naming an entity, a state
        ev = memory.record(content=f"note {label(scope, private)}", occurred_at=f"2025-11-{i + 1:02d}",
                           scope=scope, privacy=["private"] if private else [], entities=[f"thing {i}"],
                           thread=f"talk {i}")
        memory.assert_state(subject=f"thing {i}", predicate="lives_in", object=f"place {i}",
                            valid_from="2025-11-01", scope=scope, private=private, evidence=[ev.id])
        memory.assert_state(subject=f"thing {i}", predicate="lives_in", object=f"elsewhere {i}",
                            valid_from="2025-11-20", scope=scope, private=private, evidence=[ev.id])
    whole = memory.stats()
    each = {"events": 1, "states": 2, "threads": 1, "entities": 3}  # the thing and the places it lived in
    each |= {"state_versions": whole.state_versions // len(ITEMS), "revisions": whole.revisions // len(ITEMS)}
    assert all(getattr(whole, k) == n * len(ITEMS) for k, n in each.items()), whole
    fields = " ".join(sorted(each)).replace("state_versions", "stateVersions")
    with serve(memory, AccessPolicy.from_config(CONFIG)) as http:
        gql = GraphQLClient(http)
        for agent in AGENTS:
            seen = len(expected(agent, include_private=True))
            want = {k.replace("state_versions", "stateVersions"): n * seen for k, n in each.items()}
            client = gql.as_(TOKENS[agent])
            data = client.data(f"{{ stats {{ {fields} }} health {{ stats {{ {fields} }} }} }}")
            assert data["stats"] == data["health"]["stats"] == want, agent
            page = http.get("/health", headers={"Authorization": f"Bearer {TOKENS[agent]}"}).json()
            assert {k.replace("state_versions", "stateVersions"): v for k, v in page["stats"].items()} == want
        # another scope's write leaves a token's counts as they were
        before = gql.as_(TOKENS["bob"]).data(f"{{ stats {{ {fields} }} }}")
        memory.record(content="alice alone", scope="agent:alice", entities=["someone new"], thread="new talk")
        assert gql.as_(TOKENS["bob"]).data(f"{{ stats {{ {fields} }} }}") == before
        memory.record(content="bob's too", scope="global", entities=["someone new"], thread="new talk")
        after = gql.as_(TOKENS["bob"]).data(f"{{ stats {{ {fields} }} }}")["stats"]
        grown = {k: before["stats"][k] + 1 for k in ("events", "entities", "threads")}  # its own write counts
        assert after == {**before["stats"], **grown}
    memory.close()


@pytest.mark.parametrize("config,field", [
    ({"agents": {"eve": {"token": "x" * 20, "read": ["agent:alice"]}}}, "agents.eve.read"),
    ({"agents": {"eve": {"token": "x" * 20, "roles": ["boss"]}}}, "agents.eve.roles"),
    ({"agents": {"eve": {"read": ["global"]}}}, "agents.eve.token"),
    ({"agents": {"eve": {"token": "short"}}}, "agents.eve.token"),
    ({"agents": {"eve": {"token": "x" * 20, "read": ["team"]}}}, "agents.eve.read"),
    ({"agents": {"a": {"token": "x" * 20}, "b": {"token": "x" * 20}}}, "agents.b.token"),
])
def test_bad_token_files_are_refused_with_the_field_named(config, field):
    with pytest.raises(InvalidInput) as err:
        AccessPolicy.from_config(config)
    assert err.value.field == field


@pytest.mark.parametrize("agent", AGENTS)
def test_aliases_and_merges_need_write_access_to_global(world, agent):
    memory, gql = world
    memory.assert_state(f"{agent} one", "status", "set")
    memory.assert_state(f"{agent} two", "status", "set", valid_from="2025-01-01")
    allowed = "global" in WRITE[agent]
    alias = gql.as_(TOKENS[agent]).data(
        "mutation($i: AddAliasInput!) { addAlias(input: $i) { __typename "
        "... on AddAliasSuccess { entity { aliases } } ... on AddAliasError { code field } } }",
        {"i": {"entity": f"{agent} one", "alias": f"{agent} the first"}},
    )["addAlias"]
    merged = gql.as_(TOKENS[agent]).data(
        "mutation($i: MergeEntitiesInput!) { mergeEntities(input: $i) { __typename "
        "... on MergeEntitiesSuccess { entity { name aliases } mergedId movedStates boundedStates } "
        "... on MergeEntitiesError { code field } } }",
        {"i": {"keep": f"{agent} one", "merge": f"{agent} two", "reason": "one thing"}},
    )["mergeEntities"]
    if allowed:
        assert alias["entity"]["aliases"] == [f"{agent} the first"]
        assert merged["entity"] == {"name": f"{agent} one", "aliases": [f"{agent} the first", f"{agent} two"]}
        assert merged["mergedId"] == f"{agent}-two" and len(merged["movedStates"]) == 1
        assert len(merged["boundedStates"]) == 1  # two open values of a single-valued predicate became one line
        assert memory.resolve_entity(f"{agent} two") == f"{agent}-one"
    else:
        assert alias == {"__typename": "AddAliasError", "code": "forbidden", "field": "input.entity"}
        assert merged == {"__typename": "MergeEntitiesError", "code": "forbidden", "field": "input.keep"}
        assert memory.resolve_entity(f"{agent} two") == f"{agent}-two"
        assert memory.entity(f"{agent} one").aliases == ()


def test_a_merge_that_cannot_happen_names_the_field(world):
    _, gql = world
    result = gql.as_(TOKENS["alice"]).data(
        'mutation { mergeEntities(input: {keep: "thing 0", merge: "nobody at all"}) { __typename '
        "... on MergeEntitiesError { code field } } }"
    )["mergeEntities"]
    assert result == {"__typename": "MergeEntitiesError", "code": "not_found", "field": "merge"}


ENTITY_WRITES = {
    "alias": ("mutation($a: String!, $b: String!) { addAlias(input: {entity: $a, alias: $b}) { __typename "
              "... on AddAliasError { code field message } } }"),
    "keep": ("mutation($a: String!, $b: String!) { mergeEntities(input: {keep: $a, merge: $b, reason: \"one\"}) "
             "{ __typename ... on MergeEntitiesError { code field message } } }"),
    "merge": ("mutation($a: String!, $b: String!) { mergeEntities(input: {keep: $b, merge: $a, reason: \"one\"}) "
              "{ __typename ... on MergeEntitiesError { code field message } } }"),
}


@pytest.mark.parametrize("write", sorted(ENTITY_WRITES))
def test_an_entity_the_token_cannot_see_cannot_be_merged_or_named_and_answers_as_none(world, write):
    """An entity only other scopes speak of does not exist for a token (see the entity test above): aliasing
    it or merging it, either way round, is answered exactly as naming an entity nothing has, and nothing
    moves. A merge it may make lists only the states it may see."""
    memory, gql = world
    hidden = _hidden_from_alice(memory)
    memory.assert_state("alice's own", "status", "set")
    client = gql.as_(TOKENS["alice"])
    before = [(s.id, s.subject_id, s.object_id) for s in memory.timeline(hidden, include_private=True)]
    answers = [client(ENTITY_WRITES[write], {"a": name, "b": "alice's own"}) for name in (hidden, "nobody at all")]
    assert answers[0]["data"][next(iter(answers[0]["data"]))]["code"] == "not_found", answers[0]
    assert json.dumps(answers[0]).replace(hidden, "nobody at all") == json.dumps(answers[1])
    assert [(s.id, s.subject_id, s.object_id) for s in memory.timeline(hidden, include_private=True)] == before


def test_an_unknown_name_suggests_only_names_of_entities_the_token_can_see(world):
    """A name like "Dan" suggests "Dana" and "Danae" to one who sees both (and to the local user of a memory),
    "Dana" alone to one who sees nothing of Danae: whether asked for the entity, for what held of it, or to
    alias it."""
    memory, gql = world
    memory.assert_state("Danae", "status", "kept", valid_from="2031-01-01", scope="agent:bob")
    memory.assert_state("Dana", "status", "seen", valid_from="2031-01-01", scope="global")
    asks = {
        "entity": ("query { entity(name: \"Dan\") { name } }", lambda a: a["errors"][0]),
        "asOf": ("query { asOf(at: \"2031\", entity: \"Dan\") { states { object } } }",
                 lambda a: a["errors"][0]),
        "alias": ("mutation { addAlias(input: {entity: \"Dan\", alias: \"D\"}) { "
                  "... on AddAliasError { message } } }", lambda a: a["data"]["addAlias"]),
    }
    for agent, names in (("alice", ["Dana"]), ("bob", ["Dana", "Danae"])):
        for ask, (query, error) in asks.items():
            message = error(gql.as_(TOKENS[agent])(query))["message"]
            said = sorted(n for n in ("Dana", "Danae") if f"'{n}'" in message)
            assert said == names, (agent, ask, message)
    with pytest.raises(NotFound) as raised:
        memory.entity("Dan")
    assert [name for _, name in raised.value.suggestions] == ["Dana", "Danae"]
    # asked outright: the entity so called first, then those like it, as far as the token sees
    like = 'query($n: String!) { entitiesLike(name: $n) { name } }'
    for agent, names in (("alice", ["Dana"]), ("bob", ["Dana", "Danae"])):
        assert [e["name"] for e in gql.as_(TOKENS[agent]).data(like, {"n": "Dana"})["entitiesLike"]] == names
    assert [e["name"] for e in gql.as_(TOKENS["bob"]).data(like, {"n": "Danae"})["entitiesLike"]] == [
        "Danae", "Dana"]
    refused = gql.as_(TOKENS["bob"])('{ entitiesLike(name: "Dan", first: 0) { name } }')
    assert refused["errors"][0]["extensions"] == {"code": "invalid_input", "field": "first"}


def test_a_merge_lists_only_the_states_the_token_may_see(world):
    memory, gql = world
    memory.assert_state("Dana", "status", "seen", scope="global")
    secret = memory.assert_state("Dana", "role", "informant", scope="agent:bob", private=True)
    memory.assert_state("Dana Z", "status", "seen too", valid_from="2025-01-01", scope="global")
    merged = gql.as_(TOKENS["alice"]).data(
        "mutation { mergeEntities(input: {keep: \"Dana Z\", merge: \"Dana\", reason: \"one person\"}) { "
        "... on MergeEntitiesSuccess { movedStates boundedStates } } }")["mergeEntities"]
    assert merged["movedStates"] and secret.id not in merged["movedStates"] + merged["boundedStates"]


def _hidden_from_alice(memory):
    """An entity only bob's scope speaks of, with a name like no other's (so that no name is suggested for it,
    nor for "nobody at all"); its state starts after the dates the other tests ask about."""
    memory.assert_state("Zebediah Quorn", "status", "kept", valid_from="2031-01-01", scope="agent:bob")
    return "Zebediah Quorn"


def test_reading_an_entity_the_token_cannot_see_answers_as_reading_none(world):
    memory, gql = world
    hidden = _hidden_from_alice(memory)
    read = "query($n: String!) { entity(name: $n) { name } }"
    answers = [gql.as_(TOKENS["alice"])(read, {"n": name}) for name in (hidden, "nobody at all")]
    assert answers[0]["errors"][0]["extensions"]["code"] == "not_found"
    assert json.dumps(answers[0]).replace(hidden, "nobody at all") == json.dumps(answers[1])


def test_finalizing_a_session_says_nothing_of_events_the_token_cannot_read(world):
    """A session of which the token sees no event answers as an unknown session; one that also holds events
    it may not read is refused without naming whose they are (before, the refusal named the scope)."""
    memory, gql = world
    memory.record(content="alice alone", scope="agent:alice", thread="alice-only", occurred_at="2025-11-20")
    memory.record(content="hermes part", scope="project:hermes", thread="mixed", occurred_at="2025-11-20")
    memory.record(content="alice part", scope="agent:alice", thread="mixed", occurred_at="2025-11-21")
    finalize = ("mutation($s: String!) { finalizeSession(session: $s) { __typename "
                "... on RecordEventError { code field message } } }")
    carol = gql.as_(TOKENS["carol"])
    before = memory.stats().events
    hidden, unknown = (carol(finalize, {"s": s}) for s in ("alice-only", "no-such-session"))
    assert hidden["data"]["finalizeSession"]["code"] == "not_found"
    assert json.dumps(hidden).replace("alice-only", "no-such-session") == json.dumps(unknown)
    mixed = carol(finalize, {"s": "mixed"})["data"]["finalizeSession"]
    assert mixed["code"] == "forbidden" and "alice" not in mixed["message"]
    assert memory.stats().events == before
    assert gql.as_(TOKENS["alice"])(finalize, {"s": "alice-only"})["data"]["finalizeSession"]["__typename"] == (
        "RecordEventSuccess")


def test_marking_a_task_done_needs_write_access_and_a_task(world):
    memory, gql = world
    apollo = next(s for s in memory.as_of("2025-12").states(scopes=["project:apollo"]))
    query = ("mutation($i: MarkDoneInput!) { markDone(input: $i) { __typename "
             "... on StateSuccess { state { status } } ... on MarkDoneError { code field message } } }")
    variables = {"i": {"id": apollo.id, "at": "2025-12-15"}}
    assert gql.as_(TOKENS["bob"]).data(query, variables)["markDone"]["code"] == "not_found"  # cannot see it
    assert gql.as_(TOKENS["overseer"]).data(query, variables)["markDone"]["code"] == "forbidden"  # reads only
    refused = gql.as_(TOKENS["alice"]).data(query, variables)["markDone"]  # (a fact: closed, not done)
    assert (refused["code"], refused["field"]) == ("invalid_input", "input.id")
    assert "close it" in refused["message"]
    malformed = gql.as_(TOKENS["alice"]).data(query, {"i": {"id": apollo.id, "at": "2025-13-45"}})["markDone"]
    assert (malformed["code"], malformed["field"]) == ("malformed_time", "input.at")
    assert memory.state(apollo.id).valid.end is None
