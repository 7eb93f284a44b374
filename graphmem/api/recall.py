"""``recall``: events and states that answer a question in words, with their sources and score parts.

The compact first step of progressive disclosure: a hit's ``eventIds`` lead to ``get(ids)`` (full events)
and ``timeline(eventId)`` (its neighbours). The caller's token bounds the scopes searched; private items
come back only with ``includePrivate`` and a token that may read them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.context import Context
from graphmem.api.types import SourceNode, StateNode, TimeValue
from graphmem.query import RecallHit, evidence_refs

__all__ = ["RecallQuery", "recall_hits"]


@strawberry.type(description="Why a hit ranked where it did: each signal in [0, 1] before its preset weight")
class ScoreParts:
    lexical: float = 0.0
    vector: float = 0.0
    graph: float = strawberry.field(default=0.0, description="match of its neighbours in the same thread")
    entity: float = strawberry.field(default=0.0, description="1 when it mentions an entity the query names")
    subject: float = strawberry.field(default=0.0, description="1 when it is about an entity the query names: "
                                                                "declared with the event, or a state's subject")
    time: float = strawberry.field(
        default=0.0, description="1 when it happened in a time the query names, or for a state, held then")
    dated: float = strawberry.field(default=0.0, description="1 when the query asks when and it says when: an "
                                                            "event naming the time it is about, a state's start")
    place: float = strawberry.field(
        default=0.0, description="1 when the query asks where and it mentions a place")
    title: float = strawberry.field(
        default=0.0,
        description="1 when the query asks for titles or names (books, films, pets) and it names one")
    current: float = strawberry.field(
        default=0.0, description="1 when the query asks in the present and it is a state that holds now")
    recency: float = 0.0
    words: float = strawberry.field(
        default=0.0, description="word-by-word match with the query's words, among the best candidates (0-1)")


@strawberry.type(description="One recall answer: an event, or a state with the events that are its evidence")
class RecallHitNode:
    id: strawberry.ID
    type: str = strawberry.field(description="event or state")
    kind: str
    score: float
    parts: ScoreParts
    time: TimeValue | None
    content: str
    entities: list[str]
    scope: str
    source: SourceNode | None
    refs: list[str] = strawberry.field(description="source refs: its own, or its evidence events' for a state")
    event_ids: list[strawberry.ID] = strawberry.field(description="pass to get(ids) or timeline(eventId)")
    thread: str | None
    state: StateNode | None

    @classmethod
    def of(cls, h: RecallHit, ctx: Context, include_private: bool) -> RecallHitNode:
        tz = ctx.memory.tz
        return cls(
            id=strawberry.ID(h.id), type=h.type, kind=h.kind, score=h.score, parts=ScoreParts(**h.parts),
            time=TimeValue.of(h.time, tz), content=h.content, entities=list(h.entities), scope=h.scope,
            source=SourceNode.of(h.source) if h.source else None, refs=list(h.refs),
            event_ids=[strawberry.ID(i) for i in h.event_ids], thread=h.thread,
            state=StateNode.of(h.state, tz, include_private) if h.state else None,
        )


@strawberry.type(description="Recall hits, and whether vectors took part")
class RecallAnswer:
    hits: list[RecallHitNode]
    degraded: bool = strawberry.field(description="true when recall ran on words only (no vector model)")
    vector_lag: int = strawberry.field(description="recent documents not yet searchable by vector")


def recall_hits(ctx: Context, query: str, k: int, include_private: bool, **filters: Any) -> list[RecallHit]:
    """Recall within the caller's view: one search per read pass, merged by score."""
    passes = ctx.principal.passes(include_private, filters.pop("scopes", None))
    found: list[RecallHit] = []
    for p in passes:
        found.extend(ctx.memory.recall(query, k, scopes=list(p.scopes) if p.scopes is not None else None,
                                       include_private=p.include_private, **filters))
    if len(passes) > 1:
        found.sort(key=lambda h: -h.score)
    return _evidence_shown(ctx, found[:k], include_private)


def _evidence_shown(ctx: Context, hits: list[RecallHit], include_private: bool) -> list[RecallHit]:
    """``hits`` with each state's evidence (its event ids and their source refs) cut to the events the caller
    may see: a state in a scope it reads may rest on events in one it does not."""
    cited = list(dict.fromkeys(i for h in hits if h.type == "state" for i in h.event_ids))
    shown = ctx.seen(cited, include_private)
    if len(shown) == len(cited):
        return hits
    return [
        replace(h, event_ids=tuple(i for i in h.event_ids if i in shown),
                refs=evidence_refs(shown[i] for i in h.event_ids if i in shown)) if h.type == "state" else h
        for h in hits
    ]


@strawberry.type
class RecallQuery:
    @strawberry.field(description="Events and states that answer a question in words, best first")
    async def recall(
        self,
        info: Info[Any, Any],
        query: str,
        k: int = 10,
        since: str | None = None,
        until: str | None = None,
        entities: list[str] | None = None,
        kinds: list[str] | None = None,
        types: list[str] | None = None,
        scopes: list[str] | None = None,
        include_private: bool = False,
        preset: str = "default",
        relative_to: str | None = None,
    ) -> RecallAnswer:
        ctx: Context = info.context
        hits = await ctx.run(
            recall_hits, ctx, query, k, include_private, since=since,
            until=until, entities=entities, kinds=kinds, types=types, scopes=scopes, preset=preset,
            relative_to=relative_to,
        )
        # (waiting documents of other scopes would show their writes)
        status = ctx.memory.index_status(ctx.principal.passes(include_private))
        return RecallAnswer(hits=[RecallHitNode.of(h, ctx, include_private) for h in hits],
                            degraded=status.degraded, vector_lag=status.lag)
