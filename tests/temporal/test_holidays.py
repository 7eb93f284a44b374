import datetime as dt

import pytest

from graphmem.temporal.holidays import holiday_date, holiday_days, holiday_key


@pytest.mark.parametrize(("year", "day"), [(1818, "03-22"), (2000, "04-23"), (2019, "04-21"), (2024, "03-31"),
                                           (2025, "04-20"), (2026, "04-05"), (2038, "04-25")])
def test_easter_follows_the_gregorian_computus(year, day):
    assert holiday_date("easter", year) == dt.date.fromisoformat(f"{year}-{day}")


@pytest.mark.parametrize(("written", "year", "day"), [
    ("Thanksgiving", 2024, "2024-11-28"), ("thanksgiving", 2025, "2025-11-27"),
    ("Black Friday", 2025, "2025-11-28"), ("Memorial Day", 2025, "2025-05-26"),
    ("Labour Day", 2025, "2025-09-01"), ("Father's Day", 2025, "2025-06-15"),
    ("Mothers Day", 2025, "2025-05-11"), ("Good Friday", 2025, "2025-04-18"),
    ("Easter Monday", 2025, "2025-04-21"), ("Easter Sunday", 2025, "2025-04-20"),
    ("Xmas", 2025, "2025-12-25"), ("Christmas Day", 2025, "2025-12-25"), ("New Year's", 2026, "2026-01-01"),
    ("New Years Eve", 2025, "2025-12-31"), ("new year eve", 2025, "2025-12-31"),
    ("Valentines", 2025, "2025-02-14"), ("St. Patrick's Day", 2025, "2025-03-17"),
    ("お正月", 2026, "2026-01-01"), ("クリスマス・イブ", 2025, "2025-12-24"), ("七夕", 2025, "2025-07-07"),
])
def test_each_spelling_names_its_day(written, year, day):
    assert holiday_date(holiday_key(written), year) == dt.date.fromisoformat(day)


def test_a_named_day_may_last_several_days():
    assert [holiday_days(holiday_key(n)) for n in ("Golden Week", "お盆", "年末年始", "Christmas")] == [7, 4, 6, 1]


def test_an_unknown_name_is_refused():
    with pytest.raises(KeyError, match="Arbor Day"):
        holiday_key("Arbor Day")
