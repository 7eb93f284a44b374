import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from graphmem import Granularity, MalformedTime
from graphmem.temporal import format_point, parse_point

UTC = dt.UTC


@pytest.mark.parametrize(
    ("text", "at", "granularity"),
    [
        ("2025", dt.datetime(2025, 1, 1), Granularity.YEAR),
        ("2025年", dt.datetime(2025, 1, 1), Granularity.YEAR),
        ("2025-11", dt.datetime(2025, 11, 1), Granularity.MONTH),
        ("Nov 2025", dt.datetime(2025, 11, 1), Granularity.MONTH),
        ("November 2025", dt.datetime(2025, 11, 1), Granularity.MONTH),
        ("nov. 2025", dt.datetime(2025, 11, 1), Granularity.MONTH),
        ("2025年11月", dt.datetime(2025, 11, 1), Granularity.MONTH),
        ("2025-Q3", dt.datetime(2025, 7, 1), Granularity.QUARTER),
        ("Q4 2025", dt.datetime(2025, 10, 1), Granularity.QUARTER),
        ("q1, 2024", dt.datetime(2024, 1, 1), Granularity.QUARTER),
        ("2025-W48", dt.datetime(2025, 11, 24), Granularity.WEEK),
        ("2025-11-27", dt.datetime(2025, 11, 27), Granularity.DAY),
        ("2025/11/27", dt.datetime(2025, 11, 27), Granularity.DAY),
        ("27 Nov 2025", dt.datetime(2025, 11, 27), Granularity.DAY),
        ("8 May, 2023", dt.datetime(2023, 5, 8), Granularity.DAY),
        ("November 27, 2025", dt.datetime(2025, 11, 27), Granularity.DAY),
        ("March 06, 2014", dt.datetime(2014, 3, 6), Granularity.DAY),
        ("Dec 5th 2025", dt.datetime(2025, 12, 5), Granularity.DAY),
        ("2025年11月27日", dt.datetime(2025, 11, 27), Granularity.DAY),
        ("1:56 pm on 8 May, 2023", dt.datetime(2023, 5, 8, 13, 56), Granularity.INSTANT),
        ("12:05 am on 1 Jan, 2024", dt.datetime(2024, 1, 1, 0, 5), Granularity.INSTANT),
        ("2025-11-27T14:30:00Z", dt.datetime(2025, 11, 27, 14, 30), Granularity.INSTANT),
        ("2025-11-27T14:30:00+01:00", dt.datetime(2025, 11, 27, 13, 30), Granularity.INSTANT),
        ("2025-11-27 14:30", dt.datetime(2025, 11, 27, 14, 30), Granularity.INSTANT),
    ],
)
def test_reads_absolute_forms_with_their_granularity(text, at, granularity):
    point = parse_point(text)
    assert point.at == at.replace(tzinfo=UTC)
    assert point.granularity is granularity


def test_naive_times_are_local_to_the_memory_timezone():
    paris = ZoneInfo("Europe/Paris")
    assert parse_point("2025-11-27T09:00", tz=paris).at == dt.datetime(2025, 11, 27, 8, 0, tzinfo=UTC)
    # a day in Paris starts at 23:00 UTC the evening before
    assert parse_point("2025-11-27", tz=paris).at == dt.datetime(2025, 11, 26, 23, 0, tzinfo=UTC)
    # an explicit offset wins over the timezone
    assert parse_point("2025-11-27T09:00Z", tz=paris).at == dt.datetime(2025, 11, 27, 9, 0, tzinfo=UTC)


def test_datetimes_and_dates_are_accepted_directly():
    assert parse_point(dt.date(2025, 11, 27)).granularity is Granularity.DAY
    aware = dt.datetime(2025, 11, 27, 9, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert parse_point(aware).at == dt.datetime(2025, 11, 27, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["", "   ", "soon", "2025-13", "2025-02-30", "Foo 2025", "31 Feb 2025", "2025-W60", "99999", "0000",
             "2025-Q5", "Q0 2025"]
)
def test_unreadable_times_name_the_field_and_the_fix(text):
    with pytest.raises(MalformedTime) as info:
        parse_point(text, field="valid_from")
    assert info.value.field == "valid_from"
    assert "2025-11-27" in info.value.message


def test_absurd_years_are_refused_before_reaching_the_database():
    with pytest.raises(MalformedTime):
        parse_point(dt.datetime(9999, 12, 31, 23, 59))


@pytest.mark.parametrize("text", ["9999-01-01", "9999-01-01T00:00:00Z", "9999-W02"])
def test_a_year_out_of_range_is_refused_quoting_the_time_as_given(text):
    with pytest.raises(MalformedTime) as info:
        parse_point(text, field="occurred_at")
    assert f"cannot read time '{text}' in 'occurred_at'; years must lie between" in info.value.message


@pytest.mark.parametrize(("text", "at"), [
    ("2025-11-27T10:00:00 UTC", "2025-11-27T10:00:00+00:00"),
    ("2025-11-27 10:00 GMT", "2025-11-27T10:00:00+00:00"),
    ("Thu, 27 Nov 2025 10:00:00 +0000", "2025-11-27T10:00:00+00:00"),
    ("Thu, 27 Nov 2025 10:00:00 -0500", "2025-11-27T15:00:00+00:00"),
    ("27 Nov 2025 10:00 GMT", "2025-11-27T10:00:00+00:00"),
])
def test_an_instant_with_its_zone_named_or_as_mail_headers_write_it(text, at):
    """Logs write "... UTC"; mail and HTTP headers "Thu, 27 Nov 2025 10:00:00 +0000": both are instants."""
    point = parse_point(text, field="occurred_at")
    assert point.granularity.value == "instant" and point.at.isoformat() == at


@pytest.mark.parametrize("text", ["2025", "2025-Q2", "2025-11", "2025-W48", "2025-11-27", "2025-11-27T14:30:00Z"])
def test_format_round_trips(text):
    assert format_point(parse_point(text)) == text
