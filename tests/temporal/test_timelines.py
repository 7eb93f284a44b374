"""The part of a single-valued timeline a write can touch (the planner's side of it is checked by a property
test in tests/reasoning/test_updates.py: planning on the part writes what planning on the whole does)."""

import datetime as dt

from graphmem.temporal import OPEN_START, Granularity, TimePoint, bearing_on, without_buried


def _start(day: dt.date | None) -> dt.datetime:
    return OPEN_START if day is None else dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


def _point(year: int, month: int = 1, day: int = 1, granularity: Granularity = Granularity.DAY) -> TimePoint:
    return TimePoint(at=dt.datetime(year, month, day, tzinfo=dt.UTC), granularity=granularity)


DAYS = [dt.date(2010, 1, 1) + dt.timedelta(days=3 * i) for i in range(400)]  # 2010-01-01 .. 2013-04-12


def test_a_new_latest_value_touches_the_last_values_only():
    part = bearing_on(DAYS, [_point(2013, 5, 1)], _start)
    assert part == DAYS[-2:]  # the one it follows, and the one before (a value is placed among its start's)


def test_a_value_arriving_late_touches_the_values_up_to_where_its_start_reaches_and_the_next():
    part = bearing_on(DAYS, [_point(2011, 6, 1)], _start)
    # from the one that starts on its day and the one before, to the first that starts after its year
    assert part[0] == dt.date(2011, 5, 29) and part[-1] == dt.date(2012, 1, 3)
    assert len(part) < 80  # of 400


def test_a_coarse_start_reaches_the_values_it_cannot_be_told_apart_from():
    """"2011" is where a state of 2011-06-01 starts too, at the year's granularity: it may restate it."""
    part = bearing_on(DAYS, [_point(2011, granularity=Granularity.YEAR)], _start)
    assert dt.date(2011, 6, 1) in part and dt.date(2011, 12, 31) in part and dt.date(2012, 1, 3) in part
    assert dt.date(2012, 1, 6) not in part


def test_values_of_one_start_come_whole():
    timeline = [dt.date(2020, 1, 1)] * 3 + [dt.date(2021, 1, 1)] * 4 + [dt.date(2022, 1, 1)] * 2
    assert bearing_on(timeline, [_point(2021, 3, 1)], _start) == timeline  # before, at, after: each whole
    assert bearing_on(timeline, [_point(2023, 3, 1)], _start) == timeline[3:]


def test_an_open_start_touches_the_open_starts_and_the_first_that_starts():
    timeline = [None, None, dt.date(2020, 1, 1), dt.date(2020, 1, 1), dt.date(2021, 1, 1)]
    assert bearing_on(timeline, [None], _start) == timeline[:4]
    assert bearing_on([], [None, _point(2020)], _start) == []


def test_several_new_values_touch_one_stretch_from_the_first_to_the_last():
    part = bearing_on(DAYS, [_point(2013, 5, 1), _point(2010, 1, 2)], _start)
    assert part == DAYS  # (one stretch: a state's neighbours are always in it)


# (start, stated at, holds nowhere, retracted) of each value; a value is its own facts
_WEEK, _LATER = dt.datetime(2025, 11, 17), dt.datetime(2025, 12, 1)
_NOW = dt.datetime(2025, 11, 27, 12)


def _stated(hour: int, *, empty: bool = True, retracted: bool = False,
            start: dt.datetime | None = _WEEK) -> tuple:
    return (start, dt.datetime(2025, 11, 27, hour), empty, retracted)


def _start_of(value: tuple) -> object:
    return value[0]


def _facts(value: tuple) -> tuple:
    return value[1:]


def test_the_values_stated_between_the_first_and_the_last_of_one_start_are_left_out():
    group = [_stated(h) for h in (3, 1, 5, 2, 4)] + [_stated(6, empty=False)]
    later = [_stated(7, empty=False, start=_LATER)]
    kept = without_buried(group + later, _start_of, _facts, _NOW)
    assert kept == [_stated(1), _stated(6, empty=False)] + later


def test_a_retracted_value_is_kept_and_counts_neither_as_first_nor_as_last():
    group = [_stated(1, retracted=True), _stated(2), _stated(3), _stated(4, empty=False),
             _stated(5, retracted=True)]
    assert without_buried(group, _start_of, _facts, _NOW) == [group[0], group[1], group[3], group[4]]


def test_nothing_is_left_out_of_a_few_values_of_one_start_open_starts_or_values_stated_from_now_on():
    few = [_stated(1), _stated(2, empty=False)]
    assert without_buried(few, _start_of, _facts, _NOW) == few
    opened = [_stated(h, start=None) for h in (1, 2, 3)]
    assert without_buried(opened, _start_of, _facts, _NOW) == opened
    turned_back = [_stated(1), _stated(2), _stated(13, empty=False)]  # one stated after the write's time
    assert without_buried(turned_back, _start_of, _facts, _NOW) == turned_back


def _buried_plainly(part: list, now: dt.datetime) -> list:
    """without_buried's answer by its definition, group by group read one value at a time."""
    kept: list = []
    for start in dict.fromkeys(v[0] for v in part):
        group = [v for v in part if v[0] == start]
        held = [v[1] for v in group if not v[3]]
        if len(group) < 3 or start is None or not held:
            kept.extend(group)
        elif max(held) >= now:  # (a clock turned back: nothing is left out)
            return part
        else:
            kept.extend(v for v in group if v[3] or not (v[2] and min(held) < v[1] < max(held)))
    return kept


def test_groups_of_one_start_are_found_as_reading_one_value_at_a_time_finds_them():
    import random

    rng = random.Random(5)
    for _ in range(1000):
        days = [None, *(_WEEK + dt.timedelta(days=d) for d in range(6))]
        starts = sorted(rng.sample(days, rng.randint(1, 5)), key=lambda s: (s is not None, s or _WEEK))
        part = [_stated(rng.randint(0, 14), empty=rng.random() < 0.8, retracted=rng.random() < 0.1, start=s)
                for s in starts for _ in range(rng.choice([1, 1, 2, 3, 5, 9]))]
        assert without_buried(part, _start_of, _facts, _NOW) == _buried_plainly(part, _NOW)
