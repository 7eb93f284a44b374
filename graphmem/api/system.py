"""``health`` and ``stats``: is the server up, on what engine, and how much memory holds."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

import graphmem
from graphmem.api.access import Principal

__all__ = ["SystemQuery", "health_data"]


@strawberry.type(description="Counts of what memory holds")
class Stats:
    events: int
    entities: int
    threads: int
    states: int
    state_versions: int
    revisions: int


@strawberry.type(description="Whether the server is up, and on what")
class Health:
    ok: bool
    version: str
    engine: str
    vector_mode: str = strawberry.field(description="how recall finds text: 'none' means lexical only (degraded)")
    vector_lag: int = strawberry.field(description="documents still waiting for their vector")
    auth: bool = strawberry.field(description="whether tokens are required")
    stats: Stats


def health_data(memory: Any, auth: bool, principal: Principal | None) -> dict[str, Any]:
    """Health as plain data (for ``GET /health`` and the ``health`` field alike). Counts only for a caller,
    and only of what ``principal`` may read: counts of other scopes would show a token how they change (so
    would the documents waiting for vectors: those of its view; none for a caller without a token)."""
    index = memory.index_status(principal.passes(include_private=True) if principal is not None else [])
    data: dict[str, Any] = {
        "ok": True, "version": graphmem.__version__, "engine": memory.engine,
        "vector_mode": index.embedder or "none", "vector_lag": index.lag, "auth": auth,
    }
    if principal is not None:
        s = memory.stats(principal.passes(include_private=True))
        data["stats"] = {"events": s.events, "entities": s.entities, "threads": s.threads, "states": s.states,
                         "state_versions": s.state_versions, "revisions": s.revisions}
    return data


@strawberry.type
class SystemQuery:
    @strawberry.field(description="Server health: engine, versions, vector mode and counts")
    async def health(self, info: Info[Any, Any]) -> Health:
        ctx = info.context
        data = await ctx.run(health_data, ctx.memory, not ctx.principal.is_local, ctx.principal)
        return Health(**{**data, "stats": Stats(**data["stats"])})

    @strawberry.field(description="Counts of what the caller may read: events, entities, threads, states, "
                                  "revisions")
    async def stats(self, info: Info[Any, Any]) -> Stats:
        ctx = info.context
        data = await ctx.run(health_data, ctx.memory, not ctx.principal.is_local, ctx.principal)
        return Stats(**data["stats"])
