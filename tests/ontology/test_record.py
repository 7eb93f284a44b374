"""Records share one set of given fields, and copies, pickles and updates behave as pydantic's own."""

from __future__ import annotations

import copy
import pickle

import pytest

from graphmem.ontology import Granularity, Interval, TimePoint
from graphmem.ontology.record import shared_fields


def _point(year: int) -> TimePoint:
    return TimePoint.model_validate({"at": f"{year}-01-01T00:00:00Z", "granularity": Granularity.YEAR})


def test_records_made_with_the_same_fields_share_one_set() -> None:
    a, b = _point(2020), _point(2021)
    assert a.model_fields_set == {"at", "granularity"}
    assert a.model_fields_set is b.model_fields_set is shared_fields(["at", "granularity"])


def test_the_shared_set_refuses_changes() -> None:
    fields = _point(2020).model_fields_set
    for change in (lambda: fields.add("x"), lambda: fields.update({"x"}), lambda: fields.clear()):
        with pytest.raises(TypeError, match="shared"):
            change()
    assert fields == {"at", "granularity"}


def test_a_copy_with_updates_records_them_and_leaves_the_original_alone() -> None:
    interval = Interval(start=_point(2020))
    assert interval.model_fields_set == {"start"}
    later = interval.model_copy(update={"end": _point(2024)})
    assert later.end == _point(2024) and interval.end is None
    assert later.model_fields_set == {"start", "end"} and interval.model_fields_set == {"start"}
    assert later.model_fields_set is shared_fields(["start", "end"])
    assert interval.model_copy(deep=True) == interval


def test_pickles_and_copies_round_trip() -> None:
    interval = Interval(start=_point(2020), end=_point(2024))
    for again in (pickle.loads(pickle.dumps(interval)), copy.copy(interval), copy.deepcopy(interval)):
        assert again == interval
        assert again.model_fields_set == interval.model_fields_set
