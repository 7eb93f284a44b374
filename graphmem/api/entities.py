"""Entity questions: ``entity(name|id, asOf, knownAt)`` with its states, timeline, events and neighbours;
``entitiesLike(name)``: which entities a name may mean."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.reads import entities_like, entity_node
from graphmem.api.types import EntityNode

__all__ = ["EntityQuery"]


@strawberry.type
class EntityQuery:
    @strawberry.field(description="An entity by name, alias or id; asOf/knownAt set the default for its states")
    async def entity(
        self,
        info: Info[Any, Any],
        name: str | None = None,
        id: strawberry.ID | None = None,
        as_of: str | None = None,
        known_at: str | None = None,
        relative_to: str | None = None,
    ) -> EntityNode:
        return await entity_node(info.context, name, str(id) if id is not None else None, as_of=as_of,
                                 known_at=known_at, relative_to=relative_to)

    @strawberry.field(description=(
        "The entity called `name` (by name or alias), then those whose names are like it, likest first: a "
        "typo (\"Marakesh\"), or a word that opens one of their names (\"Pete\", \"Smith\" of "
        "\"Peter Smith\"); only entities the caller can see something about"))
    async def entities_like(self, info: Info[Any, Any], name: str, first: int = 5) -> list[EntityNode]:
        return await entities_like(info.context, name, first)
