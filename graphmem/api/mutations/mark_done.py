"""``markDone``: a task is done ("called the dentist on Monday"); it stays, marked done, with its history."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.mutations.assert_state import StateSuccess
from graphmem.api.mutations.close_state import writable_state
from graphmem.errors import GraphmemError
from graphmem.ontology import State

__all__ = ["MarkDoneMutation"]


@strawberry.input(description="Which task is done, when, and why")
class MarkDoneInput:
    id: strawberry.ID
    at: str | None = strawberry.field(default=None, description="when it was done (valid_to); now if left out")
    reason: str = "done"
    evidence: list[strawberry.ID] = strawberry.field(default_factory=list)


@strawberry.type
class MarkDoneError(UserError):
    pass


MarkDoneResult = Annotated[StateSuccess | MarkDoneError, strawberry.union("MarkDoneResult")]


@strawberry.type
class MarkDoneMutation:
    @strawberry.mutation(description="Mark a task done (a state of another kind is refused: close it)")
    async def mark_done(self, info: Info[Any, Any], input: MarkDoneInput) -> MarkDoneResult:
        ctx = context(info)
        evidence = [str(e) for e in input.evidence]

        def write() -> State:
            writable_state(ctx, str(input.id))
            check_evidence(ctx, evidence, "input.evidence")
            return ctx.memory.mark_done(str(input.id), at=input.at, reason=input.reason, evidence=evidence)

        try:
            return StateSuccess.of(await ctx.run(write), ctx.memory.tz)
        except GraphmemError as exc:
            exc.field = _INPUT_FIELDS.get(exc.field or "", exc.field)  # (the memory's names for them)
            return MarkDoneError(**problems_of(exc, ctx.principal))


_INPUT_FIELDS = {"state_id": "input.id", "at": "input.at"}
