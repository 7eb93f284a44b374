"""Time: reading times, calendar arithmetic, and the as-of / during / known-at predicates."""

from graphmem.ontology.time import UTC, Granularity, Interval, TimePoint, to_utc
from graphmem.temporal.intervals import (
    format_interval,
    holds_at,
    holds_during,
    holds_throughout,
    known_at,
    near_bound,
    not_ended_by,
    period_of,
    started_by,
)
from graphmem.temporal.expressions import TimeMention, asks_when, find_times, parse_expression
from graphmem.temporal.parse import TimeInput, parse_point
from graphmem.temporal.points import add_period, coarser, format_point, period_end, truncate
from graphmem.temporal.timelines import OPEN_START, bearing_on, without_buried

__all__ = [
    "OPEN_START",
    "UTC",
    "Granularity",
    "Interval",
    "TimeInput",
    "TimeMention",
    "TimePoint",
    "add_period",
    "asks_when",
    "bearing_on",
    "coarser",
    "format_interval",
    "find_times",
    "format_point",
    "holds_at",
    "holds_during",
    "holds_throughout",
    "known_at",
    "near_bound",
    "not_ended_by",
    "parse_expression",
    "parse_point",
    "period_end",
    "period_of",
    "started_by",
    "to_utc",
    "truncate",
    "without_buried",
]
