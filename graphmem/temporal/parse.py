"""Reading times written by people and programs into :class:`TimePoint` and :class:`Interval`.

Accepted forms (each keeps its granularity):

==========================================  ===========
``2025``, ``2025年``                          year
``2025-Q3``, ``Q3 2025``                     quarter
``2025-11``, ``Nov 2025``, ``November 2025``, ``2025年11月``   month
``2025-W48``                                 week
``2025-11-27``, ``27 Nov 2025``, ``November 27, 2025``, ``2025/11/27``, ``2025年11月27日``   day
ISO instants (``2025-11-27T14:30:00Z``, with or without offset), ``1:56 pm on 8 May, 2023``   instant
==========================================  ===========

Naive values are local time in the memory's timezone. Relative expressions ("yesterday", "last week") are
resolved against an event's own time by the extraction layer, which passes ``relative_to``; this module
reads only absolute forms and says so when it cannot.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re

from graphmem.errors import MalformedTime
from graphmem.ontology.time import UTC, Granularity, TimePoint, to_utc

__all__ = ["TimeInput", "parse_point"]

TimeInput = str | dt.datetime | dt.date | TimePoint

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
            ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
            ("oct", "october"), ("nov", "november"), ("dec", "december"),
        ]
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"

_PATTERNS: list[tuple[re.Pattern[str], Granularity]] = [
    (re.compile(rf"^{_YEAR}$"), Granularity.YEAR),
    (re.compile(rf"^{_YEAR}年$"), Granularity.YEAR),
    (re.compile(rf"^{_YEAR}-?Q(?P<quarter>[1-4])$", re.I), Granularity.QUARTER),
    (re.compile(rf"^Q(?P<quarter>[1-4]),?\s+{_YEAR}$", re.I), Granularity.QUARTER),
    (re.compile(rf"^{_YEAR}[-/](?P<mnum>\d{{1,2}})$"), Granularity.MONTH),
    (re.compile(rf"^{_MONTH},?\s+{_YEAR}$", re.I), Granularity.MONTH),
    (re.compile(rf"^{_YEAR}年\s*(?P<mnum>\d{{1,2}})月$"), Granularity.MONTH),
    (re.compile(rf"^{_YEAR}-W(?P<week>\d{{2}})$"), Granularity.WEEK),
    (re.compile(rf"^{_YEAR}[-/](?P<mnum>\d{{1,2}})[-/]{_DAY}$"), Granularity.DAY),
    (re.compile(rf"^{_DAY}\s+{_MONTH},?\s+{_YEAR}$", re.I), Granularity.DAY),
    (re.compile(rf"^{_MONTH}\s+{_DAY},?\s+{_YEAR}$", re.I), Granularity.DAY),
    (re.compile(rf"^{_YEAR}年\s*(?P<mnum>\d{{1,2}})月\s*{_DAY}日$"), Granularity.DAY),
]
_CLOCK_ON_DAY = re.compile(
    r"^(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>am|pm)\s+on\s+(?P<rest>.+)$", re.I
)


def parse_point(
    value: TimeInput,
    *,
    tz: dt.tzinfo = UTC,
    field: str | None = None,
    relative_to: dt.datetime | None = None,
) -> TimePoint:
    # ``relative_to`` anchors relative expressions; absolute forms ignore it.
    """Read one time into a :class:`TimePoint`.

    >>> str(parse_point("Nov 2025"))
    '2025-11'
    >>> parse_point("2025-11-27T14:30:00+01:00").at.isoformat()
    '2025-11-27T13:30:00+00:00'
    """
    if isinstance(value, TimePoint):
        return value
    if isinstance(value, dt.datetime):
        return TimePoint(at=_checked_utc(value, tz, field, value), granularity=Granularity.INSTANT)
    if isinstance(value, dt.date):
        return _calendar_point(value.year, value.month, value.day, Granularity.DAY, tz, field, value)
    if not isinstance(value, str):
        raise MalformedTime(value, field=field)
    text = " ".join(value.strip().split())
    if not text:
        raise MalformedTime(value, field=field)
    point = _read_calendar(text, tz, field) or _read_instant(text, tz, field) or _read_mail_date(text, field)
    if point is None:
        raise MalformedTime(value, field=field, hint=_HINT)
    return point


_HINT = (
    "use an ISO instant ('2025-11-27T14:30:00Z'), a day ('2025-11-27'), a week ('2025-W48'), "
    "a month ('2025-11' or 'Nov 2025'), a quarter ('2025-Q3') or a year ('2025')"
)


def _read_calendar(text: str, tz: dt.tzinfo, field: str | None) -> TimePoint | None:
    for pattern, granularity in _PATTERNS:
        m = pattern.match(text)
        if m is None:
            continue
        parts = m.groupdict()
        year = int(parts["year"])
        if parts.get("week"):
            return _week_point(year, int(parts["week"]), tz, field, text)
        month = int(parts["mnum"]) if parts.get("mnum") else _MONTHS.get((parts.get("month") or "").lower(), 1)
        if parts.get("quarter"):
            month = 3 * int(parts["quarter"]) - 2
        day = int(parts["day"]) if parts.get("day") else 1
        return _calendar_point(year, month, day, granularity, tz, field, text)
    clock = _CLOCK_ON_DAY.match(text)
    if clock is not None:
        day_point = _read_calendar(clock["rest"], tz, field)
        if day_point is None or day_point.granularity is not Granularity.DAY:
            return None
        hour = int(clock["hour"]) % 12 + (12 if clock["ampm"].lower() == "pm" else 0)
        minute = int(clock["minute"])
        if minute > 59:
            raise MalformedTime(text, field=field, hint=f"minute must be in 0..59; {_HINT}", out_of_range=True)
        local = day_point.at.astimezone(tz).replace(hour=hour, minute=minute)
        return TimePoint(at=local.astimezone(UTC), granularity=Granularity.INSTANT)
    return None


def _read_instant(text: str, tz: dt.tzinfo, field: str | None) -> TimePoint | None:
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else _UTC_NAMED.sub("+00:00", text)
    try:
        parsed = dt.datetime.fromisoformat(candidate)
    except ValueError:
        return None
    return TimePoint(at=_checked_utc(parsed, tz, field, text), granularity=Granularity.INSTANT)


# an instant with its zone named ("2025-11-27T10:00:00 UTC", "2025-11-27 10:00 GMT")
_UTC_NAMED = re.compile(r"\s+(?:UTC|GMT)$", re.I)
# a date as mail and HTTP headers write it ("Thu, 27 Nov 2025 10:00:00 +0000", "27 Nov 2025 10:00:00 GMT")
_MAIL_DATE = re.compile(r"^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?\s+"
                        r"(?:[+-]\d{4}|UT|UTC|GMT|[ECMP][SD]T)$")


def _read_mail_date(text: str, field: str | None) -> TimePoint | None:
    """A date in the form of mail headers (RFC 5322), its zone given: the instant it names."""
    if not _MAIL_DATE.match(text):
        return None
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if parsed.tzinfo is None:  # ("-0000": the zone unknown, read as UTC)
        parsed = parsed.replace(tzinfo=UTC)
    return TimePoint(at=_checked_utc(parsed, UTC, field, text), granularity=Granularity.INSTANT)


def _calendar_point(
    year: int, month: int, day: int, granularity: Granularity, tz: dt.tzinfo, field: str | None, raw: object
) -> TimePoint:
    try:
        local = dt.datetime(year, month, day)
    except ValueError as exc:
        raise MalformedTime(raw, field=field, hint=f"{exc}; {_HINT}", out_of_range=True) from exc
    return TimePoint(at=_checked_utc(local, tz, field, raw), granularity=granularity)


def _week_point(year: int, week: int, tz: dt.tzinfo, field: str | None, raw: str) -> TimePoint:
    try:
        monday = dt.date.fromisocalendar(year, week, 1)
    except ValueError as exc:
        raise MalformedTime(raw, field=field, hint=f"{exc}; {_HINT}", out_of_range=True) from exc
    local = dt.datetime(monday.year, monday.month, monday.day)
    return TimePoint(at=_checked_utc(local, tz, field, raw), granularity=Granularity.WEEK)


def _checked_utc(value: dt.datetime, tz: dt.tzinfo, field: str | None, raw: object) -> dt.datetime:
    """``value`` in UTC; out of range, an error quoting ``raw``, the time as it was given."""
    try:
        return to_utc(value, tz)
    except MalformedTime as exc:
        raise MalformedTime(raw, field=field, hint=f"{exc.message.split('; ', 1)[-1]}; {_HINT}",
                            out_of_range=True) from exc
    except (OverflowError, ValueError) as exc:
        raise MalformedTime(raw, field=field, hint=f"{exc}; {_HINT}", out_of_range=True) from exc
