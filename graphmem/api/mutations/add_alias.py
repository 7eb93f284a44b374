"""``addAlias``: another name for an entity ("@peter" = "Peter"). Entities are shared, so this needs global."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.mutations._common import UserError, context, problems_of
from graphmem.api.reads import seen_entity
from graphmem.api.types import EntityNode
from graphmem.errors import GraphmemError
from graphmem.ontology import Entity

__all__ = ["AddAliasMutation"]


@strawberry.input(description="An entity and its new name")
class AddAliasInput:
    entity: str = strawberry.field(description="name, alias or id of the entity")
    alias: str


@strawberry.type(description="The entity with its aliases")
class AddAliasSuccess:
    entity: EntityNode


@strawberry.type
class AddAliasError(UserError):
    pass


AddAliasResult = Annotated[AddAliasSuccess | AddAliasError, strawberry.union("AddAliasResult")]


@strawberry.type
class AddAliasMutation:
    @strawberry.mutation(description="Give an entity another name")
    async def add_alias(self, info: Info[Any, Any], input: AddAliasInput) -> AddAliasResult:
        ctx = context(info)

        def write() -> Entity:
            ctx.principal.check_write("global", "input.entity")
            seen_entity(ctx, input.entity, "entity")  # (one it cannot see does not exist for it)
            return ctx.memory.add_alias(input.entity, input.alias)

        try:
            return AddAliasSuccess(entity=EntityNode.of(await ctx.run(write)))
        except GraphmemError as exc:
            return AddAliasError(**problems_of(exc, ctx.principal))
