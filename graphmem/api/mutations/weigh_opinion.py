"""``holdOpinion`` and ``weighOpinion``: form a belief, then move its confidence with evidence."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.opinions import OpinionNode
from graphmem.errors import GraphmemError, NotFound
from graphmem.query import Opinion

__all__ = ["OpinionMutations"]


@strawberry.input(description="An opinion to form (stating one already held weighs its evidence instead)")
class HoldOpinionInput:
    statement: str
    holder: str = "self"
    about: list[str] = strawberry.field(default_factory=list, description="entity names; read from the "
                                                                          "statement when empty")
    confidence: float | None = strawberry.field(default=None, description="the ontology's initial when left out")
    evidence: list[strawberry.ID] = strawberry.field(default_factory=list)
    valid_from: str | None = None
    scope: str = "global"
    private: bool = False
    reason: str = "formed"


@strawberry.input(description="One event weighed for or against an opinion")
class WeighOpinionInput:
    opinion_id: strawberry.ID
    event_id: strawberry.ID
    stance: str = strawberry.field(default="supports", description="supports or contradicts")
    strong: bool = strawberry.field(default=False, description="strong evidence counts for more (see the rule)")
    reason: str | None = None


@strawberry.type(description="The opinion as memory now holds it")
class OpinionSuccess:
    opinion: OpinionNode


@strawberry.type
class OpinionError(UserError):
    pass


OpinionResult = Annotated[OpinionSuccess | OpinionError, strawberry.union("OpinionResult")]


@strawberry.type
class OpinionMutations:
    @strawberry.mutation(description="Form an opinion about entities, with a confidence")
    async def hold_opinion(self, info: Info[Any, Any], input: HoldOpinionInput) -> OpinionResult:
        ctx = context(info)
        evidence = [str(e) for e in input.evidence]

        def write() -> Opinion:
            ctx.principal.check_write(input.scope, "input.scope", private=input.private)
            check_evidence(ctx, evidence, "input.evidence")
            return ctx.memory.hold_opinion(
                input.statement, holder=input.holder, about=input.about, confidence=input.confidence,
                evidence=evidence, valid_from=input.valid_from, scope=input.scope, private=input.private,
                reason=input.reason,
            )

        try:
            return OpinionSuccess(opinion=OpinionNode.of(await ctx.run(write), ctx.memory.tz, True))
        except GraphmemError as exc:
            return OpinionError(**problems_of(exc, ctx.principal))

    @strawberry.mutation(description="Weigh one event for or against an opinion; its confidence moves a step")
    async def weigh_opinion(self, info: Info[Any, Any], input: WeighOpinionInput) -> OpinionResult:
        ctx = context(info)

        def write() -> Opinion:
            opinion = ctx.memory.opinion(str(input.opinion_id))
            if not ctx.principal.may_see(opinion.state, True):
                raise NotFound("opinion", str(input.opinion_id), field="input.opinionId")
            ctx.principal.check_write(opinion.state.scope, "input.opinionId")
            check_evidence(ctx, [str(input.event_id)], "input.eventId")
            ctx.memory.weigh_opinion(str(input.opinion_id), str(input.event_id), stance=input.stance,
                                     strong=input.strong, reason=input.reason)
            return ctx.memory.opinion(str(input.opinion_id))

        try:
            return OpinionSuccess(opinion=OpinionNode.of(await ctx.run(write), ctx.memory.tz, True))
        except GraphmemError as exc:
            return OpinionError(**problems_of(exc, ctx.principal))
