"""Time expressions inside text, resolved against the time of the event that contains them.

``find_times(text, anchor)`` finds every expression and what it denotes as an :class:`Interval`:

=====================================================  ============================================
``yesterday``, ``3 days ago``, ``last Tuesday``         that day (day granularity; ``last Fri``, ``on Tues``:
                                                        a weekday's short form, capitalised)
``last week``, ``先週``, ``2 weeks ago``                 that week; ``last month``, ``last year`` alike
``一昨年``, ``再来週``, ``先々月``, ``三日前``, ``3か月後``   two years, weeks, months away; a count in kanji
``先週の金曜日``, ``月曜日に``, ``去年の3月``, ``来年の春``  that week's Friday (a bare weekday: the last one);
                                                        that year's March, that year's spring
``a year ago``                                          the month a year before (``2 years ago``: that year)
``last weekend``, ``over the weekend``, ``先週末``,      that weekend's Saturday and Sunday ("over the
``two weekends ago``, ``the weekend before last``       weekend": the last one, or the next in a clause
                                                        about the future)
``in two weeks``, ``two weeks from now``                that week
``last summer``, ``this winter``, ``next spring``       that season's three months (summer June-August,
                                                        winter December-February; in a southern timezone
                                                        the other way round); the last one over, this
                                                        year's, the next to open
``two summers ago``, ``the summer before last``         the summer before last summer, its three months
``the day before Christmas``, ``the week after Easter``  the day, week (seven days), weekend or month right
                                                        before or after the time named ("before Christmas"
                                                        alone: up to it)
``two days before Christmas``, ``a year after 2019``    counted from its start: the 23rd; 2020
``クリスマスの前日``, ``6月の翌月``, ``3月3日の3日後``         alike: the 24th; July; March 6th
``in the spring``, ``over the summer``                  the last to have begun (the next in a clause about
                                                        the future); only in a sentence told in the past or
                                                        of the future ("Leaves fall in the autumn": none)
``a few months back``, ``this time last year``          as "ago"; this time last year: that month
``the other day``                                       as "a few days ago" (three days before)
``in the 1990s``, ``the '90s``, ``the 1900s``             its ten years (a hundred for "1800s", "1900s")
``at the beginning of the year``, ``the start of next   its first month (of a month, its first week ...), as
month``                                                 "the end of" names its last
``at Christmas``, ``last Thanksgiving``, ``Easter 2024``  that day (see holidays.py; alone, only after a time
``on New Year's Eve``, ``去年のクリスマス``, ``大晦日に``      word: the last one, or the next in a clause about
                                                        the future; "Christmas tree" is no time);
``ゴールデンウィーク``, ``お盆``, ``年末年始``                  their days (April 29 to May 5 ...)
``in Nov 2025``, ``2025-11``, ``Dec 5th``, ``March``    that period (a bare month or day is the nearest
                                                        one in the past, or in the future after until/next)
``in Q3 2025``, ``2025 Q3``, ``in Q3``, ``last quarter``  that quarter (quarter granularity; a bare ``Q3``
``the third quarter of 2024``                           only after a time word, as a bare month)
``H2 2025``, ``2025-H1``, ``2H 2024``                    that half year's six months
``week 48 of 2025``, ``the 48th week of 2025``          that week (as ``2025-W48``)
``令和7年``, ``平成元年``, ``令和7年4月``                     an era's year (2025, 1989), its month or day
``2025年の後半``, ``2024年上半期``, ``去年の暮れ``          a half year's six months; its December (``末``,
``今年の初め``                                          ``暮れ``, ``終わり``) or January (``初め``, ``初頭``)
``10月中旬``, ``2024年9月下旬``, ``11月末``               days 11-20 (``上旬`` 1-10, ``下旬`` 21 to the end); its
``11月の第2週``                                          last week (``末``), as "the end of November"; the
                                                        week holding its 8th, as "the second week of"
``2025年第3四半期``, ``2025年度``, ``今年度``              that quarter; that fiscal year (April to March)
``先月の中旬``, ``今月末``, ``年末``, ``年始``              of that month; this year's December or January (the
                                                        last, or the next in a clause about the future)
``去年の今頃``, ``半年前``                                 this month a year ago; six months ago
``2024年の春``, ``ここ3ヶ月``, ``この1年``                  that season's three months; since that long before
``2020年〜2022年``, ``2020年から2022年にかけて``              both ends, the last period included
``in '19``, ``since '98``                               that year (the last one to end in those digits)
``We met on Dec 25th``, ``12月25日に会った``              a day of the coming month told as done: the last one
``will slip to March``, ``is moving there in June``     a bare month, day or quarter in a clause about the
``6月に引っ越す予定``, ``3月に会う``                        future is the next one (in Japanese: a plan, or a
                                                        plain verb ending the clause after it)
``has lived there for 5 years``, ``5年間住んでいる``       open interval from that long before (only in a
                                                        perfect tense, or a clause in ている: "was there
                                                        for 5 days", "2週間滞在した" are no times)
``over the past 3 months``, ``in the last two years``   open interval from that long before (``in the past
                                                        week``: one)
``in mid-March``, ``early May``, ``late June 2024``     days 11-20 of that month (early: 1-10; late: 21 to its
                                                        end)
``mid-2024``, ``early 2024``, ``late last year``        that year's middle, first or last four months
``on the 15th``, ``August last year``                   that day of this month or the last; that month
``at the end of February``, ``the end of 2025``         the last week of the month; of a year or quarter,
                                                        its last month; of a week, its last day ("at end
                                                        of 2025", "by end of May": alike; "since the end
                                                        of 2024": from its December)
``the middle of 2025``, ``the middle of May``           as "mid-2025" (May to August), "mid-May"
``the week of 10 Nov 2025``                             the week holding that day
``since March``, ``from May on``, ``3月から``            open interval starting at that period (``since the
                                                        beginning of 2025``: at 2025)
``until June``, ``before Friday``, ``6月まで``           open interval ending at that period's start
``through June``                                        open interval ending at that period's end
``from 2025-11-27 to 2025-12-01``, ``between May and    both ends, the last period included
July 2024``, ``11月27日から12月1日まで``, ``2019-2021``
=====================================================  ============================================

Relative expressions are always resolved against ``anchor`` (the event's own time), never the wall clock.
The grammar is written to leave ordinary words alone: a month name standing alone must be capitalised and
follow a time preposition ("We may", "they march" are not times); weekday names need a preposition or
"last/next/this". :func:`parse_expression` reads one whole expression (a question's "as of last week") and
falls back to dateparser for forms the grammar does not know.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from graphmem.errors import GraphmemError, MalformedTime
from graphmem.ontology.time import UTC, Granularity, Interval, TimePoint
from graphmem.temporal.holidays import (
    HOLIDAY_NAMES,
    HOLIDAY_OPENINGS,
    JA_HOLIDAY_NAMES,
    NAMES_GO_ON,
    holiday_date,
    holiday_days,
    holiday_key,
)
from graphmem.temporal.points import period_end, truncate

__all__ = ["TimeMention", "find_times", "parse_expression"]

Kind = Literal["point", "since", "until", "range"]
G = Granularity


@dataclass(frozen=True)
class TimeMention:
    """One time expression: where it is in the text and the interval it denotes."""

    text: str
    start: int
    end: int
    kind: Kind
    interval: Interval

    @property
    def granularity(self) -> Granularity:
        point = self.interval.start or self.interval.end
        return point.granularity if point else Granularity.INSTANT


_MONTH_NAMES = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}
_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_SHORT_WEEKDAYS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5,
                   "sun": 6}
_WEEKDAY_NUMBERS = _WEEKDAYS | _SHORT_WEEKDAYS  # a weekday's name, whole or short -> 0-6
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a couple": 2,
            "couple of": 2, "a few": 3, "few": 3, "several": 3}  # (said "few days ago" for "a few")
_UNITS = {"day": G.DAY, "week": G.WEEK, "fortnight": G.WEEK, "month": G.MONTH, "quarter": G.QUARTER,
          "year": G.YEAR, "decade": G.YEAR, "日": G.DAY, "週間": G.WEEK, "週": G.WEEK, "か月": G.MONTH,
          "ヶ月": G.MONTH, "カ月": G.MONTH, "ヵ月": G.MONTH, "年": G.YEAR}

_MON = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
       r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_MON_FULL = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
# a month's short name alone, after a time word ("between Oct and Dec 2025", "since Sept"): not "Jan", "Jun",
# "Mar" or "Jul", which are names and words too ("talked to Jan")
_MON_SHORT = r"(?:Feb|Apr|Aug|Sept?|Oct|Nov|Dec)"
_ORD = r"(?:st|nd|rd|th)?"
_NUM = r"(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a\s+)?couple(?:\s+of)?|" \
       r"(?:a\s+)?few|several)"
_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# a weekday's short form, capitalised ("last Fri", "on Tues"; not "sat", "wed" or "sun" as words)
_WD_SHORT = r"(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)(?![a-z])"
_SEASON = r"(?:spring|summer|fall|autumn|winter)"
# the month a season opens with (the northern hemisphere's meteorological seasons: three months each)
_SEASON_STARTS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_YEAR_PARTS = {"early": 1, "mid": 5, "late": 9}  # the month each part of a year opens with
_YEAR_SHIFT = {"last": -1, "this": 0, "next": 1}  # (years from this one)
# a count in kanji, one numeral ("三日前"; "数日前", a few: three); none in a longer one ("二十日前")
_JA_DIGITS = "一二三四五六七八九十"
# a year in Japanese: its number, or an era's year ("令和7", "平成元": each era's first year is its 元年)
_JA_YEAR = r"(?:\d{4}|(?:令和|平成|昭和)\s*(?:\d{1,2}|元))"
_ERA_START = {"令和": 2018, "平成": 1988, "昭和": 1925}  # (the year before its first)
# the opening of a year or month, not a verb's stem ("今年初めて": for the first time this year)
_JA_OPENING = r"(?:初め|はじめ|始め)(?![てたるまよらさ])"
# a part of a year: the month it opens with and how many months it spans
_JA_YEAR_PARTS = {"上半期": (1, 6), "前半": (1, 6), "下半期": (7, 6), "後半": (7, 6), "初め": (1, 1), "はじめ": (1, 1),
                  "始め": (1, 1), "初頭": (1, 1), "年初": (1, 1), "年始": (1, 1), "末": (12, 1), "年末": (12, 1),
                  "暮れ": (12, 1), "終わり": (12, 1)}
_JA_FISCAL_SHIFT = {"昨年度": -1, "前年度": -1, "今年度": 0, "本年度": 0, "来年度": 1, "翌年度": 1}
# a part of a month: its first day and the day after its last (None: to the month's end); its end ("月末"):
# its last week, as "the end of February"
_JA_MONTH_PARTS = {"上旬": (1, 11), "初旬": (1, 11), "初め": (1, 11), "はじめ": (1, 11), "始め": (1, 11),
                   "中旬": (11, 21), "中頃": (11, 21), "下旬": (21, None)}
_JA_COUNT = rf"(?<![\d{_JA_DIGITS}百千])"
_JA_UNIT = "日|週間|週|か月|ヶ月|カ月|ヵ月|年"
_PREP = r"(?:in|on|since|until|till|til|by|from|during|before|after|through|throughout|of|to|and|early|late|" \
        r"mid|around|about|last|next|this|between)"

# what a named day before it names a thing of, not a time ("Christmas tree", "Thanksgiving traditions")
_HOLIDAY_THINGS = (r"trees?|markets?|movies?|films?|songs?|music|cards?|presents?|gifts?|decorations?|"
                   r"lights?|carols?|sweaters?|jumpers?|costumes?|eggs?|candy|cookies?|traditions?|specials?|"
                   rf"{NAMES_GO_ON}|sales?|spirit|magic|stor(?:y|ies)|lists?|episodes?|themed?|resolutions?|"
                   r"cheer|bonus")

# one alternative per form; each names its parts with a prefix so the reader knows the form
_POINT_FORMS = [
    r"(?P<iso_i>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)",
    r"(?P<iso_d>\d{4}-\d{2}-\d{2})\b",
    r"(?P<iso_w>\d{4}-W\d{2})\b",
    r"(?P<iso_m>\d{4}-\d{2})\b(?!-)",
    r"(?P<iso_q>\d{4})(?:-|\s)?Q(?P<iso_q_n>[1-4])\b",  # ("2025-Q3", "2025Q3", "2025 Q3")
    # years from one to another ("2019-2021", "(2019 – 2021)"): a range
    r"(?<![\w-])(?P<ys>(?:1[89]|20)\d{2})\s*[-–—]\s*(?P<ys_e>(?:1[89]|20)\d{2})(?![\w-])",
    # a half of a year ("2025 H2", "2H 2025"; "H2 2025" below)
    r"(?<![\w-])(?P<hh_y2>(?:1[89]|20)\d{2})(?:-|\s)?(?P<hh2>H[12])\b",
    r"(?<![\w-])(?P<hh>[12]H)(?:-|\s)?(?P<hh_y>(?:1[89]|20)\d{2})\b",
    # a part of a year, of a month, a quarter, a fiscal year, an era's year ("2025年の後半", "去年の暮れ",
    # "11月中旬", "2025年第3四半期", "2025年度": April to March, "令和7年": 2025): before the plain forms
    rf"(?:(?P<ja_yp_y>{_JA_YEAR})\s*年|(?P<ja_yp_r>一昨年|おととし|去年|昨年|今年|来年|再来年))\s*の?\s*"
    rf"(?P<ja_yp>上半期|下半期|前半|後半|{_JA_OPENING}|初頭|年初|年始|年末(?!年始)|末|暮れ|終わり)",
    rf"(?:(?:(?P<ja_mp_y>{_JA_YEAR})\s*年\s*)?(?P<ja_mp_m>\d{{1,2}})\s*月|(?P<ja_mp_r>先々月|先月|今月|来月|再来月))"
    rf"\s*の?\s*(?P<ja_mp>上旬|初旬|中旬|中頃|下旬|{_JA_OPENING}|末|終わり|最終週|第\s*[1-5一二三四五]\s*週)",
    r"(?P<ja_ye>年末(?!年始)|年始|年初)",  # (this year's end or start: the last, or the next in a future clause)
    rf"(?:(?P<ja_q_y>{_JA_YEAR})\s*年\s*の?\s*)?第\s*(?P<ja_q>[1-4一二三四])\s*四半期",
    rf"(?:(?P<ja_fy>{_JA_YEAR})\s*年度|(?P<ja_fy_r>昨年度|前年度|今年度|本年度|来年度|翌年度))",
    rf"(?P<ja_sy_y>{_JA_YEAR})\s*年\s*の?\s*(?P<ja_sy>[春夏秋冬])",  # ("2025年の春": its three months)
    # the last few years, months ... up to now ("この1年", "ここ3ヶ月")
    rf"(?:この|ここ)\s*(?P<ja_recent_n>\d+|[{_JA_DIGITS}数])\s*(?P<ja_recent_u>年|か月|ヶ月|カ月|ヵ月|週間|日)(?:間)?",
    rf"(?P<era>(?:令和|平成|昭和)\s*(?:\d{{1,2}}|元))\s*年(?:\s*(?P<era_m>\d{{1,2}})\s*月"
    rf"(?:\s*(?P<era_d>\d{{1,2}})\s*日)?)?",
    r"(?P<ja_ymd>\d{4})年\s*(?P<ja_ymd_m>\d{1,2})月\s*(?P<ja_ymd_d>\d{1,2})日",
    r"(?P<ja_ym>\d{4})年\s*(?P<ja_ym_m>\d{1,2})月",
    r"(?P<ja_md_m>\d{1,2})月\s*(?P<ja_md_d>\d{1,2})日",
    r"(?P<ja_m>\d{1,2})月",
    r"(?P<ja_y>\d{4})年",
    # a month of a year, a season of one, a day of a week named by when it is ("去年の3月", "来年の春",
    # "先週の金曜日"); these and the words after them open with a Japanese letter, tried only where one stands
    # a named day ("クリスマスに", "去年の大晦日"), before a word that goes on about it
    rf"(?:(?P<ja_hol_r>去年|昨年|今年|来年)の\s*)?(?P<ja_hol>{JA_HOLIDAY_NAMES})(?=に|は|の|も|まで|から|以来|、|。|\s|$)",
    r"(?P<ja_ry>一昨年|おととし|去年|昨年|今年|来年|再来年)の\s*(?:(?P<ja_ry_m>\d{1,2})月|(?P<ja_ry_s>[春夏秋冬]))",
    r"(?<!毎)(?<!毎週)(?:(?P<ja_wd_w>先週|今週|来週)の?)?(?P<ja_wd>[月火水木金土日])曜(?:日)?",
    r"(?P<ja_rel>去年の今頃|昨年の今頃|半年前|半年後|一昨日|おととい|昨日|きのう|今日|きょう|明後日|あさって|明日|あした|昨夜|昨晩|ゆうべ|今朝|今夜|今晩|"
    r"先週末|今週末|来週末|先々週|再来週|先週|今週|来週|先々月|再来月|先月|今月|来月|一昨年|おととし|去年|昨年|今年|"
    r"再来年|来年)",
    rf"(?=[\d{_JA_DIGITS}数]){_JA_COUNT}(?P<ja_ago_n>\d+|[{_JA_DIGITS}数])\s*"
    rf"(?P<ja_ago_u>{_JA_UNIT})前",
    rf"(?=[\d{_JA_DIGITS}数]){_JA_COUNT}(?P<ja_aft_n>\d+|[{_JA_DIGITS}数])\s*"
    rf"(?P<ja_aft_u>{_JA_UNIT})後",
    # "5年間東京に住んでいる": since that long before, in a clause going on to now ("ている")
    rf"(?=[\d{_JA_DIGITS}数]){_JA_COUNT}(?P<ja_dur_n>\d+|[{_JA_DIGITS}数])\s*"
    rf"(?P<ja_dur_u>年|か月|ヶ月|カ月|ヵ月|週|日)間",
    rf"(?i:(?P<mdy_m>{_MON})\.?\s+(?P<mdy_d>\d{{1,2}}){_ORD}(?:,?\s+(?P<mdy_y>\d{{4}}))?)\b",
    rf"(?i:(?:the\s+)?(?P<dmy_d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<dmy_m>{_MON})\.?(?:,?\s+(?P<dmy_y>\d{{4}}))?)\b",
    rf"(?i:(?P<my_m>{_MON})\.?,?\s+(?P<my_y>\d{{4}}))\b",
    r"(?i:(?P<q>q[1-4])(?:,?\s+(?:of\s+)?(?P<q_y>\d{4}))?)\b",
    r"(?i:(?:the\s+)?(?P<qw>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter"
    r"(?:\s+of\s+(?P<qw_y>\d{4}))?)\b",
    rf"(?i:(?P<ago_n>{_NUM})\s+(?P<ago_u>day|week(?:end)?|fortnight|month|quarter|year|decade|{_SEASON}|"
    rf"{_WD})s?\s+"
    rf"(?:ago|back))\b",
    rf"(?i:in\s+(?P<fut_n>{_NUM})\s+(?P<fut_u>day|week|fortnight|month|quarter|year|decade)s?)\b",
    rf"(?i:(?P<fn_n>{_NUM})\s+(?P<fn_u>day|week|fortnight|month|quarter|year|decade)s?\s+"
    r"from\s+(?:now|today))\b",
    rf"(?i:(?:for\s+(?P<dur_the>the\s+(?:past|last)\s+)?|(?:over|in|during|within)\s+"
    rf"(?P<dur_span>the\s+(?:past|last)\s+)|(?P<dur_after>after)\s+)"
    rf"(?:(?:(?:about|around|almost|nearly|over|roughly)\s+)?"
    rf"(?P<dur_n>{_NUM})\s+(?P<dur_u>day|week|month|year|decade)s?|"
    rf"(?<=(?:past|last)\s)(?P<dur_one>week|month|year|decade)))\b(?!\s+of\b)",  # ("in the past year")
    r"(?i:(?P<ttly>this\s+time\s+last\s+year))\b",  # (as "a year ago": that month)
    r"(?i:(?P<rel>the\s+day\s+before\s+yesterday|the\s+night\s+before\s+last|the\s+day\s+after\s+tomorrow|"
    r"the\s+other\s+day|yesterday|"
    r"today|tonight|"
    r"tomorrow|last\s+night|this\s+morning|this\s+afternoon|this\s+evening))\b",
    # a week of a month ("the first week of October", "the last week of May 2024"): before "last week"
    rf"(?i:(?:the\s+)?(?P<wom_n>first|second|third|fourth|last|final)\s+week\s+of\s+(?P<wom_m>{_MON})\.?"
    rf"(?:,?\s+(?P<wom_y>\d{{4}}))?)\b",
    # a named day ("at Christmas", "last Thanksgiving", "Easter 2024"), not a thing named after it
    rf"(?i:(?:(?P<hol_r>last|this\s+past|past|this|next|coming|upcoming)\s+)?(?P<hol>{HOLIDAY_NAMES})"
    rf"(?:,?\s+(?P<hol_y>(?:1[89]|20)\d{{2}})|\s+(?P<hol_ly>last|this|next)\s+year)?)\b"
    rf"(?!\s+(?i:{_HOLIDAY_THINGS})\b)",
    rf"(?i:(?P<sea_r>last|this\s+past|past|this|next|coming|upcoming)\s+(?P<sea>{_SEASON}))\b",
    # a season alone ("in the spring", "over the summer"): the last to have begun, or the next in a clause
    # about the future
    rf"(?i:(?:in|over|during|through)\s+the\s+(?P<bs>{_SEASON}))\b(?!\s+of\b)",
    # a season of a year ("the summer of 2019", "spring 2020"): its three months
    rf"(?i:(?:the\s+)?(?P<sy>{_SEASON})\s+(?:of\s+)?(?P<sy_y>(?:1[89]|20)\d{{2}})"
    r"(?:\s*[-/–]\s*(?:\d{4}|\d{2}))?)\b",  # ("winter 2024-25": the winter that opens in December 2024)
    # a part of a year ("early 2024", "mid-2019", "late last year": its first, middle or last four months;
    # "the first half of 2024", "the second half of last year": six)
    r"(?i:(?P<py>early|mid|late)(?:-|\s+)(?:(?P<py_y>(?:1[89]|20)\d{2})|(?P<py_r>last|this|next)\s+year))"
    r"(?![\w-])",
    r"(?<![\w-])(?P<hh3>H[12])(?:-|\s)?(?P<hh3_y>(?:1[89]|20)\d{2})\b",  # ("H2 2025": its July to December)
    # a week of a year by its number ("week 48 of 2025", "the 48th week of 2025"): as 2025-W48
    r"(?i:(?:week\s+(?P<wn>\d{1,2})|(?:the\s+)?(?P<wn_o>\d{1,2})(?:st|nd|rd|th)\s+week)(?:\s+of|,)?\s+"
    r"(?P<wn_y>(?:1[89]|20)\d{2}))\b",
    r"(?i:(?:the\s+)?(?P<hy>first|second|1st|2nd)\s+half\s+of\s+"
    r"(?:(?P<hy_y>(?:1[89]|20)\d{2})|(?P<hy_r>last|this|next)\s+year|the\s+year))\b",
    # the period the words before it end ("by the end of the month", "at the end of this week")
    r"(?i:(?:(?<=\bend\sof\s)|(?<=\bstart\sof\s)|(?<=\bbeginning\sof\s))(?:the|this)\s+"
    r"(?P<tp_u>week|month|quarter|year))\b",
    rf"(?i:(?P<lnt>last|next|this|past|coming|upcoming)\s+"
    rf"(?P<lnt_u>week(?:end)?|month|quarter|year|{_WD}|{_WD_SHORT}))\b",
    r"(?i:(?:the\s+)?(?P<wkb>weekend)\s+before\s+last)\b",
    # two weeks, months or years on or back ("the week after next", "the year before last")
    rf"(?i:the\s+(?P<ban_u>week|month|year|{_WD}|{_SEASON})\s+(?P<ban>after\s+next|before\s+last))\b",
    # a day of a month named by when it is ("the 15th of last month", "on the 3rd of this month")
    r"(?i:(?:the\s+)?(?P<dlm_d>[12]?\d|3[01])(?:st|nd|rd|th)\s+of\s+(?P<dlm_r>last|this|next|the\s+previous)"
    r"\s+month)\b",
    r"(?i:(?:over|on|at|during)\s+the\s+(?P<wk>weekend))\b(?!\s+of\b)",
    rf"(?i:(?:on\s+)(?P<on_wd>{_WD}|{_WD_SHORT}))\b",
    # a day of the week a thing is due by ("renew the passport by Friday", "due Monday"): the coming one
    rf"(?i:(?:by|due)\s+(?P<by_wd>{_WD}|{_WD_SHORT}))\b",
    # a day of the week a thing is or was ("the deadline is Friday", "my last day was Monday")
    rf"(?:(?<=\b[Ii]s\s)|(?<=\b[Aa]re\s)|(?<=\b[Ww]as\s)|(?<=\b[Ww]ere\s))(?P<be_wd>(?i:{_WD}))\b",
    # a day of the week or the weekend something lasts until or comes before ("stay until Sunday", "finish it
    # before Friday", "by the weekend"): the word before it is read as of any time
    rf"(?:(?<=\b[Uu]ntil\s)|(?<=\b[Tt]ill\s)|(?<=\b[Bb]efore\s))(?P<ut_wd>(?i:{_WD}))\b",
    r"(?:(?<=\b[Uu]ntil\s)|(?<=\b[Tt]ill\s)|(?<=\b[Bb]efore\s)|(?<=\b[Bb]y\s))(?i:the\s+(?P<wk_to>weekend))\b"
    r"(?!\s+of\b)",
    # a day of the month alone, before a clause goes on or ends ("on the 15th after my trip", not "on the 3rd
    # floor")
    r"(?i:on\s+the\s+(?P<od_d>[12]?\d|3[01])(?:st|nd|rd|th)(?=\s*(?:[,.;:!?)\]]|$)|\s+(?:and|after|before|"
    r"at|when|with|but|so|as|because|for|we|i|my|it|he|she|they|which|that|too)\b))",
    rf"(?<![\w-])(?P<mly_m>{_MON_FULL})\s+(?P<mly_r>(?i:last|this|next))\s+(?i:year)\b",
    rf"(?:(?<![\w-])|(?<=mid-))(?P<bare_m>{_MON_FULL}|{_MON_SHORT})\b(?!\s+\d)",  # ("mid-March", "since Oct")
    # a decade ("in the 1990s", "in the '90s"): its ten years ("the 1900s": its hundred)
    r"(?<![\w-])(?P<dec>(?:1[89]|20)\d0)s\b",
    r"(?<![\w-])(?P<dec2>[2-9]0)s\b",
    r"(?:(?<![\w-])|(?<=mid-))(?P<bare_y>(?:1[89]|20)\d{2})(?![\w-])",
    r"(?P<ay>\d{2})(?<=['’]\d\d)(?![\w'’-])",  # a year by its last two digits ("in '19", "since '08")
]


def _gated(forms: list[str]) -> re.Pattern[str]:
    """One alternation of ``forms``, in their order (at a position, the first form that matches wins).
    Neighbouring forms that open with a digit are tried only where a number starts (read from its first
    digit: "12025-11-27" holds no date); the Latin word forms only where no Latin letter or digit precedes (a
    word starts there: "Sean 3", "adec 5", "2025Q3" hold no time but as a whole); the forms
    that open with a Japanese letter only where a letter outside ASCII stands (a form that opens with its
    own lookahead keeps it). The engine would otherwise try each form at every character, which took most
    of the time of reading a text."""
    def gate(form: str) -> str:
        if re.match(r"\(\?P<\w+>\\d", form):
            return r"(?<!\d)(?=\d)"
        if form.startswith("(?i:"):
            return r"(?<![A-Za-z0-9])"
        return r"(?=[^\x00-\x7f])" if not form[:12].isascii() and not form.startswith("(?=") else ""

    groups: list[tuple[str, list[str]]] = []
    for form in forms:
        g = gate(form)
        if groups and groups[-1][0] == g != "":
            groups[-1][1].append(form)
        else:
            groups.append((g, [form]))
    return re.compile("|".join(g + "(?:" + "|".join(fs) + ")" if g else fs[0] for g, fs in groups))


def _without(forms: list[str], dropped: Callable[[str], bool]) -> list[str]:
    """``forms`` without those ``dropped``, whose groups stay, never matching (the reader looks each up)."""
    stubs = [f"(?P<{name}>(?!))" for f in forms if dropped(f) for name in re.compile(f).groupindex]
    return [f for f in forms if not dropped(f)] + ["".join(stubs)]


_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_POINT = _gated(_POINT_FORMS)
# for text in Latin letters alone: without the Japanese forms, which none of it can match (each was tried at
# every number); and without the form of a named day, for where none can open (the form took a fifth of the
# time of reading a text's times, tried at every opening)
_POINT_LATIN = _gated(_without(_POINT_FORMS, lambda f: _JAPANESE.search(f) is not None))
_POINT_UNNAMED = _gated(_without(_POINT_FORMS, lambda f: _JAPANESE.search(f) is not None or "(?P<hol>" in f))
# the Latin words a point can open with (a form is tried only where a run of Latin letters starts); the month
# forms are listed whole: ``mar(?:ch)?`` then needs a dot, a space or a word's end, never another letter
_OPENING_WORDS = frozenset(
    [*_MONTH_NAMES, "the", "in", "on", "several", "yesterday", "today", "tonight", "tomorrow", "last", "next",
     "this", "past", "coming", "upcoming", *(w.split()[0] for w in _NUMBERS), "q", "first", "second", "third",
     "fourth", "for", "over", "during", "within", "after", "at", "weekend", *_WEEKDAYS, *_SEASON_STARTS,
     "final", "early", "mid", "late", "1st", "2nd", "h", "week", "by", "due",
     *HOLIDAY_OPENINGS]
)
# opening words that open a point only before "the" ("at the weekend", "over the past 3 years"): checked
# first, as they open most of all words that are no time
_BEFORE_THE = frozenset(["at", "over", "during", "within"])
# opening words a named day's form may open with ("Christmas", "last Thanksgiving")
_NAMED_DAY_LEADS = HOLIDAY_OPENINGS | {"last", "this", "past", "next", "coming", "upcoming"}
_THE_NEXT = re.compile(r"\s+(?i:the)\b")
_OPENINGS = re.compile(r"(?<!\d)\d|(?<![A-Za-z0-9])[A-Za-z]+")
# what may follow "the" opening a point: a number, an opening word ("the first week of", "the summer of") or a
# unit ("the day before yesterday", "the week after next"); "the budget" is tried no further
_THE_UNITS = frozenset(["day", "week", "month", "quarter", "year", "other", "night"])
_NEXT_WORD = re.compile(r"\s+(\w+)")
# what may stand right before a bare month name or year for it to be a time
_BEFORE_BARE = re.compile(rf"(?i)\b{_PREP}(?:\s+the)?(?:\s+(?:year|month)(?:\s+of)?)?(?:\s+|(?<=mid)-)$")

# what may stand right before a named day alone for it to be a time ("at Christmas", "since Easter"; not
# "Happy Thanksgiving", "watched Independence Day")
_BEFORE_HOLIDAY = re.compile(r"(?i)\b(?:at|on|for|over|during|around|about|near|before|after|since|until|"
                             r"till|by|from|through|to|and|between|in|of|celebrated|spent)\s+$")

# what says a sentence tells of the past or the future ("I moved in the spring", "we'll ski over the winter")
_TENSED = re.compile(r"(?i)\b(?:was|were|had|did|went|got|took|came|made|began|spent|\w+ed|will|won't|"
                     r"going\s+to|gonna)\b|['’]ll\b")

# what says a sentence tells what is done again and again
_HABITUAL = re.compile(r"(?i)\b(?:usually|always|often|typically|normally|generally|traditionally|every|each|"
                       r"tends?\s+to|used\s+to)\b|いつも|毎年|よく")

# what says a clause speaks of the future ("will slip to March", "is moving there in June")
_FUTURE = re.compile(r"(?i)\b(?:will|won't|shall|going\s+to|gonna|plans?\s+to|planning\s+to|scheduled|"
                     r"expects?\s+to|hopes?\s+to|(?:is|are|am)\s+(?:moving|starting|leaving|relocating)|"
                     # (what is yet to do: "I need to call her on Friday", "TODO: renew it on Monday")
                     r"needs?\s+to|ha(?:ve|s)\s+to|must(?!\s+have\b|['’]ve\b)|remind\s+me\s+to|to-?do)\b"
                     r"|['’](?:ll\b|(?:m|re|s)\s+(?:moving|starting|leaving|relocating)\b)|\[\s\]")
# a clause that tells of the past in verbs of lasting ("stayed there until June", "it was done by the end of
# February"), and not of a delay ("was postponed until March" speaks of the next March)
_TOLD = re.compile(r"(?i)\b(?:was|were|had|stayed|lived|worked|remained|waited|kept|studied|served|lasted)\b"
                   r"(?!\s+(?:postponed|delayed|pushed|deferred|extended|scheduled|planned|moved|rescheduled|"
                   r"set|going|due|expected|supposed)\b)")
# what was done, told in the past before a day in its clause ("We met on Dec 25th", "I went there on the
# 10th"), or after it in Japanese ("12月25日に会った"); not what was set for it ("booked a table for Dec 25th")
_DONE_BEFORE = re.compile(r"(?i)\b(?:met|saw|went|visited|came|arrived|celebrated|finished|graduated|married|"
                          r"bought|spent)\b")  # (not "was hired on Dec 5th": a start that may be coming)
# a change told as made ("moved to Porto before March"; not "need to move there before March")
_CHANGED = re.compile(r"(?i)\b(?:moved|left|joined|started|began|quit|got|took|sold|bought|switched|changed|"
                      r"arrived|returned|retired|relocated|resigned|graduated|finished|completed|married|"
                      r"divorced|adopted|ended|stopped|signed|launched|shipped|went|came|met|did)\b")
_DAY_THEN_DATE = re.compile(r"\s*,?\s*(?:the\s+)?")  # ("on Monday, 3 November", "on Friday the 14th of May")
_BEFORE_WORD = re.compile(r"(?i)\s*(?:before|prior\s+to)\b")
_DONE_AFTER_JA = re.compile(r"(?:た|だ|ました|でした)(?:よ|ね|な|わ)?$")
_SET_FOR = re.compile(r"(?i)\b(?:for|until|till|by)\s+(?:the\s+)?$")


def _done(text: str, m: re.Match[str]) -> bool:
    """Whether the clause of the day ``m`` names tells of it as done: a verb of the past before it ("We met
    on"), or in Japanese one ending the clause after it ("に会った")."""
    if _JAPANESE.search(m[0]):
        return _DONE_AFTER_JA.search(text, m.end(), _clause_end(text, m.end())) is not None
    before = _clause_before(text[: m.start()])
    return _DONE_BEFORE.search(before) is not None and _SET_FOR.search(before) is None and \
        _FUTURE.search(before) is None


# what ended, told before "after <span>" in its clause: the span is how long it had lasted ("left my IT job
# after 3 years", "we broke up after two years"); not what will be done after it ("I'll be back after 3 days")
_ENDED_AFTER = re.compile(r"(?i)\b(?:left|quit|resigned|retired|stopped|ended|closed|broke\s+up|split\s+up|"
                          r"moved\s+out|gave\s+up|shut\s+down|sold|graduated)\b")
# a clause in a perfect tense: what it says has held up to now ("has been living there for 5 years")
_PERFECT = re.compile(r"(?i)\b(?:has|have|['’]ve|['’]s)\s+(?:\w+\s+)?(?:been|lived|worked|known|used|had|"
                      r"owned|led|run|played|studied|taught|managed)\b"
                      r"|^\s*been\b")  # ("Been playing it for a month now": "I've" left out)
# a time something is on or in, said in the present, is the coming one ("the party is on Friday", "the
# deadline is in mid-December", "the review is on the 5th", "the report is due on the 1st")
_IS_BEFORE = re.compile(r"(?i)(?:\b(?:is|are|am)|(?<=\w)['’]s)\s+(?:(?:due|set|planned|booked)\s+)?"
                        r"(?:(?:on|in)\s+)?"
                        r"(?:(?:the\s+)?(?:early|late|mid)(?:-|\s+))?$")
# what a day of the week after "is" is not a time of ("today is Friday": what day it is)
_DAY_NAMED = re.compile(r"(?i)\b(?:today|tomorrow|yesterday|tonight|it)\s+(?:is|was)\s+$")
_CLAUSE_MARKS = ".!?;,\n。、"  # (what ends the clause before a time)

_SINCE = re.compile(r"(?i)(?:\bsince|\bstarting(?:\s+from|\s+in|\s+on)?|\bbeginning(?:\s+in)?|\bas\s+of)\s+$")
# since a part of a period ("since the end of 2024": its December; "since the middle of 2024": its May)
_SINCE_PART = re.compile(r"(?i)\bsince\s+(?:the\s+)?(?:very\s+)?(?P<part>beginning|start|middle|end)"
                         r"\s+of\s+$")
_FROM = re.compile(r"(?i)\bfrom\s+$")
_BETWEEN = re.compile(r"(?i)\bbetween\s+$")
_UNTIL = re.compile(r"(?i)(?:\buntil|\btill|\btil|\bbefore|\bup\s+to|\bprior\s+to)\s+$")
_THROUGH = re.compile(r"(?i)(?:\bthrough|\bthru|\b(?:through|by|until|till)\s+(?:the\s+)?end\s+of)\s+$")
_RANGE_JOIN = re.compile(r"(?i)^\s*(?:to|until|till|through|thru|-|–|—)\s*$")
_AND_JOIN = re.compile(r"(?i)^\s+and\s+$")
_ONWARDS = re.compile(r"(?i)^\s+(?:on(?:wards?)?|forward)\b")
_JA_RANGE_JOIN = re.compile(r"^\s*(?:から|〜|～|~)\s*$")
_JA_UNTIL_AFTER = re.compile(r"^\s*(?:まで|にかけて)")
_JA_SINCE_AFTER = re.compile(r"^\s*(?:から|以来|以降)(?!\s*\d)")
# a question about when: "When did ...", "What year ...", "How long ago ...", "いつ", "何年" (at a sentence's or
# clause's start in English; anywhere in Japanese, where the question word sits inside the sentence)
_ASKS_WHEN = re.compile(
    r"(?i)(?:^|[.!?;,:]\s*)(?:(?:and|so|but|then)\s+)?"
    r"(?:when\b|since\s+when\b|how\s+long\b|(?:in\s+|during\s+|on\s+)?(?:what|which)\s+"
    r"(?:year|month|week|day|date|time)\b)"
    r"|いつ|何年|何月|何日|何曜日"
)

Preference = Literal["past", "future", "nearest"]


def _points(text: str) -> list[re.Match[str]]:
    """What ``_POINT.finditer(text)`` finds, trying the pattern only where a point can open: at a digit or at
    a Latin word a form opens with (the engine would try each form at every character, most of a text's
    reading time). Text with other scripts (Japanese forms open with kanji and kana) is scanned whole."""
    if not text.isascii():
        return list(_POINT.finditer(text))
    found: list[re.Match[str]] = []
    end = 0
    for opening in _OPENINGS.finditer(text):
        at = opening.start()
        if at < end:
            continue
        pattern = _POINT_UNNAMED
        if not text[at].isdigit():
            word = opening[0].lower()
            if word not in _OPENING_WORDS or word in _BEFORE_THE and not _THE_NEXT.match(text, opening.end()):
                continue
            if word == "the" and not ((nxt := _NEXT_WORD.match(text, opening.end())) and (
                    nxt[1][0].isdigit() or (w := nxt[1].lower()) in _OPENING_WORDS or w in _THE_UNITS)):
                continue
            if word in _NAMED_DAY_LEADS:
                pattern = _POINT_LATIN
        m = pattern.match(text, at)
        if m is not None:
            found.append(m)
            end = m.end()
    return found


def asks_when(text: str) -> bool:
    """Whether ``text`` asks when something happened, or for how long: its answer is a memory that says when.

    >>> asks_when("When did Caroline go to the support group?"), asks_when("What year did she move?")
    (True, True)
    >>> asks_when("How long has Jolene practised yoga?")  # "for about 3 years now", "since 2020"
    True
    >>> asks_when("Where does Caroline work?"), asks_when("Carolineはいつ引っ越した？")
    (False, True)
    """
    return _ASKS_WHEN.search(text) is not None


def find_times(text: str, anchor: TimePoint | dt.datetime, *, tz: dt.tzinfo = UTC) -> list[TimeMention]:
    """Every time expression in ``text``, in order, resolved against ``anchor`` (the event's time).

    >>> anchor = dt.datetime(2025, 11, 27, 12, tzinfo=UTC)
    >>> [(m.text, m.kind) for m in find_times("Since March Ana has lived in Lisbon.", anchor)]
    [('Since March', 'since')]
    """
    at = anchor.at if isinstance(anchor, TimePoint) else anchor
    at = at.astimezone(tz) if at.tzinfo else at.replace(tzinfo=tz)
    # a match that names no real time ("2025-13-45", "Feb 30") is ordinary text, not an error; each is read
    # once as the last such time (what most become)
    points: list[re.Match[str]] = []
    past: dict[int, TimePoint] = {}
    for m in _points(text):
        if _accepted(text, m) and (point := _past_point(m, at, tz)) is not None:
            points.append(m)
            past[m.start()] = point
    mentions: list[TimeMention] = []
    named_day: dict[int, int] = {}  # where a date starts -> where the day of the week said before it starts
    i = 0
    while i < len(points):
        m = points[i]
        nxt = points[i + 1] if i + 1 < len(points) else None
        between = text[m.end() : nxt.start()] if nxt else ""
        if nxt and (m["on_wd"] or m["by_wd"] or m["ut_wd"]) and _DAY_THEN_DATE.fullmatch(between) and \
                past[nxt.start()].granularity is G.DAY:
            # ("on Monday, 3 November 2025": that date, not last Monday; the date, if the day is not its own)
            named_day[nxt.start()] = m.start()
            i += 1
            continue
        if nxt and (nxt["ay"] or nxt["dec2"]):  # ("from '15 to '19": the last year's apostrophe)
            between = between.removesuffix("'").removesuffix("’")
        after = text[m.end() :]
        if nxt and ((_lead(_FROM, text, m) or _lead(_SINCE, text, m)) and _RANGE_JOIN.match(between)
                    or _lead(_BETWEEN, text, m) and _AND_JOIN.match(between)
                    or _JA_RANGE_JOIN.match(between) and (  # ("2020年〜2022年"; "から" with "まで" after)
                        "から" not in between or _JA_UNTIL_AFTER.match(text[nxt.end():]))):
            mentions.append(_range(text, m, nxt, at, tz))
            i += 2
            continue
        if m["dur_after"]:  # "left my IT job after 3 years": it had lasted from three years before the event
            day = _tp(at, G.DAY, tz)
            mentions.append(TimeMention(m[0], m.start(), m.end(), "range",
                                        Interval(start=past[m.start()], end=_end_of(day, tz))))
            i += 1
            continue
        if m["ys"]:  # "(from) 2019-2021": from the first year through the last
            lead = _lead(_FROM, text, m) or _lead(_BETWEEN, text, m)
            start = lead.start() if lead else m.start()
            final_year = _tp(_local(int(m["ys_e"]), 1, 1, tz), G.YEAR, tz)
            mentions.append(TimeMention(text[start : m.end()], start, m.end(), "range",
                                        Interval(start=past[m.start()], end=_end_of(final_year, tz))))
            i += 1
            continue
        if m["dur_n"] or m["dur_one"] or m["ja_dur_n"] or m["ja_recent_n"]:  # "has lived there for 5 years",
            # "この1年": since that long before the event
            mentions.append(TimeMention(m[0], m.start(), m.end(), "since", Interval(start=past[m.start()])))
            i += 1
            continue
        onwards = _ONWARDS.match(after)
        from_onwards = _lead(_FROM, text, m) if onwards else None  # "from May on"
        since = _lead(_SINCE, text, m) or from_onwards or _lead(_SINCE_PART, text, m)
        ja_since = _JA_SINCE_AFTER.match(after)
        offset = _lead(_OFFSET, text, m)  # ("the day before Christmas": not "before Christmas", up to it)
        ja_offset = _JA_OFFSET.match(after)  # ("クリスマスの前日", "3月3日の3日後")
        if offset or ja_offset:
            since = ja_since = None
        if since or ja_since:
            start = since.start() if since else m.start()
            end = m.end() + (onwards.end() if from_onwards and onwards else ja_since.end() if ja_since and not since
                             else 0)
            opens = past[m.start()]
            if since and since.re is _SINCE_PART:
                opens = _part_of(since["part"].lower(), opens, tz)
            mentions.append(TimeMention(text[start:end], start, end, "since", Interval(start=opens)))
        elif not (offset or ja_offset) and ((until := _lead(_UNTIL, text, m) or _lead(_THROUGH, text, m))
                                            or (ja_until := _JA_UNTIL_AFTER.match(after))):
            # the next such month or day, but in a story told in the past ("She stayed there until June"), and
            # before one a change was made ("I moved to Porto before March": the last March)
            clause = _clause_of(text, m)
            made = until is not None and until.re is _UNTIL and _BEFORE_WORD.match(until[0]) is not None and \
                _CHANGED.search(clause) is not None and _FUTURE.search(clause) is None
            told = (_lacks_year(m) or bool(m["ut_wd"] or m["wk_to"])) and (
                _TOLD.search(clause) is not None or made)
            point = past[m.start()] if told else _point(m, at, tz, "future")
            end_at = _end_of(point, tz) if until and until.re is _THROUGH else point
            start = until.start() if until else m.start()
            end = m.end() if until or ja_until is None else m.end() + ja_until.end()
            mentions.append(TimeMention(text[start:end], start, end, "until", Interval(end=end_at)))
        else:  # a month, day or quarter without its year: the last one, or the next in a future clause
            by_day = bool(m["by_wd"] or m["wk_to"])  # ("by Friday", "by the weekend": the coming one)
            ahead = by_day and _TOLD.search(clause := _clause_of(text, m)) is None and \
                _DONE_BEFORE.search(clause) is None or \
                (_lacks_year(m) or bool(m["wk"] or m["on_wd"] or m["be_wd"])) and (
                _FUTURE.search(_clause_before(text[: m.start()])) is not None  # ("will slip to March")
                or (_IS_BEFORE.search(text, 0, m.start()) is not None and _DAY_NAMED.search(
                    text, 0, m.start()) is None)
                or _JA_FUTURE.search(text, m.end(), _clause_end(text, m.end())) is not None)  # ("6月に...予定")
            prefer: Preference = "future" if ahead else "past"
            point = past[m.start()] if prefer == "past" else _point(m, at, tz, prefer)
            if prefer == "past" and point.granularity is G.DAY and point.at > at and _lacks_year(m) and \
                    _done(text, m):  # ("We met on Dec 25th", said on Dec 1st: last December's)
                point = _point(m, at, tz, "past", year=point.at.astimezone(tz).year - 1)
            start = m.start()
            if (m["ay"] or m["dec2"]) and start and text[start - 1] in "'’":  # ("'19", "the '90s": with its
                # apostrophe)
                start -= 1
            part_end: TimePoint | None = None
            if (end_of := _lead(_END_OF, text, m)) and point.granularity in _LAST_PART:
                point, start = _last_part(point, tz), end_of.start()  # "at the end of February"
            elif point.granularity is G.MONTH and (part := _lead(_MONTH_PART, text, m)):
                # "early December", "mid-May", "late May 2023": its first, middle or last ten days or so
                named = part[1].lower()
                first, last = _MONTH_PARTS["mid" if named.endswith("of") else named]  # ("the middle of": mid)
                local = point.at.astimezone(tz)
                part_end = _tp(local.replace(day=last), G.DAY, tz) if last else _end_of(point, tz)
                point, start = _tp(local.replace(day=first), G.DAY, tz), part.start()
            elif (start_of := _lead(_START_OF, text, m)) and point.granularity in _LAST_PART:
                # (its first part: "at the beginning of the year", its January)
                point, start = _tp(point.at, _LAST_PART[point.granularity], tz), start_of.start()
            elif point.granularity is G.YEAR and (middle := _lead(_YEAR_MIDDLE, text, m)):
                local = point.at.astimezone(tz)
                point, start = _tp(local.replace(month=_YEAR_PARTS["mid"]), G.MONTH, tz), middle.start()
                part_end = _shift(point.at, G.MONTH, 4, tz)
            elif point.granularity is G.DAY and (week_of := _lead(_WEEK_OF, text, m)):
                point, start = _tp(point.at, G.WEEK, tz), week_of.start()
            if part_end is not None:
                period = Interval(start=point, end=part_end)
            elif m["sea"] or m["bs"]:  # (a season: its three months)
                which = " ".join(m["sea_r"].lower().split()) if m["sea"] else \
                    "next" if prefer == "future" else "begun"
                opens, closes = _season((m["sea"] or m["bs"]).lower(), which, at, tz)
                period = Interval(start=opens, end=closes)
            elif m["dec"] or m["dec2"]:  # (a decade: its ten years; "the 1800s", "the 1900s": a century's)
                century = m["dec"] is not None and m["dec"].endswith("00") and m["dec"] != "2000"
                period = Interval(start=point, end=_shift(point.at, G.YEAR, 100 if century else 10, tz))
            elif (part_end := _part_end(m, point, tz)) is not None:  # (a part of a year or month)
                period = Interval(start=point, end=part_end)
            elif m["sy"] and point.granularity is G.MONTH:  # (of a year: alike; "the end of": its last week)
                period = Interval(start=point, end=_season_months(m["sy"].lower(), int(m["sy_y"]), tz)[1])
            elif m["ja_ry_s"] or m["ja_sy"] or (m["ago_u"] or m["ban_u"] or "").lower() in _SEASON_STARTS:
                # ("来年の春", "2024年の春", "two summers ago": a season, its three months)
                period = Interval(start=point, end=_shift(point.at, G.MONTH, 3, tz))
            elif (named := m["hol"] or m["ja_hol"]) and (days := holiday_days(holiday_key(named))) > 1:
                period = Interval(start=point, end=_tp(point.at + dt.timedelta(days=days), G.DAY, tz))
            elif _is_weekend(m):  # (a weekend: its Saturday and Sunday)
                period = Interval(start=point, end=_tp(point.at + dt.timedelta(days=2), G.DAY, tz))
            else:
                period = _period(point, tz)
            end = m.end()
            moved: Interval | None = period
            if offset:
                n = _count(offset["off_n"]) if offset["off_n"] else None
                moved = _offset_from(period, tz, back=offset["off_dir"].lower() == "before", n=n,
                                     unit=(offset["off_u"] or offset["off_the"]).lower())
                start = offset.start()
            elif ja_offset:
                n = _count(ja_offset["jo_n"]) if ja_offset["jo_n"] else None
                unit, back = (ja_offset["jo_u"], ja_offset["jo_dir"] == "前") if n else \
                    _JA_NEXT_TO[ja_offset[0][1:]]
                moved = _offset_from(period, tz, back=back, n=n, unit=unit)
                end += ja_offset.end()
                while i + 1 < len(points) and points[i + 1].start() < end:  # (its "3日後": no time of its own)
                    i += 1
            if moved is not None:  # (none: "9000 years after 2019", no time a calendar holds)
                mentions.append(TimeMention(text[start:end], start, end, "point", moved))
        i += 1
    if named_day:
        mentions = [replace(t, text=text[named_day[t.start] : t.end], start=named_day[t.start])
                    if t.start in named_day else t for t in mentions]
    return mentions


# a time said by how far it is from another: "the day before Christmas", "two weeks after March 3rd", "the
# week after Easter", "a year after 2019" (the time it is counted from follows)
_OFFSET = re.compile(rf"(?i)\b(?:(?P<off_n>{_NUM})\s+(?P<off_u>day|week|month|year)s?|the\s+"
                     rf"(?P<off_the>day|night|evening|morning|week|weekend|month|year))\s+"
                     rf"(?P<off_dir>before|after)\s+(?:the\s+)?$")
# in Japanese, after the time named: "の前日" (the day before), "の翌月", "の3日後" (three days after)
_JA_OFFSET = re.compile(rf"^の(?:前日|翌日|前夜|前月|翌月|前年|翌年|(?P<jo_n>\d+|[{_JA_DIGITS}])\s*"
                        rf"(?P<jo_u>日|週間|か月|ヶ月|カ月|ヵ月|年)(?P<jo_dir>前|後))")
_JA_NEXT_TO = {"前日": ("day", True), "翌日": ("day", False), "前夜": ("night", True), "前月": ("month", True),
               "翌月": ("month", False), "前年": ("year", True), "翌年": ("year", False)}


def _offset_from(period: Interval, tz: dt.tzinfo, *, back: bool, unit: str, n: int | None) -> Interval | None:
    """The time that far from ``period``, the time named after it: ``n`` days, weeks, months or years
    (``unit``) before or after it, counted from its start ("two days before Christmas" the 23rd, "a week after
    March 3rd" the 10th, "a year after 2019" 2020); with no count, the day, week (seven days), weekend,
    month or year right before its start or after its end ("the day before Christmas", "the week after
    Easter", "the weekend before" its Saturday and Sunday, "the month after June" July). None when that
    falls outside the calendar."""
    try:
        return _offset(period, tz, back=back, unit=unit, n=n)
    except (ValueError, OverflowError, GraphmemError):
        return None


def _offset(period: Interval, tz: dt.tzinfo, *, back: bool, unit: str, n: int | None) -> Interval:
    if period.start is None or period.end is None:  # (a point's period is closed: never so)
        return period
    said = period.start.granularity
    if n is not None:
        by = _UNITS[unit]
        moved = _moved(period.start.at.astimezone(tz), by, -n if back else n)
        return _period(_tp(moved, said if said.rank < by.rank else by, tz), tz)
    edge = (period.start if back else period.end).at.astimezone(tz)
    if unit == "weekend":  # the Saturday and Sunday right before its start, or right after its end
        saturday = edge - dt.timedelta(days=((edge.weekday() - 6) % 7 or 7) + 1) if back else \
            edge + dt.timedelta(days=(5 - edge.weekday()) % 7)
        return Interval(start=_tp(saturday, G.DAY, tz), end=_tp(saturday + dt.timedelta(days=2), G.DAY, tz))
    by = _UNITS.get(unit, G.DAY)  # (a night, an evening, a morning: that day)
    if by in (G.MONTH, G.YEAR) and said.rank >= by.rank:  # ("the month after June": July)
        return Interval(start=_shift(edge, by, -1, tz), end=period.start) if back else \
            Interval(start=period.end, end=_shift(edge, by, 1, tz))
    g = said if by in (G.MONTH, G.YEAR) else G.DAY  # (a week: its seven days, from the day said)
    other = _moved(edge, by, -1 if back else 1)
    return Interval(start=_tp(other, g, tz), end=_tp(edge, g, tz)) if back else \
        Interval(start=_tp(edge, g, tz), end=_tp(other, g, tz))


def _moved(at: dt.datetime, unit: Granularity, n: int) -> dt.datetime:
    """``at`` moved by ``n`` days, weeks, months or years (a month's day kept, or its last: Jan 31 and a
    month is Feb 28)."""
    if unit is G.DAY:
        return at + dt.timedelta(days=n)
    if unit is G.WEEK:
        return at + dt.timedelta(weeks=n)
    months = at.year * 12 + at.month - 1 + n * (12 if unit is G.YEAR else 3 if unit is G.QUARTER else 1)
    year, month = divmod(months, 12)
    return at.replace(year=year, month=month + 1, day=min(at.day, calendar.monthrange(year, month + 1)[1]))


_LEAD_WORDS = r"(?:at|on|in|during|over|around)\s+"  # (a time word a question's time may open with)
_ALONE_LEAD = re.compile(rf"(?i){_LEAD_WORDS}")
# the words a question may put before the expression it asks about ("the 1990s", "end of 2025", "the past 3
# months"), each tried in turn where the expression alone is not read whole: what text reads after them
_QUESTION_LEADS = ("over ", "on ", "in ", "at the ", "over the ", "from ")
# what may stand between such words and the expression found ("in the '90s": "1990s" is found, not "the")
_LEFT_BEFORE = re.compile(rf"(?i)(?:{_LEAD_WORDS})?(?:the\s+)?['’]?")
# what makes dateparser's reading a moment, not a period: a clock time, or a count of hours, minutes or
# seconds said in words ("3 hours ago"), or now. Without one it read "the 1990s" as 1,990 seconds ago
_MOMENT_SAID = re.compile(r"(?i)\d:\d\d|\d\s*[ap]\.?m\b|\b(?:now|noon|midnight|hours?|hrs?|minutes?|mins?|"
                          r"seconds?|secs?)\b|[時分秒]")

# what dateparser misreads: periods it reads as a single year ("last decade": the year ten years ago), and
# the words of a time's bounds it drops ("after March 2025": March 2025; the grammar reads those it can)
_NOT_DATEPARSER = re.compile(r"(?i)\b(?:decades?|century|centuries|after|before|since|until|till|from|"
                             r"between|prior|through)\b")
# a time of day alone ("3pm", "at 15:30", "noon"): its last moment by the anchor (dateparser took "3pm" asked
# at 10:00 on December 1st for December 30th)
_CLOCK_ALONE = re.compile(r"(?i)(?:at\s+)?(?:(?P<h12>1[0-2]|0?[1-9])(?::(?P<m12>[0-5]\d))?\s*(?P<ampm>[ap])"
                          r"\.?m\.?|(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)"
                          r"|(?P<named>noon|midday|midnight))")
# days of a month with a dash between ("1-5 May 2025", "May 1-5": dateparser read May 1)
_DAYS_OF_A_MONTH = re.compile(
    rf"(?i)(?:(?P<d1>[12]?\d|3[01])\s*[-–—]\s*(?P<d2>[12]?\d|3[01])\s+(?P<m1>{_MON})\.?|(?P<m2>{_MON})\.?\s+"
    rf"(?P<d3>[12]?\d|3[01])\s*[-–—]\s*(?P<d4>[12]?\d|3[01]))(?:,?\s+(?P<y>\d{{4}}))?")
_DAY_SPAN = re.compile(r"(?<![\d-])\d{1,2}\s*[-–—]\s*\d{1,2}(?![\d-])")  # (not a date's "2025-11-27")
_LETTER = re.compile(r"[^\W\d_]")
# words a question may put before its time that say nothing more of it ("circa 2019", "as of March 2025": the
# question is what held then)
_QUESTION_WORDS = re.compile(r"(?i)(?:circa|ca\.|c\.|about|approximately|roughly|around|as\s+of)\s+")


def parse_expression(text: str, anchor: TimePoint | dt.datetime, *, tz: dt.tzinfo = UTC,
                     field: str | None = None) -> TimeMention:
    """One whole time expression ("last week", "since March", "Nov 2025"), resolved against ``anchor``.

    A form text reads only after a time word ("the 1990s", "end of 2025", "the past year") is read after
    one. Forms the grammar does not know are read by dateparser (in English and Japanese), but not a moment
    the text names no hour of nor a decade; an expression neither can read raises :class:`MalformedTime`
    naming ``field``.
    """
    stripped = " ".join(text.split())
    # a rough time as the time ("circa 2019": 2019), and "as of" a time that time
    body = stripped[said.end():] if (said := _QUESTION_WORDS.match(stripped)) else stripped
    found = find_times(body, anchor, tz=tz)
    if len(found) == 1 and found[0].start == 0 and found[0].end >= len(body.rstrip(".")):
        whole = TimeMention(stripped, 0, len(stripped), found[0].kind, found[0].interval)
        return _its_weekday(whole, tz, field)
    # a form text reads only after a time word ("Christmas", "the 1990s", "end of 2025"): read after each
    spans = body
    if days := _DAYS_OF_A_MONTH.fullmatch(body):  # ("1-5 May 2025", "May 1-5": from its 1st to its 5th)
        month, year = days["m1"] or days["m2"], f" {days['y']}" if days["y"] else ""
        spans = f"{month} {days['d1'] or days['d3']} to {month} {days['d2'] or days['d4']}{year}"
    for lead in ("",) if _ALONE_LEAD.match(body) else (*_QUESTION_LEADS, ""):
        probe = f"{lead}{spans if lead == 'from ' else body}"
        found = find_times(probe, anchor, tz=tz)
        if len(found) == 1 and found[0].end >= len(probe.rstrip(".")) and \
                _LEFT_BEFORE.fullmatch(probe, len(lead), max(len(lead), found[0].start)):
            return _its_weekday(TimeMention(stripped, 0, len(stripped), found[0].kind, found[0].interval), tz,
                                field)
    if "から" in body:  # ("2020年から2022年": a range said without its "まで")
        found = find_times(f"{body}まで", anchor, tz=tz)
        if len(found) == 1 and found[0].start == 0 and found[0].end == len(body) + 2:
            return TimeMention(stripped, 0, len(stripped), found[0].kind, found[0].interval)
    at = anchor.at if isinstance(anchor, TimePoint) else anchor
    if clock := _CLOCK_ALONE.fullmatch(body):
        local = at.astimezone(tz) if at.tzinfo else at.replace(tzinfo=tz)
        moment = _clock_before(clock, local)
        return TimeMention(stripped, 0, len(stripped), "point", _period(TimePoint(at=moment.astimezone(UTC),
                                                                                  granularity=G.INSTANT), tz))
    point = _dateparser_point(stripped, at.astimezone(tz) if at.tzinfo else at.replace(tzinfo=tz), tz)
    if point is None or point.at.year < 1000 or (  # ("2020年〜2022年" was the year 4)
            point.granularity is G.INSTANT and not _MOMENT_SAID.search(stripped)) or \
            _NOT_DATEPARSER.search(stripped) or (_DAY_SPAN.search(stripped) and _LETTER.search(stripped)) or \
            not _dateparser_agrees(stripped, point, tz):
        raise MalformedTime(text, field=field, hint="write a date ('2025-11-27'), a month ('Nov 2025'), a "
                            "relative time ('last week', '3 days ago') or a range ('from May to July 2024')")
    return TimeMention(stripped, 0, len(stripped), "point", _period(point, tz))


_DAY_ORDINAL = re.compile(r"(?i)\b(?:[12]?\d|3[01])(?:st|nd|rd|th)\b")
_WEEKDAY_SAID = re.compile(rf"(?i)\b({_WD})\b")
_DIGIT = re.compile(r"\d")


def _its_weekday(asked: TimeMention, tz: dt.tzinfo, field: str | None) -> TimeMention:
    """``asked``, a question's time, unless it names a date and a day of the week that is not the date's
    ("Friday, November 27, 2025": a Thursday): which one is meant, the question does not say."""
    said, day = _WEEKDAY_SAID.search(asked.text), asked.interval.start
    if said and day is not None and day.granularity is G.DAY and _DIGIT.search(asked.text):
        local = day.at.astimezone(tz)
        if local.weekday() != _WEEKDAYS[said[1].lower()]:
            raise MalformedTime(asked.text, field=field, hint=f"{local:%B} {local.day}, {local.year} is a "
                                f"{local:%A}, not a {said[1].capitalize()}: give the date or the day alone")
    return asked


def _dateparser_agrees(text: str, point: TimePoint, tz: dt.tzinfo) -> bool:
    """Whether dateparser's reading of ``text`` keeps what the text says of the day: a day of the month said
    ("the 3rd") reads as a day, not a month; a weekday said is the day's ("Monday the 3rd" was March)."""
    if _DAY_ORDINAL.search(text) and point.granularity not in (G.DAY, G.INSTANT):
        return False
    said = _WEEKDAY_SAID.search(text)
    if said is None:
        return True
    if point.granularity not in (G.DAY, G.INSTANT):
        return False
    return point.at.astimezone(tz).weekday() == _WEEKDAYS[said[1].lower()]


def _clock_before(clock: re.Match[str], local: dt.datetime) -> dt.datetime:
    """The last moment at or before ``local`` that the time of day ``clock`` names."""
    if clock["named"]:
        hour, minute = (0, 0) if clock["named"].lower() == "midnight" else (12, 0)
    elif clock["h12"]:
        hour = int(clock["h12"]) % 12 + (12 if clock["ampm"].lower() == "p" else 0)
        minute = int(clock["m12"] or 0)
    else:
        hour, minute = int(clock["h24"]), int(clock["m24"])
    moment = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return moment if moment <= local else moment - dt.timedelta(days=1)


# -- reading one matched point ------------------------------------------------------------------------


def _past_point(m: re.Match[str], at: dt.datetime, tz: dt.tzinfo) -> TimePoint | None:
    """The time ``m`` names, the last one before ``at`` if it lacks its year; None if it names none."""
    try:
        return _point(m, at, tz, "past")
    except (ValueError, OverflowError, GraphmemError):
        return None


# "the end of February": its last week; of 2025, its December; of Q3, its September; of a week, its Sunday
_END_OF = re.compile(r"(?i)(?:\b(?:at|in|towards?|near)\s+(?:the\s+)?|\bthe\s+)(?:very\s+)?end\s+of\s+$")
_LAST_PART = {G.YEAR: G.MONTH, G.QUARTER: G.MONTH, G.MONTH: G.WEEK, G.WEEK: G.DAY}
# "early December", "mid-May", "late May": days 1-10, 11-20 and 21 to the month's end (the day after the last)
_MONTH_PART = re.compile(r"(?i)\b(early|mid|late|(?:the\s+)?middle\s+of)(?:-|\s+)$")
_MONTH_PARTS = {"early": (1, 11), "mid": (11, 21), "late": (21, None)}
# "the middle of 2025": as "mid-2025", its May to August; "the week of 10 Nov 2025": the week holding that day
_YEAR_MIDDLE = re.compile(r"(?i)\b(?:the\s+)?middle\s+of\s+$")
_WEEK_OF = re.compile(r"(?i)\b(?:the\s+)?week\s+of\s+$")
# "the beginning of the year": its January; of a month, its first week (and so on, as the end's)
_START_OF = re.compile(r"(?i)(?:\b(?:at|in|by|near)\s+(?:the\s+)?|\bthe\s+)(?:very\s+)?(?:beginning|start)"
                       r"\s+of\s+$")


def _last_part(point: TimePoint, tz: dt.tzinfo) -> TimePoint:
    """The last ``_LAST_PART`` of the period ``point`` names (the week holding a month's last day)."""
    last_moment = period_end(point, tz) - dt.timedelta(microseconds=1)
    return _tp(last_moment, _LAST_PART[point.granularity], tz)


# how far before a time the words that lead it reach ("through the end of", "in the month of"), past the
# spaces right before it
_LEAD_REACH = 64


def _lead(pattern: re.Pattern[str], text: str, m: re.Match[str]) -> re.Match[str] | None:
    """``pattern``, which matches the words right before a time (it ends with ``$``), searched in the text
    before ``m``: in its last words only (the whole text before each time took a sixth of reading a text)."""
    at = k = m.start()
    if k > 0 and text[k - 1] in "'’":  # ("since '08", "in the '90s": the year's apostrophe)
        at = k = k - 1
    while k > 0 and text[k - 1].isspace():
        k -= 1
    return pattern.search(text, max(0, k - _LEAD_REACH), at)


def _accepted(text: str, m: re.Match[str]) -> bool:
    """Bare months and years only after a time preposition ("in March", "since 2019")."""
    if m["ys"]:  # (from one year to a later one)
        return int(m["ys"]) < int(m["ys_e"])
    if (m["dec2"] or m["ay"]) and m.start() and text[m.start() - 1] in "'’":  # ("in the '90s", "in '19")
        if m["ay"] and m.start() > 1 and text[m.start() - 2].isalnum():  # ("Kim's" is no year)
            return False
        return _BEFORE_BARE.search(text, max(0, m.start() - 1 - _LEAD_REACH), m.start() - 1) is not None
    if m["bare_m"] or m["bare_y"] or (m["q"] and not m["q_y"]) or m["dec"] or m["dec2"]:
        return _lead(_BEFORE_BARE, text, m) is not None
    if m["bs"]:  # told in the past or of the future; not of any year ("Leaves fall in the autumn", "We
        # usually ski over the winter")
        sentence = _sentence_of(text, m)
        return _TENSED.search(sentence) is not None and _HABITUAL.search(sentence) is None
    if m["dur_after"]:
        return _ENDED_AFTER.search(_clause_before(text[: m.start()])) is not None
    if m["dur_n"] or m["dur_one"]:  # "over the past 3 years" runs up to now; "for 3 years" only in a perfect
        # tense ("has lived here for 5 years", not "was there for 5 days")
        return (bool(m["dur_the"] or m["dur_span"])
                or _PERFECT.search(_clause_before(text[: m.start()])) is not None)
    if m["fut_n"]:  # "in two weeks" ahead; not a span nothing happened over ("haven't talked in a few days")
        return _NOT_SINCE.search(_clause_before(text[: m.start()])) is None
    if m["ja_dur_n"]:  # "5年間住んでいる": a span dates only a clause that goes on to now
        return _JA_GOING_ON.search(text, m.end(), _clause_end(text, m.end())) is not None
    if m["hol"] and not (m["hol_r"] or m["hol_y"] or m["hol_ly"]) or m["ja_hol"] and not m["ja_hol_r"]:
        # (alone, a day of any year in a sentence of what is done every year: "At Christmas we always ski")
        return (m["ja_hol"] is not None or _lead(_BEFORE_HOLIDAY, text, m) is not None) and \
            _HABITUAL.search(_sentence_of(text, m)) is None
    if m["be_wd"]:
        return _DAY_NAMED.search(text, 0, m.start()) is None
    if m["ja_m"] is not None:  # "3月" alone must not be the start of "3月27日" (matched earlier) or a count
        return not text[m.end() : m.end() + 1].isdigit()
    return True


# a negated perfect before "in <span>": the span is how long nothing happened ("haven't talked in a few days",
# "I haven't seen him in years")
_NOT_SINCE = re.compile(r"(?i)\b(?:haven['’]?t|hasn['’]?t|hadn['’]?t|have\s+not|has\s+not|had\s+not|"
                        r"have\s+never|has\s+never|had\s+never)\b")
# a Japanese clause about the future: its plan said after the time ("6月に大阪に引っ越す予定")
# (or a plain verb ending the clause, not one going on: "6月に引っ越します", not "住んでいます")
_JA_FUTURE = re.compile(r"予定|つもり|見込み|計画"
                        r"|(?<![てで]い)(?<![てで]いま)(?:ます|[うくぐすつぬぶむる])(?:よ|ね|な|わ)?$")
# a Japanese clause that goes on to now: "住んでいる", "働いています", "使ってる"
_JA_GOING_ON = re.compile(r"[てで](?:いる|います|る|ます)")


def _clause_end(text: str, at: int) -> int:
    """Where the clause that goes on at ``at`` ends."""
    return min((i for mark in _CLAUSE_MARKS if (i := text.find(mark, at)) >= 0), default=len(text))


def _clause_of(text: str, m: re.Match[str]) -> str:
    """The clause a time stands in: from the mark before it to the mark after it."""
    return _clause_before(text[: m.start()]) + text[m.start() : _clause_end(text, m.end())]


def _sentence_of(text: str, m: re.Match[str]) -> str:
    """The sentence a time stands in."""
    start = max(text.rfind(mark, 0, m.start()) for mark in ".!?\n。") + 1
    ends = [i for mark in ".!?\n。" if (i := text.find(mark, m.end())) >= 0]
    return text[start : min(ends, default=len(text))]


def _clause_before(before: str) -> str:
    """The part of its clause before a time (``before``: the text up to it)."""
    return before[max(before.rfind(mark) for mark in _CLAUSE_MARKS) + 1 :]


def _range(text: str, a: re.Match[str], b: re.Match[str], at: dt.datetime, tz: dt.tzinfo) -> TimeMention:
    end_point = _point(b, at, tz, "nearest")
    start_point = _point(a, at, tz, "nearest", year=_local_year(end_point, tz) if _lacks_year(a) else None)
    if start_point.at > end_point.at and _lacks_year(a):  # "from December to February 2025"
        start_point = _point(a, at, tz, "past", year=_local_year(end_point, tz) - 1)
    lead = _lead(_FROM, text, a) or _lead(_SINCE, text, a) or _lead(_BETWEEN, text, a)
    start = lead.start() if lead else a.start()
    end = b.end()
    tail = _JA_UNTIL_AFTER.match(text[b.end() :])
    if tail:
        end += tail.end()
    end_at = _part_end(b, end_point, tz) or _end_of(end_point, tz)
    if end_at.at < start_point.at:
        end_at = _end_of(start_point, tz)
    return TimeMention(text[start:end], start, end, "range", Interval(start=start_point, end=end_at))


def _is_weekend(m: re.Match[str]) -> bool:
    return bool(m["wk"] or m["wk_to"] or m["wkb"] or (m["lnt_u"] or m["ago_u"] or "").lower() == "weekend"
                or (m["ja_rel"] or "").endswith("週末"))


def _lacks_year(m: re.Match[str]) -> bool:
    return bool(m["bare_m"] or m["ja_m"] or m["ja_md_m"] or m["od_d"] or (m["mdy_m"] and not m["mdy_y"])
                or (m["wom_m"] and not m["wom_y"])
                or (m["dmy_m"] and not m["dmy_y"]) or (m["q"] and not m["q_y"])
                or (m["qw"] and not m["qw_y"]) or (m["hol"] and not (m["hol_y"] or m["hol_r"] or m["hol_ly"]))
                or (m["ja_hol"] and not m["ja_hol_r"]) or m["bs"] or (m["ja_mp_m"] and not m["ja_mp_y"])
                or m["ja_ye"] or (m["ja_q"] and not m["ja_q_y"]))


def _local_year(point: TimePoint, tz: dt.tzinfo) -> int:
    return point.at.astimezone(tz).year


def _end_of(point: TimePoint, tz: dt.tzinfo) -> TimePoint:
    """Where the period ``point`` names ends, at its granularity: the end of "June" is July 1st."""
    return TimePoint(at=period_end(point, tz), granularity=point.granularity)


def _part_of(part: str, point: TimePoint, tz: dt.tzinfo) -> TimePoint:
    """Where the ``part`` ("beginning", "start", "middle", "end") of the period ``point`` names begins: of a
    year its January, May or December; of a month its first week, its 11th or its last week."""
    if point.granularity not in _LAST_PART:
        return point
    if part == "end":
        return _last_part(point, tz)
    if part == "middle" and point.granularity is G.YEAR:
        return _tp(point.at.astimezone(tz).replace(month=_YEAR_PARTS["mid"]), G.MONTH, tz)
    if part == "middle" and point.granularity is G.MONTH:
        return _tp(point.at.astimezone(tz).replace(day=_MONTH_PARTS["mid"][0]), G.DAY, tz)
    return _tp(point.at, _LAST_PART[point.granularity], tz)


def _part_end(m: re.Match[str], point: TimePoint, tz: dt.tzinfo) -> TimePoint | None:
    """Where the part of a period ``m`` names ends, ``point`` its start: "late 2023" four months on, "the
    first half of 2024", "H1 2024", "2025年上半期" six, "2025年度" twelve, "11月中旬" its 20th; None for other
    forms."""
    if m["py"]:
        return _shift(point.at, G.MONTH, 4, tz)
    if m["hy"] or m["hh"] or m["hh2"] or m["hh3"]:
        return _shift(point.at, G.MONTH, 6, tz)
    if m["ja_yp"]:
        return _shift(point.at, G.MONTH, _JA_YEAR_PARTS[m["ja_yp"]][1], tz)
    if m["ja_fy"] or m["ja_fy_r"]:
        return _shift(point.at, G.MONTH, 12, tz)
    if m["ja_mp"] in _JA_MONTH_PARTS:
        local, last = point.at.astimezone(tz), _JA_MONTH_PARTS[m["ja_mp"]][1]
        return _tp(local.replace(day=last), G.DAY, tz) if last else _end_of(_tp(local, G.MONTH, tz), tz)
    return None


def _ja_year(text: str, at: dt.datetime, tz: dt.tzinfo) -> int:
    """The year a Japanese year names: "2025", "令和7" (2025), "平成元" (1989), "去年"."""
    text = "".join(text.split())
    if text[:2] in _ERA_START:
        return _ERA_START[text[:2]] + (1 if text[2:] == "元" else int(text[2:]))
    return int(text) if text.isdigit() else _local_year(_relative_word(text, at, tz), tz)


def _period(point: TimePoint, tz: dt.tzinfo) -> Interval:
    return Interval(start=point, end=_end_of(point, tz))


def _local(year: int, month: int, day: int, tz: dt.tzinfo) -> dt.datetime:
    return dt.datetime(year, month, day, tzinfo=tz)


def _tp(value: dt.datetime, g: Granularity, tz: dt.tzinfo) -> TimePoint:
    return TimePoint(at=truncate(value.astimezone(UTC), g, tz), granularity=g)


def _point(m: re.Match[str], at: dt.datetime, tz: dt.tzinfo, prefer: Preference, *,
           year: int | None = None) -> TimePoint:
    g = m.groupdict()
    if g["iso_i"]:
        value = dt.datetime.fromisoformat(g["iso_i"].replace("Z", "+00:00").replace(" ", "T"))
        return TimePoint(at=value if value.tzinfo else value.replace(tzinfo=tz), granularity=G.INSTANT)
    if g["iso_d"]:
        y, mo, d = map(int, g["iso_d"].split("-"))
        return _tp(_local(y, mo, d, tz), G.DAY, tz)
    if g["iso_w"]:
        year_text, week_text = g["iso_w"].split("-W")
        return _tp(dt.datetime.fromisocalendar(int(year_text), int(week_text), 1).replace(tzinfo=tz), G.WEEK, tz)
    if g["iso_m"]:
        y, mo = map(int, g["iso_m"].split("-"))
        return _tp(_local(y, mo, 1, tz), G.MONTH, tz)
    if g["era"]:  # "令和7年11月": 2025's November
        y = _ja_year(g["era"], at, tz)
        if g["era_m"]:
            era_day = _local(y, int(g["era_m"]), int(g["era_d"] or 1), tz)
            return _tp(era_day, G.DAY if g["era_d"] else G.MONTH, tz)
        return _tp(_local(y, 1, 1, tz), G.YEAR, tz)
    if g["ja_yp"]:  # "2025年の後半": its July (six months), "去年の暮れ": its December
        y = _ja_year(g["ja_yp_y"] or g["ja_yp_r"], at, tz)
        return _tp(_local(y, _JA_YEAR_PARTS[g["ja_yp"]][0], 1, tz), G.MONTH, tz)
    if g["ja_fy"] or g["ja_fy_r"]:  # "2025年度": its April (twelve months); "今年度": the one begun last April
        local = at.astimezone(tz)
        fiscal = _ja_year(g["ja_fy"], at, tz) if g["ja_fy"] else \
            local.year - (local.month < 4) + _JA_FISCAL_SHIFT[g["ja_fy_r"]]
        return _tp(_local(fiscal, 4, 1, tz), G.MONTH, tz)
    if g["ja_ye"]:  # "年末": this year's December, or last year's before it begins; "年始": January
        local, closing = at.astimezone(tz), g["ja_ye"] == "年末"
        this_one = prefer == "future" or local.month == 12 if closing else prefer != "future"
        ye_year = local.year + (0 if this_one else -1 if closing else 1)
        return _tp(_local(ye_year, 12 if closing else 1, 1, tz), G.MONTH, tz)
    if g["ja_q"]:
        n = int(g["ja_q"]) if g["ja_q"].isdigit() else "一二三四".index(g["ja_q"]) + 1
        return _quarter(n, _ja_year(g["ja_q_y"], at, tz) if g["ja_q_y"] else year, at, tz, prefer)
    if g["ja_mp"]:  # "11月中旬": its 11th (to its 20th); "11月末": its last week
        of_year = _ja_year(g["ja_mp_y"], at, tz) if g["ja_mp_y"] else year
        whole = _relative_word(g["ja_mp_r"], at, tz) if g["ja_mp_r"] else \
            _month(int(g["ja_mp_m"]), of_year, at, tz, prefer)
        if g["ja_mp"].startswith("第"):  # "11月の第2週": the week holding its 8th, as "the second week of"
            nth = g["ja_mp"].strip("第週 ")
            day = 1 + 7 * (int(nth) - 1 if nth.isdigit() else "一二三四五".index(nth))
            return _tp(whole.at.astimezone(tz).replace(day=day), G.WEEK, tz)
        if g["ja_mp"] not in _JA_MONTH_PARTS:  # ("11月末", "最終週": its last week)
            return _last_part(whole, tz)
        return _tp(whole.at.astimezone(tz).replace(day=_JA_MONTH_PARTS[g["ja_mp"]][0]), G.DAY, tz)
    if g["ja_ymd"]:
        return _tp(_local(int(g["ja_ymd"]), int(g["ja_ymd_m"]), int(g["ja_ymd_d"]), tz), G.DAY, tz)
    if g["ja_ym"]:
        return _tp(_local(int(g["ja_ym"]), int(g["ja_ym_m"]), 1, tz), G.MONTH, tz)
    if g["ja_y"]:
        return _tp(_local(int(g["ja_y"]), 1, 1, tz), G.YEAR, tz)
    if g["bare_y"] or g["ys"]:
        return _tp(_local(int(g["bare_y"] or g["ys"]), 1, 1, tz), G.YEAR, tz)
    if g["ay"]:  # "'19": 2019, or 1919 while 2019 is yet to come ("'98": 1998)
        year = 2000 + int(g["ay"])
        return _tp(_local(year if year <= at.astimezone(tz).year else year - 100, 1, 1, tz), G.YEAR, tz)
    if which_half := g["hh"] or g["hh2"] or g["hh3"]:  # "H2 2025", "2025 H2", "2H 2025": its July (six
        # months)
        return _tp(_local(int(g["hh_y"] or g["hh_y2"] or g["hh3_y"]), 1 if "1" in which_half else 7, 1, tz),
                   G.MONTH, tz)
    if g["wn_y"]:  # "week 48 of 2025": its Monday (a week)
        week = int(g["wn"] or g["wn_o"])
        return _tp(dt.datetime.fromisocalendar(int(g["wn_y"]), week, 1).replace(tzinfo=tz), G.WEEK, tz)
    if g["hol"] or g["ja_hol"]:  # "last Christmas", "Easter 2024", "去年の大晦日"
        if g["hol_y"]:
            year = int(g["hol_y"])
        elif g["hol_ly"] or g["ja_hol_r"]:  # ("Christmas next year", "去年のクリスマス")
            shift = _YEAR_SHIFT.get((g["hol_ly"] or "").lower())
            year = at.astimezone(tz).year + (shift if shift is not None else _JA_WORDS[g["ja_hol_r"]][1])
        which = " ".join(g["hol_r"].lower().split()) if g["hol_r"] else None
        return _holiday(holiday_key(g["hol"] or g["ja_hol"]), which, year, at, tz, prefer)
    if g["ja_sy"]:  # "2025年の春": its season's first month (three months)
        return _tp(_local(_ja_year(g["ja_sy_y"], at, tz), _season_start(_JA_SEASONS[g["ja_sy"]], tz), 1, tz),
                   G.MONTH, tz)
    if g["ja_ry"]:  # "去年の3月": that month of that year; "来年の春": its season's first month
        year = _local_year(_relative_word(g["ja_ry"], at, tz), tz)
        if g["ja_ry_m"]:
            return _tp(_local(year, int(g["ja_ry_m"]), 1, tz), G.MONTH, tz)
        return _tp(_local(year, _season_start(_JA_SEASONS[g["ja_ry_s"]], tz), 1, tz), G.MONTH, tz)
    if g["ja_wd"]:  # "先週の金曜日": that week's; "金曜日に" alone the last one (the next in a future clause)
        weekday = _JA_WEEKDAYS[g["ja_wd"]]
        if g["ja_wd_w"]:
            monday = truncate(at, G.WEEK, tz) + dt.timedelta(weeks=_JA_WORDS[g["ja_wd_w"]][1])
            return _tp(monday + dt.timedelta(days=weekday), G.DAY, tz)
        return _weekday(weekday, at, tz, "future" if prefer == "future" else "past")
    if g["ja_md_m"]:
        return _month_day(int(g["ja_md_m"]), int(g["ja_md_d"]), year, at, tz, prefer)
    if g["mdy_m"]:
        return _month_day(_MONTH_NAMES[g["mdy_m"].lower()], int(g["mdy_d"]),
                          int(g["mdy_y"]) if g["mdy_y"] else year, at, tz, prefer)
    if g["dmy_m"]:
        return _month_day(_MONTH_NAMES[g["dmy_m"].lower()], int(g["dmy_d"]),
                          int(g["dmy_y"]) if g["dmy_y"] else year, at, tz, prefer)
    if g["my_m"]:
        return _tp(_local(int(g["my_y"]), _MONTH_NAMES[g["my_m"].lower()], 1, tz), G.MONTH, tz)
    if g["iso_q"]:
        return _tp(_local(int(g["iso_q"]), 3 * int(g["iso_q_n"]) - 2, 1, tz), G.QUARTER, tz)
    if g["q"] or g["qw"]:
        n = int(g["q"][1]) if g["q"] else _QUARTER_WORDS[g["qw"].lower()]
        given = g["q_y"] or g["qw_y"]
        return _quarter(n, int(given) if given else year, at, tz, prefer)
    if g["od_d"]:
        return _day_of_month(int(g["od_d"]), at, tz, prefer)
    if g["mly_m"]:
        year = at.astimezone(tz).year + _YEAR_SHIFT[g["mly_r"].lower()]
        return _tp(_local(year, _MONTH_NAMES[g["mly_m"].lower()], 1, tz), G.MONTH, tz)
    if g["bare_m"] or g["ja_m"]:
        month = _MONTH_NAMES[g["bare_m"].lower()] if g["bare_m"] else int(g["ja_m"])
        return _month(month, year, at, tz, prefer)
    if g["ago_u"] and g["ago_u"].lower() in _WEEKDAYS:  # "two Fridays ago": the one before last Friday
        last_one = _weekday(_WEEKDAYS[g["ago_u"].lower()], at, tz, "past")
        return _shift(last_one.at, G.DAY, -7 * (_count(g["ago_n"]) - 1), tz)
    if g["ago_u"] and g["ago_u"].lower() == "weekend":  # "two weekends ago"
        return _weekend(at, tz, -_count(g["ago_n"]))
    if g["ttly"]:  # "this time last year": its month, as "a year ago"
        return _shift(at, G.MONTH, -12, tz)
    if g["dec"] or g["dec2"]:  # "the 1990s", "the '90s": the first of its years
        return _tp(_local(int(g["dec"]) if g["dec"] else 1900 + int(g["dec2"]), 1, 1, tz), G.YEAR, tz)
    if g["bs"]:  # "in the spring": the last to have begun; the next to begin in a clause about the future
        return _season(g["bs"].lower(), "next" if prefer == "future" else "begun", at, tz)[0]
    if g["ago_u"] and g["ago_u"].lower() in _SEASON_STARTS:  # "two summers ago": the one before last summer
        season = g["ago_u"].lower()
        last = _season(season, "last", at, tz)[0].at.astimezone(tz)
        return _season_months(season, last.year + 1 - _count(g["ago_n"]), tz)[0]
    if g["ago_n"] or g["ja_ago_n"]:
        n = _count(g["ago_n"] or g["ja_ago_n"]) * _steps_in(g["ago_u"])
        unit = _UNITS[(g["ago_u"] or g["ja_ago_u"]).lower()]
        if unit is G.YEAR and n == 1:  # "a year ago": this time last year, its month ("last year": the year)
            return _shift(at, G.MONTH, -12, tz)
        return _shift(at, unit, -n, tz)
    if g["dur_n"] or g["dur_one"] or g["ja_dur_n"] or g["ja_recent_n"]:  # ("the past year": one)
        unit = _UNITS[(g["dur_u"] or g["dur_one"] or g["ja_dur_u"] or g["ja_recent_u"]).lower()]
        n = _count(g["dur_n"] or g["ja_dur_n"] or g["ja_recent_n"] or "one") * _steps_in(g["dur_u"]
                                                                                          or g["dur_one"])
        return _shift(at, unit, -n, tz)
    if g["fut_n"] or g["fn_n"] or g["ja_aft_n"]:
        unit = _UNITS[(g["fut_u"] or g["fn_u"] or g["ja_aft_u"]).lower()]
        n = _count(g["fut_n"] or g["fn_n"] or g["ja_aft_n"]) * _steps_in(g["fut_u"] or g["fn_u"])
        return _shift(at, unit, n, tz)
    if g["rel"] or g["ja_rel"]:
        return _relative_word((g["rel"] or g["ja_rel"]).lower(), at, tz)
    if g["sea"]:
        return _season(g["sea"].lower(), " ".join(g["sea_r"].lower().split()), at, tz)[0]
    if g["lnt"]:
        return _last_next(g["lnt"].lower(), g["lnt_u"].lower(), at, tz)
    if g["wom_m"]:  # "the first week of October": the week holding its 1st (8th ...), the last its last day
        given = int(g["wom_y"]) if g["wom_y"] else year
        whole = _month(_MONTH_NAMES[g["wom_m"].lower()], given, at, tz, prefer)
        nth = g["wom_n"].lower()
        if nth in ("last", "final"):
            return _last_part(whole, tz)
        day = 1 + 7 * ("first", "second", "third", "fourth").index(nth)
        return _tp(whole.at.astimezone(tz).replace(day=day), G.WEEK, tz)
    if g["sy"]:  # "the summer of 2019": the month it opens with (its period: three months)
        return _season_months(g["sy"].lower(), int(g["sy_y"]), tz)[0]
    if g["py"]:  # "early 2024": its January; "mid-2024" its May, "late 2024" its September (four months each)
        year = int(g["py_y"]) if g["py_y"] else at.astimezone(tz).year + _YEAR_SHIFT[g["py_r"].lower()]
        return _tp(_local(year, _YEAR_PARTS[g["py"].lower()], 1, tz), G.MONTH, tz)
    if g["hy"]:  # "the second half of last year": its July (six months)
        shift = _YEAR_SHIFT.get((g["hy_r"] or "").lower(), 0)
        year = int(g["hy_y"]) if g["hy_y"] else at.astimezone(tz).year + shift
        return _tp(_local(year, 1 if g["hy"].lower() in ("first", "1st") else 7, 1, tz), G.MONTH, tz)
    if g["tp_u"]:  # "(the end of) the month": this one
        return _shift(at, _UNITS[g["tp_u"].lower()], 0, tz)
    if g["ban"]:  # "the week after next": two on; "the month before last": two back
        ahead = g["ban"].lower().startswith("after")
        if (ban_unit := g["ban_u"].lower()) in _WEEKDAYS:  # "the Friday before last": the one before last
            # Friday
            return _shift(_weekday(_WEEKDAYS[ban_unit], at, tz, "future" if ahead else "past").at, G.DAY,
                          7 if ahead else -7, tz)
        if ban_unit in _SEASON_STARTS:  # "the summer before last": the one before last summer
            one = _season(ban_unit, "next" if ahead else "last", at, tz)[0].at.astimezone(tz)
            return _season_months(ban_unit, one.year + (1 if ahead else -1), tz)[0]
        return _shift(at, _UNITS[ban_unit], 2 if ahead else -2, tz)
    if g["dlm_d"]:  # "the 15th of last month": that day of that month
        named = _shift(at, G.MONTH, _YEAR_SHIFT.get(g["dlm_r"].lower(), -1), tz)
        local = named.at.astimezone(tz)
        return _tp(_safe_date(local.year, local.month, int(g["dlm_d"]), tz), G.DAY, tz)
    if g["wkb"]:  # "the weekend before last"
        return _weekend(at, tz, -2)
    # "over the weekend", "by the weekend": the last one (this one, said on it), or the next in a clause ahead
    if g["wk"] or g["wk_to"]:
        on_it = at.astimezone(tz).weekday() >= 5
        return _weekend(at, tz, 0 if on_it or prefer == "future" else -1)
    if said := g["on_wd"] or g["be_wd"] or g["by_wd"] or g["ut_wd"]:
        day = _WEEKDAY_NUMBERS[said.lower()]
        return _weekday(day, at, tz, "future" if prefer == "future" else "past")
    raise AssertionError(f"unhandled time form: {m[0]!r}")


def _holiday(key: str, which: str | None, year: int | None, at: dt.datetime, tz: dt.tzinfo,
             prefer: Preference) -> TimePoint:
    """The day a named day falls on: in ``year`` if given; "this": this year's; "last": the last one before
    the day of ``at``, "next" the first after it; alone the last one by then (that day's included), or the
    first from then in a clause about the future."""
    today = at.astimezone(tz).date()
    this_year = today.year if year is None or which == "this" else year
    days = [holiday_date(key, y) for y in (this_year - 1, this_year, this_year + 1)]
    if year is not None or which == "this":
        day = days[1]
    elif which in ("last", "past", "this past"):
        day = max(d for d in days if d < today)
    elif which in ("next", "coming", "upcoming"):
        day = min(d for d in days if d > today)
    elif prefer == "future":
        day = min(d for d in days if d >= today)
    elif prefer == "nearest":
        day = min(days, key=lambda d: abs((d - today).days))
    else:
        day = max(d for d in days if d <= today)
    return _tp(_local(day.year, day.month, day.day, tz), G.DAY, tz)


def _steps_in(unit: str | None) -> int:
    """How many of its granularity's steps a unit word is: a fortnight two weeks, a decade ten years, any
    other one."""
    return _STEPS.get(unit.lower(), 1) if unit else 1


_STEPS = {"fortnight": 2, "decade": 10}


def _count(word: str) -> int:
    word = " ".join(word.lower().split())
    if word in _JA_DIGITS or word == "数":
        return _JA_DIGITS.index(word) + 1 if word != "数" else _NUMBERS["a few"]
    return int(word) if word.isdigit() else _NUMBERS[word]


def _month_day(month: int, day: int, year: int | None, at: dt.datetime, tz: dt.tzinfo,
               prefer: Preference) -> TimePoint:
    if year is None:  # the nearest such day to the anchor ("Dec 5th" in late November is next week)
        year = at.year
        candidates = [y for y in (at.year - 1, at.year, at.year + 1) if _exists(y, month, day)]
        if candidates:
            year = min(candidates, key=lambda y: abs((_local(y, month, day, at.tzinfo or tz) - at).total_seconds()))
        if prefer == "past" and _exists(year, month, day) and _local(year, month, day, tz) > at:
            year = year if abs((_local(year, month, day, tz) - at).days) <= 31 else year - 1
        elif (prefer == "future" and _exists(year, month, day)
              and _local(year, month, day, tz) < truncate(at, G.DAY, tz)):
            year += 1  # the next such day: "we'll meet on Oct 3rd" in November is next October
    return _tp(_safe_date(year, month, day, tz), G.DAY, tz)


def _day_of_month(day: int, at: dt.datetime, tz: dt.tzinfo, prefer: Preference) -> TimePoint:
    """"On the 15th": that day of the anchor's month, or of the last month that has it when it is still to
    come (the next such day, in a clause about the future)."""
    local = at.astimezone(tz)
    year, month = local.year, local.month
    step = 1 if prefer == "future" else -1
    ahead = day > local.day if prefer != "future" else day < local.day
    if ahead or not _exists(year, month, day):
        for _ in range(12):  # (every month has days 1-28; a 31st is at most two months away)
            month += step
            if not 1 <= month <= 12:
                year, month = year + step, 1 if step > 0 else 12
            if _exists(year, month, day):
                break
    return _tp(_local(year, month, day, tz), G.DAY, tz)


def _exists(year: int, month: int, day: int) -> bool:
    try:
        dt.date(year, month, day)
    except ValueError:
        return False
    return True


def _safe_date(year: int, month: int, day: int, tz: dt.tzinfo) -> dt.datetime:
    try:
        return _local(year, month, day, tz)
    except ValueError:
        raise MalformedTime(f"{year}-{month:02d}-{day:02d}", hint="that day does not exist") from None


def _month(month: int, year: int | None, at: dt.datetime, tz: dt.tzinfo, prefer: Preference) -> TimePoint:
    if year is None:
        year = at.year
        if prefer == "past" and month > at.month:
            year -= 1
        elif prefer == "future" and month < at.month:
            year += 1
    return _tp(_local(year, month, 1, tz), G.MONTH, tz)


def _quarter(n: int, year: int | None, at: dt.datetime, tz: dt.tzinfo, prefer: Preference) -> TimePoint:
    """Quarter ``n`` of ``year``; without one, as a bare month: this year's, unless it lies ahead (or, for
    ``prefer="future"``, is over)."""
    if year is None:
        local = at.astimezone(tz)
        current = (local.month - 1) // 3 + 1
        year = local.year
        if prefer == "past" and n > current:
            year -= 1
        elif prefer == "future" and n < current:
            year += 1
    return _tp(_local(year, 3 * n - 2, 1, tz), G.QUARTER, tz)


_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def _shift(at: dt.datetime, unit: Granularity, n: int, tz: dt.tzinfo) -> TimePoint:
    local = at.astimezone(tz)
    if unit is G.DAY:
        value = local + dt.timedelta(days=n)
    elif unit is G.WEEK:
        value = local + dt.timedelta(weeks=n)
    elif unit in (G.MONTH, G.QUARTER):
        months = local.year * 12 + local.month - 1 + (3 * n if unit is G.QUARTER else n)
        value = local.replace(year=months // 12, month=months % 12 + 1, day=1)
    else:
        value = local.replace(year=local.year + n, day=1) if local.month == 2 else local.replace(year=local.year + n)
    return _tp(value, unit, tz)


_JA_WORDS = {
    "一昨日": ("day", -2), "おととい": ("day", -2), "昨日": ("day", -1), "きのう": ("day", -1), "今日": ("day", 0),
    "きょう": ("day", 0), "明日": ("day", 1), "あした": ("day", 1), "明後日": ("day", 2), "あさって": ("day", 2),
    "昨夜": ("day", -1), "昨晩": ("day", -1), "ゆうべ": ("day", -1), "今朝": ("day", 0), "今夜": ("day", 0),
    "今晩": ("day", 0), "先々週": ("week", -2), "先週": ("week", -1), "今週": ("week", 0), "来週": ("week", 1),
    "再来週": ("week", 2), "先週末": ("weekend", -1), "今週末": ("weekend", 0), "来週末": ("weekend", 1),
    "先々月": ("month", -2), "先月": ("month", -1), "今月": ("month", 0), "来月": ("month", 1),
    "再来月": ("month", 2), "一昨年": ("year", -2), "おととし": ("year", -2), "去年": ("year", -1),
    "昨年": ("year", -1), "今年": ("year", 0), "来年": ("year", 1), "再来年": ("year", 2),
    "去年の今頃": ("month", -12), "昨年の今頃": ("month", -12), "半年前": ("month", -6), "半年後": ("month", 6),
}
_JA_WEEKDAYS = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
_JA_SEASONS = {"春": "spring", "夏": "summer", "秋": "fall", "冬": "winter"}


def _relative_word(word: str, at: dt.datetime, tz: dt.tzinfo) -> TimePoint:
    word = " ".join(word.split())
    if word in _JA_WORDS:
        unit, n = _JA_WORDS[word]
        return _weekend(at, tz, n) if unit == "weekend" else _shift(at, _UNITS[unit], n, tz)
    offsets = {"the day before yesterday": -2, "the night before last": -2, "yesterday": -1, "last night": -1,
               "tomorrow": 1,
               "the day after tomorrow": 2, "the other day": -_NUMBERS["a few"]}  # (as "a few days ago")
    return _shift(at, G.DAY, offsets.get(word, 0), tz)


def _season(name: str, which: str, at: dt.datetime, tz: dt.tzinfo) -> tuple[TimePoint, TimePoint]:
    """The first and the month after the last of a season's three months: "last summer" the last one over by
    ``at`` (said in October, this year's; in July, last year's), "this summer" this year's (the season that
    opens in December: the one holding January and February), "next summer" the first to open after ``at``.
    In a southern timezone the seasons are the other half of the year's (summer December to February)."""
    local = at.astimezone(tz)
    opens = _season_start(name, tz)
    year = local.year - 1 if opens == 12 and local.month <= 2 else local.year
    if which in ("last", "past", "this past"):
        while _season_months(name, year, tz)[1].at > local:
            year -= 1
    elif which in ("next", "coming", "upcoming"):
        while _season_months(name, year, tz)[0].at <= local:
            year += 1
    elif which == "begun":  # ("in the spring", said in it or after it: this year's)
        while _season_months(name, year, tz)[0].at > local:
            year -= 1
    return _season_months(name, year, tz)


def _season_months(name: str, year: int, tz: dt.tzinfo) -> tuple[TimePoint, TimePoint]:
    """The first of a season's three months in ``year`` (winter's: December, its last two the next year's)
    and the month after its last."""
    first = year * 12 + _season_start(name, tz) - 1
    start, end = (_local(m // 12, m % 12 + 1, 1, tz) for m in (first, first + 3))
    return _tp(start, G.MONTH, tz), _tp(end, G.MONTH, tz)


# timezones of the southern hemisphere (IANA names and prefixes), where summer is December to February
_SOUTHERN_ZONES = ("Australia/", "Antarctica/", "Pacific/Auckland", "Pacific/Chatham", "NZ",
                   "America/Argentina/", "America/Buenos_Aires", "America/Sao_Paulo", "Brazil/East",
                   "America/Santiago", "Chile/", "America/Montevideo", "America/Asuncion",
                   "Africa/Johannesburg", "Africa/Maputo", "Africa/Windhoek", "Africa/Harare",
                   "Africa/Gaborone", "Africa/Maseru", "Africa/Mbabane", "Africa/Lusaka", "Indian/Mauritius",
                   "Indian/Reunion", "Indian/Antananarivo")


def _season_start(name: str, tz: dt.tzinfo) -> int:
    """The month a season opens with where ``tz`` is: the northern hemisphere's, six months on in the
    south."""
    month = _SEASON_STARTS[name]
    southern = str(getattr(tz, "key", "")).startswith(_SOUTHERN_ZONES)
    return (month + 5) % 12 + 1 if southern else month


def _last_next(which: str, unit: str, at: dt.datetime, tz: dt.tzinfo) -> TimePoint:
    step = {"last": -1, "past": -1, "next": 1, "coming": 1, "upcoming": 1, "this": 0}[which]
    if unit in _WEEKDAY_NUMBERS:
        if which == "this":
            return _weekday(_WEEKDAY_NUMBERS[unit], at, tz, "nearest")
        return _weekday(_WEEKDAY_NUMBERS[unit], at, tz, "past" if step < 0 else "future")
    if unit == "weekend":
        return _weekend(at, tz, step)
    return _shift(at, _UNITS[unit], step, tz)


def _weekend(at: dt.datetime, tz: dt.tzinfo, step: int) -> TimePoint:
    """The Saturday of this week's weekend (``step`` 0), of the one before (-1) or after (1)."""
    return _tp(truncate(at, G.WEEK, tz) + dt.timedelta(days=5 + 7 * step), G.DAY, tz)


def _weekday(weekday: int, at: dt.datetime, tz: dt.tzinfo, direction: str) -> TimePoint:
    local = at.astimezone(tz)
    today = local.weekday()
    if direction == "past":
        delta = -((today - weekday) % 7 or 7)
    elif direction == "future":
        delta = (weekday - today) % 7 or 7
    else:  # "this Friday": the one in the current week
        delta = weekday - today
    return _shift(local, G.DAY, delta, tz)


# -- fallback -----------------------------------------------------------------------------------------

_DATEPARSER_PERIODS = {"day": G.DAY, "week": G.WEEK, "month": G.MONTH, "year": G.YEAR, "time": G.INSTANT}


def _dateparser_point(text: str, at: dt.datetime, tz: dt.tzinfo) -> TimePoint | None:
    from dateparser.date import DateDataParser  # imported on first use: ~0.3 s

    settings = {"RELATIVE_BASE": at.replace(tzinfo=None), "PREFER_DATES_FROM": "past",
                "RETURN_TIME_AS_PERIOD": True, "PREFER_DAY_OF_MONTH": "first"}
    data = DateDataParser(languages=["en", "ja"], settings=settings).get_date_data(text)
    if data is None or data.date_obj is None:
        return None
    g = _DATEPARSER_PERIODS.get(data.period or "day", G.DAY)
    value: dt.datetime = data.date_obj if data.date_obj.tzinfo else data.date_obj.replace(tzinfo=tz)
    if g is G.INSTANT:
        return TimePoint(at=value, granularity=G.INSTANT)
    return _tp(value, g, tz)
