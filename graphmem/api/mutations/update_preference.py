"""``updatePreference``: propose, confirm or revoke a like or dislike; confirming revokes the opposite."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, check_evidence, context, problems_of
from graphmem.api.opinions import PreferenceNode
from graphmem.errors import GraphmemError
from graphmem.ontology import State

__all__ = ["UpdatePreferenceMutation"]


@strawberry.input(description="One preference update")
class UpdatePreferenceInput:
    op: str = strawberry.field(description="upsert_candidate, confirm (explicit statements only) or revoke")
    subject: str = strawberry.field(description="what is liked or disliked")
    polarity: str = strawberry.field(description="like or dislike")
    domain: str = "other"
    holder: str = "user"
    evidence: list[strawberry.ID] = strawberry.field(default_factory=list)
    reason: str | None = None
    note: str | None = None
    confidence: float = 1.0


@strawberry.type(description="The preference the update left")
class PreferenceSuccess:
    preference: PreferenceNode


@strawberry.type
class UpdatePreferenceError(UserError):
    pass


UpdatePreferenceResult = Annotated[PreferenceSuccess | UpdatePreferenceError,
                                   strawberry.union("UpdatePreferenceResult")]


@strawberry.type
class UpdatePreferenceMutation:
    @strawberry.mutation(description="Propose, confirm or revoke a preference")
    async def update_preference(self, info: Info[Any, Any], input: UpdatePreferenceInput) -> UpdatePreferenceResult:
        ctx = context(info)
        evidence = [str(e) for e in input.evidence]

        def write() -> State:
            ctx.principal.check_write("global", "input.holder")
            check_evidence(ctx, evidence, "input.evidence")
            return ctx.memory.update_preference(
                input.op, input.subject, polarity=input.polarity, domain=input.domain, holder=input.holder,
                evidence=evidence, reason=input.reason, note=input.note, confidence=input.confidence,
            )

        try:
            return PreferenceSuccess(preference=PreferenceNode.of(await ctx.run(write), ctx.memory.tz, True))
        except GraphmemError as exc:
            return UpdatePreferenceError(**problems_of(exc, ctx.principal))
