"""The janitor's rules: TTL removal candidates and what a dedupe-key conflict says.

TTL: an event with ``ttl_days > 0`` becomes a removal *candidate* ``ttl_days`` after it was recorded; the
janitor lists it for a person to approve and never removes it. ``ttl_days`` 0 or unset keeps it forever.

Conflicts: events of one scope and dedupe key with different content, none superseding the other. The latest
is in force (last write wins); the janitor records one ``conflict_resolution`` event naming every version
and warns, saying which way confidence went when the versions disagree on it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphmem.ontology import Event

__all__ = ["Conflict", "TtlCandidate", "conflict_note", "conflicts_of", "ttl_candidates"]


@dataclass(frozen=True)
class TtlCandidate:
    event: Event
    expired_at: dt.datetime


def ttl_candidates(events: Iterable[Event], now: dt.datetime) -> list[TtlCandidate]:
    """Events whose time to live has run out by ``now``, oldest expiry first."""
    out = []
    for e in events:
        if e.ttl_days:
            expiry = e.recorded_at + dt.timedelta(days=e.ttl_days)
            if expiry <= now:
                out.append(TtlCandidate(e, expiry))
    return sorted(out, key=lambda c: (c.expired_at, c.event.id))


@dataclass(frozen=True)
class Conflict:
    scope: str
    key: str
    winner: Event  # the version in force
    losers: tuple[Event, ...]  # older versions with other content, newest first


def _quote(e: Event) -> str:
    flat = " ".join(e.content.split())
    text = flat if len(flat) <= 160 else flat[:159] + "…"
    return f"\"{text}\" ({e.id}, {e.occurred_at.label()}, confidence {e.confidence:.2f})"


def conflict_note(conflict: Conflict) -> tuple[str, str]:
    """The conflict_resolution event's content, and the warning for the report."""
    winner, losers = conflict.winner, conflict.losers
    lines = [f"Conflict on `{conflict.key}` in {conflict.scope}: {len(losers) + 1} versions.",
             f"In force (latest): {_quote(winner)}.",
             *(f"Replaced: {_quote(e)}." for e in losers),
             "Confirm which holds, or record an event that supersedes the wrong one."]
    top = max(e.confidence for e in losers)
    if winner.confidence > top:
        how = f"a higher-confidence version ({winner.confidence:.2f}) overrides a lower one ({top:.2f})"
    elif winner.confidence < top:
        how = f"a lower-confidence version ({winner.confidence:.2f}) overrides a higher one ({top:.2f})"
    else:
        how = "a newer version overrides older ones of the same confidence"
    return "\n".join(lines), f"`{conflict.key}` ({conflict.scope}): {how}; see {winner.id}"


def conflicts_of(groups: Sequence[tuple[str, str, Event, Sequence[Event]]]) -> list[Conflict]:
    """Conflicts from (scope, key, latest, older versions with other content) groups that have any."""
    return [Conflict(scope, key, winner, tuple(losers)) for scope, key, winner, losers in groups if losers]
