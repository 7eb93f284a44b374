"""Validity intervals and the three time questions: as-of, during, known-at.

A state holds over ``[valid_from, valid_to)``; either end may be open (``None``): an open start means "since
before anything recorded", an open end "still true". Each boundary is a :class:`TimePoint` with its own
granularity, and a question is a point or a period with one too.

**How boundaries compare.** A boundary and a question point are compared at the *coarser* of their two
granularities, both truncated to that granularity's period start:

=====================  ====================  ==========================================================
boundary               question              rule
=====================  ====================  ==========================================================
start 2018 (year)      2018-03-06 (day)      compared as years: 2018 <= 2018, so the state has started
start 2018-07-25 (day)  2018 (year)           compared as years: started; ``as_of("2018")`` is the end of 2018
end 2018 (year)        2018-03-06 (day)      compared as years: 2018 < 2018 is false, so it has ended
end 2018-07-25 (day)   2018 (year)           compared as years: ended within 2018, so not true at its end
end 2025-12-01 (day)   2025-11 (month)       compared as months: 2025-11 < 2025-12, still true
start 2025-Q3 (quarter)  2025-07-02 (day)    compared as quarters: 2025-Q3 <= 2025-Q3, so it has started
instant                instant               exact: ``valid_from <= t < valid_to``
=====================  ====================  ==========================================================

So ``as_of(P)`` for a coarse P answers what was true at the *end* of P: everything that had started by then
(its start known to be no later than P) and not ended by then.

``during(P)`` keeps the states that hold at some point of P: started by the end of P and not ended at P's
first point (P's start at the end boundary's granularity when that is finer). ``throughout`` additionally
requires the state to have started by P's first point and not ended by P's end.

``known_at(t')`` is transaction time: a version of a state counts when ``recorded_at <= t'`` and it was not
replaced or retracted by ``t'``.
"""

from __future__ import annotations

import datetime as dt

from graphmem.ontology.time import UTC, Interval, TimePoint
from graphmem.temporal.points import coarser, format_point, period_end, truncate

__all__ = [
    "format_interval",
    "holds_at",
    "holds_during",
    "holds_throughout",
    "is_empty",
    "known_at",
    "period_of",
    "started_by",
    "not_ended_by",
]


def format_interval(interval: Interval, tz: dt.tzinfo = UTC) -> str:
    """``[2025-11-27, …)``."""
    left = format_point(interval.start, tz) if interval.start else "…"
    right = format_point(interval.end, tz) if interval.end else "…"
    return f"[{left}, {right})"


NEAR_DAYS = 7  # the least span of the part of an open interval next to its bound


def near_bound(interval: Interval, tz: dt.tzinfo = UTC) -> tuple[dt.datetime | None, dt.datetime | None]:
    """The part of an open interval next to its bound, as a question means it: "the weekend before 4 October"
    lies in the days just before it, not at any time before. That part is the period (at the bound's
    granularity, at least ``NEAR_DAYS`` long) just before an end or just from a start; a closed interval, or
    one open at both ends, comes back as it is.

    >>> from graphmem.temporal.parse import parse_point
    >>> [d.date().isoformat() for d in near_bound(Interval(start=None, end=parse_point("2023-10-04")))]
    ['2023-09-27', '2023-10-04']
    >>> [d.date().isoformat() for d in near_bound(Interval(start=None, end=parse_point("2020")))]
    ['2019-01-01', '2020-01-01']
    >>> [d.date().isoformat() for d in near_bound(Interval(start=parse_point("2025-03"), end=None))]
    ['2025-03-01', '2025-04-01']
    """
    start, end = interval.start, interval.end
    least = dt.timedelta(days=NEAR_DAYS)
    if start is None and end is not None:
        before = truncate(end.at - dt.timedelta(microseconds=1), end.granularity, tz)
        return min(before, end.at - least), end.at
    if end is None and start is not None:
        return start.at, max(period_end(start, tz), start.at + least)
    return (start.at if start else None), (end.at if end else None)


def period_of(point: TimePoint, tz: dt.tzinfo = UTC) -> Interval:
    """The period a point denotes as instants: ``Nov 2025`` -> ``[2025-11-01, 2025-12-01)``."""
    return Interval(start=TimePoint(at=point.at), end=TimePoint(at=period_end(point, tz)))


def started_by(valid_from: TimePoint | None, point: TimePoint, tz: dt.tzinfo = UTC) -> bool:
    """The state has begun by ``point`` (by its end, for a coarse point)."""
    if valid_from is None:
        return True
    g = coarser(valid_from.granularity, point.granularity)
    return truncate(valid_from.at, g, tz) <= truncate(point.at, g, tz)


def not_ended_by(valid_to: TimePoint | None, point: TimePoint, tz: dt.tzinfo = UTC) -> bool:
    """The state has not ended by ``point`` (by its end, for a coarse point)."""
    if valid_to is None:
        return True
    g = coarser(valid_to.granularity, point.granularity)
    return truncate(point.at, g, tz) < truncate(valid_to.at, g, tz)


def is_empty(valid_from: TimePoint | None, valid_to: TimePoint | None) -> bool:
    """An interval that ends where (or before) it starts holds nowhere: a value replaced at its own start."""
    return valid_to is not None and valid_from is not None and valid_to.at <= valid_from.at


def holds_at(
    valid_from: TimePoint | None, valid_to: TimePoint | None, point: TimePoint, tz: dt.tzinfo = UTC
) -> bool:
    """The as-of question: did the state hold at ``point``?"""
    if is_empty(valid_from, valid_to):
        return False
    return started_by(valid_from, point, tz) and not_ended_by(valid_to, point, tz)


def _first_point(period: TimePoint, boundary: TimePoint | None) -> TimePoint:
    """``period``'s first point at the boundary's granularity when that is finer than the period's."""
    if boundary is None or boundary.granularity.rank >= period.granularity.rank:
        return period
    return TimePoint(at=period.at, granularity=boundary.granularity)


def holds_during(
    valid_from: TimePoint | None, valid_to: TimePoint | None, period: TimePoint, tz: dt.tzinfo = UTC,
    last: TimePoint | None = None,
) -> bool:
    """The during question: did the state hold at some point of ``period`` (through ``last``, when the
    question spans several periods: "June to August")?"""
    if is_empty(valid_from, valid_to):
        return False
    return started_by(valid_from, last or period, tz) and \
        not_ended_by(valid_to, _first_point(period, valid_to), tz)


def holds_throughout(
    valid_from: TimePoint | None, valid_to: TimePoint | None, period: TimePoint, tz: dt.tzinfo = UTC,
    last: TimePoint | None = None,
) -> bool:
    """Did the state hold at every point of ``period`` (through ``last``)?"""
    if is_empty(valid_from, valid_to):
        return False
    return started_by(valid_from, _first_point(period, valid_from), tz) and \
        not_ended_by(valid_to, last or period, tz)


def known_at(
    recorded_at: dt.datetime, replaced_at: dt.datetime | None, at: dt.datetime
) -> bool:
    """The known-at question: did memory hold this version at transaction time ``at``?"""
    return recorded_at <= at and (replaced_at is None or at < replaced_at)

