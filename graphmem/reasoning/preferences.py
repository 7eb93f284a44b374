"""Preferences: a holder's like or dislike of a subject in a domain, from candidate to confirmed to revoked.

A preference is a state ``holder likes|dislikes subject`` (kind ``preference``) whose payload names its domain.
``upsert_candidate`` proposes one (a guess is never the basis of an answer: it stays a ``candidate``);
``confirm`` makes it hold (only an explicit statement should confirm) and revokes the opposite polarity for the
same subject; ``revoke`` ends it. Revoking closes the state at the evidence's time with status ``revoked``:
its history stays, and a later ``confirm`` starts a new state, so like -> dislike -> like cycles are exact.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from graphmem.errors import InvalidInput
from graphmem.ontology import Predicate, RevisionAction, State, StateStatus, TimePoint
from graphmem.reasoning.updates import Plan, plan_assert, plan_close, plan_revise

__all__ = ["POLARITIES", "PREFERENCE_OPS", "PreferenceOp", "live_preferences", "plan_preference"]

PreferenceOp = Literal["upsert_candidate", "confirm", "revoke"]
PREFERENCE_OPS: tuple[str, ...] = ("upsert_candidate", "confirm", "revoke")
POLARITIES = {"like": "likes", "dislike": "dislikes"}  # polarity -> predicate


def live_preferences(timeline: Sequence[State], object_id: str | None) -> list[State]:
    """The states of ``timeline`` about ``object_id`` that still hold (confirmed or candidate)."""
    return [
        s for s in timeline
        if s.object_id == object_id and s.valid.end is None
        and s.status in (StateStatus.ACTIVE, StateStatus.CANDIDATE)
    ]


def plan_preference(
    op: str,
    proposed: State,
    timeline: Sequence[State],
    opposite: Sequence[State],
    predicate: Predicate,
    opposite_predicate: Predicate,
    now: dt.datetime,
    evidence: Sequence[str],
    reason: str,
    end: TimePoint,
) -> tuple[list[Plan], State]:
    """Plans for one preference update and the preference state it leaves (for ``revoke``: the revoked one).

    ``op`` is one of :data:`PREFERENCE_OPS` (checked by the caller).
    ``proposed`` is the state a new preference would be (its status says candidate or active); ``timeline``
    and ``opposite`` are the holder's current states of this polarity's predicate and of the opposite one.
    """
    same = live_preferences(timeline, proposed.object_id)
    if op == "revoke":
        if not same:
            raise InvalidInput(
                f"no {proposed.predicate} preference for {proposed.object!r} holds; nothing to revoke",
                field="subject",
            )
        revoked = [_revoke(timeline, s, predicate, now, reason, evidence, end) for s in same]
        return revoked, revoked[-1].results[0]
    plans: list[Plan] = []
    if same:
        current = same[-1]
        if op == "confirm" and current.status is StateStatus.CANDIDATE:
            plan = plan_revise(current, now, RevisionAction.CONFIRM, reason, evidence, status=StateStatus.ACTIVE,
                               payload={**current.payload, **proposed.payload})
        else:  # restated: seen to hold again; a candidate stays a candidate until confirmed
            plan = plan_revise(current, now, RevisionAction.CONFIRM, reason, evidence)
        plans.append(plan)
    else:
        plans.append(plan_assert(timeline, [(proposed, evidence, reason)], predicate, now))
    result = plans[-1].results[0]
    if op == "confirm":
        for other in live_preferences(opposite, proposed.object_id):
            why = f"{reason} (the opposite preference was confirmed)"
            plans.append(_revoke(opposite, other, opposite_predicate, now, why, evidence, end))
    return plans, result


def _revoke(
    timeline: Sequence[State], state: State, predicate: Predicate, now: dt.datetime, reason: str,
    evidence: Sequence[str], end: TimePoint,
) -> Plan:
    if state.valid.start is not None and end.at < state.valid.start.at:
        end = state.valid.start  # revoked before it was stated: it never held
    return plan_close(timeline, state.id, end, predicate, now, reason, evidence, revoke=True)
