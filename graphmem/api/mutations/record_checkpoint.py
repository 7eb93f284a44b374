"""``recordCheckpoint``: a named point in a session, as an event of kind checkpoint in its thread."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import context, problems_of
from graphmem.api.mutations.record_event import RecordEventError, RecordEventResult, success_of
from graphmem.errors import GraphmemError

__all__ = ["RecordCheckpointMutation"]


@strawberry.input(description="A checkpoint of a session: what was reached, in a title and a few lines")
class RecordCheckpointInput:
    session: str = strawberry.field(description="the session's thread key (or its id without the platform)")
    title: str
    content: str
    tags: list[str] = strawberry.field(default_factory=list)
    privacy: list[str] = strawberry.field(default_factory=list)
    scope: str = "global"
    occurred_at: str | None = None
    agent_id: str | None = None


@strawberry.type
class RecordCheckpointMutation:
    @strawberry.mutation(description="Record a checkpoint in a session (idempotent by content)")
    async def record_checkpoint(self, info: Info[Any, Any], input: RecordCheckpointInput) -> RecordEventResult:
        ctx = context(info)
        try:
            ctx.principal.check_record(input.scope, input.privacy, read=ctx.memory.extract,
                                       field="input.scope", read_field="input.privacy")
            agent = ctx.principal.writer_id(input.agent_id, "input.agentId")
            result = await ctx.run(ctx.memory.checkpoint, input.session, input.title, input.content,
                                   tags=input.tags, privacy=input.privacy, agent_id=agent, scope=input.scope,
                                   occurred_at=input.occurred_at)
        except GraphmemError as exc:
            return RecordEventError(**problems_of(exc, ctx.principal))
        return success_of(result, ctx.memory.tz)
