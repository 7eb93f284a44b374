"""What the GraphQL types show of memory's records, read back over HTTP from a real memory."""

from graphmem import Memory
from graphmem.memory import StateInput
from tests.api.conftest import GraphQLClient, sample_memory, serve
from tests.conftest import FakeClock

STATES = """query($name: String!) { entity(name: $name) { states { predicate object title objectTitle } } }"""


def test_a_state_shows_the_title_its_words_gave_either_side_of_a_tie():
    with Memory.in_memory(clock=FakeClock(), embedder="none") as memory:
        for text in ("Peter's sister Anna moved to Lisbon.", "Peter: my colleague Tom joined Acme.",
                     "Peter adopted a pup named Ned."):
            memory.record(content=text, occurred_at="2025-11-27")
        # a plan's payload may hold anything under these keys: only a word is shown
        odd = StateInput(subject="Peter", predicate="knows", object="Kim", payload={"title": 3})
        memory.assert_states([odd])
        with serve(memory) as http:
            ask = GraphQLClient(http)
            states = {name: ask.data(STATES, {"name": name})["entity"]["states"]
                      for name in ("Anna", "Tom", "Peter")}
    sister = {"predicate": "family_of", "object": "Peter", "title": "sister", "objectTitle": None}
    colleague = {"predicate": "knows", "object": "Peter", "title": "colleague", "objectTitle": None}
    assert sister in states["Anna"]
    assert colleague in states["Tom"]
    # a tie both have is each one's, told from their side: Anna is Peter's sister, Tom his colleague
    assert sorted(states["Peter"], key=lambda s: s["object"]) == [
        {"predicate": "family_of", "object": "Anna", "title": None, "objectTitle": "sister"},
        {"predicate": "knows", "object": "Kim", "title": None, "objectTitle": None},
        {"predicate": "owns", "object": "Ned", "title": None, "objectTitle": "pup"},
        {"predicate": "knows", "object": "Tom", "title": None, "objectTitle": "colleague"}]
    assert {"predicate": "lives_in", "object": "Lisbon", "title": None, "objectTitle": None} in states["Anna"]


def test_a_season_is_read_as_its_months_and_the_answer_says_so():
    """During "last summer": June through August, echoed as one window; as of it: by its end (August)."""
    memory = sample_memory()
    try:
        with serve(memory) as http:
            ask = GraphQLClient(http)
            during = ask.data('{ during(period: "last summer", relativeTo: "2025-11-27", entity: "Peter") { '
                              "period { label start end } states { predicate object throughout } } }"
                              )["during"]
            as_of = ask.data('{ asOf(at: "last summer", relativeTo: "2025-11-27", entity: "Peter") { '
                             "period { label } states { object } } }")["asOf"]
            ranged = ask.data('{ during(period: "between May and July 2024") { period { label } } }'
                              )["during"]
    finally:
        memory.close()
    assert during["period"] == {"label": "2025-06/2025-08", "start": "2025-06-01T00:00:00+00:00",
                                "end": "2025-09-01T00:00:00+00:00"}
    assert {"predicate": "lives_in", "object": "Berlin", "throughout": True} in during["states"]
    assert as_of["period"]["label"] == "2025-08" and "Berlin" in [s["object"] for s in as_of["states"]]
    assert ranged["period"]["label"] == "2024-05/2024-07"
