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
    moved = later.model_copy(update={"start": _point(2021)})  # names it was given: made without pydantic
    assert moved.start == _point(2021) and later.start == _point(2020) and moved.end is later.end
    assert moved.model_fields_set is later.model_fields_set and moved.__dict__ is not later.__dict__
    assert moved == Interval(start=_point(2021), end=_point(2024))
    again = later.model_copy()
    assert again == later and again is not later and again.__dict__ is not later.__dict__


def test_pickles_and_copies_round_trip() -> None:
    interval = Interval(start=_point(2020), end=_point(2024))
    for again in (pickle.loads(pickle.dumps(interval)), copy.copy(interval), copy.deepcopy(interval)):
        assert again == interval
        assert again.model_fields_set == interval.model_fields_set
    opened = Interval(start=_point(2020))  # some fields given, not all: the same shared set comes back
    assert pickle.loads(pickle.dumps(opened)).model_fields_set is opened.model_fields_set == {"start"}


def test_a_record_pickled_as_pydantic_pickles_it_still_loads() -> None:
    """Journals written before records pickled themselves hold pydantic's pickles."""
    import copyreg
    import io

    from graphmem.ontology.record import Record

    class PydanticPickler(pickle.Pickler):
        def reducer_override(self, obj: object) -> object:
            if isinstance(obj, Record):  # what object.__reduce_ex__ makes of a model that does not override it
                return copyreg.__newobj__, (type(obj),), obj.__getstate__()
            return NotImplemented

    interval = Interval(start=_point(2020), end=_point(2024))
    out = io.BytesIO()
    PydanticPickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(interval)
    assert b"_unpickled" not in out.getvalue() and b"_unpickled" in pickle.dumps(interval)
    again = pickle.loads(out.getvalue())
    assert again == interval and again.model_fields_set == {"start", "end"}


def test_a_record_made_from_every_field_equals_pydantics_own_and_one_missing_a_field_gets_its_default() -> None:
    from pydantic import BaseModel

    from graphmem.ontology import Event, Source

    at = _point(2020)
    values = {"content": "Peter moved.", "occurred_at": at, "occurred_end": None, "source": Source(system="cli"),
              "agent_id": "a", "scope": "global", "kind": "observation", "thread": None, "tags": (), "privacy": (),
              "entities": ("Peter",), "dedupe_key": None, "confidence": 1.0, "supersedes": None, "ttl_days": None,
              "affect": None, "id": "ev_1", "recorded_at": at.at, "content_hash": "h", "redactions": ()}
    made = Event.model_construct(**values)
    theirs = BaseModel.model_construct.__func__(Event, **values)  # pydantic's, field by field
    assert made == theirs and made.model_dump() == theirs.model_dump() and repr(made) == repr(theirs)
    assert made.model_fields_set is shared_fields(Event.model_fields)
    assert pickle.loads(pickle.dumps(made)) == made and made.visibility == theirs.visibility
    with pytest.raises(ValueError, match="frozen"):
        made.content = "changed"  # type: ignore[misc]
    short = Event.model_construct(**{k: v for k, v in values.items() if k != "redactions"})
    assert short.redactions == () and short.model_fields_set == set(values) - {"redactions"}
