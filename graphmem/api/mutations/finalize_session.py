"""``finalizeSession``: record a deterministic summary of a session's events."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.context import Context
from graphmem.api.mutations._common import context, problems_of
from graphmem.api.mutations.record_event import RecordEventError, RecordEventResult, success_of
from graphmem.errors import Forbidden, GraphmemError, NotFound
from graphmem.memory import UNKNOWN_SESSION_HINT, RecordResult

__all__ = ["FinalizeSessionMutation", "finalize_checked"]


def finalize_checked(ctx: Context, session: str, field: str = "session") -> RecordResult:
    """Finalize a session the caller may read whole (the summary quotes it) and write the scope of. A session
    of which it sees no event does not exist for it (answered as an unknown one); one that also holds events
    it may not see is refused without saying whose they are."""
    if not ctx.principal.is_local:
        key = ctx.memory.session_key(session)
        found = ctx.memory.events(thread=key, include_private=True, limit=1000)
        seen = ctx.visible(found, True)
        if found and not seen:
            raise NotFound("session", session, field="session", hint=UNKNOWN_SESSION_HINT)
        if len(seen) < len(found):
            raise Forbidden("this session holds events this token may not read, which its summary would quote",
                            field=field)
        if found:
            ctx.principal.check_write(found[0].scope, field)
    return ctx.memory.finalize_session(session, agent_id=ctx.principal.agent_id or "graphmem")


@strawberry.type
class FinalizeSessionMutation:
    @strawberry.mutation(description="Summarise a session into one event (the same events give the same summary)")
    async def finalize_session(self, info: Info[Any, Any], session: str) -> RecordEventResult:
        ctx = context(info)
        try:
            result = await ctx.run(finalize_checked, ctx, session)
        except GraphmemError as exc:
            return RecordEventError(**problems_of(exc, ctx.principal))
        return success_of(result, ctx.memory.tz)
