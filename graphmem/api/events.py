"""Event reads, from compact to full: ``events`` pages, ``timeline`` around one event, ``get`` by ids."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.reads import event_page, events_around, get_events
from graphmem.api.types import EventConnection, EventNode, StateNode, ThreadNode
from graphmem.errors import NotFound

__all__ = ["EventQuery"]


@strawberry.type
class EventQuery:
    @strawberry.field(description="Events newest first, filtered by period, entity, thread and kinds")
    async def events(
        self,
        info: Info[Any, Any],
        since: str | None = None,
        until: str | None = None,
        entity: str | None = None,
        thread: str | None = None,
        kinds: list[str] | None = None,
        first: int = 20,
        after: str | None = None,
        include_private: bool = False,
    ) -> EventConnection:
        return await event_page(info.context, first=first, after=after, include_private=include_private,
                                entity=entity, thread=thread, since=since, until=until, kinds=kinds)

    @strawberry.field(description="One event by id")
    async def event(self, info: Info[Any, Any], id: strawberry.ID, include_private: bool = False) -> EventNode:
        ctx = info.context
        found = await ctx.run(get_events, ctx, [str(id)], include_private)
        if not found:
            raise NotFound("event", str(id), field="id")
        return EventNode.of(found[0], ctx.memory.tz, include_private)

    @strawberry.field(description="Full events by id, in the order asked; ids the caller cannot see are left out")
    async def get(self, info: Info[Any, Any], ids: list[strawberry.ID],
                  include_private: bool = False) -> list[EventNode]:
        ctx = info.context
        found = await ctx.run(get_events, ctx, [str(i) for i in ids], include_private)
        return [EventNode.of(e, ctx.memory.tz, include_private) for e in found]

    @strawberry.field(description="The events just before and after one event, oldest first")
    async def timeline(self, info: Info[Any, Any], event_id: strawberry.ID, before: int = 5, after: int = 5,
                       include_private: bool = False) -> list[EventNode]:
        ctx = info.context
        found = await ctx.run(events_around, ctx, str(event_id), before, after, include_private)
        return [EventNode.of(e, ctx.memory.tz, include_private) for e in found]

    @strawberry.field(description="A conversation, session or topic, with its events")
    async def thread(self, info: Info[Any, Any], key: str) -> ThreadNode:
        ctx = info.context
        return ThreadNode.of(await ctx.run(ctx.memory.thread, key))

    @strawberry.field(description="One state by id, with its current values")
    async def state(self, info: Info[Any, Any], id: strawberry.ID, include_private: bool = False) -> StateNode:
        ctx = info.context
        state = await ctx.run(ctx.memory.state, str(id))
        if not ctx.principal.may_see(state, include_private):
            raise NotFound("state", str(id), field="id")
        return StateNode.of(state, ctx.memory.tz, include_private)
