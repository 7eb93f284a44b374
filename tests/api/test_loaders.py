"""Nested fields go through per-request DataLoaders: a page costs a bounded number of store calls."""

import collections
import gc

import pytest

from starlette.testclient import TestClient

from graphmem import Memory
from graphmem.api import create_app
from tests.api.conftest import GraphQLClient, serve
from tests.conftest import FakeClock


class CountingStore:
    """The real store, counting the calls memory makes on it."""

    def __init__(self, store):
        self._store = store
        self.calls = collections.Counter()

    def __getattr__(self, name):
        attr = getattr(self._store, name)
        if not callable(attr):
            return attr

        def counted(*args, **kwargs):
            self.calls[name] += 1
            return attr(*args, **kwargs)

        return counted


def memory_with_states(n):
    real = Memory.in_memory(extract=False).store
    counting = CountingStore(real)
    memory = Memory(counting, clock=FakeClock(), extract=False)
    for i in range(n):
        ev = memory.record(content=f"Person {i} joined Org {i % 7} and likes topic {i}.", occurred_at="2025-10-01",
                           entities=[f"person {i}"])
        memory.assert_state(subject="Team", predicate="member_of", object=f"person {i}", valid_from="2025-10-01",
                            evidence=[ev.id])
    return memory, counting


PAGE = """{ asOf(at: "2025-11") { states { subject { name } objectEntity { name type }
             evidence { stance event { content mentions { name } source { ref } } } } } }"""


@pytest.mark.parametrize("n", [5, 50])
def test_a_page_of_states_costs_the_same_store_calls_whatever_its_size(n):
    memory, counting = memory_with_states(n)
    with serve(memory) as http:
        counting.calls.clear()
        states = GraphQLClient(http).data(PAGE)["asOf"]["states"]
    assert len(states) == n
    assert all(s["evidence"][0]["event"]["mentions"] for s in states)
    calls = dict(counting.calls)
    # one read of states, one of evidence links, one of events, one of mentions, entity loads in a few waves
    assert calls.get("states") == 1
    assert calls.get("evidence_links") == 1
    assert calls.get("events") == 1
    assert calls.get("mentions") == 1
    assert calls.get("entities", 0) <= 3
    assert sum(calls.values()) <= 8, calls
    memory.close()


def test_the_server_warms_memory_before_its_first_request():
    counting = CountingStore(Memory.in_memory(extract=False, embedder="none").store)
    memory = Memory(counting, extract=False)
    assert memory._extractor is None and not counting.calls["warm"]
    with serve(memory) as http:  # the app's start-up has run, no request yet
        assert memory._extractor is not None and counting.calls["warm"] == 1
        assert GraphQLClient(http)('{ recall(query: "Peter in Lisbon") { hits { id } } }')["data"]
    memory.close()


def test_a_server_owning_its_process_leaves_its_start_up_heap_out_of_full_collections():
    memory = Memory.in_memory(extract=False, embedder="none")
    memory.warm()  # (a first pipeline sets the process's modules aside: see allocator.set_aside)
    frozen = gc.get_freeze_count()
    with serve(memory) as http:  # by default the app lives in someone else's process: their heap is theirs
        assert gc.get_freeze_count() <= frozen
    try:
        with TestClient(create_app(memory, freeze_heap=True)) as http:
            assert gc.get_freeze_count() > frozen
            assert GraphQLClient(http)("{ stats { events } }")["data"]["stats"]["events"] == 0
    finally:
        gc.unfreeze()
    memory.close()
