import datetime as dt

from graphmem import Granularity, StateStatus, TimePoint
from graphmem.reasoning import Assertion, resolve_timeline

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def year(n):
    return TimePoint(at=dt.datetime(n, 1, 1, tzinfo=dt.UTC), granularity=Granularity.YEAR)


def a(state_id, start, end=None, created=0):
    return Assertion(state_id, year(start) if start else None, year(end) if end else None,
                     T0 + dt.timedelta(seconds=created))


def test_a_newer_value_closes_the_old_one_at_its_start():
    out = resolve_timeline([a("berlin", 2010), a("paris", 2015)], single_valued=True)
    assert out["berlin"].valid_to == year(2015) and out["berlin"].status is StateStatus.SUPERSEDED
    assert out["paris"].valid_to is None and out["paris"].status is StateStatus.ACTIVE


def test_a_late_older_value_is_split_into_the_timeline():
    out = resolve_timeline([a("a", 2010), a("c", 2015), a("b", 2012, created=5)], single_valued=True)
    assert [out[k].valid_to for k in "abc"] == [year(2012), year(2015), None]


def test_a_stated_end_before_the_successor_leaves_a_gap():
    out = resolve_timeline([a("a", 2010, end=2011), a("b", 2015)], single_valued=True)
    assert out["a"].valid_to == year(2011) and out["a"].status is StateStatus.CLOSED


def test_a_stated_end_after_the_successor_is_cut_at_the_successor():
    out = resolve_timeline([a("a", 2010, end=2020), a("b", 2015)], single_valued=True)
    assert out["a"].valid_to == year(2015) and out["a"].status is StateStatus.SUPERSEDED


def test_same_start_the_later_recorded_wins_and_the_other_keeps_an_empty_interval():
    out = resolve_timeline([a("old", 2015), a("new", 2015, created=1)], single_valued=True)
    assert out["old"].valid_to == year(2015) and out["old"].status is StateStatus.SUPERSEDED
    assert out["new"].status is StateStatus.ACTIVE


def test_open_start_is_bounded_by_its_successor():
    out = resolve_timeline([a("unknown-start", None), a("b", 2015)], single_valued=True)
    assert out["unknown-start"].valid_to == year(2015)


def test_multi_valued_states_never_interact():
    out = resolve_timeline([a("tea", 2010), a("coffee", 2015)], single_valued=False)
    assert out["tea"].valid_to is None and out["coffee"].valid_to is None
