"""Time values as data: instants with granularity, and intervals.

The calendar arithmetic and the as-of / during / known-at predicates over these live in
:mod:`graphmem.temporal`; this module only validates and normalises (every instant becomes aware UTC).
"""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import ConfigDict, field_validator, model_validator

from graphmem.errors import InvalidInterval, MalformedTime
from graphmem.ontology.record import Record

__all__ = ["UTC", "Granularity", "Interval", "TimePoint", "to_utc"]

UTC = dt.UTC
MIN_YEAR, MAX_YEAR = 1, 9998  # a year of slack on each side for period arithmetic


class Granularity(str, Enum):
    """How precisely a time is known, finest first."""

    INSTANT = "instant"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    QUARTER = "quarter"
    YEAR = "year"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {g: i for i, g in enumerate(Granularity)}


def to_utc(value: dt.datetime, tz: dt.tzinfo = UTC) -> dt.datetime:
    """An aware UTC datetime; a naive one is read as local time in ``tz``."""
    if not MIN_YEAR <= value.year <= MAX_YEAR:
        raise MalformedTime(value, hint=f"years must lie between {MIN_YEAR} and {MAX_YEAR}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    return value.astimezone(UTC)


class TimePoint(Record):
    """The start of a period and how precisely it is known: ``2025`` is (2025-01-01T00:00Z, YEAR)."""

    model_config = ConfigDict(frozen=True)

    at: dt.datetime
    granularity: Granularity = Granularity.INSTANT

    @field_validator("at")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        return to_utc(value)

    def label(self, tz: dt.tzinfo = UTC) -> str:
        """The point written at its own granularity: '2025', '2025-Q4', '2025-11', '2025-W48', '2025-11-27',
        ISO instant."""
        local = self.at.astimezone(tz)
        g = self.granularity
        if g is Granularity.YEAR:
            return f"{local.year:04d}"
        if g is Granularity.QUARTER:
            return f"{local.year:04d}-Q{(local.month - 1) // 3 + 1}"
        if g is Granularity.MONTH:
            return f"{local.year:04d}-{local.month:02d}"
        if g is Granularity.WEEK:
            iso = local.isocalendar()
            return f"{iso.year:04d}-W{iso.week:02d}"
        if g is Granularity.DAY:
            return local.date().isoformat()
        return self.at.isoformat().replace("+00:00", "Z")

    def __str__(self) -> str:
        return self.label()


class Interval(Record):
    """``[start, end)``; an open end is ``None``; each end keeps its granularity."""

    model_config = ConfigDict(frozen=True)

    start: TimePoint | None = None
    end: TimePoint | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.start is not None and self.end is not None and self.end.at < self.start.at:
            raise InvalidInterval(
                f"valid_to {self.end.at.isoformat()} is before valid_from {self.start.at.isoformat()}; "
                "swap them or leave valid_to open",
                field="valid_to",
            )
        return self
