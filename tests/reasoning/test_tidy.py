"""Tidy closes exact duplicate states (never deletes, never moods), bounded, with tidy revisions."""

from __future__ import annotations

import datetime as dt

import pytest

from graphmem import Memory
from graphmem.ontology import EvidenceStance, Interval, TimePoint
from graphmem.store import WriteBatch


def copy_state(mem: Memory, state, new_id: str, start: str | None, end: str | None = None, evidence=None):
    """A second row of the same state, as an import or an older version could have left it."""
    now = mem.now()
    valid = Interval(start=mem.parse_time(start) if start else None, end=mem.parse_time(end) if end else None)
    dup = state.model_copy(update={"id": new_id, "valid": valid, "created_at": now, "recorded_at": now,
                                   "evidence": ()})
    batch = WriteBatch(new_states=[dup])
    if evidence:
        batch.evidence.append((evidence, new_id, EvidenceStance.SUPPORTS, now))
    mem.store.write(batch)
    return dup


@pytest.fixture
def mem():
    m = Memory.in_memory(extract=False)
    ev = m.record(content="Bo has to write the docs.", occurred_at="2025-11-01")
    m.assert_state(subject="Bo", predicate="todo", object="write the docs", valid_from="2025-11-01", evidence=[ev.id])
    return m


def test_a_duplicate_inside_the_kept_state_is_closed_with_a_tidy_revision(mem):
    kept = mem.timeline("Bo", "todo")[0]
    later = mem.record(content="Bo still has to write the docs.", occurred_at="2025-11-05")
    copy_state(mem, kept, "st_dup", "2025-11-05", evidence=later.id)
    assert len(mem.as_of("2025-11-10").states(subject="Bo")) == 2
    report = mem.tidy()
    assert report.closed == [("st_dup", kept.id)] and report.by_kind == {"task": 1}
    assert [s.id for s in mem.as_of("2025-11-10").states(subject="Bo")] == [kept.id]
    assert len(mem.timeline("Bo", "todo")) == 2  # closed, not deleted
    closed = mem.state("st_dup")
    assert closed.status.value == "closed" and closed.valid.start == closed.valid.end
    assert mem.revisions("st_dup")[-1].reason == f"tidy: exact duplicate of {kept.id}"
    assert later.id in {e.event_id for e in mem.state(kept.id).evidence}  # provenance moved over
    assert mem.tidy().closed == []  # nothing left to do


def test_dry_run_reports_and_writes_nothing(mem):
    kept = mem.timeline("Bo", "todo")[0]
    copy_state(mem, kept, "st_dup", "2025-11-05")
    before = mem.stats()
    assert mem.tidy(dry_run=True).closed == [("st_dup", kept.id)]
    assert mem.stats() == before


def test_partial_overlaps_and_other_scopes_are_left_alone(mem):
    kept = mem.timeline("Bo", "todo")[0]
    mem.close_state(kept.id, valid_to="2025-11-20")
    kept = mem.state(kept.id)
    copy_state(mem, kept, "st_partial", "2025-11-10")  # open-ended: sticks out of the kept interval
    other = kept.model_copy(update={"scope": "project:docs"})
    copy_state(mem, other, "st_scope", "2025-11-02", "2025-11-05")
    report = mem.tidy()
    assert report.closed == [] and report.partial_overlaps == 1


def test_moods_are_never_tidied():
    mem = Memory.in_memory(extract=False)
    mood = mem.assert_state(subject="Bo", predicate="feels", object="tired", valid_from="2025-11-01")
    copy_state(mem, mood, "st_mood_again", "2025-11-01T10:00")
    assert mem.tidy().closed == []
    assert len(mem.as_of("2025-11-01T12:00").states(subject="Bo")) == 2


def test_a_run_is_bounded_by_the_rule(mem):
    from graphmem.ontology import TidyRule

    kept = mem.timeline("Bo", "todo")[0]
    for i in range(3):
        copy_state(mem, kept, f"st_dup{i}", f"2025-11-0{i + 2}")
    mem.ontology = mem.ontology.model_copy(update={"tidy": TidyRule(max_closures=2)})
    first = mem.tidy()
    assert len(first.closed) == 2 and first.limited
    second = mem.tidy()
    assert len(second.closed) == 1 and not second.limited


def test_zero_length_closure_is_never_true():
    point = TimePoint(at=dt.datetime(2025, 11, 5, tzinfo=dt.UTC))
    from graphmem.temporal import holds_at

    assert not holds_at(point, point, point)
