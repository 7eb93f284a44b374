"""``assertState``: something holds from validFrom; a single-valued predicate's previous value is closed."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.types import StateNode
from graphmem.errors import GraphmemError
from graphmem.ontology import State

__all__ = ["AssertStateMutation", "StateSuccess"]


@strawberry.input(description="A state to assert: subject predicate object, valid from a time")
class AssertStateInput:
    subject: str
    predicate: str
    object: str
    valid_from: str | None = strawberry.field(default=None, description="open (since ever) when left out")
    valid_to: str | None = None
    evidence: list[strawberry.ID] = strawberry.field(default_factory=list, description="supporting event ids")
    confidence: float = 1.0
    text: str | None = None
    scope: str = "global"
    private: bool = False
    holder: str | None = None
    subject_type: str | None = None
    object_type: str | None = None
    witnessed: bool = strawberry.field(default=False, description=(
        "validFrom to validTo is a period it was seen to hold in ('worked at Acme in 2019'), not all its "
        "time: what holds then with its value is confirmed, not ended"))


@strawberry.type(description="The state as memory now holds it")
class StateSuccess:
    state: StateNode

    @classmethod
    def of(cls, state: State, tz: Any) -> StateSuccess:
        return cls(state=StateNode.of(state, tz, include_private=True))


@strawberry.type
class AssertStateError(UserError):
    pass


AssertStateResult = Annotated[StateSuccess | AssertStateError, strawberry.union("AssertStateResult")]


@strawberry.type
class AssertStateMutation:
    @strawberry.mutation(description="Assert a state with its evidence")
    async def assert_state(self, info: Info[Any, Any], input: AssertStateInput) -> AssertStateResult:
        ctx = context(info)
        evidence = [str(e) for e in input.evidence]

        def write() -> State:
            ctx.principal.check_write(input.scope, "input.scope", private=input.private)
            check_evidence(ctx, evidence, "input.evidence")
            return ctx.memory.assert_state(
                input.subject, input.predicate, input.object, valid_from=input.valid_from,
                valid_to=input.valid_to, evidence=evidence, confidence=input.confidence, text=input.text,
                scope=input.scope, private=input.private, holder=input.holder, subject_type=input.subject_type,
                object_type=input.object_type, witnessed=input.witnessed,
            )

        try:
            return StateSuccess.of(await ctx.run(write), ctx.memory.tz)
        except GraphmemError as exc:
            return AssertStateError(**problems_of(exc, ctx.principal))
