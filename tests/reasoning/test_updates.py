import datetime as dt
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import InvalidInput, Memory, StateInput
from graphmem.reasoning import resolve_timeline
from graphmem.reasoning.updates import _assertion, held_assertions
from graphmem.store.port import StateQuery

from tests.conftest import FakeClock, knows


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


def _overlapping(states):
    """Pairs of states of one single-valued timeline that hold at once (an empty interval holds nowhere)."""
    def key(s):
        return s.valid.start.at, s.valid.end.at if s.valid.end else dt.datetime.max.replace(tzinfo=dt.UTC)
    ordered = sorted(states, key=key)
    return [(a.object, b.object) for a, b in zip(ordered, ordered[1:], strict=False)
            if a.valid.end is None or a.valid.end.at > b.valid.start.at]


def test_values_of_one_start_written_together_keep_their_order_in_later_writes(clock):
    """Two values with the same start in one write: the later one wins (the other ends where it starts). That
    order is not stored; a later write that ordered them by id could re-resolve only the first and leave
    both open (after eight agents recorded 2,400 events at once, 2 of 26 timelines held two open values)."""
    orgs = ["Globex", "Acme Inc", "Initech", "Umbrella Labs"]
    for trial in range(60):
        r = random.Random(trial)
        with Memory.in_memory(clock=clock, extract=False, embedder="none") as mem:
            for _ in range(r.randint(2, 4)):
                mem.assert_states([StateInput(subject="Peter", predicate="works_at", object=r.choice(orgs),
                                              valid_from=r.choice(["2024-03", "2025-03"]))
                                   for _ in range(r.randint(1, 3))])
            if r.random() < 0.3:  # a retraction or a close re-resolves the whole timeline
                held = mem.timeline("Peter", "works_at")
                mem.retract_state(r.choice(held).id, reason="wrong")
            timeline = mem.timeline("Peter", "works_at")
            assert not _overlapping(timeline), trial
            subject = mem.resolve_entity("Peter")
            current = mem.store.states(StateQuery(subject_id=subject, predicate="works_at",
                                                  include_private=True))
            whole = resolve_timeline(held_assertions(current), single_valued=True)
            assert all(whole[s.id].valid_to == s.valid.end for s in current), trial


def test_two_new_states_alike_but_for_their_end_get_ids_of_their_own(clock):
    """With one id the engine refused the write after it was acknowledged (and again at each reopen)."""
    with Memory.in_memory(clock=clock, extract=False, embedder="none") as mem:
        oslo = {"subject": "Ann", "predicate": "lives_in", "object": "Oslo", "valid_from": "2020-01-04"}
        made = mem.assert_states([StateInput(**oslo), StateInput(**oslo, valid_to="2020-01-05")])
        assert len({s.id for s in made}) == 2
        mem.store.settle()  # applied: no write failed
        assert sorted(s.id for s in mem.timeline("Ann", "lives_in")) == sorted(s.id for s in made)
        # and of values with one start written together, the ids follow the write's order (see _new_state)
        values = [StateInput(subject="Bob", predicate="lives_in", object=f"Town {i}", valid_from="2021")
                  for i in range(6)]
        ids = [s.id for s in mem.assert_states(values)]
        assert ids == sorted(ids)


_STARTS = [None, "2018", "2019", "2018-Q2", "2018-03", "2018-12", "2019-01", "2018-03-06", "2018-12-30",
           "2019-01-02", "2018-03-06T10:00:00Z", "2018-12-31T23:00:00Z", "2017-06"]
_ENDS = [None, None, None, "2018-04", "2019-06-01", "2020"]


_ONE_START = [None, "2018", "2018-01", "2018-01-01", "2018-01-01T00:00:00Z", "2019"]  # (2018-01-01, 4 ways)


def _writes(starts=_STARTS, most=12):
    city = st.sampled_from(["Oslo", "Rome", "Lima"])
    state = st.tuples(city, st.sampled_from(starts), st.sampled_from(_ENDS), st.just("assert"))
    ends = st.sampled_from(_ENDS[3:] + ["2018-12-31T23:00:00Z"])
    close = st.tuples(city, st.just(None), ends, st.just("close"))
    write = st.lists(st.one_of(state, state, close), min_size=1, max_size=3)
    retract = st.tuples(st.integers(0, 40)).map(lambda pick: [("", None, None, f"retract {pick[0]}")])
    return st.lists(st.one_of(write, write, write, retract), min_size=1, max_size=most)


def _written(writes, *, window):
    """Each write of (city, start, end, assert or close) about Peter's lives_in, or the retraction of one
    of the states it holds; the timeline's versions after, each of its states ended where the timeline
    resolved as a whole ends it."""
    from graphmem.store import kuzu_store

    with pytest.MonkeyPatch.context() as patch:
        if not window:
            patch.setattr(kuzu_store, "bearing_on", lambda timeline, starts, start_of: timeline)
            patch.setattr(kuzu_store, "without_buried", lambda part, start_of, stated, before: part)
        with Memory.in_memory(clock=FakeClock(), extract=False, embedder="none") as mem:
            for write in writes:
                if write[0][3].startswith("retract"):
                    held = mem.timeline("Peter", "lives_in") if knows(mem, "Peter") else []
                    if held:
                        mem.retract_state(held[int(write[0][3].split()[1]) % len(held)].id, reason="wrong")
                    continue
                inputs = [StateInput(subject="Peter", predicate="lives_in", object=city, valid_from=start,
                                     valid_to=end, action=action) for city, start, end, action in write]
                try:
                    mem.assert_states(inputs)
                except InvalidInput:
                    continue  # (an end before its start, a close of nothing held: refused whole)
            if not knows(mem, "Peter"):
                return []  # (every write refused)
            subject = mem.resolve_entity("Peter")
            current = mem.store.states(StateQuery(subject_id=subject, include_private=True))
            whole = resolve_timeline(held_assertions(current), single_valued=True)
            assert all(whole[s.id].valid_to == s.valid.end for s in current)
            query = StateQuery(subject_id=subject, all_versions=True, include_private=True)
            return sorted((s.id, s.object, str(s.valid.start), str(s.valid.end), s.status.value,
                           s.recorded_at, s.last_confirmed_at) for s in mem.store.states(query))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_writes())
def test_a_write_plans_on_the_part_of_a_timeline_it_can_touch_what_it_plans_on_the_whole(writes):
    """Starts of every granularity, some open, some with an end, several in one write, closes alone and
    beside others: planning on the part ``bearing_on`` picks leaves every version, confirmation and end as
    planning on the whole timeline does."""
    assert _written(writes, window=True) == _written(writes, window=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_writes(_ONE_START))
def test_a_write_among_many_values_of_one_start_plans_on_its_part_what_it_plans_on_the_whole(writes):
    """Many values of one start, given at several granularities (2018, 2018-01, 2018-01-01 and the instant:
    one time, so their ends differ only by granularity), with closes: the part ``bearing_on`` picks, less the
    values buried among others of their start (``without_buried``), is enough there too."""
    assert _written(writes, window=True) == _written(writes, window=False)


@pytest.mark.parametrize("seed", range(6))
def test_values_stated_one_by_one_at_one_start_are_planned_on_without_those_buried(seed):
    """Dozens of values of one start stated one write at a time, as chat states where someone moved "last
    week" again and again, with starts of that time at several granularities, a few of another time, and
    closes: what is written equals what planning on the whole timeline writes, and the values buried among
    the others of their start were left out of the planning reads."""
    from graphmem.store import kuzu_store

    rng = random.Random(seed)
    starts = _ONE_START[1:5] * 4 + ["2019", "2017-06"]
    writes = [[(rng.choice(["Oslo", "Rome", "Lima", "Kyiv"]), rng.choice(starts), None, "assert")]
              if rng.random() < 0.9 else
              [(rng.choice(["Oslo", "Rome"]), None, rng.choice(["2018-02", "2019-06-01"]), "close")]
              for _ in range(40)]
    left_out, buried = [], kuzu_store.without_buried

    def counted(part, start_of, stated, before):
        kept = buried(part, start_of, stated, before)
        left_out.append(len(part) - len(kept))
        return kept

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kuzu_store, "without_buried", counted)
        narrowed = _written(writes, window=True)
    assert narrowed == _written(writes, window=False)
    assert sum(left_out) > 0
