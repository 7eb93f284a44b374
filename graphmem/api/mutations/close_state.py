"""``closeState``: end a state at a time ("left Acme in March"); its history stays."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.mutations.assert_state import StateSuccess
from graphmem.api.context import Context
from graphmem.errors import GraphmemError, NotFound
from graphmem.ontology import State

__all__ = ["CloseStateMutation", "writable_state"]


@strawberry.input(description="Which state ends, when, and why")
class CloseStateInput:
    id: strawberry.ID
    at: str = strawberry.field(description="when it stopped holding (valid_to)")
    reason: str = "closed"
    evidence: list[strawberry.ID] = strawberry.field(default_factory=list)


@strawberry.type
class CloseStateError(UserError):
    pass


CloseStateResult = Annotated[StateSuccess | CloseStateError, strawberry.union("CloseStateResult")]


def writable_state(ctx: Context, state_id: str) -> State:
    """The state, if the caller may change it (a state it cannot read is reported as missing)."""
    state = ctx.memory.state(state_id)
    principal = ctx.principal
    if not principal.may_see(state, True):
        raise NotFound("state", state_id, field="input.id")
    principal.check_write(state.scope, "input.id")
    return state


@strawberry.type
class CloseStateMutation:
    @strawberry.mutation(description="End a state at a time")
    async def close_state(self, info: Info[Any, Any], input: CloseStateInput) -> CloseStateResult:
        ctx = context(info)
        evidence = [str(e) for e in input.evidence]

        def write() -> State:
            writable_state(ctx, str(input.id))
            check_evidence(ctx, evidence, "input.evidence")
            return ctx.memory.close_state(str(input.id), valid_to=input.at, reason=input.reason, evidence=evidence)

        try:
            return StateSuccess.of(await ctx.run(write), ctx.memory.tz)
        except GraphmemError as exc:
            return CloseStateError(**problems_of(exc, ctx.principal))
