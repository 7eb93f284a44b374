"""``mergeEntities``: two entities found to be one ("Pete" and "Peter Smith"). Entities are shared across
scopes, so this needs write access to global, like ``addAlias``."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, context, problems_of
from graphmem.api.reads import seen_entity
from graphmem.api.types import EntityNode
from graphmem.errors import GraphmemError
from graphmem.memory import MergeResult

__all__ = ["MergeEntitiesMutation"]


@strawberry.input(description="The entity to keep and the one that becomes part of it")
class MergeEntitiesInput:
    keep: str = strawberry.field(description="name, alias or id of the entity that stays")
    merge: str = strawberry.field(description="name, alias or id of the entity merged into it")
    reason: str = strawberry.field(default="the same entity", description="why the two are one; kept on "
                                                                          "every moved state's revision")


@strawberry.type(description="The kept entity, with what moved onto it")
class MergeEntitiesSuccess:
    entity: EntityNode
    merged_id: strawberry.ID = strawberry.field(description="the merged entity's id; it now resolves to entity")
    moved_states: list[strawberry.ID] = strawberry.field(description="states whose subject or object moved")
    bounded_states: list[strawberry.ID] = strawberry.field(
        description="states whose end changed where the two timelines met"
    )


@strawberry.type
class MergeEntitiesError(UserError):
    pass


MergeEntitiesResult = Annotated[MergeEntitiesSuccess | MergeEntitiesError, strawberry.union("MergeEntitiesResult")]


@strawberry.type
class MergeEntitiesMutation:
    @strawberry.mutation(description="Merge one entity into another: its states, mentions and names move")
    async def merge_entities(self, info: Info[Any, Any], input: MergeEntitiesInput) -> MergeEntitiesResult:
        ctx = context(info)

        def write() -> MergeResult:
            ctx.principal.check_write("global", "input.keep")
            seen_entity(ctx, input.keep, "keep")  # (one it cannot see does not exist for it)
            seen_entity(ctx, input.merge, "merge")
            result = ctx.memory.merge_entities(input.keep, input.merge, reason=input.reason)
            moved = set(result.moved_states) | set(result.bounded_states)
            shown = {s.id for s in ctx.memory.store.states_by_id(sorted(moved)) if ctx.principal.may_see(s, True)}
            return replace(result, moved_states=[i for i in result.moved_states if i in shown],
                           bounded_states=[i for i in result.bounded_states if i in shown])

        try:
            result = await ctx.run(write)
        except GraphmemError as exc:
            return MergeEntitiesError(**problems_of(exc, ctx.principal))
        return MergeEntitiesSuccess(
            entity=EntityNode.of(result.entity), merged_id=strawberry.ID(result.merged.id),
            moved_states=[strawberry.ID(i) for i in result.moved_states],
            bounded_states=[strawberry.ID(i) for i in result.bounded_states],
        )
