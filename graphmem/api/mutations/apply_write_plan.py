"""``applyWritePlan``: an agent's structured updates for one recorded event, validated whole, applied at once.

The plan is the JSON object agents already produce (``event_annotations``, ``state_updates``,
``preference_updates``, ``event_affect``, ``context_updates``); a plan with any problem is rejected with
every problem named (``state_updates.1.valid_from_ts``) and nothing of it is written.
"""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.opinions import PreferenceNode
from graphmem.api.types import StateNode
from graphmem.errors import GraphmemError, InvalidInput, NotFound
from graphmem.memory import PlanResult

__all__ = ["ApplyWritePlanMutation"]


@strawberry.input(description="A write plan and the event it is for")
class ApplyWritePlanInput:
    event_id: strawberry.ID
    plan: JSON = strawberry.field(description="the plan object: event_annotations, state_updates, ...")


@strawberry.type(description="What the plan changed")
class ApplyWritePlanSuccess:
    event_id: strawberry.ID
    states: list[StateNode] = strawberry.field(description="the state each state update ended on, in order")
    preferences: list[PreferenceNode]
    threads: list[str]
    links: int


@strawberry.type
class ApplyWritePlanError(UserError):
    pass


ApplyWritePlanResult = Annotated[ApplyWritePlanSuccess | ApplyWritePlanError,
                                 strawberry.union("ApplyWritePlanResult")]


@strawberry.type
class ApplyWritePlanMutation:
    @strawberry.mutation(description="Apply a write plan to a recorded event, all or nothing")
    async def apply_write_plan(self, info: Info[Any, Any], input: ApplyWritePlanInput) -> ApplyWritePlanResult:
        ctx = context(info)
        event_id = str(input.event_id)

        def write() -> PlanResult:
            if not isinstance(input.plan, dict):
                raise InvalidInput("plan must be a JSON object", field="input.plan")
            found = ctx.memory.get([event_id])
            if not found or not ctx.principal.may_see(found[0], True):
                raise NotFound("event", event_id, field="input.eventId", hint="record the event first")
            ctx.principal.check_write(found[0].scope, "input.eventId")
            cited = [str(e) for key in ("state_updates", "preference_updates") for u in input.plan.get(key) or ()
                     if isinstance(u, dict) for e in u.get("evidence_event_ids") or () if isinstance(e, str | int)]
            check_evidence(ctx, cited, "input.plan")
            return ctx.memory.apply_write_plan(event_id, input.plan, may_see=ctx.principal.linkable())

        try:
            result = await ctx.run(write)
        except GraphmemError as exc:
            return ApplyWritePlanError(**problems_of(exc, ctx.principal))
        tz = ctx.memory.tz
        return ApplyWritePlanSuccess(
            event_id=strawberry.ID(result.event_id), states=[StateNode.of(s, tz, True) for s in result.states],
            preferences=[PreferenceNode.of(s, tz, True) for s in result.preferences], threads=result.threads,
            links=len(result.links),
        )
