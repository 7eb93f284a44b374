"""What the GraphQL types show of memory's records, read back over HTTP from a real memory."""

from graphmem import Memory
from graphmem.memory import StateInput
from tests.api.conftest import GraphQLClient, serve
from tests.conftest import FakeClock

STATES = """query($name: String!) { entity(name: $name) { states { predicate object title objectTitle } } }"""


def test_a_state_shows_the_title_its_words_gave_either_side_of_a_tie():
    with Memory.in_memory(clock=FakeClock(), embedder="none") as memory:
        for text in ("Peter's sister Anna moved to Lisbon.", "Peter: my colleague Tom joined Acme.",
                     "Peter adopted a pup named Ned."):
            memory.record(content=text, occurred_at="2025-11-27")
        # a plan's payload may hold anything under these keys: only a word is shown
        memory.assert_states([StateInput(subject="Peter", predicate="knows", object="Kim", payload={"title": 3})])
        with serve(memory) as http:
            ask = GraphQLClient(http)
            states = {name: ask.data(STATES, {"name": name})["entity"]["states"] for name in ("Anna", "Tom", "Peter")}
    assert {"predicate": "family_of", "object": "Peter", "title": "sister", "objectTitle": None} in states["Anna"]
    assert {"predicate": "knows", "object": "Peter", "title": "colleague", "objectTitle": None} in states["Tom"]
    assert sorted(states["Peter"], key=lambda s: s["object"]) == [
        {"predicate": "knows", "object": "Kim", "title": None, "objectTitle": None},
        {"predicate": "owns", "object": "Ned", "title": None, "objectTitle": "pup"}]
    assert {"predicate": "lives_in", "object": "Lisbon", "title": None, "objectTitle": None} in states["Anna"]
