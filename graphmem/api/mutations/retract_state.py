"""``retractState``: memory stops believing a state from now on; what it had closed reopens."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.mutations.assert_state import StateSuccess
from graphmem.api.mutations.close_state import writable_state
from graphmem.errors import GraphmemError
from graphmem.ontology import State

__all__ = ["RetractStateMutation"]


@strawberry.input(description="Which state was wrong, and why")
class RetractStateInput:
    id: strawberry.ID
    reason: str
    evidence: list[strawberry.ID] = strawberry.field(default_factory=list)


@strawberry.type
class RetractStateError(UserError):
    pass


RetractStateResult = Annotated[StateSuccess | RetractStateError, strawberry.union("RetractStateResult")]


@strawberry.type
class RetractStateMutation:
    @strawberry.mutation(description="Withdraw a state that was wrong")
    async def retract_state(self, info: Info[Any, Any], input: RetractStateInput) -> RetractStateResult:
        ctx = context(info)
        evidence = [str(e) for e in input.evidence]

        def write() -> State:
            writable_state(ctx, str(input.id))
            check_evidence(ctx, evidence, "input.evidence")
            return ctx.memory.retract_state(str(input.id), reason=input.reason, evidence=evidence)

        try:
            return StateSuccess.of(await ctx.run(write), ctx.memory.tz)
        except GraphmemError as exc:
            return RetractStateError(**problems_of(exc, ctx.principal))
