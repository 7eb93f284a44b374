import random

from graphmem import Memory
from graphmem.reasoning import resolve_timeline
from graphmem.reasoning.updates import _assertion
from graphmem.store.port import StateQuery


def test_a_value_added_to_a_long_timeline_changes_only_the_one_it_follows(clock):
    with Memory.in_memory(clock=clock, extract=False, embedder="none") as mem:
        years = list(range(1960, 2020, 2))
        random.Random(3).shuffle(years)  # most arrive late and are split into the timeline
        for year in years:
            mem.assert_state("Peter", "lives_in", f"Town {year}", valid_from=str(year))
        subject = mem.resolve_entity("Peter")
        versions = len(mem.store.states(StateQuery(subject_id=subject, all_versions=True, include_private=True)))

        mem.assert_state("Peter", "lives_in", "Porto", valid_from="1991")

        after = mem.store.states(StateQuery(subject_id=subject, all_versions=True, include_private=True))
        assert len(after) == versions + 2  # the new state, and a new version of 1990's (now ending in 1991)
        timeline = mem.timeline("Peter", "lives_in")
        ends = {s.object: (s.valid.start.at.year, s.valid.end.at.year if s.valid.end else None) for s in timeline}
        assert ends["Town 1990"] == (1990, 1991) and ends["Porto"] == (1991, 1992)
        # and every state ends where resolving the whole timeline again says it does
        current = mem.store.states(StateQuery(subject_id=subject, predicate="lives_in", include_private=True))
        whole = resolve_timeline([_assertion(s) for s in current], single_valued=True)
        assert all(whole[s.id].valid_to == s.valid.end and whole[s.id].status is s.status for s in current)


def test_a_new_state_its_timeline_leaves_as_stated_is_planned_as_it_came_not_copied():
    """A bulk write holds tens of thousands: each copy of one is ~1 KB at the moment the write peaks."""
    import datetime as dt

    from graphmem.ontology import load_ontology
    from graphmem.ontology.models import Interval, State, TimePoint
    from graphmem.reasoning.updates import plan_assert

    now = dt.datetime(2025, 11, 27, tzinfo=dt.UTC)

    def state(city: str, year: int) -> State:
        return State(id=f"st_{city}", kind="relation", subject_id="peter", subject="Peter", predicate="lives_in",
                     object=city, text=f"Peter lives in {city}", recorded_at=now, created_at=now,
                     valid=Interval(start=TimePoint(at=dt.datetime(year, 1, 1, tzinfo=dt.UTC)), end=None))

    lives_in = load_ontology().predicate("lives_in")
    berlin, porto = state("Berlin", 2020), state("Porto", 2024)
    plan = plan_assert([], [(berlin, (), "stated"), (porto, (), "stated")], lives_in, now)
    assert plan.results[1] is porto  # the latest: nothing of it changed
    assert plan.results[0] is not berlin and plan.results[0].valid.end == porto.valid.start  # ended by Porto
