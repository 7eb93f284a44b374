"""Promotion candidates: stable facts a person may promote into curated memory.

A fact qualifies when it is current (open-ended, active), of a kind the rule names, at least
``min_confidence`` sure, confirmed at least ``min_confirmations`` times (each distinct supporting event
counts once, and so does each confirmation made without evidence), and has no open contradiction. A
contradiction (contradicting evidence, or a ``dispute``) stays open until the fact is confirmed again after
it. Facts that pass the numbers but are contradicted are listed as held back, with the reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphmem.ontology import EvidenceStance, PromotionRule, Revision, RevisionAction, State, StateStatus

__all__ = ["HeldBack", "PromotionCandidate", "promotion_candidates"]


@dataclass(frozen=True)
class PromotionCandidate:
    state: State
    confirmations: int
    last_confirmed: dt.datetime | None


@dataclass(frozen=True)
class HeldBack:
    state: State
    confirmations: int
    reason: str


def promotion_candidates(
    states: Iterable[State], revisions: Mapping[str, Sequence[Revision]], rule: PromotionRule
) -> tuple[list[PromotionCandidate], list[HeldBack]]:
    """Candidates (most confirmed first) and the facts held back by an open contradiction."""
    offered: list[PromotionCandidate] = []
    held: list[HeldBack] = []
    for s in states:
        if s.kind not in rule.kinds or s.status is not StateStatus.ACTIVE or s.valid_to is not None:
            continue
        history = revisions.get(s.id, ())
        supports = {e.event_id for e in s.evidence if e.stance is EvidenceStance.SUPPORTS}
        bare = sum(1 for r in history if r.action is RevisionAction.CONFIRM and not r.evidence_ids)
        confirmations = len(supports) + bare
        if s.confidence < rule.min_confidence or confirmations < rule.min_confirmations:
            continue
        against = [e.at for e in s.evidence if e.stance is EvidenceStance.CONTRADICTS]
        against += [r.at for r in history if r.action is RevisionAction.DISPUTE]
        confirmed = [r.at for r in history if r.action in (RevisionAction.CONFIRM, RevisionAction.ASSERT)]
        last = max(confirmed, default=None)
        if against and (last is None or last <= max(against)):
            held.append(HeldBack(s, confirmations, f"contradicted on {max(against).date().isoformat()} and not "
                                                   "confirmed since; confirm it again to offer it"))
        else:
            offered.append(PromotionCandidate(s, confirmations, s.last_confirmed_at or last))
    offered.sort(key=lambda c: (-c.confirmations, -c.state.confidence, c.state.subject, c.state.predicate,
                                c.state.id))
    held.sort(key=lambda h: (h.state.subject, h.state.predicate, h.state.id))
    return offered, held
