"""The part of a single-valued timeline a write can touch (the planner's side of it is checked by a property
test in tests/reasoning/test_updates.py: planning on the part writes what planning on the whole does)."""

import datetime as dt

from graphmem.temporal import OPEN_START, Granularity, TimePoint, bearing_on


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
