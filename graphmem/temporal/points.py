"""Calendar arithmetic on :class:`TimePoint`: truncation, period ends, formatting.

Where a day or a month begins depends on the timezone: every function takes the memory's ``tz`` (UTC by
default) and returns aware UTC instants.
"""

from __future__ import annotations

import datetime as dt

from graphmem.ontology.time import UTC, Granularity, TimePoint

__all__ = ["add_period", "coarser", "finer_or_equal", "format_point", "period_end", "truncate"]


def coarser(a: Granularity, b: Granularity) -> Granularity:
    """The coarser of two granularities: boundaries are compared at this one."""
    return a if a.rank >= b.rank else b


def finer_or_equal(a: Granularity, b: Granularity) -> bool:
    return a.rank <= b.rank


def truncate(value: dt.datetime, granularity: Granularity, tz: dt.tzinfo = UTC) -> dt.datetime:
    """The start (UTC) of the ``granularity`` period that contains ``value``, calendars read in ``tz``."""
    if granularity is Granularity.INSTANT:
        return value
    local = value.astimezone(tz)
    if granularity is Granularity.YEAR:
        start = dt.datetime(local.year, 1, 1)
    elif granularity is Granularity.QUARTER:
        start = dt.datetime(local.year, local.month - (local.month - 1) % 3, 1)
    elif granularity is Granularity.MONTH:
        start = dt.datetime(local.year, local.month, 1)
    elif granularity is Granularity.WEEK:
        start = dt.datetime(local.year, local.month, local.day) - dt.timedelta(days=local.weekday())
    else:
        start = dt.datetime(local.year, local.month, local.day)
    return start.replace(tzinfo=tz).astimezone(UTC)


def add_period(start: dt.datetime, granularity: Granularity, tz: dt.tzinfo = UTC) -> dt.datetime:
    """The start of the period after the ``granularity`` period beginning at ``start``."""
    if granularity is Granularity.INSTANT:
        return start
    local = start.astimezone(tz).replace(tzinfo=None)
    if granularity is Granularity.YEAR:
        nxt = local.replace(year=local.year + 1)
    elif granularity in (Granularity.MONTH, Granularity.QUARTER):
        months = local.year * 12 + local.month - 1 + (3 if granularity is Granularity.QUARTER else 1)
        nxt = local.replace(year=months // 12, month=months % 12 + 1)
    elif granularity is Granularity.WEEK:
        nxt = local + dt.timedelta(days=7)
    else:
        nxt = local + dt.timedelta(days=1)
    return nxt.replace(tzinfo=tz).astimezone(UTC)


def period_end(point: TimePoint, tz: dt.tzinfo = UTC) -> dt.datetime:
    """Where the period a point denotes ends (exclusive): ``Nov 2025`` -> 2025-12-01."""
    return add_period(point.at, point.granularity, tz)


def format_point(point: TimePoint, tz: dt.tzinfo = UTC) -> str:
    """A point written at its own granularity: '2025', '2025-Q4', '2025-11', '2025-W48', '2025-11-27', ISO
    instant."""
    return point.label(tz)
