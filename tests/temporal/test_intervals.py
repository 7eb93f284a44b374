import datetime as dt

import pytest

from graphmem import InvalidInterval, Interval
from graphmem.temporal import holds_at, holds_during, holds_throughout, known_at, parse_point, period_of


def p(text):
    return parse_point(text)


@pytest.mark.parametrize(
    ("start", "end", "question", "expected"),
    [
        # a start known only to the year counts from that year's start
        ("2018", None, "2018-03-06", True),
        # a question about a year is its end: a state that began mid-year is seen
        ("2018-07-25", None, "2018", True),
        ("2019-01-01", None, "2018", False),
        # an end within the question's year means the state is over by its end
        ("2017", "2018-07-25", "2018", False),
        ("2017", "2019-02-01", "2018", True),
        # an end known only to the year is compared as a year
        ("2017", "2018", "2018-03-06", False),
        ("2017", "2019", "2018-12-31", True),
        # months against days
        ("2025-11-27", None, "Nov 2025", True),
        ("2025-11-27", None, "2025-11-26", False),
        ("2020", "2025-12-01", "Nov 2025", True),
        ("2020", "2025-11-30", "Nov 2025", False),
        # quarters: against months and days, compared as quarters; against years, as years
        ("2025-Q3", None, "2025-07-15", True),
        ("2025-Q3", None, "2025-06", False),
        ("2025-08-20", None, "2025-Q3", True),
        ("2024", "2025-08-20", "2025-Q3", False),
        ("2024", "2025-Q3", "2025-09-30", False),
        ("2024", "2025-Q3", "2025-06-30", True),
        ("2025-Q3", None, "2025", True),
        # instants are exact, start inclusive, end exclusive
        ("2025-11-27T10:00:00Z", "2025-11-27T12:00:00Z", "2025-11-27T10:00:00Z", True),
        ("2025-11-27T10:00:00Z", "2025-11-27T12:00:00Z", "2025-11-27T12:00:00Z", False),
        # open start: true since before anything recorded
        (None, "2020", "1900", True),
    ],
)
def test_as_of_compares_at_the_coarser_granularity(start, end, question, expected):
    assert holds_at(p(start) if start else None, p(end) if end else None, p(question)) is expected


@pytest.mark.parametrize(
    ("start", "end", "period", "overlaps", "throughout"),
    [
        ("2025-11-10", None, "Nov 2025", True, False),
        ("2025-10-01", None, "Nov 2025", True, True),
        ("2025-10-01", "2025-11-10", "Nov 2025", True, False),
        ("2025-10-01", "2025-11-01", "Nov 2025", False, False),
        ("2025-10-01", "2025-12-01", "Nov 2025", True, True),
        ("2025-12-01", None, "Nov 2025", False, False),
        ("2025", None, "Nov 2025", True, True),
        ("2024", "2025", "Nov 2025", False, False),
        ("2025-08-20", None, "2025-Q3", True, False),
        ("2025-06", None, "Q3 2025", True, True),
        ("2025-Q3", None, "Nov 2025", True, True),
        ("2025-06", "2025-07", "2025-Q3", False, False),
    ],
)
def test_during_and_throughout(start, end, period, overlaps, throughout):
    vf, vt, q = p(start), p(end) if end else None, p(period)
    assert holds_during(vf, vt, q) is overlaps
    assert holds_throughout(vf, vt, q) is throughout
    if throughout:
        assert overlaps


@pytest.mark.parametrize(
    ("start", "end", "overlaps", "throughout"),
    [  # June through August 2025 (a season): its first month opens it, its last closes it
        ("2025-08-20", None, True, False),
        ("2025-09-01", None, False, False),
        ("2025-05", "2025-06-02", True, False),
        ("2025-05", "2025-06-01", False, False),
        ("2025-05", "2025-09-01", True, True),
        ("2025-06-10", "2025-09", True, False),
        ("2025-06", "2025-09", True, True),
        ("2025", None, True, True),  # (a year against months: compared as years)
        ("2024", "2025-07-01", True, False),
    ],
)
def test_during_a_span_of_periods_runs_from_the_first_through_the_last(start, end, overlaps, throughout):
    vf, vt = p(start), p(end) if end else None
    assert holds_during(vf, vt, p("2025-06"), last=p("2025-08")) is overlaps
    assert holds_throughout(vf, vt, p("2025-06"), last=p("2025-08")) is throughout


def test_interval_refuses_an_end_before_its_start():
    with pytest.raises(InvalidInterval) as info:
        Interval(start=p("2025-11-27"), end=p("2025-11-01"))
    assert info.value.field == "valid_to"


def test_period_of_a_month():
    period = period_of(p("Nov 2025"))
    assert period.start.at == dt.datetime(2025, 11, 1, tzinfo=dt.UTC)
    assert period.end.at == dt.datetime(2025, 12, 1, tzinfo=dt.UTC)


def test_known_at_is_half_open_in_transaction_time():
    t = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    later = t + dt.timedelta(days=1)
    assert known_at(t, None, t)
    assert known_at(t, later, t)
    assert not known_at(t, later, later)
    assert not known_at(later, None, t)


def test_an_empty_interval_holds_nowhere():
    start = p("2025-11-10")
    assert not holds_at(start, start, p("2025-11-10"))
    assert not holds_during(start, start, p("Nov 2025"))
    assert not holds_throughout(start, start, p("Nov 2025"))
