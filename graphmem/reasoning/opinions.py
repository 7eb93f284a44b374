"""Opinions: beliefs held with a confidence that evidence moves in small steps.

An opinion is a state ``holder believes statement`` (kind ``opinion``) about some entities. Each piece of
evidence is one step of the rule in :class:`~graphmem.ontology.OpinionRule` (the ``opinions`` section of the
ontology) and one revision recording the confidence before and after, the event and why; the new confidence
is a new version of the state, so the value memory held at any transaction time stays readable.
"""

from __future__ import annotations

import datetime as dt

from graphmem.ontology import OpinionRule, RevisionAction, State
from graphmem.reasoning.updates import Plan, plan_revise

__all__ = ["plan_restate", "plan_weigh"]


def plan_weigh(
    opinion: State, rule: OpinionRule, *, supports: bool, weight: float, event_id: str, now: dt.datetime,
    reason: str,
) -> Plan:
    """Move ``opinion``'s confidence by one piece of evidence (``weight`` from :meth:`OpinionRule.weight`)."""
    confidence = rule.moved(opinion.confidence, supports, weight)
    plan = plan_revise(opinion, now, RevisionAction.REWEIGH, reason, [event_id], confidence=confidence,
                       contradicts=not supports)
    plan.mention = False
    return plan


def plan_restate(opinion: State, confidence: float, *, event_ids: list[str], now: dt.datetime, reason: str) -> Plan:
    """The holder says again how sure they are: the confidence becomes the one they state (their own word
    outranks the step rule), recorded as support when it rose or held, as a contradiction when it fell."""
    plan = plan_revise(opinion, now, RevisionAction.REWEIGH, reason, event_ids, confidence=confidence,
                       contradicts=confidence < opinion.confidence)
    plan.mention = False
    return plan
