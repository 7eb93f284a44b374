"""How the states of one subject and predicate form a timeline: a small pure function.

Memory never deletes to resolve a conflict. For a single-valued predicate (``lives_in``) the timeline is a
function of the set of assertions memory currently holds (not retracted), each with its ``valid_from``, an
optional stated end ("left Acme in March") and the transaction time it was first recorded:

* assertions are ordered by ``valid_from`` (an open start first);
* each holds until the next *later* start, or its stated end if that comes first: a newer value closes the
  old one at its start, and an older one arriving late is bounded by its successor;
* two assertions with the same start: the one recorded later wins; the other is superseded with an empty
  interval (its history stays; for two open starts the loser ends at :data:`NEVER`);
* a gap between a stated end and the next start stays a gap: disjoint intervals are never merged.

Retracting an assertion removes it from the set, so whatever it had closed reopens. Multi-valued predicates
(``likes``) never interact: each state ends only at its stated end. Other subjects and predicates are never
looked at.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from graphmem.ontology import StateStatus, TimePoint

__all__ = ["NEVER", "Assertion", "Resolved", "bounded", "order_key", "resolve_timeline"]

_MIN = dt.datetime.min.replace(tzinfo=dt.UTC)
# the end given to an open-start state replaced by a later open-start one: before any time, so it never holds
NEVER = TimePoint(at=dt.datetime(1, 1, 1, tzinfo=dt.UTC))


@dataclass(frozen=True)
class Assertion:
    """What the timeline needs of one state."""

    state_id: str
    valid_from: TimePoint | None
    stated_end: TimePoint | None
    created_at: dt.datetime
    done: bool = False
    seq: int = 0  # order among assertions created in the same transaction
    open_status: StateStatus = StateStatus.ACTIVE  # while it holds open-ended (a preference may be a candidate)
    end_status: StateStatus = StateStatus.CLOSED  # once its own end is stated (a preference may be revoked)


@dataclass(frozen=True)
class Resolved:
    """A state's place in the timeline: where it ends and why."""

    valid_to: TimePoint | None
    status: StateStatus


def resolve_timeline(assertions: Iterable[Assertion], *, single_valued: bool) -> dict[str, Resolved]:
    """The end and status of every assertion of one (subject, predicate).

    >>> from graphmem.ontology import TimePoint, Granularity
    >>> y = lambda n: TimePoint(at=dt.datetime(n, 1, 1, tzinfo=dt.UTC), granularity=Granularity.YEAR)
    >>> t = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    >>> out = resolve_timeline([Assertion("a", y(2010), None, t), Assertion("b", y(2015), None, t)],
    ...                        single_valued=True)
    >>> (out["a"].valid_to == y(2015), out["a"].status.value, out["b"].status.value)
    (True, 'superseded', 'active')
    """
    items = list(assertions)
    if not single_valued:
        return {a.state_id: _own_end(a) for a in items}
    ordered = in_order(items)
    out: dict[str, Resolved] = {}
    # ties sort the later-recorded last, so the earlier one is bounded at its own start (an empty interval)
    for i, current in enumerate(ordered):
        out[current.state_id] = bounded(current, ordered[i + 1] if i + 1 < len(ordered) else None)
    return out


def in_order(assertions: Iterable[Assertion]) -> list[Assertion]:
    """``assertions`` as their timeline orders them (see :func:`order_key`)."""
    return sorted(assertions, key=lambda a: order_key(a.valid_from, a.created_at, a.seq, a.state_id))


def order_key(valid_from: TimePoint | None, created_at: dt.datetime, seq: int,
              state_id: str) -> tuple[dt.datetime, dt.datetime, int, str]:
    """Where an assertion sits in its timeline: by start (an open start first), then the later-recorded last."""
    return (valid_from.at if valid_from is not None else _MIN, created_at, seq, state_id)


def _own_end(a: Assertion) -> Resolved:
    if a.stated_end is None:
        return Resolved(valid_to=None, status=StateStatus.DONE if a.done else a.open_status)
    return Resolved(valid_to=a.stated_end, status=StateStatus.DONE if a.done else a.end_status)


def bounded(current: Assertion, successor: Assertion | None) -> Resolved:
    """Where ``current`` ends in a single-valued timeline, given the assertion that follows it there (if any):
    its end depends on nothing else."""
    own = _own_end(current)
    if successor is None:
        return own
    if successor.valid_from is None:  # both starts open: the later-recorded one replaces this one entirely
        return Resolved(valid_to=NEVER, status=StateStatus.SUPERSEDED)
    if own.valid_to is not None and own.valid_to.at <= successor.valid_from.at:
        return own
    return Resolved(valid_to=successor.valid_from, status=StateStatus.SUPERSEDED)
