"""Reads shared by the query fields and nested fields: each is the caller's view of one memory call.

A caller's view may need more than one store read (private items of some scopes, not of others): each read
pass comes from :meth:`Principal.passes`, and their results are merged in the order memory gives them.
"""

from __future__ import annotations

import datetime as dt
import functools
import heapq
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from graphmem.api.access import ReadPass
from graphmem.api.context import Context
from graphmem.api.types import (
    EntityNode,
    EventConnection,
    EventNode,
    Neighbor,
    PageInfo,
    StateNode,
    TimeWindow,
    decode_cursor,
    encode_cursor,
)
from graphmem.errors import InvalidInput, NotFound
from graphmem.memory import MAX_PAGE
from graphmem.ontology import Event, State, TimePoint
from graphmem.query import TimeView
from graphmem.reasoning import in_timeline_order
from graphmem.temporal import period_end

__all__ = ["entities_like", "entity_node", "event_page", "events_around", "get_events", "neighbors",
           "seen_entity", "time_states", "timeline_states", "window_of"]

MAX_IDS = 200  # the most events one get() returns
SUGGESTED_MAX = 20  # the most entities entitiesLike lists
MAX_DEPTH = 3  # neighbours further than this are a different question (and an expensive one)


def window_of(ctx: Context, text: str, point: TimePoint, through: TimePoint | None = None) -> TimeWindow:
    """How a time question was read: the period it names (through ``through``: "2025-06/2025-08")."""
    tz = ctx.memory.tz
    label = point.label(tz) + (f"/{through.label(tz)}" if through is not None else "")
    return TimeWindow(text=text, start=point.at, end=period_end(through or point, tz),
                      granularity=point.granularity, label=label)


def _view(ctx: Context, at: TimePoint | None, during: TimePoint | None, known: dt.datetime | None,
          through: TimePoint | None = None) -> TimeView:
    view = ctx.memory.view()
    if known is not None:
        view = view.known_at(known)
    if during is not None:
        return view.during(during, through)
    return view.as_of(at) if at is not None else view


def _each_pass(ctx: Context, include_private: bool, read: Callable[[ReadPass], list[Any]]) -> list[list[Any]]:
    return [read(p) for p in ctx.principal.passes(include_private)]


class TimeRead(NamedTuple):
    """A time question as read (its point or period, through its last one for a span of several, its
    transaction time) and the states that answer it."""

    point: TimePoint | None
    known: dt.datetime | None
    states: list[StateNode]
    through: TimePoint | None = None


async def time_states(
    ctx: Context,
    *,
    at: str | None,
    during: str | None,
    known_at: str | None,
    relative_to: str | None,
    entity: str | None,
    predicate: str | None,
    include_private: bool,
    fields: tuple[str, str] = ("asOf", "during"),  # the names ``at`` and ``during`` have in the caller's input
) -> TimeRead:
    """States as of ``at`` (now when neither is given) or during ``during``, as the caller may see them."""
    if at is not None and during is not None:
        raise InvalidInput("give asOf or during, not both", field="during")

    def read() -> tuple[TimePoint | None, TimePoint | None, dt.datetime | None, list[State]]:
        memory = ctx.memory
        # (asOf a season: by its end; during one: its first month through its last)
        at_point = None if at is None else memory.read_time(at, fields[0], relative_to=relative_to,
                                                           edge="end")
        period, through = (None, None) if during is None else \
            memory.read_period(during, fields[1], relative_to=relative_to)
        known = memory.known_at(known_at).known if known_at is not None else None
        if predicate is not None:
            memory.ontology.predicate(predicate)
        view = _view(ctx, at_point, period, known, through)
        found = _each_pass(ctx, include_private, lambda p: view.states(
            subject=entity, predicate=predicate, include_private=p.include_private, scopes=p.scopes, evidence=False))
        return at_point or period, through, known, _merged(
            found, key=lambda s: (s.subject, s.predicate, _start(s), s.id))

    point, through, known, states = await ctx.run(read)
    return TimeRead(point, known, [StateNode.of(s, ctx.memory.tz, include_private) for s in states], through)


async def timeline_states(ctx: Context, entity_id: str, predicate: str | None, include_retracted: bool,
                          include_private: bool) -> list[StateNode]:
    def read() -> list[State]:
        found = _each_pass(ctx, include_private, lambda p: ctx.memory.timeline(
            entity_id, predicate, include_retracted=include_retracted, include_private=p.include_private,
            scopes=p.scopes, evidence=False))
        return in_timeline_order(s for states in found for s in states)  # (a pass's scopes are its own)

    return [StateNode.of(s, ctx.memory.tz, include_private) for s in await ctx.run(read)]


async def event_page(
    ctx: Context,
    *,
    first: int,
    after: str | None,
    include_private: bool,
    entity: str | None = None,
    thread: str | None = None,
    since: str | None = None,
    until: str | None = None,
    kinds: Sequence[str] | None = None,
    ascending: bool = False,
) -> EventConnection:
    """One page of events the caller may see; one extra event is read to know whether more follow."""
    if not 1 <= first <= MAX_PAGE:
        raise InvalidInput(f"first must be between 1 and {MAX_PAGE}", field="first")
    cursor = decode_cursor(after)

    def read() -> list[Event]:
        found = _each_pass(ctx, include_private, lambda p: ctx.memory.events(
            entity=entity, thread=thread, since=since, until=until, kinds=kinds, scopes=p.scopes,
            include_private=p.include_private, limit=first + 1, after=cursor, ascending=ascending))
        return _merged(found, key=_event_order, reverse=not ascending)

    events = await ctx.run(read)
    page = events[:first]
    return EventConnection(
        nodes=[EventNode.of(e, ctx.memory.tz, include_private) for e in page],
        page_info=PageInfo(end_cursor=encode_cursor(page[-1]) if page else None, has_next_page=len(events) > first),
    )


def get_events(ctx: Context, ids: Sequence[str], include_private: bool) -> list[Event]:
    """Events by id in the order asked, leaving out those the caller cannot see."""
    if len(ids) > MAX_IDS:
        raise InvalidInput(f"ask for at most {MAX_IDS} ids at once", field="ids")
    return ctx.visible(ctx.memory.get(list(ids)), include_private)


def events_around(ctx: Context, event_id: str, before: int, after: int, include_private: bool) -> list[Event]:
    """The events the caller may see just before and after one it may see, oldest first."""
    if not get_events(ctx, [event_id], include_private):
        raise NotFound("event", event_id, field="id")
    found: dict[str, Event] = {}
    for p in ctx.principal.passes(include_private):
        for e in ctx.memory.events_around(event_id, before=before, after=after, scopes=p.scopes,
                                          include_private=p.include_private):
            found[e.id] = e
    ordered = ctx.visible(sorted(found.values(), key=_event_order), include_private)
    index = next(i for i, e in enumerate(ordered) if e.id == event_id)
    return ordered[max(0, index - before): index + after + 1]


async def entity_node(ctx: Context, name: str | None, entity_id: str | None, **defaults: str | None) -> EntityNode:
    """The entity called ``name`` (or with ``id``), if the caller can see anything about it."""
    if (name is None) == (entity_id is None):
        raise InvalidInput("give exactly one of name and id", field="name")
    key = name if name is not None else entity_id
    assert key is not None

    def read() -> EntityNode:
        resolved = seen_entity(ctx, key, "name" if name is not None else "id")
        return EntityNode.of(ctx.memory.store.entities([resolved])[0], **defaults)

    return await ctx.run(read)


async def entities_like(ctx: Context, name: str, first: int) -> list[EntityNode]:
    """The entity called ``name`` if there is one, then the entities whose names are like it (a typo, or a
    word that opens one of their names), likest first: those the caller can see something about."""
    if not 1 <= first <= SUGGESTED_MAX:
        raise InvalidInput(f"first must be between 1 and {SUGGESTED_MAX}", field="first")
    if not name.strip():
        raise InvalidInput("name is empty; give a name or the start of one", field="name")

    def read() -> list[EntityNode]:
        visible = None if ctx.principal.is_local else ctx.reaches
        try:
            exact = [ctx.memory.resolve_entity(name, "name")]
        except NotFound:
            exact = []
        found = [e for e in ctx.memory.store.entities(exact) if visible is None or visible(e.id)]
        like = ctx.memory.entities_like(name, limit=first, visible=visible)
        found += [e for e in like if e.id not in exact]
        return [EntityNode.of(e) for e in found[:first]]

    return await ctx.run(read)


def seen_entity(ctx: Context, name_or_id: str, field: str) -> str:
    """The id of the entity ``name_or_id`` names, if the caller can see anything about it; one it cannot is
    reported with the error an unknown name gets (``Memory.resolve_entity``'s), both suggesting only names of
    entities the caller can see something about."""
    visible = None if ctx.principal.is_local else ctx.reaches
    try:
        resolved = ctx.memory.resolve_entity(name_or_id, field)
    except NotFound:
        raise ctx.memory.unknown_entity(name_or_id, field, visible) from None
    if visible is not None and not visible(resolved):
        raise ctx.memory.unknown_entity(name_or_id, field, visible)
    return resolved


async def neighbors(ctx: Context, entity_id: str, depth: int, as_of: str | None,
                    include_private: bool) -> list[Neighbor]:
    """Entities within ``depth`` hops over states that hold at ``as_of``, nearest first."""
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"depth must be between 1 and {MAX_DEPTH}", field="depth")

    def read() -> list[tuple[State, str, str, int]]:
        view = _view(ctx, ctx.memory.read_time(as_of, "asOf", edge="end") if as_of else None, None, None)

        def linked(source: str, p: ReadPass) -> list[tuple[State, str]]:
            outgoing = view.states(subject=source, include_private=p.include_private, scopes=p.scopes, evidence=False)
            incoming = view.states(object=source, include_private=p.include_private, scopes=p.scopes, evidence=False)
            return [*((s, "out") for s in outgoing), *((s, "in") for s in incoming)]

        seen, frontier, out = {entity_id}, [entity_id], []
        for distance in range(1, depth + 1):
            reached: list[str] = []
            for source in frontier:
                for group in _each_pass(ctx, include_private, functools.partial(linked, source)):
                    for state, direction in group:
                        other = state.object_id if direction == "out" else state.subject_id
                        if other is None or other in seen:
                            continue
                        seen.add(other)
                        reached.append(other)
                        out.append((state, other, direction, distance))
            frontier = reached
        return out

    found = await ctx.run(read)
    entities = await ctx.loaders.entity.load_many([other for _, other, _, _ in found])
    tz = ctx.memory.tz
    return [
        Neighbor(entity=EntityNode.of(e), via=StateNode.of(s, tz, include_private), direction=d, distance=n)
        for (s, _, d, n), e in zip(found, entities, strict=True)
        if e is not None
    ]


_MIN = dt.datetime.min.replace(tzinfo=dt.UTC)


def _start(s: State) -> dt.datetime:
    return s.valid.start.at if s.valid.start else _MIN


def _event_order(e: Event) -> tuple[dt.datetime, dt.datetime, str]:
    return (e.occurred_at.at, e.recorded_at, e.id)


def _merged(groups: list[list[Any]], key: Callable[[Any], Any], reverse: bool = False) -> list[Any]:
    if len(groups) == 1:
        return groups[0]
    return list(heapq.merge(*groups, key=key, reverse=reverse))
