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
