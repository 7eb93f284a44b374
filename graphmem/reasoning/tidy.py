"""Tidy: close exact duplicate states, never delete them.

Two states are exact duplicates when they agree on kind, subject, predicate, object, text, scope, visibility
and holder, and one's validity lies inside the other's. The earliest (by valid_from, then creation) is kept;
each duplicate inside it gets a new version closed at its own start (``[start, start)``: it never held apart
from the kept state), a revision whose reason names tidy and the kept state, and its evidence moves to the
kept state. So what any as-of, during or known-at question answers is unchanged, minus the repeated row.

Partial overlaps (neither inside the other) are left alone and counted: closing one would change an answer.
A duplicate with no start is left alone too (no instant to close it at). Excluded kinds (moods) are never
touched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphmem.ontology import Interval, RevisionAction, State, StateStatus, TidyRule
from graphmem.reasoning.updates import Plan

__all__ = ["Duplicates", "find_duplicates", "plan_tidy"]

_OPEN = dt.datetime.max.replace(tzinfo=dt.UTC)
_EARLIEST = dt.datetime.min.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class Duplicates:
    pairs: list[tuple[State, State]]  # (kept, duplicate)
    partial_overlaps: int
    no_start: int
    limited: bool  # more duplicates than the run may close


def _key(s: State) -> tuple[object, ...]:
    return (s.kind, s.subject_id, s.predicate, s.object_id or "", s.object.casefold(), s.text, s.scope,
            s.visibility.value, s.holder or "")


def _bounds(s: State) -> tuple[dt.datetime, dt.datetime]:
    return (s.valid.start.at if s.valid.start else _EARLIEST, s.valid.end.at if s.valid.end else _OPEN)


def _live(s: State) -> bool:
    start, end = _bounds(s)
    return s.status is not StateStatus.RETRACTED and start < end  # a [t, t) state is already closed


def find_duplicates(states: Iterable[State], rule: TidyRule) -> Duplicates:
    """The duplicate pairs among current state versions, at most ``rule.max_closures`` of them."""
    groups: dict[tuple[object, ...], list[State]] = {}
    for s in states:
        if s.kind not in rule.exclude_kinds and _live(s):
            groups.setdefault(_key(s), []).append(s)
    pairs: list[tuple[State, State]] = []
    partial = no_start = 0
    for group in groups.values():
        if len(group) < 2:
            continue
        kept: list[State] = []
        for s in sorted(group, key=lambda s: (_bounds(s)[0], s.created_at, s.id)):
            start, end = _bounds(s)
            cover = next((k for k in kept if _bounds(k)[0] <= start and end <= _bounds(k)[1]), None)
            if cover is not None and s.valid.start is not None:
                pairs.append((cover, s))
            elif cover is not None:
                no_start += 1
            elif any(_bounds(k)[0] < end and start < _bounds(k)[1] for k in kept):
                partial += 1
            else:
                kept.append(s)
    pairs.sort(key=lambda p: (p[1].kind, p[1].subject_id, p[1].predicate, p[1].id))
    limited = len(pairs) > rule.max_closures
    return Duplicates(pairs[: rule.max_closures], partial, no_start, limited)


def plan_tidy(pairs: Sequence[tuple[State, State]], now: dt.datetime) -> Plan:
    """Close each duplicate at its own start, with a tidy revision; its evidence moves to the kept state."""
    plan = Plan(mention=False)
    for kept, dup in pairs:
        assert dup.valid.start is not None
        version = dup.model_copy(update={
            "valid": Interval(start=dup.valid.start, end=dup.valid.start), "status": StateStatus.CLOSED,
            "recorded_at": now,
        })
        evidence = sorted({e.event_id for e in dup.evidence})
        plan.versions.append(version)
        plan.revise(version, RevisionAction.CLOSE, f"tidy: exact duplicate of {kept.id}", now, evidence)
        have = {e.event_id for e in kept.evidence}
        moved = [e for e in evidence if e not in have]
        if moved:
            plan.evidence_targets.append((kept.id, moved))
        plan.results.append(version)
    return plan
