"""Named days of the year ("Christmas", "Thanksgiving", "大晦日") and the day each falls on in a given year.

A day whose date moves is the United States' where countries differ (Thanksgiving: the fourth Thursday of
November; Mother's Day: the second Sunday of May); Easter is the Western churches' (the Gregorian computus).
A few last several days (Golden Week, お盆, 年末年始: see :func:`holiday_days`).

>>> holiday_date("easter", 2025), holiday_date("thanksgiving", 2025), holiday_date(holiday_key("大晦日"), 2025)
(datetime.date(2025, 4, 20), datetime.date(2025, 11, 27), datetime.date(2025, 12, 31))
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

__all__ = ["HOLIDAY_NAMES", "HOLIDAY_OPENINGS", "JA_HOLIDAY_NAMES", "NAMES_GO_ON", "holiday_date",
           "holiday_days", "holiday_key"]


def _easter(year: int) -> dt.date:
    """Easter Sunday in the Gregorian calendar (the anonymous computus)."""
    golden = year % 19
    century, within = divmod(year, 100)
    leap_skips, century_rest = divmod(century, 4)
    moon_fix = (century - (century + 8) // 25 + 1) // 3
    epact = (19 * golden + century - leap_skips - moon_fix + 15) % 30
    weekday = (32 + 2 * century_rest + 2 * (within // 4) - epact - within % 4) % 7
    shift = (golden + 11 * epact + 22 * weekday) // 451
    month, day = divmod(epact + weekday - 7 * shift + 114, 31)
    return dt.date(year, month, day + 1)


def _nth_weekday(month: int, weekday: int, n: int) -> Callable[[int], dt.date]:
    """The ``n``-th ``weekday`` (Monday 0) of ``month``; ``n`` -1: its last."""
    def day(year: int) -> dt.date:
        if n > 0:
            first = dt.date(year, month, 1)
            return first + dt.timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
        last = dt.date(year + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)
        return last - dt.timedelta(days=(last.weekday() - weekday) % 7)
    return day


def _fixed(month: int, day: int) -> Callable[[int], dt.date]:
    return lambda year: dt.date(year, month, day)


def _after(base: Callable[[int], dt.date], days: int) -> Callable[[int], dt.date]:
    return lambda year: base(year) + dt.timedelta(days=days)


_THANKSGIVING = _nth_weekday(11, 3, 4)
_DAYS: dict[str, Callable[[int], dt.date]] = {
    "new year's day": _fixed(1, 1),
    "valentine's day": _fixed(2, 14),
    "st patrick's day": _fixed(3, 17),
    "good friday": _after(_easter, -2),
    "easter": _easter,
    "easter monday": _after(_easter, 1),
    "mother's day": _nth_weekday(5, 6, 2),
    "memorial day": _nth_weekday(5, 0, -1),
    "father's day": _nth_weekday(6, 6, 3),
    "independence day": _fixed(7, 4),
    "tanabata": _fixed(7, 7),
    "labor day": _nth_weekday(9, 0, 1),
    "halloween": _fixed(10, 31),
    "thanksgiving": _THANKSGIVING,
    "black friday": _after(_THANKSGIVING, 1),
    "christmas eve": _fixed(12, 24),
    "christmas": _fixed(12, 25),
    "boxing day": _fixed(12, 26),
    "new year's eve": _fixed(12, 31),
    # named days that last longer: their first day here, their length in _LASTING
    "golden week": _fixed(4, 29),
    "obon": _fixed(8, 13),
    "year-end holidays": _fixed(12, 29),
}
_LASTING = {"golden week": 7, "obon": 4, "year-end holidays": 6}  # (days: April 29 to May 5, ...)

# how each is written (a regular expression, case-insensitive, longest first where one opens another)
HOLIDAY_NAMES = (
    r"christmas\s+eve|christmas(?:\s+day)?|xmas|boxing\s+day|new\s+year['’]?s\s+eve|new\s+year\s+eve|"
    r"new\s+year['’]?s(?:\s+day)?|new\s+year\s+day|halloween|valentine['’]?s(?:\s+day)?|"
    r"(?:st\.?|saint)\s+patrick['’]?s(?:\s+day)?|thanksgiving|black\s+friday|good\s+friday|"
    r"easter(?:\s+sunday|\s+monday)?|mothers['’]?\s+day|mother['’]?s\s+day|fathers['’]?\s+day|"
    r"father['’]?s\s+day|labou?r\s+day|memorial\s+day|independence\s+day|golden\s+week"
)
# words after one that make it the start of a longer name ("Easter Island", "the Good Friday Agreement")
NAMES_GO_ON = (r"islands?|agreements?|risings?|uprisings?|bunny|bunnies|parades?|roads?|streets?|avenues?|"
               r"squares?")
# the words those open with (a Latin time form is tried only where one of its opening words stands)
HOLIDAY_OPENINGS = frozenset([
    "christmas", "xmas", "boxing", "new", "halloween", "valentine", "valentines", "st", "saint",
    "thanksgiving", "black", "good", "easter", "mother", "mothers", "father", "fathers", "labor", "labour",
    "memorial", "independence", "golden",
])
JA_HOLIDAY_NAMES = ("ゴールデンウィーク|お盆休み|盆休み|お盆|年末年始|クリスマス・?イブ|クリスマス|大晦日|元日|元旦|お正月|正月|"
                    "バレンタインデー|バレンタイン|ハロウィーン|ハロウィン|七夕")

_JA = {"クリスマスイブ": "christmas eve", "クリスマス・イブ": "christmas eve", "クリスマス": "christmas",
       "大晦日": "new year's eve", "元日": "new year's day", "元旦": "new year's day", "お正月": "new year's day",
       "正月": "new year's day", "バレンタインデー": "valentine's day", "バレンタイン": "valentine's day",
       "ハロウィーン": "halloween", "ハロウィン": "halloween", "七夕": "tanabata", "ゴールデンウィーク": "golden week",
       "お盆休み": "obon", "盆休み": "obon", "お盆": "obon", "年末年始": "year-end holidays"}
_SPELLINGS = [
    (re.compile(r"['’]"), ""), (re.compile(r"\s+"), " "), (re.compile(r"^xmas"), "christmas"),
    (re.compile(r"^(?:st\.?|saint) "), "st "), (re.compile(r"^labour"), "labor"),
    (re.compile(r"^new year eve$"), "new year's eve"),
    (re.compile(r"^(new year|valentine|st patrick|mother|father)s?( day|$)"), r"\1's day"),
    (re.compile(r"^new years eve$"), "new year's eve"),
    (re.compile(r"^(christmas|easter) (?:day|sunday)$"), r"\1"),
]


def holiday_key(text: str) -> str:
    """The key of the day ``text`` names as :data:`HOLIDAY_NAMES` or :data:`JA_HOLIDAY_NAMES` write it."""
    if text in _JA:
        return _JA[text]
    key = text.lower()
    for pattern, replacement in _SPELLINGS:
        key = pattern.sub(replacement, key)
    if key not in _DAYS:
        raise KeyError(f"no such named day: {text!r}")
    return key


def holiday_date(key: str, year: int) -> dt.date:
    """The day the named day ``key`` (see :func:`holiday_key`) falls on in ``year`` (its first day)."""
    return _DAYS[key](year)


def holiday_days(key: str) -> int:
    """How many days the named day ``key`` lasts (Golden Week seven, most one)."""
    return _LASTING.get(key, 1)
