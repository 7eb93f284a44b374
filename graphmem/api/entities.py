"""Entity questions: ``entity(name|id, asOf, knownAt)`` with its states, timeline, events and neighbours."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.reads import entity_node
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
