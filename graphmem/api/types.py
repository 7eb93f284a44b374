"""The GraphQL object types: entities, states, events and their sources, built from the memory's models.

Nested fields that need more data (a state's subject entity, its evidence, an event's mentions) go through
the request's DataLoaders, and every list of events is cut down to what the caller may see.
"""

from __future__ import annotations

import base64
import datetime as dt
from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.errors import InvalidInput
from graphmem.ontology import (
    Entity,
    Event,
    EvidenceStance,
    Granularity,
    Source,
    State,
    StateStatus,
    Thread,
    TimePoint,
    Visibility,
)

if TYPE_CHECKING:
    from graphmem.api.context import Context
    from graphmem.api.opinions import OpinionNode

__all__ = [
    "EntityNode",
    "EventConnection",
    "EventNode",
    "EvidenceNode",
    "Neighbor",
    "PageInfo",
    "SourceNode",
    "StateNode",
    "ThreadNode",
    "TimeValue",
    "TimeWindow",
    "decode_cursor",
    "encode_cursor",
]


def _ctx(info: Info[Any, Any]) -> Context:
    return info.context  # type: ignore[no-any-return]


# the memory's own enums, exposed as they are (no mirror types to keep in step)
strawberry.enum(Granularity, description="How precisely a time is known")
strawberry.enum(StateStatus, description="Where a state stands")
strawberry.enum(EvidenceStance, name="Stance",
                description="Whether evidence supports or contradicts a state")


@strawberry.type(description="A time with its granularity: '2025-11' is the month, not its first instant")
class TimeValue:
    at: dt.datetime = strawberry.field(description="start of the period (UTC)")
    granularity: Granularity
    label: str = strawberry.field(description="the time written at its granularity: 2025, 2025-11, 2025-11-27")

    @classmethod
    def of(cls, point: TimePoint | None, tz: dt.tzinfo) -> TimeValue | None:
        if point is None:
            return None
        return cls(at=point.at, granularity=point.granularity, label=point.label(tz))


@strawberry.type(description="How the server read a time question: the period it asked about")
class TimeWindow:
    text: str = strawberry.field(description="the time as it was sent")
    start: dt.datetime
    end: dt.datetime = strawberry.field(description="exclusive end of the period")
    granularity: Granularity
    label: str


@strawberry.type(name="Source", description="Where an event came from")
class SourceNode:
    system: str
    ref: str | None
    thread_id: str | None
    session_id: str | None
    message_id: str | None
    run_id: str | None

    @classmethod
    def of(cls, s: Source) -> SourceNode:
        return cls(system=s.system, ref=s.ref, thread_id=s.thread_id, session_id=s.session_id,
                   message_id=s.message_id, run_id=s.run_id)


@strawberry.type(name="Event", description="Something observed or said, as memory holds it")
class EventNode:
    id: strawberry.ID
    content: str
    occurred_at: TimeValue
    occurred_end: TimeValue | None
    recorded_at: dt.datetime
    kind: str
    scope: str
    agent_id: str
    thread: str | None
    tags: list[str]
    privacy: list[str]
    private: bool
    confidence: float
    dedupe_key: str | None
    redactions: list[str]
    source: SourceNode
    superseded: strawberry.Private[str | None]
    include_private: strawberry.Private[bool]

    @classmethod
    def of(cls, e: Event, tz: dt.tzinfo, include_private: bool) -> EventNode:
        """The node of ``e``, read with or without private items (an id it points at is shown only when the
        event with that id would be)."""
        occurred = TimeValue.of(e.occurred_at, tz)
        assert occurred is not None
        return cls(
            id=strawberry.ID(e.id), content=e.content, occurred_at=occurred,
            occurred_end=TimeValue.of(e.occurred_end, tz), recorded_at=e.recorded_at, kind=e.kind, scope=e.scope,
            agent_id=e.agent_id, thread=e.thread, tags=list(e.tags), privacy=list(e.privacy),
            private=e.visibility is Visibility.PRIVATE, confidence=e.confidence, dedupe_key=e.dedupe_key,
            redactions=list(e.redactions), source=SourceNode.of(e.source), superseded=e.supersedes,
            include_private=include_private,
        )

    @strawberry.field(description="The event this one replaces, when the caller may see it")
    async def supersedes(self, info: Info[Any, Any]) -> strawberry.ID | None:
        if self.superseded is None:
            return None
        shown = await _ctx(info).shown_events([self.superseded], self.include_private)
        return strawberry.ID(self.superseded) if shown else None

    @strawberry.field(description="Entities this event mentions")
    async def mentions(self, info: Info[Any, Any]) -> list[EntityNode]:
        ctx = _ctx(info)
        ids = await ctx.loaders.mentions.load(str(self.id))
        found = await ctx.loaders.entity.load_many(ids)
        return sorted((EntityNode.of(e) for e in found if e is not None), key=lambda n: n.name)


@strawberry.type(description="Where a page of events ends")
class PageInfo:
    end_cursor: str | None
    has_next_page: bool


@strawberry.type(description="A page of events, newest first; pass pageInfo.endCursor as `after` for the next")
class EventConnection:
    nodes: list[EventNode]
    page_info: PageInfo


def encode_cursor(e: Event) -> str:
    raw = f"{e.occurred_at.at.isoformat()}|{e.recorded_at.isoformat()}|{e.id}"
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[dt.datetime, dt.datetime, str] | None:
    if cursor is None:
        return None
    try:
        occurred, recorded, event_id = base64.urlsafe_b64decode(cursor.encode()).decode().split("|", 2)
        return dt.datetime.fromisoformat(occurred), dt.datetime.fromisoformat(recorded), event_id
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("after is not a cursor this server gave out; pass pageInfo.endCursor of the "
                           "previous page", field="after") from None


def _said(payload: dict[str, Any], key: str) -> str | None:
    """A word a state's payload keeps (a plan may put anything there: only text is a word)."""
    value = payload.get(key)
    return value if isinstance(value, str) else None


@strawberry.type(name="Evidence", description="An event that supports or contradicts a state")
class EvidenceNode:
    stance: EvidenceStance
    at: dt.datetime = strawberry.field(description="when memory linked the event to the state")
    event: EventNode


@strawberry.type(name="Revision", description="One change of a state, with its reason")
class RevisionNode:
    at: dt.datetime
    action: str
    reason: str
    valid_from: TimeValue | None
    valid_to: TimeValue | None
    status: StateStatus
    confidence: float
    evidence_ids: list[strawberry.ID] = strawberry.field(
        description="the events behind the change that the caller may see (as the state's evidence lists them)")


@strawberry.type(name="State", description="Something that holds over [validFrom, validTo)")
class StateNode:
    id: strawberry.ID
    kind: str
    predicate: str
    object: str
    text: str
    valid_from: TimeValue | None
    valid_to: TimeValue | None
    status: StateStatus
    confidence: float
    scope: str
    private: bool
    holder: str | None
    recorded_at: dt.datetime = strawberry.field(description="when memory came to hold this version")
    replaced_at: dt.datetime | None
    created_at: dt.datetime
    retracted_at: dt.datetime | None
    last_confirmed_at: dt.datetime | None
    throughout: bool | None = strawberry.field(description="for `during`: held over the whole period")
    title: str | None = strawberry.field(description=(
        "what the subject is to the object, in the words that said so: \"Peter's sister Anna\" (Anna "
        "family_of Peter): sister; \"my colleague Tom\": colleague"))
    object_title: str | None = strawberry.field(description=(
        "what the object is to the subject, in the words that said so: \"my dog Max\", \"adopted a pup named "
        "Ned\" (owns): dog, pup"))
    due: str | None = strawberry.field(description=(
        "a task's: when it is to be done by, at the granularity it was said (\"by Friday\": 2025-11-28)"))
    subject_id: strawberry.Private[str]
    object_id: strawberry.Private[str | None]
    include_private: strawberry.Private[bool]

    @classmethod
    def of(cls, s: State, tz: dt.tzinfo, include_private: bool) -> StateNode:
        return cls(
            id=strawberry.ID(s.id), kind=s.kind, predicate=s.predicate, object=s.object, text=s.text,
            valid_from=TimeValue.of(s.valid.start, tz), valid_to=TimeValue.of(s.valid.end, tz),
            status=s.status, confidence=s.confidence, scope=s.scope,
            private=s.visibility is Visibility.PRIVATE, holder=s.holder, recorded_at=s.recorded_at,
            replaced_at=s.replaced_at, created_at=s.created_at, retracted_at=s.retracted_at,
            last_confirmed_at=s.last_confirmed_at, throughout=s.throughout, title=_said(s.payload, "title"),
            object_title=_said(s.payload, "object_title"), due=_said(s.payload, "due"), subject_id=s.subject_id,
            object_id=s.object_id, include_private=include_private,
        )

    @strawberry.field(description="The entity the state is about")
    async def subject(self, info: Info[Any, Any]) -> EntityNode:
        entity = await _ctx(info).loaders.entity.load(self.subject_id)
        assert entity is not None
        return EntityNode.of(entity)

    @strawberry.field(description="The entity the state points at, when its object is an entity")
    async def object_entity(self, info: Info[Any, Any]) -> EntityNode | None:
        if self.object_id is None:
            return None
        entity = await _ctx(info).loaders.entity.load(self.object_id)
        return EntityNode.of(entity) if entity is not None else None

    @strawberry.field(description="Events that support or contradict the state, oldest first")
    async def evidence(self, info: Info[Any, Any]) -> list[EvidenceNode]:
        ctx = _ctx(info)
        links = await ctx.loaders.evidence.load(str(self.id))
        events = await ctx.loaders.event.load_many([event_id for event_id, _, _ in links])
        tz = ctx.memory.tz
        return [
            EvidenceNode(stance=stance, at=at, event=EventNode.of(event, tz, self.include_private))
            for (_, stance, at), event in zip(links, events, strict=True)
            if event is not None and ctx.principal.may_see(event, self.include_private)
        ]

    @strawberry.field(description="Every change of the state, oldest first")
    async def revisions(self, info: Info[Any, Any]) -> list[RevisionNode]:
        ctx = _ctx(info)
        found = await ctx.run(ctx.memory.store.revisions, str(self.id))
        shown = await ctx.shown_events((i for r in found for i in r.evidence_ids), self.include_private)
        tz = ctx.memory.tz
        return [
            RevisionNode(at=r.at, action=r.action.value, reason=r.reason, valid_from=TimeValue.of(r.valid.start, tz),
                         valid_to=TimeValue.of(r.valid.end, tz), status=r.status, confidence=r.confidence,
                         evidence_ids=[strawberry.ID(i) for i in r.evidence_ids if i in shown])
            for r in found
        ]


@strawberry.type(name="Thread", description="A conversation, session or topic that events belong to")
class ThreadNode:
    key: str
    title: str | None
    created_at: dt.datetime

    @classmethod
    def of(cls, t: Thread) -> ThreadNode:
        return cls(key=t.key, title=t.title, created_at=t.created_at)

    @strawberry.field(description="Events of the thread, oldest first")
    async def events(self, info: Info[Any, Any], first: int = 50, after: str | None = None,
                     include_private: bool = False) -> EventConnection:
        from graphmem.api.reads import event_page

        return await event_page(_ctx(info), first=first, after=after, include_private=include_private,
                                thread=self.key, ascending=True)


@strawberry.type(description="An entity reached from another through states")
class Neighbor:
    entity: EntityNode
    via: StateNode = strawberry.field(description="the state that links them")
    direction: str = strawberry.field(description="out: the state is the source's; in: it points at the source")
    distance: int


@strawberry.type(name="Entity", description="A person, org, place, project, tool or concept")
class EntityNode:
    id: strawberry.ID
    name: str
    type: str
    aliases: list[str]
    created_at: dt.datetime
    as_of: strawberry.Private[str | None] = None
    known_at: strawberry.Private[str | None] = None
    relative_to: strawberry.Private[str | None] = None

    @classmethod
    def of(cls, e: Entity, *, as_of: str | None = None, known_at: str | None = None,
           relative_to: str | None = None) -> EntityNode:
        return cls(id=strawberry.ID(e.id), name=e.name, type=e.type, aliases=list(e.aliases),
                   created_at=e.created_at, as_of=as_of, known_at=known_at, relative_to=relative_to)

    @strawberry.field(description="States of the entity as of a time (now by default), or during a period")
    async def states(
        self,
        info: Info[Any, Any],
        as_of: str | None = None,
        during: str | None = None,
        known_at: str | None = None,
        relative_to: str | None = None,
        predicate: str | None = None,
        status: StateStatus | None = None,
        include_private: bool = False,
    ) -> list[StateNode]:
        from graphmem.api.reads import time_states

        if as_of is None and during is None:
            as_of = self.as_of  # the entity's own asOf is the default question
        answer = await time_states(
            _ctx(info), at=as_of, during=during, known_at=known_at or self.known_at,
            relative_to=relative_to or self.relative_to, entity=str(self.id), predicate=predicate,
            include_private=include_private,
        )
        return [s for s in answer.states if status is None or s.status == status]

    @strawberry.field(description="Every state of the entity over time, ordered by predicate and start")
    async def timeline(self, info: Info[Any, Any], predicate: str | None = None, include_retracted: bool = False,
                       include_private: bool = False) -> list[StateNode]:
        from graphmem.api.reads import timeline_states

        return await timeline_states(_ctx(info), str(self.id), predicate, include_retracted, include_private)

    @strawberry.field(description="Events that mention the entity, newest first")
    async def events(self, info: Info[Any, Any], since: str | None = None, until: str | None = None,
                     first: int = 20, after: str | None = None, include_private: bool = False) -> EventConnection:
        from graphmem.api.reads import event_page

        return await event_page(_ctx(info), first=first, after=after, include_private=include_private,
                                entity=str(self.id), since=since, until=until)

    @strawberry.field(description="Opinions about the entity, most confident first")
    async def opinions(self, info: Info[Any, Any], min_confidence: float = 0.0, as_of: str | None = None,
                       include_private: bool = False, first: int = 20,
                       ) -> list[Annotated[OpinionNode, strawberry.lazy("graphmem.api.opinions")]]:
        from graphmem.api.opinions import OpinionNode, opinions_for

        ctx = _ctx(info)
        found = await ctx.run(opinions_for, ctx, include_private, first, about=str(self.id),
                              min_confidence=min_confidence, as_of=as_of or self.as_of, known_at=self.known_at)
        return [OpinionNode.of(o, ctx.memory.tz, include_private) for o in found]

    @strawberry.field(description="The entity's Markdown page: current states since when, timeline, related "
                                  "states, opinions with evidence, recent events with sources")
    async def page(self, info: Info[Any, Any], include_private: bool = False) -> str:
        from graphmem.api.packs import readable_scopes

        ctx = _ctx(info)
        scopes = readable_scopes(ctx, include_private)
        return await ctx.run(ctx.memory.entity_page, str(self.id), include_private=include_private, scopes=scopes)

    @strawberry.field(description="Entities linked to this one by states that hold at a time (now by default)")
    async def neighbors(self, info: Info[Any, Any], depth: int = 1, as_of: str | None = None,
                        include_private: bool = False) -> list[Neighbor]:
        from graphmem.api.reads import neighbors

        return await neighbors(_ctx(info), str(self.id), depth, as_of or self.as_of, include_private)
