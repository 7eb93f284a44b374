"""Promotion candidates: sure, confirmed three times, not contradicted; a contradiction holds a fact back."""

from __future__ import annotations

import pytest

from graphmem import Memory
from graphmem.errors import InvalidInput


@pytest.fixture
def mem():
    m = Memory.in_memory(extract=False)
    first = m.record(content="Peter moved to Marrakesh.", occurred_at="2025-11-27")
    m.assert_state(subject="Peter", predicate="lives_in", object="Marrakesh", valid_from="2025-11-27",
                   evidence=[first.id], confidence=0.95)
    m.assert_state(subject="Aiko", predicate="lives_in", object="Tokyo", valid_from="2021", confidence=0.95)
    return m


def confirm(m: Memory, subject: str, times: int, day: int = 1) -> None:
    state = m.as_of("2026-01-01").states(subject=subject)[0]
    for i in range(times):
        ev = m.record(content=f"{subject} still lives there ({i}).", occurred_at=f"2025-12-{day + i:02d}")
        m.confirm_state(state.id, evidence=[ev.id])


def test_a_sure_fact_confirmed_three_times_is_offered(mem):
    confirm(mem, "Peter", 2)
    offered, held = mem.promotion_candidates()
    assert [(c.state.subject, c.confirmations) for c in offered] == [("Peter", 3)] and held == []


def test_fewer_confirmations_or_lower_confidence_are_not_offered(mem):
    confirm(mem, "Peter", 1)
    assert mem.promotion_candidates() == ([], [])
    low = mem.record(content="Sam is CTO, I think.", occurred_at="2025-12-01")
    mem.assert_state(subject="Sam", predicate="role", object="CTO", valid_from="2025-10", evidence=[low.id],
                     confidence=0.6)
    confirm(mem, "Sam", 3, day=10)
    assert [c.state.subject for c in mem.promotion_candidates()[0]] == []


def test_a_contradiction_holds_a_fact_back_until_it_is_confirmed_again(mem):
    confirm(mem, "Peter", 2)
    state = mem.as_of("2026-01-01").states(subject="Peter")[0]
    doubt = mem.record(content="Peter may have moved back to Berlin.", occurred_at="2025-12-20")
    mem.dispute_state(state.id, evidence=[doubt.id], reason="a colleague doubts it")
    offered, held = mem.promotion_candidates()
    assert offered == [] and [h.state.subject for h in held] == ["Peter"]
    assert "contradicted on" in held[0].reason
    assert mem.revisions(state.id)[-1].action.value == "dispute"
    confirm(mem, "Peter", 1, day=22)
    offered, held = mem.promotion_candidates()
    assert [c.state.subject for c in offered] == ["Peter"] and held == []


def test_a_dispute_needs_evidence(mem):
    state = mem.as_of("2026-01-01").states(subject="Peter")[0]
    with pytest.raises(InvalidInput) as err:
        mem.dispute_state(state.id, evidence=[])
    assert err.value.field == "evidence"
