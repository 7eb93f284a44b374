"""``opinions`` and ``preferences``: beliefs with their confidence, its history and the evidence behind it.

"How sure were we on 1 Dec, and why": ``opinions(about: "Kuzu", asOf: "2025-12-01")`` answers with the
confidence the evidence that had happened by then gave, and ``history`` lists every step with its event.
The caller's token bounds the scopes read, as everywhere.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.context import Context
from graphmem.api.types import StateNode
from graphmem.ontology import EvidenceStance, State, StateStatus
from graphmem.query import ConfidenceChange, Opinion

__all__ = ["ConfidenceStep", "OpinionNode", "OpinionQuery", "PreferenceNode"]


@strawberry.type(description="One step of an opinion's confidence")
class ConfidenceStep:
    recorded_at: dt.datetime = strawberry.field(description="when memory made the change")
    happened_at: dt.datetime = strawberry.field(description="when its evidence happened")
    before: float | None = strawberry.field(description="null for the opinion's formation")
    after: float
    action: str
    reason: str
    event_id: strawberry.ID | None = strawberry.field(
        description="the event that moved it; null when there was none or the caller may not see it")
    stance: EvidenceStance | None

    @classmethod
    def of(cls, c: ConfidenceChange, shown: Collection[str]) -> ConfidenceStep:
        """The step ``c``; its event named only when it is among the events ``shown`` to the caller."""
        return cls(recorded_at=c.recorded_at, happened_at=c.happened_at, before=c.before, after=c.after,
                   action=c.action, reason=c.reason,
                   event_id=strawberry.ID(c.event_id) if c.event_id and c.event_id in shown else None,
                   stance=c.stance)


@strawberry.type(name="Opinion", description="A belief held by someone, with a confidence that evidence moves")
class OpinionNode:
    id: strawberry.ID
    statement: str
    holder: str
    confidence: float = strawberry.field(description="now, or as of the asked time")
    about: list[str] = strawberry.field(description="names of the entities it is about")
    state: StateNode = strawberry.field(description="the state behind it: validity, evidence, revisions")
    changes: strawberry.Private[tuple[ConfidenceChange, ...]]
    include_private: strawberry.Private[bool]

    @classmethod
    def of(cls, o: Opinion, tz: dt.tzinfo, include_private: bool) -> OpinionNode:
        return cls(id=strawberry.ID(o.id), statement=o.statement, holder=o.holder, confidence=o.confidence,
                   about=list(o.about), state=StateNode.of(o.state, tz, include_private), changes=o.history,
                   include_private=include_private)

    @strawberry.field(description="every change of its confidence, oldest first")
    async def history(self, info: Info[Any, Any]) -> list[ConfidenceStep]:
        ctx: Context = info.context
        shown = await ctx.shown_events((c.event_id for c in self.changes if c.event_id), self.include_private)
        return [ConfidenceStep.of(c, shown) for c in self.changes]


@strawberry.type(name="Preference", description="A like or dislike of a holder, from candidate to confirmed")
class PreferenceNode:
    id: strawberry.ID
    holder: str
    subject: str
    polarity: str = strawberry.field(description="like or dislike")
    domain: str | None
    note: str | None
    status: StateStatus = strawberry.field(description="candidate, active (confirmed) or revoked")
    confidence: float
    state: StateNode

    @classmethod
    def of(cls, s: State, tz: dt.tzinfo, include_private: bool) -> PreferenceNode:
        return cls(id=strawberry.ID(s.id), holder=s.holder or s.subject, subject=s.object,
                   polarity="like" if s.predicate == "likes" else "dislike", domain=s.payload.get("domain"),
                   note=s.payload.get("note"), status=s.status, confidence=s.confidence,
                   state=StateNode.of(s, tz, include_private))


def opinions_for(ctx: Context, include_private: bool, limit: int, **filters: Any) -> list[Opinion]:
    """Opinions within the caller's view: one read per read pass, merged by confidence."""
    found: list[Opinion] = []
    for p in ctx.principal.passes(include_private, filters.pop("scopes", None)):
        found.extend(ctx.memory.opinions(scopes=list(p.scopes) if p.scopes is not None else None,
                                         include_private=p.include_private, limit=limit, **filters))
    unique = {o.id: o for o in found}
    return sorted(unique.values(), key=lambda o: (-o.confidence, o.statement, o.id))[:limit]


@strawberry.type
class OpinionQuery:
    @strawberry.field(description="Opinions, most confident first, with their evidence and confidence history")
    async def opinions(
        self,
        info: Info[Any, Any],
        about: str | None = None,
        holder: str | None = None,
        min_confidence: float = 0.0,
        as_of: str | None = None,
        known_at: str | None = None,
        scopes: list[str] | None = None,
        include_private: bool = False,
        first: int = 50,
    ) -> list[OpinionNode]:
        ctx: Context = info.context
        found = await ctx.run(opinions_for, ctx, include_private, first, about=about, holder=holder,
                              min_confidence=min_confidence, as_of=as_of, known_at=known_at, scopes=scopes)
        return [OpinionNode.of(o, ctx.memory.tz, include_private) for o in found]

    @strawberry.field(description="A holder's likes and dislikes that hold now")
    async def preferences(
        self,
        info: Info[Any, Any],
        holder: str = "user",
        domain: str | None = None,
        include_candidates: bool = True,
        include_revoked: bool = False,
        include_private: bool = False,
    ) -> list[PreferenceNode]:
        ctx: Context = info.context
        found = await ctx.run(ctx.memory.preferences, holder, domain=domain, include_candidates=include_candidates,
                              include_revoked=include_revoked)
        return [PreferenceNode.of(s, ctx.memory.tz, include_private) for s in found
                if ctx.principal.may_see(s, include_private)]
