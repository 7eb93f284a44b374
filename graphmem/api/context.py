"""What every resolver of one request sees: the memory, the caller, and that request's DataLoaders.

Memory calls block (the embedded database runs in the calling thread), so resolvers hand them to a bounded
thread pool with :meth:`Context.run`; the event loop stays free for other requests. Writes are serialised
inside :class:`~graphmem.Memory` (concurrent ``record`` calls share one commit); reads run in parallel.

DataLoaders are created per request: values are cached only for that request, and every nested field that
needs entities, evidence or mentions asks a loader, so a page of 50 states costs a fixed number of store
calls whatever its size.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from strawberry.dataloader import DataLoader

from graphmem.api.access import Principal
from graphmem.errors import NotFound
from graphmem.memory import Memory
from graphmem.ontology import Entity, Event, EvidenceStance
from graphmem.store import StateQuery

__all__ = ["Context", "Loaders"]

T = TypeVar("T")


@dataclass
class Loaders:
    """Batch loaders for one request. Each batch is one store call, run off the event loop."""

    entity: DataLoader[str, Entity | None]
    event: DataLoader[str, Event | None]
    evidence: DataLoader[str, list[tuple[str, EvidenceStance, dt.datetime]]]  # state id -> (event id, ...)
    mentions: DataLoader[str, list[str]]  # event id -> entity ids

    @classmethod
    def create(cls, memory: Memory, run: Callable[..., Any]) -> Loaders:
        store = memory.store

        async def entities(ids: list[str]) -> list[Entity | None]:
            found = {e.id: e for e in await run(store.entities, ids)}
            return [found.get(i) for i in ids]

        async def events(ids: list[str]) -> list[Event | None]:
            found = {e.id: e for e in await run(store.events, ids)}
            return [found.get(i) for i in ids]

        async def evidence(ids: list[str]) -> list[list[tuple[str, EvidenceStance, dt.datetime]]]:
            found = await run(store.evidence_links, ids)
            return [found.get(i, []) for i in ids]

        async def mentions(ids: list[str]) -> list[list[str]]:
            found = await run(store.mentions, ids)
            return [found.get(i, []) for i in ids]

        return cls(entity=DataLoader(entities), event=DataLoader(events), evidence=DataLoader(evidence),
                   mentions=DataLoader(mentions))


@dataclass
class Context:
    """Per-request context: ``info.context`` in every resolver."""

    memory: Memory
    principal: Principal
    executor: Executor | None = None
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        self.loaders = Loaders.create(self.memory, self.run)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Call a blocking memory function in the worker pool."""
        loop = asyncio.get_running_loop()
        call = functools.partial(self._seen_names, fn, *args, **kwargs)
        return await loop.run_in_executor(self.executor, call)

    def _seen_names(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)``; an unknown entity name's error it raises suggests only names of entities
        the caller can see something about (:meth:`reaches`)."""
        try:
            return fn(*args, **kwargs)
        except NotFound as exc:
            if exc.what != "entity" or exc.checked or not exc.suggestions or self.principal.is_local:
                raise
            raise self.memory.unknown_entity(exc.key, exc.field or "entity", self.reaches) from None

    def reaches(self, entity_id: str) -> bool:
        """Whether the caller can see at least one state or event about the entity (else it does not exist for
        the caller)."""
        store = self.memory.store
        for p in self.principal.passes(True):
            for query in (StateQuery(subject_id=entity_id, scopes=p.scopes, include_private=p.include_private,
                                     limit=1),
                          StateQuery(object_id=entity_id, scopes=p.scopes, include_private=p.include_private,
                                     limit=1)):
                if store.states(query):
                    return True
            if self.memory.events(entity=entity_id, scopes=p.scopes, include_private=p.include_private,
                                  limit=1):
                return True
        return False

    def visible(self, events: Sequence[Event], include_private: bool) -> list[Event]:
        return [e for e in events if self.principal.may_see(e, include_private)]

    def seen(self, ids: Iterable[str], include_private: bool) -> dict[str, Event]:
        """The events ``ids`` names that the caller may see, by id, in one read (the blocking form of
        :meth:`shown_events`, for code running in the worker pool)."""
        wanted = list(dict.fromkeys(ids))
        return {e.id: e for e in self.visible(self.memory.store.events(wanted), include_private)} if wanted else {}

    async def shown_events(self, ids: Iterable[str], include_private: bool) -> set[str]:
        """Which of the events ``ids`` the caller may see: an id another item cites (a revision's evidence, an
        opinion's step) is shown only then, as the event itself would be."""
        wanted = list(dict.fromkeys(ids))
        found = await self.loaders.event.load_many(wanted) if wanted else []
        return {e.id for e in found if e is not None and self.principal.may_see(e, include_private)}
