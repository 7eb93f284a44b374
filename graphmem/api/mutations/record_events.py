"""``recordEvents``: append a batch in one transaction; one bad item fails the batch and writes nothing."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, context, problems_of
from graphmem.api.mutations.record_event import RecordEventInput, RecordEventSuccess, record_fields, success_of
from graphmem.errors import GraphmemError, InvalidInput

__all__ = ["MAX_BATCH", "RecordEventsMutation"]

MAX_BATCH = 1000


@strawberry.input(description="Events to record together")
class RecordEventsInput:
    events: list[RecordEventInput]


@strawberry.type(description="What happened to each event, in the order sent")
class RecordEventsSuccess:
    results: list[RecordEventSuccess]
    created: int
    duplicates: int
    dropped: int


@strawberry.type
class RecordEventsError(UserError):
    pass


RecordEventsResult = Annotated[RecordEventsSuccess | RecordEventsError, strawberry.union("RecordEventsResult")]


@strawberry.type
class RecordEventsMutation:
    @strawberry.mutation(description="Record many events in one transaction: all of them or none")
    async def record_events(self, info: Info[Any, Any], input: RecordEventsInput) -> RecordEventsResult:
        ctx = context(info)
        try:
            if not 1 <= len(input.events) <= MAX_BATCH:
                raise InvalidInput(f"send between 1 and {MAX_BATCH} events per batch", field="input.events")
            items = [record_fields(e, ctx.principal, f"input.events[{i}]", extracts=ctx.memory.extract)
                     for i, e in enumerate(input.events)]
            results = await ctx.run(ctx.memory.record_many, items, may_link=ctx.principal.linkable())
        except GraphmemError as exc:
            return RecordEventsError(**problems_of(exc, ctx.principal))
        statuses = [r.status for r in results]
        return RecordEventsSuccess(
            results=[success_of(r, ctx.memory.tz) for r in results], created=statuses.count("created"),
            duplicates=statuses.count("duplicate"), dropped=statuses.count("dropped"),
        )
