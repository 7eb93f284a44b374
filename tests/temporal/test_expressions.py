import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import MalformedTime
from graphmem.temporal.expressions import _POINT, _points, find_times, parse_expression

ANCHOR = dt.datetime(2025, 11, 27, 12, tzinfo=dt.UTC)  # a Thursday


def _day(point):
    return point.at.date().isoformat() if point else None


@pytest.mark.parametrize(
    ("text", "phrase", "kind", "start", "end"),
    [
        ("I went yesterday.", "yesterday", "point", "2025-11-26", "2025-11-27"),
        ("We met last Tuesday.", "last Tuesday", "point", "2025-11-25", "2025-11-26"),
        ("That was last week.", "last week", "point", "2025-11-17", "2025-11-24"),
        ("It rained 3 days ago.", "3 days ago", "point", "2025-11-24", "2025-11-25"),
        ("I'm leaving the day after tomorrow.", "the day after tomorrow", "point", "2025-11-29",
         "2025-11-30"),
        # "a year ago" is this time last year (its month); more years, or "last year", the calendar year
        ("I started lifting a year ago.", "a year ago", "point", "2024-11-01", "2024-12-01"),
        ("I started one year ago.", "one year ago", "point", "2024-11-01", "2024-12-01"),
        ("I started 2 years ago.", "2 years ago", "point", "2023-01-01", "2024-01-01"),
        ("I started last year.", "last year", "point", "2024-01-01", "2025-01-01"),
        # a season is its three months (the northern hemisphere's): the last one over, this year's, the next
        ("We went to Oslo last summer.", "last summer", "point", "2025-06-01", "2025-09-01"),
        ("We met last fall.", "last fall", "point", "2024-09-01", "2024-12-01"),  # (this fall is not over)
        ("Skiing this winter.", "this winter", "point", "2025-12-01", "2026-03-01"),
        ("Back next spring.", "next spring", "point", "2026-03-01", "2026-06-01"),
        ("Here since last autumn.", "since last autumn", "since", "2024-09-01", None),
        # a weekend is its Saturday and Sunday; "over the weekend" the last one, or the next in a clause about
        # the future
        ("That was last weekend.", "last weekend", "point", "2025-11-22", "2025-11-24"),
        ("We went hiking over the weekend.", "over the weekend", "point", "2025-11-22", "2025-11-24"),
        ("I'll rest over the weekend.", "over the weekend", "point", "2025-11-29", "2025-12-01"),
        ("Two weekends ago we went skiing.", "Two weekends ago", "point", "2025-11-15", "2025-11-17"),
        ("It was the weekend before last.", "the weekend before last", "point", "2025-11-15", "2025-11-17"),
        ("The review is two weeks from now.", "two weeks from now", "point", "2025-12-08", "2025-12-15"),
        ("We met in mid-March.", "mid-March", "point", "2025-03-11", "2025-03-21"),
        ("It broke down last Fri on my way to work.", "last Fri", "point", "2025-11-21", "2025-11-22"),
        ("I joined the group last Tues.", "last Tues", "point", "2025-11-25", "2025-11-26"),
        ("Wanna see my moves next Fri?", "next Fri", "point", "2025-11-28", "2025-11-29"),
        ("It was early December.", "early December", "point", "2024-12-01", "2024-12-11"),
        ("We moved in late June 2024.", "late June 2024", "point", "2024-06-21", "2024-07-01"),
        ("I was late in June.", "June", "point", "2025-06-01", "2025-07-01"),
        # a part of a year: its first, middle or last four months; a half its six
        ("Sales grew mid-2024.", "mid-2024", "point", "2024-05-01", "2024-09-01"),
        ("In early 2024 we moved.", "early 2024", "point", "2024-01-01", "2024-05-01"),
        ("Since late 2023 she has lived in Oslo.", "Since late 2023", "since", "2023-09-01", None),
        ("In the first half of 2024 we shipped.", "the first half of 2024", "point", "2024-01-01",
         "2024-07-01"),
        ("The second half of last year was rough.", "The second half of last year", "point", "2024-07-01",
         "2025-01-01"),
        ("From early 2023 to mid-2024 I lived there.", "From early 2023 to mid-2024", "range", "2023-01-01",
         "2024-09-01"),
        ("We shipped in Nov 2025.", "Nov 2025", "point", "2025-11-01", "2025-12-01"),
        ("The 2025-11 report is out.", "2025-11", "point", "2025-11-01", "2025-12-01"),
        ("Since March she lives there.", "Since March", "since", "2025-03-01", None),
        ("We wait until June.", "until June", "until", None, "2026-06-01"),
        ("We stay through June.", "through June", "until", None, "2026-07-01"),
        ("Closed from 2025-11-27 to 2025-12-01.", "from 2025-11-27 to 2025-12-01", "range", "2025-11-27", "2025-12-02"),
        ("Travelling between May and July 2024.", "between May and July 2024", "range", "2024-05-01", "2024-08-01"),
        # a month's short name alone, after a time word
        ("Away between Oct and Dec 2024.", "between Oct and Dec 2024", "range", "2024-10-01", "2025-01-01"),
        ("Since Sept she lives there.", "Since Sept", "since", "2025-09-01", None),
        ("We launch on Dec 5th.", "Dec 5th", "point", "2025-12-05", "2025-12-06"),
        ("2025年11月27日に会った", "2025年11月27日", "point", "2025-11-27", "2025-11-28"),
        ("先週東京に行った", "先週", "point", "2025-11-17", "2025-11-24"),
        ("3日前に引っ越した", "3日前", "point", "2025-11-24", "2025-11-25"),
        ("3月から大阪に住んでいる", "3月から", "since", "2025-03-01", None),
        ("6月まで東京", "6月まで", "until", None, "2026-06-01"),
        ("11月27日から12月1日まで休み", "11月27日から12月1日まで", "range", "2025-11-27", "2025-12-02"),
        ("I moved to Berlin in 2019.", "2019", "point", "2019-01-01", "2020-01-01"),
        ("two weeks ago", "two weeks ago", "point", "2025-11-10", "2025-11-17"),
        ("I moved a couple days ago.", "a couple days ago", "point", "2025-11-25", "2025-11-26"),
        ("Started classes few days ago.", "few days ago", "point", "2025-11-24", "2025-11-25"),
        ("It was couple of months ago.", "couple of months ago", "point", "2025-09-01", "2025-10-01"),
        ("from May on", "from May on", "since", "2025-05-01", None),
        ("Busy for the upcoming week.", "upcoming week", "point", "2025-12-01", "2025-12-08"),
        ("私は先週東京へ", "先週", "point", "2025-11-17", "2025-11-24"),
        # Japanese: two away ("一昨年" is not "昨年"), weekends, a week's day, a year's month or season, "...後"
        ("一昨年に結婚した", "一昨年", "point", "2023-01-01", "2024-01-01"),
        ("再来週に会う", "再来週", "point", "2025-12-08", "2025-12-15"),
        ("先々月に始めた", "先々月", "point", "2025-09-01", "2025-10-01"),
        ("先週末に京都へ行った", "先週末", "point", "2025-11-22", "2025-11-24"),
        ("今週末は大阪", "今週末", "point", "2025-11-29", "2025-12-01"),
        ("昨夜は雨だった", "昨夜", "point", "2025-11-26", "2025-11-27"),
        ("明後日に出発", "明後日", "point", "2025-11-29", "2025-11-30"),
        ("先週の金曜日に会った", "先週の金曜日", "point", "2025-11-21", "2025-11-22"),
        ("来週の水曜に会う", "来週の水曜", "point", "2025-12-03", "2025-12-04"),
        ("月曜日に会った", "月曜日", "point", "2025-11-24", "2025-11-25"),
        ("去年の3月に入社した", "去年の3月", "point", "2024-03-01", "2024-04-01"),
        ("来年の春に引っ越す", "来年の春", "point", "2026-03-01", "2026-06-01"),
        ("三日前に会った", "三日前", "point", "2025-11-24", "2025-11-25"),
        ("数日前に会った", "数日前", "point", "2025-11-24", "2025-11-25"),
        ("3か月後に戻る", "3か月後", "point", "2026-02-01", "2026-03-01"),
        ("去年の12月から東京にいる", "去年の12月から", "since", "2024-12-01", None),
        ("5年間東京に住んでいる", "5年間", "since", "2020-01-01", None),  # (a span going on to now)
        # a Japanese clause about the future (a plan, a plain verb ending it) speaks of the next such month
        ("6月に大阪に引っ越す予定です", "6月", "point", "2026-06-01", "2026-07-01"),
        ("3月に会う", "3月", "point", "2026-03-01", "2026-04-01"),
        ("3月に会いました", "3月", "point", "2025-03-01", "2025-04-01"),
        ("6月に東京に住んでいます", "6月", "point", "2025-06-01", "2025-07-01"),
        ("3年間Acmeで働いています", "3年間", "since", "2022-01-01", None),
        ("2週間東京に住んでいる", "2週間", "since", "2025-11-10", None),
        ("東京で3日前に会った", "3日前", "point", "2025-11-24", "2025-11-25"),
        # Japanese: an era's year, parts of a year and of a month, a quarter, a fiscal year (April to March)
        ("令和7年4月から東京で働いている", "令和7年4月から", "since", "2025-04-01", None),
        ("平成元年に生まれた", "平成元年", "point", "1989-01-01", "1990-01-01"),
        ("令和6年11月27日に会った", "令和6年11月27日", "point", "2024-11-27", "2024-11-28"),
        ("2025年後半から大阪に住んでいる", "2025年後半から", "since", "2025-07-01", None),
        ("2024年上半期の売上", "2024年上半期", "point", "2024-01-01", "2024-07-01"),
        ("去年の暮れに会った", "去年の暮れ", "point", "2024-12-01", "2025-01-01"),
        ("今年の初めに始めた", "今年の初め", "point", "2025-01-01", "2025-02-01"),
        ("2024年末に退職した", "2024年末", "point", "2024-12-01", "2025-01-01"),
        ("10月中旬に会った", "10月中旬", "point", "2025-10-11", "2025-10-21"),
        ("2024年9月下旬に引っ越した", "2024年9月下旬", "point", "2024-09-21", "2024-10-01"),
        ("1月下旬に引っ越す予定です", "1月下旬", "point", "2026-01-21", "2026-02-01"),
        ("2025年第3四半期の売上", "2025年第3四半期", "point", "2025-07-01", "2025-10-01"),
        ("2025年度の予算", "2025年度", "point", "2025-04-01", "2026-04-01"),
        ("今年初めて東京に行った", "今年", "point", "2025-01-01", "2026-01-01"),  # (for the first time: a verb)
        ("先月の中旬に東京に引っ越した", "先月の中旬", "point", "2025-10-11", "2025-10-21"),
        ("今月末に引っ越す予定です", "今月末", "point", "2025-11-24", "2025-12-01"),
        ("年末に実家に帰る予定です", "年末", "point", "2025-12-01", "2026-01-01"),
        ("年始に初詣に行った", "年始", "point", "2025-01-01", "2025-02-01"),
        ("年末年始は休み", "年末年始", "point", "2024-12-29", "2025-01-04"),
        ("昨年度の売上", "昨年度", "point", "2024-04-01", "2025-04-01"),
        ("去年の今頃は大阪にいた", "去年の今頃", "point", "2024-11-01", "2024-12-01"),
        ("半年前に転職した", "半年前", "point", "2025-05-01", "2025-06-01"),
        ("10月の第2週に出張した", "10月の第2週", "point", "2025-10-06", "2025-10-13"),
        ("先月の最終週は忙しかった", "先月の最終週", "point", "2025-10-27", "2025-11-03"),
        ("2020年〜2022年に東京にいた", "2020年〜2022年", "range", "2020-01-01", "2023-01-01"),
        ("2020年から2022年にかけて東京にいた", "2020年から2022年にかけて", "range", "2020-01-01", "2023-01-01"),
        ("2024年の春に東京に引っ越した", "2024年の春", "point", "2024-03-01", "2024-06-01"),
        ("10月の中頃に会った", "10月の中頃", "point", "2025-10-11", "2025-10-21"),
        ("ここ3ヶ月ずっと忙しい", "ここ3ヶ月", "since", "2025-08-01", None),
        ("この1年で大阪に引っ越した", "この1年", "since", "2024-01-01", None),
        # quarters: a bare one, as a bare month, after a time word only, this year's or the last
        ("We shipped it in Q3 2025.", "Q3 2025", "point", "2025-07-01", "2025-10-01"),
        ("Revenue grew last quarter.", "last quarter", "point", "2025-07-01", "2025-10-01"),
        ("Hiring starts next quarter.", "next quarter", "point", "2026-01-01", "2026-04-01"),
        ("It was in the third quarter of 2024.", "the third quarter of 2024", "point", "2024-07-01", "2024-10-01"),
        ("Numbers are up since Q2.", "since Q2", "since", "2025-04-01", None),
        ("Frozen until Q1.", "until Q1", "until", None, "2026-01-01"),
        ("Budget holds through Q4.", "through Q4", "until", None, "2026-01-01"),
        ("Planned from Q1 to Q3 2024.", "from Q1 to Q3 2024", "range", "2024-01-01", "2024-10-01"),
        ("The 2025-Q2 report is out.", "2025-Q2", "point", "2025-04-01", "2025-07-01"),
        ("That was two quarters ago.", "two quarters ago", "point", "2025-04-01", "2025-07-01"),
        # a clause about the future speaks of the next such month, day or quarter
        ("The launch will slip to March.", "March", "point", "2026-03-01", "2026-04-01"),
        ("Peter will start at Globex on Monday.", "on Monday", "point", "2025-12-01", "2025-12-02"),
        ("Sofia is moving to Madrid in June.", "June", "point", "2026-06-01", "2026-07-01"),
        ("We'll meet on Oct 3rd.", "Oct 3rd", "point", "2026-10-03", "2026-10-04"),
        ("The migration is going to take until Q2.", "until Q2", "until", None, "2026-04-01"),
        ("We shipped it in March.", "March", "point", "2025-03-01", "2025-04-01"),
        ("I'm moving to Porto in June!", "June", "point", "2026-06-01", "2026-07-01"),
        ("We’ll meet in March.", "March", "point", "2026-03-01", "2026-04-01"),
        # a span in a perfect tense: since that long before
        ("Bob has been living in Seattle for 5 years.", "for 5 years", "since", "2020-01-01", None),
        ("I've worked at Acme for three months.", "for three months", "since", "2025-08-01", None),
        ("She has known Kim for the past two years.", "for the past two years", "since", "2023-01-01", None),
        ("I've played for about four months now.", "for about four months", "since", "2025-07-01", None),
        ("Been playing it for a month now.", "for a month", "since", "2025-10-01", None),  # ("I've" left out)
        # a span said with an end: how long what ended had lasted, up to the event
        ("I left my IT job after 3 years.", "after 3 years", "range", "2022-01-01", "2025-11-28"),
        ("We broke up after two years together.", "after two years", "range", "2023-01-01", "2025-11-28"),
        # "the past/last" span runs up to the event in any tense
        ("Prices rose over the last two years.", "over the last two years", "since", "2023-01-01", None),
        ("I ran 40 km in the past 3 weeks.", "in the past 3 weeks", "since", "2025-11-03", None),
        # a day of the month alone: this month's, or the last one's while it is still to come
        ("We met back up on the 15th after my trip.", "on the 15th", "point", "2025-11-15", "2025-11-16"),
        ("It dropped on the 28th and sold out.", "on the 28th", "point", "2025-10-28", "2025-10-29"),
        ("We will meet on the 2nd.", "on the 2nd", "point", "2025-12-02", "2025-12-03"),
        ("It all started August last year.", "August last year", "point", "2024-08-01", "2024-09-01"),
        # the end of a period: its last week, month or day; "until the end of" that period's end
        ("Aiko left Globex at the end of February.", "at the end of February", "point", "2025-02-24",
         "2025-03-03"),
        ("We grew towards the end of 2024.", "towards the end of 2024", "point", "2024-12-01", "2025-01-01"),
        ("Frozen until the end of June.", "until the end of June", "until", None, "2026-07-01"),
        # "until" a month or day speaks of the next one, but in a story told in the past of the last one
        ("She stayed in Paris until June.", "until June", "until", None, "2025-06-01"),
        ("By the end of February it was done.", "By the end of February", "until", None, "2025-03-01"),
        ("The launch was postponed until March.", "until March", "until", None, "2026-03-01"),
        # ... as does one of the week, or the weekend; before one too (the anchor is a Thursday)
        ("I'll stay until Sunday.", "until Sunday", "until", None, "2025-11-30"),
        ("She stayed in Paris until Sunday.", "until Sunday", "until", None, "2025-11-23"),
        ("Finish the draft before Friday.", "before Friday", "until", None, "2025-11-28"),
        ("We left before Monday.", "before Monday", "until", None, "2025-11-24"),
        ("It can wait until the weekend.", "until the weekend", "until", None, "2025-11-29"),
        ("I was busy until the weekend.", "until the weekend", "until", None, "2025-11-22"),
        # a day of the week said with a date is that date's (not the last such day), the date if they differ
        ("Kim joined Klarna on Monday, 3 November 2025.", "on Monday, 3 November 2025", "point", "2025-11-03",
         "2025-11-04"),
        ("Kim joined on Friday, 3 November 2025.", "on Friday, 3 November 2025", "point", "2025-11-03",
         "2025-11-04"),
        ("Due by Friday, Dec 5th.", "by Friday, Dec 5th", "point", "2025-12-05", "2025-12-06"),
        # "before March" of a change told as made: the last March; of one to come, the next
        ("Kim moved to Porto before March.", "before March", "until", None, "2025-03-01"),
        ("Kim needs to move to Porto before March.", "before March", "until", None, "2026-03-01"),
        # a day of the week something is or was on: in the present the coming one, else the last one
        ("The party is on Friday.", "on Friday", "point", "2025-11-28", "2025-11-29"),
        ("The deadline is Monday.", "Monday", "point", "2025-12-01", "2025-12-02"),
        ("My last day was Friday.", "Friday", "point", "2025-11-21", "2025-11-22"),
        ("The reviews were tuesday.", "tuesday", "point", "2025-11-25", "2025-11-26"),
        ("We met on Friday.", "on Friday", "point", "2025-11-21", "2025-11-22"),
        # a month or a day of one something is in or on, said in the present: the coming one
        ("The deadline is in mid-December.", "mid-December", "point", "2025-12-11", "2025-12-21"),
        ("The launch is in March.", "March", "point", "2026-03-01", "2026-04-01"),
        ("The review's on the 5th.", "on the 5th", "point", "2025-12-05", "2025-12-06"),
        ("The trip was in December.", "December", "point", "2024-12-01", "2025-01-01"),
        ("We're moving in June.", "June", "point", "2026-06-01", "2026-07-01"),
        # a day of a month named by when it is; two weeks, months or years on or back
        ("I got it serviced on the 15th of last month.", "the 15th of last month", "point", "2025-10-15",
         "2025-10-16"),
        ("It's due on the 1st of next month.", "the 1st of next month", "point", "2025-12-01", "2025-12-02"),
        ("We met on the 3rd of this month.", "the 3rd of this month", "point", "2025-11-03", "2025-11-04"),
        ("We fly to Lisbon the week after next.", "the week after next", "point", "2025-12-08", "2025-12-15"),
        ("We moved the year before last.", "the year before last", "point", "2023-01-01", "2024-01-01"),
        ("We met the summer before last.", "the summer before last", "point", "2024-06-01", "2024-09-01"),
        ("We met the winter before last.", "the winter before last", "point", "2023-12-01", "2024-03-01"),
        ("We go the spring after next.", "the spring after next", "point", "2027-03-01", "2027-06-01"),
        # a time said by how far it is from another: counted from its start, or the period right before or
        # after it (not "before Christmas", a time up to it)
        ("We met the day before Christmas.", "the day before Christmas", "point", "2024-12-24", "2024-12-25"),
        ("I'll fly home the day before Christmas.", "the day before Christmas", "point", "2025-12-24",
         "2025-12-25"),
        ("We met two days before Christmas.", "two days before Christmas", "point", "2024-12-23",
         "2024-12-24"),
        ("It shipped three days after March 3rd.", "three days after March 3rd", "point", "2025-03-06",
         "2025-03-07"),
        ("It opened two months after May 3rd.", "two months after May 3rd", "point", "2025-07-03",
         "2025-07-04"),
        ("We moved a year after 2019.", "a year after 2019", "point", "2020-01-01", "2021-01-01"),
        ("We hiked the week before Easter.", "the week before Easter", "point", "2025-04-13", "2025-04-20"),
        ("We hiked the week after Christmas.", "the week after Christmas", "point", "2024-12-26",
         "2025-01-02"),
        ("We met the weekend before Christmas.", "the weekend before Christmas", "point", "2024-12-21",
         "2024-12-23"),
        ("We met the weekend before June 8th.", "the weekend before June 8th", "point", "2025-05-31",
         "2025-06-02"),
        ("We met the month after June.", "the month after June", "point", "2025-07-01", "2025-08-01"),
        ("We met the day before March.", "the day before March", "point", "2025-02-28", "2025-03-01"),
        # a week of a month, a season of a year, a fortnight, the end of "the month"
        ("It was the last week of October.", "the last week of October", "point", "2025-10-27", "2025-11-03"),
        ("It was the first week of October.", "the first week of October", "point", "2025-09-29",
         "2025-10-06"),
        ("The final week of May 2024 was busy.", "The final week of May 2024", "point", "2024-05-27",
         "2024-06-03"),
        ("We met in the summer of 2019.", "the summer of 2019", "point", "2019-06-01", "2019-09-01"),
        ("Winter 2019 was cold.", "Winter 2019", "point", "2019-12-01", "2020-03-01"),
        ("A fortnight ago we met.", "A fortnight ago", "point", "2025-11-10", "2025-11-17"),
        ("In a fortnight we ship.", "In a fortnight", "point", "2025-12-08", "2025-12-15"),
        ("By the end of the month it ships.", "By the end of the month", "until", None, "2025-12-01"),
        ("We ship at the end of the month.", "at the end of the month", "point", "2025-11-24", "2025-12-01"),
        ("The report is due on the 1st.", "on the 1st", "point", "2025-12-01", "2025-12-02"),
        ("Two summers ago I was in Rome.", "Two summers ago", "point", "2024-06-01", "2024-09-01"),
        ("A few months back I quit.", "A few months back", "point", "2025-08-01", "2025-09-01"),
        ("This time last year I was in Rome.", "This time last year", "point", "2024-11-01", "2024-12-01"),
        ("In the 1990s I lived in Paris.", "1990s", "point", "1990-01-01", "2000-01-01"),
        ("Back in the '90s we met.", "'90s", "point", "1990-01-01", "2000-01-01"),
        ("A book from the 1900s.", "1900s", "point", "1900-01-01", "2000-01-01"),
        ("Songs from the 2000s.", "2000s", "point", "2000-01-01", "2010-01-01"),
        ("In the spring I started running.", "In the spring", "point", "2025-03-01", "2025-06-01"),
        ("We will ski over the winter.", "over the winter", "point", "2025-12-01", "2026-03-01"),
        ("At the beginning of the year I joined.", "At the beginning of the year", "point", "2025-01-01",
         "2025-02-01"),
        ("At the start of next month we ship.", "At the start of next month", "point", "2025-12-01",
         "2025-12-08"),
        # named days: alone the last one by then (the next in a clause about the future), or as said
        ("We went skating at Christmas.", "Christmas", "point", "2024-12-25", "2024-12-26"),
        ("I'll see her at Christmas.", "Christmas", "point", "2025-12-25", "2025-12-26"),
        ("The party is on Christmas Eve.", "Christmas Eve", "point", "2025-12-24", "2025-12-25"),
        ("Last Christmas I visited Anna.", "Last Christmas", "point", "2024-12-25", "2024-12-26"),
        ("We met on New Year's Eve.", "New Year's Eve", "point", "2024-12-31", "2025-01-01"),
        ("Over Easter we hiked.", "Easter", "point", "2025-04-20", "2025-04-21"),
        ("Next Easter we go to Rome.", "Next Easter", "point", "2026-04-05", "2026-04-06"),
        ("On Thanksgiving 2024 we ate turkey.", "Thanksgiving 2024", "point", "2024-11-28", "2024-11-29"),
        ("We ate turkey for Thanksgiving dinner.", "Thanksgiving", "point", "2025-11-27", "2025-11-28"),
        ("We met on Mother's Day.", "Mother's Day", "point", "2025-05-11", "2025-05-12"),
        ("I'll visit on Christmas Day next year.", "Christmas Day next year", "point", "2026-12-25",
         "2026-12-26"),
        ("Since Christmas 2023 she has lived in Oslo.", "Since Christmas 2023", "since", "2023-12-25", None),
        ("去年のクリスマスに京都へ行った。", "去年のクリスマス", "point", "2024-12-25", "2024-12-26"),
        ("大晦日に会う予定です。", "大晦日", "point", "2025-12-31", "2026-01-01"),
        # how far from a time named: the day before, the month after, three days after
        ("クリスマスの前日に会った。", "クリスマスの前日", "point", "2024-12-24", "2024-12-25"),
        ("クリスマスの前日に会う予定です。", "クリスマスの前日", "point", "2025-12-24", "2025-12-25"),
        ("3月3日の3日後に出荷した。", "3月3日の3日後", "point", "2025-03-06", "2025-03-07"),
        ("6月の翌月に引っ越した。", "6月の翌月", "point", "2025-07-01", "2025-08-01"),
        # named days that last longer: all their days
        ("ゴールデンウィークに沖縄へ行った。", "ゴールデンウィーク", "point", "2025-04-29", "2025-05-06"),
        ("お盆に帰省する予定です。", "お盆", "point", "2026-08-13", "2026-08-17"),
        ("年末年始は実家で過ごした。", "年末年始", "point", "2024-12-29", "2025-01-04"),
        ("During Golden Week we went to Kyoto.", "Golden Week", "point", "2025-04-29", "2025-05-06"),
    ],
)
def test_expressions_resolve_against_the_events_own_time(text, phrase, kind, start, end):
    [found] = find_times(text, ANCHOR)
    assert (found.text, found.kind, _day(found.interval.start), _day(found.interval.end)) == (phrase, kind, start, end)


@pytest.mark.parametrize("text", ["We may go to the beach.", "They march on.", "We said May is nice.",
                                  "I talked to Jan about it.", "The Oct release slipped.", "Nov is busy.",
                                  "The report has 2019 rows.", "Sounds good, see you then.", "We won 3 to 1.",
                                  "Ticket adec 5 is open.", "Build v2 weeks ago", "Q3 numbers look good.",
                                  "See q1_report for details.", "A quarter of the budget went to ads.",
                                  "I was in Paris for 5 days.", "We waited for two weeks.",
                                  "He lives on the 3rd floor.", "It worked on the 2nd try.",
                                  "It was the 31st of this month.", "I fall 2 times a day.",
                                  "Leaves fall in the autumn.", "The fall of Rome.", "Spring cleaning done.",
                                  "We rested for the last 2 days of the trip.",
                                  "The weekend of the fair was fun.", "It rose over 3 years.",
                                  "He plays tennis on weekends.", "a mid-sized team", "毎週月曜日にジムへ行く",
                                  "二十日前", "曜日を決める", "2週間東京に滞在した", "5年間大阪に住んでいた",
                                  "It is Friday.", "Friday is my favorite day.", "Robinson met Friday.",
                                  "We decorated the Christmas tree.", "Happy Thanksgiving!",
                                  "We watched Independence Day.", "Any favorite Thanksgiving traditions?",
                                  "I shopped for Christmas presents.", "The new year's first snow fell.",
                                  "クリスマスプレゼントを買った", "We found an Easter egg in the game.",
                                  "At Christmas we always go skating.", "During Easter, we usually rest.",
                                  "いつもクリスマスに映画を見る。", "We flew to Easter Island.",
                                  "She's in her 20s.", "Three steps back.", "We ski over the winter.",
                                  "I was late 2 times.", "The first half of the match was slow.",
                                  "It ran early-2024-style.", "I sat on the sun deck last sat.",
                                  "We wed on the beach.", "The sun sat low on the hill.",
                                  "I'll be back after 3 days.", "I felt better after 3 days.",
                                  "After two weeks we met again.", "I left after 3 days of rain."])
def test_ordinary_words_are_not_times(text):
    assert find_times(text, ANCHOR) == []


def test_only_the_clause_that_speaks_of_the_future_looks_ahead():
    found = find_times("He will visit in March, as he did in March. I will go. In May we met.", ANCHOR)
    assert [(m.text, _day(m.interval.start)) for m in found] == [
        ("March", "2026-03-01"), ("March", "2025-03-01"), ("May", "2025-05-01")]


@pytest.mark.parametrize(("zone", "text", "start", "end"), [
    ("Australia/Sydney", "We went to the beach last summer.", "2024-12-01", "2025-03-01"),
    ("Australia/Sydney", "Skiing this winter was fun.", "2025-06-01", "2025-09-01"),  # (this year's)
    ("America/Sao_Paulo", "Back next spring.", "2026-09-01", "2026-12-01"),
    ("Pacific/Auckland", "去年の夏に会った", "2024-12-01", "2025-03-01"),
    ("Europe/Berlin", "We went to the beach last summer.", "2025-06-01", "2025-09-01"),
])
def test_seasons_are_the_hemispheres_of_the_timezone(zone, text, start, end):
    """Summer is December to February in a southern timezone; the months are the zone's own."""
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(zone)
    [found] = find_times(text, ANCHOR, tz=tz)
    assert [p.at.astimezone(tz).date().isoformat() for p in (found.interval.start, found.interval.end)] == [
        start, end]


def test_the_anchor_not_the_wall_clock_decides():
    old = dt.datetime(2020, 3, 4, tzinfo=dt.UTC)
    [found] = find_times("She called yesterday.", old)
    assert _day(found.interval.start) == "2020-03-03"


def test_parse_expression_reads_one_whole_expression_and_falls_back_to_dateparser():
    assert _day(parse_expression("last week", ANCHOR).interval.start) == "2025-11-17"
    assert _day(parse_expression("27/11/2025", ANCHOR).interval.start) == "2025-11-27"
    with pytest.raises(MalformedTime) as err:
        parse_expression("whenever you like", ANCHOR, field="asOf")
    assert err.value.field == "asOf"


@pytest.mark.parametrize(("text", "start", "end"), [
    ("Christmas", "2024-12-25", "2024-12-26"), ("at Easter", "2025-04-20", "2025-04-21"),
    ("on Easter 2024", "2024-03-31", "2024-04-01"), ("Golden Week", "2025-04-29", "2025-05-06"),
    ("March", "2025-03-01", "2025-04-01"), ("Friday", "2025-11-21", "2025-11-22"),
])
def test_a_form_read_only_after_a_time_word_is_read_alone_as_a_whole_expression(text, start, end):
    found = parse_expression(text, ANCHOR)
    assert (found.text, _day(found.interval.start), _day(found.interval.end)) == (text, start, end)


@pytest.mark.parametrize(("text", "kind", "start", "end"), [
    ("the 1990s", "point", "1990-01-01", "2000-01-01"), ("the '90s", "point", "1990-01-01", "2000-01-01"),
    ("end of 2025", "point", "2025-12-01", "2026-01-01"),
    ("beginning of 2025", "point", "2025-01-01", "2025-02-01"),
    ("start of last year", "point", "2024-01-01", "2024-02-01"),
    ("circa 2019", "point", "2019-01-01", "2020-01-01"),
    ("around Christmas", "point", "2024-12-25", "2024-12-26"),
    ("2025 Q2", "point", "2025-04-01", "2025-07-01"),
    ("the week of November 10", "point", "2025-11-10", "2025-11-17"),
    ("as of March 2025", "point", "2025-03-01", "2025-04-01"),  # (the question is what held then)
    ("2019-2021", "range", "2019-01-01", "2022-01-01"), ("Nov-Dec 2024", "range", "2024-11-01", "2025-01-01"),
    ("2025-01 to 2025-03", "range", "2025-01-01", "2025-04-01"),
    ("Q1-Q3 2025", "range", "2025-01-01", "2025-10-01"),
    ("1-5 May 2025", "range", "2025-05-01", "2025-05-06"),
    ("2020年から2022年", "range", "2020-01-01", "2023-01-01"),  # (a range said without its "まで")
    ("May 1-5, 2025", "range", "2025-05-01", "2025-05-06"),
    ("the middle of 2025", "point", "2025-05-01", "2025-09-01"),
    ("H2 2025", "point", "2025-07-01", "2026-01-01"), ("2025-H1", "point", "2025-01-01", "2025-07-01"),
    ("2H 2024", "point", "2024-07-01", "2025-01-01"),
    ("week 48 of 2025", "point", "2025-11-24", "2025-12-01"),
    ("the 48th week of 2025", "point", "2025-11-24", "2025-12-01"),
    ("'19", "point", "2019-01-01", "2020-01-01"), ("'98", "point", "1998-01-01", "1999-01-01"),
    ("since '08", "since", "2008-01-01", None),
    ("the past 3 months", "since", "2025-08-01", None), ("last 3 months", "since", "2025-08-01", None),
    ("the past year", "since", "2024-01-01", None), ("the last decade", "since", "2015-01-01", None),
    ("3 hours ago", "point", "2025-11-27", "2025-11-27"),
])
def test_a_question_reads_forms_text_reads_only_after_a_time_word(text, kind, start, end):
    """A question says "the 1990s" or "end of 2025" with no word before it: read as text reads it after one
    ("in the 1990s", "at the end of 2025", "over the past 3 months"), not by dateparser."""
    found = parse_expression(text, ANCHOR)
    read = (found.text, found.kind, _day(found.interval.start), _day(found.interval.end))
    assert read == (text, kind, start, end)


@pytest.mark.parametrize(("text", "day"), [
    ("We met on Dec 25th.", "2024-12-25"), ("I went there on Dec 10th.", "2024-12-10"),
    ("12月25日に会った。", "2024-12-25"),
    # not done yet, or set for it: the coming one
    ("We will meet on Dec 25th.", "2025-12-25"), ("I booked a table for Dec 25th.", "2025-12-25"),
    ("The party is on Dec 25th.", "2025-12-25"), ("12月25日に会う予定です。", "2025-12-25"),
])
def test_a_day_told_as_done_is_the_last_one_not_the_coming_one(text, day):
    """A day of the coming month without its year is the coming one ("Dec 5th" in late November is next
    week), unless what the clause tells of it was done: "We met on Dec 25th" said on Nov 27th."""
    [m] = find_times(text, ANCHOR)
    assert _day(m.interval.start) == day


@pytest.mark.parametrize(("text", "phrase", "day"), [
    # a deadline is the coming day (the anchor is a Thursday)
    ("Renew the passport by Friday.", "by Friday", "2025-11-28"),
    ("The draft is due Monday.", "due Monday", "2025-12-01"),
    ("Finish the slides by the weekend.", "the weekend", "2025-11-29"),
    ("It was all done by the weekend.", "the weekend", "2025-11-22"),
    # what is yet to do looks ahead, what was done or must have been looks back
    ("I need to call her on Monday.", "on Monday", "2025-12-01"),
    ("I have to leave on Tuesday.", "on Tuesday", "2025-12-02"),
    ("TODO: book the room on Monday", "on Monday", "2025-12-01"),
    ("- [ ] call Bob on Monday", "on Monday", "2025-12-01"),
    ("I finished it by Friday.", "by Friday", "2025-11-21"),
    ("It was done by Monday.", "by Monday", "2025-11-24"),
    ("He must have left on Monday.", "on Monday", "2025-11-24"),
    ("We had to leave on Tuesday.", "on Tuesday", "2025-11-25"),
])
def test_a_day_a_task_is_due_by_or_set_for_is_the_coming_one(text, phrase, day):
    [m] = find_times(text, ANCHOR)
    assert (m.text, _day(m.interval.start)) == (phrase, day)


@pytest.mark.parametrize("text", ["The H2 sensor failed.", "Kim's 19 friends", "'19 was great",
                                  "The 2021-2019 list.",
                                  "I did it in week 3.", "It cost $19."])
def test_halves_week_numbers_and_short_years_need_their_year_or_a_time_word(text):
    assert find_times(text, ANCHOR) == []


@pytest.mark.parametrize(("text", "at"), [
    ("3pm", "2025-11-30T15:00:00+00:00"), ("at 15:30", "2025-11-30T15:30:00+00:00"),
    ("noon", "2025-11-30T12:00:00+00:00"), ("9:30 a.m.", "2025-12-01T09:30:00+00:00"),
    ("midnight", "2025-12-01T00:00:00+00:00"), ("12pm", "2025-11-30T12:00:00+00:00"),
])
def test_a_time_of_day_alone_is_its_last_moment_by_the_anchor(text, at):
    """dateparser, asked "3pm" at 10:00 on the 1st of a month, answered the 30th of that month."""
    first_of_month = dt.datetime(2025, 12, 1, 10, tzinfo=dt.UTC)
    found = parse_expression(text, first_of_month)
    assert found.interval.start.granularity.value == "instant"
    assert found.interval.start.at.isoformat() == at


@pytest.mark.parametrize("text", ["5s", "90 s", "the 2010s decade", "last century", "after March 2025",
                                  "sometime before 2020", "9-10 things", "room 3-4 B", "Monday the 3rd",
                                  "Friday, November 27, 2025"])
def test_dateparser_is_not_trusted_with_a_moment_nobody_said_or_a_span_it_reads_as_a_year(text):
    """dateparser reads "90 s" (and "the 1990s" once) as that many seconds ago, "last decade" as one year,
    "after March 2025" as March 2025, "1-5 May 2025" as May 1st (read now by the grammar: above), "Monday
    the 3rd" as March; a weekday that is not the date's is no date."""
    with pytest.raises(MalformedTime):
        parse_expression(text, ANCHOR, field="asOf")


def test_a_question_naming_a_date_and_another_day_of_the_week_says_which_day_the_date_is():
    """In text the date is the time ("joined on Friday, 3 November 2025": the 3rd); a question that says both
    is refused, saying what day the date is."""
    with pytest.raises(MalformedTime, match="November 27, 2025 is a Thursday, not a Friday: give the date"):
        parse_expression("Friday, November 27, 2025", ANCHOR, field="asOf")
    assert _day(parse_expression("on Thursday, 27 Nov 2025", ANCHOR).interval.start) == "2025-11-27"


@pytest.mark.parametrize(("text", "found", "kind", "start", "end"), [
    ("We must ship by end of October 2025.", "by end of October 2025", "until", None, "2025-11-01"),
    ("We shipped at end of 2025.", "at end of 2025", "point", "2025-12-01", "2026-01-01"),
    ("Since the beginning of 2025 I live here.", "Since the beginning of 2025", "since", "2025-01-01", None),
    ("Since start of 2025 I live here.", "Since start of 2025", "since", "2025-01-01", None),
    ("It was rough in 2025 Q4.", "2025 Q4", "point", "2025-10-01", "2026-01-01"),
    ("I have been reading a lot in the past week.", "in the past week", "since", "2025-11-17", None),
    ("So much has happened over the last year.", "over the last year", "since", "2024-01-01", None),
    ("It was the last year of school.", "last year", "point", "2024-01-01", "2025-01-01"),
    ("We plan to launch in H2 2026.", "H2 2026", "point", "2026-07-01", "2027-01-01"),
    ("In week 48 of 2025 we shipped.", "week 48 of 2025", "point", "2025-11-24", "2025-12-01"),
    ("Back in '19 we met.", "'19", "point", "2019-01-01", "2020-01-01"),
    ("Since ’08 I live here.", "Since ’08", "since", "2008-01-01", None),
    ("We met in the middle of 2025.", "the middle of 2025", "point", "2025-05-01", "2025-09-01"),
    ("In the middle of May we left.", "the middle of May", "point", "2025-05-11", "2025-05-21"),
    ("We met in middle of May.", "middle of May", "point", "2025-05-11", "2025-05-21"),
    ("The week of 10 Nov 2025 was busy.", "The week of 10 Nov 2025", "point", "2025-11-10", "2025-11-17"),
    ("It snowed a lot in winter 2024-25.", "winter 2024-25", "point", "2024-12-01", "2025-03-01"),
    ("Since the end of 2024 I live here.", "Since the end of 2024", "since", "2024-12-01", None),
    ("Since the middle of 2024 I live here.", "Since the middle of 2024", "since", "2024-05-01", None),
    ("Prior to 2020 I lived in Paris.", "Prior to 2020", "until", None, "2020-01-01"),
    ("I saw her the Friday before last.", "the Friday before last", "point", "2025-11-14", "2025-11-15"),
    ("We met two Fridays ago.", "two Fridays ago", "point", "2025-11-14", "2025-11-15"),
    ("The night before last it rained.", "The night before last", "point", "2025-11-25", "2025-11-26"),
    ("I worked at Acme from 2019-2021.", "from 2019-2021", "range", "2019-01-01", "2022-01-01"),
    ("I worked at Acme (2019 – 2021).", "2019 – 2021", "range", "2019-01-01", "2022-01-01"),
    ("I worked at Acme from '15 to '19.", "from '15 to '19", "range", "2015-01-01", "2020-01-01"),
])
def test_ends_starts_and_spans_up_to_now_said_without_the(text, found, kind, start, end):
    """"by end of October" is "by the end of October"; "since the beginning of 2025" is a start, not a point;
    "in the past week" (no count) runs up to now as "in the past two weeks" does."""
    [m] = find_times(text, ANCHOR)
    assert (m.text, m.kind, _day(m.interval.start), _day(m.interval.end)) == (found, kind, start, end)


@pytest.mark.parametrize("text", ["9999-99-99", "on 2025-13-45", "2025-02-30", "2025年13月40日", "since Feb 30 2025",
                                  "99999-01-01", "0000-01-01", "until 2025-02-31", "in 2025-W60",
                                  "9000 years after 2019", "999999 days before Christmas",
                                  "the year after 9999", "99999999999 days after Christmas", "2019年の9999年後"])
def test_impossible_dates_in_text_are_ordinary_words_not_errors(text):
    assert find_times(text, ANCHOR) == []


_PIECES = ["yesterday", "Yesterday", "last", "week", "next", "Tuesday", "on", "in", "the", "3", "27", "2025",
           "2025-11-27", "2025-11", "T10:00Z", "Nov", "November", "March", "mar", "march", "May", "may", "Dec.",
           "5th", "of", "a", "few", "couple", "days", "ago", "years", "since", "until", "from", "to", "and",
           "several", "tonight", "this", "morning", "upcoming", "weekend", "x", "_", "-", "#", ".", ",", "abc",
           "dec", "Sept", "12", "1999", "W07", "mid", "Mayday", "pastry", "ant", "over", "At", "during",
           "within", "THE", "past", "weekends", "before", "now", "from", "mid-", "is", "was", "Friday",
           "today", "Christmas", "Eve", "New", "Year's", "Easter", "2024", "half", "quarter", "day", "month",
           "year", "1st", "summer", "end", "first", "after", "budget", "Q3", "2nd", "12025-11-27", "H2", "2H",
           "'19", "’08", "week", "48th", "19", "2019-2021", "–", "1H", "2025H2", "night", "Fridays", "two"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(["", " ", "  ", ", ", "-", "."])),
                max_size=14))
def test_the_fast_scan_finds_what_a_full_scan_finds(parts):
    """Time points are looked for only where one can open (a digit, a listed word): the same matches as trying
    the pattern at every character, pieces glued together or apart."""
    text = "".join(word + sep for word, sep in parts)
    slow = [(m.span(), m.groupdict()) for m in _POINT.finditer(text)]
    assert [(m.span(), m.groupdict()) for m in _points(text)] == slow


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([*_PIECES, "9999", "99999999", "0001", "の", "前日", "翌年", "3日後",
                                           "クリスマス", "2019年"]),
                          st.sampled_from(["", " ", ", "])), max_size=12))
def test_any_words_of_time_are_read_without_an_error(parts):
    """Whatever the words ("9000 years after 2019", "the year after 9999"), reading them never fails: what no
    calendar holds is no time, and every time found is a closed or half-open interval in order."""
    text = "".join(word + sep for word, sep in parts)
    for m in find_times(text, ANCHOR):
        assert m.interval.start is None or m.interval.end is None or m.interval.start.at <= m.interval.end.at
