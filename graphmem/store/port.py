"""The graph store port: what memory needs from a database, in ontology models only.

An adapter (the embedded Kuzu one, later a server engine) implements :class:`GraphStore`. Writes arrive as a
:class:`WriteBatch`, a unit of work applied in one transaction: all of it lands or none of it does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence, Set
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Protocol

from graphmem.ontology import Annotation, Entity, Event, Evidence, EvidenceStance, Revision, Source, State, Thread
from graphmem.ontology import TimePoint, Visibility, name_key

__all__ = ["EventBrief", "EventQuery", "GraphStore", "Indexable", "Period", "ReadPass", "SourceCursor",
           "StateQuery", "StoreStats", "TimelineQuery", "WriteBatch", "declared_subjects", "in_view",
           "object_key"]

Period = tuple[dt.datetime | None, dt.datetime | None]  # (start, end); None: open on that side


@dataclass
class WriteBatch:
    """Everything one logical write adds or changes. Empty lists are free."""

    events: list[Event] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    entity_updates: list[Entity] = field(default_factory=list)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (name key, entity id)
    threads: list[Thread] = field(default_factory=list)
    in_thread: list[tuple[str, str]] = field(default_factory=list)  # (event id, thread key)
    mentions: list[tuple[str, str]] = field(default_factory=list)  # (event id, entity id)
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (from event, to event, label)
    new_states: list[State] = field(default_factory=list)
    state_versions: list[State] = field(default_factory=list)  # a new current version of an existing state
    retractions: list[State] = field(default_factory=list)  # the retracted state's final values
    confirmations: list[tuple[str, dt.datetime]] = field(default_factory=list)  # (state id, at)
    evidence: list[tuple[str, str, EvidenceStance, dt.datetime]] = field(default_factory=list)  # (event, state, ..)
    supersedes: list[tuple[str, str, dt.datetime]] = field(default_factory=list)  # (newer, older, at)
    revisions: list[Revision] = field(default_factory=list)
    predicates: list[tuple[str, str]] = field(default_factory=list)  # (name, JSON definition)
    about: list[tuple[str, str]] = field(default_factory=list)  # (state id, entity id)
    annotations: list[Annotation] = field(default_factory=list)  # replace the event's earlier annotation
    new_annotations: list[Annotation] = field(default_factory=list)  # of events this batch creates
    # (merged entity id, kept entity id, at): the merged one's open states, objects, about and mention edges
    # and names move to the kept one, applied before the rest of the batch
    merges: list[tuple[str, str, dt.datetime]] = field(default_factory=list)
    cursors: list[SourceCursor] = field(default_factory=list)  # replace those with the same keys, in order

    def __len__(self) -> int:
        return sum(map(len, vars(self).values()))

    def __getstate__(self) -> dict[str, object]:
        """Pickled (the journal's record of it) without its empty fields: a record's write fills few of
        the 22."""
        return {name: value for name, value in self.__dict__.items() if value}

    def __setstate__(self, state: dict[str, object]) -> None:
        """A field the pickle lacks is empty (each field is a list): left out as empty, or a journal written
        before the field was added."""
        self.__dict__.update({f.name: [] for f in fields(self) if f.name not in state} | state)


@dataclass(frozen=True)
class StateQuery:
    """Which states to read. Time filters here are coarse pre-filters; exact time logic is the caller's.

    ``known_at`` selects the versions memory held at that transaction time; otherwise the current ones.
    ``starts_before`` / ``ends_after`` bound valid time loosely (instants, exclusive/inclusive as named).
    """

    subject_id: str | None = None
    subject_ids: Sequence[str] | None = None  # many subjects in one read (bulk writes)
    predicate: str | None = None
    object_id: str | None = None
    known_at: dt.datetime | None = None
    starts_before: dt.datetime | None = None
    ends_after: dt.datetime | None = None
    include_retracted: bool = False
    all_versions: bool = False
    scopes: Sequence[str] | None = None
    include_private: bool = False
    limit: int | None = None
    kinds: Sequence[str] | None = None  # state kinds (opinion, preference, ...)


@dataclass(frozen=True)
class TimelineQuery:
    """One timeline a write plans on: a subject's predicate in one scope, among the public states or among the
    private ones; and the part of it the write can touch. ``near``: of a single-valued predicate, the part
    that states starting at these points can touch (``temporal.bearing_on``); ``object_keys``: of a
    multi-valued one, the states with these objects (its states never bound one another); neither: all.
    ``stated_before``, with ``near``: the time the write is stated at; those states it cannot meet among many
    of one start are left out (``temporal.without_buried``)."""

    subject_id: str
    predicate: str
    scope: str
    private: bool
    near: Sequence[TimePoint | None] | None = None
    object_keys: Collection[str] | None = None
    stated_before: dt.datetime | None = None


@dataclass(frozen=True)
class EventQuery:
    """Which events to read, newest first (or oldest first with ``ascending``).

    ``after`` is a keyset cursor ``(occurred_at, recorded_at, id)``: only events strictly beyond it in the
    chosen order are returned, so pages stay stable while events are being added.
    """

    limit: int
    entity_id: str | None = None  # events that mention this entity
    thread: str | None = None
    since: dt.datetime | None = None  # occurred_at >= since
    until: dt.datetime | None = None  # occurred_at < until
    kinds: Sequence[str] | None = None
    scopes: Sequence[str] | None = None
    include_private: bool = False
    after: tuple[dt.datetime, dt.datetime, str] | None = None
    ascending: bool = False
    keyed: bool = False  # only events that carry a dedupe_key
    with_ttl: bool = False  # only events with ttl_days > 0
    recorded_until: dt.datetime | None = None  # recorded_at <= this: what memory held then


@dataclass(frozen=True)
class Indexable:
    """What the search index keeps of an event or a state: its words and what recall filters and ranks on.

    ``time`` is when it happened (an event's occurred_at, a state's valid_from); ``entities`` are the ids it
    mentions (an event) or links (a state's subject and object). ``subjects`` are those of them it is *about*:
    the entities the writer declared with the event (its ``entities``: a turn's speaker, a log's author) or
    a state's subject, as against names the text merely mentions ("Thanks, Melanie!"). A declared name
    counts as the entity its key resolves to, so a rebuilt index agrees with one built write by write.
    """

    id: str
    type: str  # "event" or "state"
    text: str
    time: dt.datetime | None
    kind: str
    scope: str
    private: bool
    thread: str | None = None
    entities: tuple[str, ...] = ()
    recorded_at: dt.datetime | None = None  # transaction time it was written at
    # what an event talks about; for a state, the period it held
    about: Period | None = None
    subjects: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReadPass:
    """One read of a caller's view: these scopes (``None``: all), with or without private items. A view is one
    or more of them, over scopes none of the others names."""

    scopes: tuple[str, ...] | None
    include_private: bool


def in_view(item: Event | State, scopes: Sequence[str] | None, include_private: bool) -> bool:
    """Whether a read of ``scopes`` (``None``: any), with or without private items, sees ``item``: the rule
    the queries' ``scopes`` and ``include_private`` apply, for items read some other way (the events a
    state's evidence or an opinion's steps name)."""
    return ((scopes is None or item.scope in scopes)
            and (include_private or item.visibility is not Visibility.PRIVATE))


def object_key(object_id: str | None, object_: str) -> str:
    """What a state points at, as :attr:`TimelineQuery.object_keys` names it: its entity's id, or, for a
    literal object, its text casefolded."""
    return object_id or object_.casefold()


def declared_subjects(names: Sequence[str], resolved: Mapping[str, str], mentions: Sequence[str],
                      key: Callable[[str], str] = name_key) -> tuple[str, ...]:
    """Of an event's ``mentions``, the entities its declared ``names`` resolve to (``resolved``: name key -> id;
    ``key``: a name's key, :func:`name_key` or the keys a caller already made)."""
    mentioned = set(mentions)
    return tuple(dict.fromkeys(i for n in names if (i := resolved.get(key(n))) is not None and i in mentioned))


@dataclass(frozen=True)
class EventBrief:
    """What a search hit shows of an event: a few fields of it, read without the rest of its row."""

    id: str
    kind: str
    scope: str
    thread: str | None
    content: str
    occurred_at: TimePoint | None
    source: Source


@dataclass(frozen=True)
class SourceCursor:
    """How far a reader got in one source file: ``key`` names the reader and the file
    (``workspace:<root>:memory/2025-11-27.md``, ``sessions:<path>``), ``digest`` what it had read, ``offset``
    the byte it resumes from, ``line`` the lines read, ``detail`` the reader's own JSON."""

    key: str
    digest: str
    offset: int
    line: int
    updated_at: dt.datetime
    detail: str = "{}"


@dataclass(frozen=True)
class StoreStats:
    events: int
    entities: int
    threads: int
    states: int
    state_versions: int
    revisions: int
    engine: str
    path: str


class GraphStore(Protocol):
    """The operations memory performs on its database."""

    path: str  # where the database is ("" or ":memory:" for one that is not on disk)
    engine: str  # the engine and its version, as health shows it

    def write_lock(self) -> AbstractContextManager[object]:
        """Held while a write is computed and applied: one writer at a time in this process."""

    def write(self, batch: WriteBatch) -> None:
        """Apply ``batch`` in one transaction: all of it or none. Durable when this returns; every later read
        sees it (an adapter may acknowledge it from a journal and apply it to its database soon after)."""

    def settle(self) -> None:
        """Return once the database itself holds every write acknowledged so far."""

    def pending_writes(self) -> int:
        """Acknowledged writes the database does not hold yet (0 for an adapter that applies them at once)."""
        ...

    def existing_event_ids(self, ids: Iterable[str]) -> set[str]: ...

    def objects_of(self, predicates: Collection[str]) -> Set[str]:
        """Ids of the entities states of ``predicates`` have as their object (more, never fewer): what tells a
        read of the states said of an entity as object whether it need be made."""
        ...

    def all_name_keys(self) -> dict[str, str]:
        """Every name key and the entity it names (what entity resolution would otherwise ask key by key)."""
        ...

    def all_thread_keys(self) -> set[str]: ...

    def events(self, ids: Sequence[str]) -> list[Event]: ...

    def event_briefs(self, ids: Sequence[str]) -> list[EventBrief]:
        """The briefs of the given events that exist (a full event costs more to read)."""

    def find_events(self, query: EventQuery) -> list[Event]: ...

    def mentions(self, event_ids: Sequence[str]) -> dict[str, list[str]]:
        """Entity ids each event mentions."""
        ...

    def mask_events(self, masked: Sequence[Event]) -> None:
        """Replace these events' content and redactions (the janitor's masking); nothing else changes."""
        ...

    def remove_events(self, ids: Sequence[str]) -> None:
        """Delete these events with their edges and annotations, in one transaction (an approved removal)."""
        ...

    def superseded(self, event_ids: Sequence[str], known_at: dt.datetime | None = None) -> set[str]:
        """Those of ``event_ids`` that a later event supersedes (recorded by ``known_at``, if given)."""
        ...

    def thread_keys(self, suffix: str, limit: int = 10) -> list[str]:
        """Thread keys equal to ``suffix`` or ending in ``:suffix`` (a session id without its platform)."""
        ...

    def entity_id_for_key(self, key: str) -> str | None: ...

    def entity_ids_for_keys(self, keys: Iterable[str]) -> dict[str, str]: ...

    def entities(self, ids: Sequence[str]) -> list[Entity]: ...

    def entity_ids(self, limit: int) -> list[str]:
        """Ids of entities not merged into another, in id order, at most ``limit``."""
        ...

    def entities_of_types(self, types: Sequence[str] | None) -> list[Entity]:
        """Every entity not merged into another, of these types (all when None), by id."""
        ...

    def entity_names(self, limit: int) -> list[tuple[str, str]]:
        """(name or alias, type) of up to ``limit`` entities, newest first: the extraction gazetteer."""
        ...

    def thread(self, key: str) -> Thread | None: ...

    def known_thread_keys(self, keys: Iterable[str]) -> set[str]: ...

    def states(self, query: StateQuery) -> list[State]:
        """The states ``query`` selects. Those of subjects (``subject_id``, ``subject_ids``) come in order of
        their start (an open start first), then of when each version was recorded."""
        ...

    def timelines(self, queries: Sequence[TimelineQuery]) -> list[list[State]]:
        """The current states of each timeline asked for (retracted ones left out), in order of start (an open
        start first), then of when each version was recorded; one list a query, in their order."""
        ...

    def states_by_id(self, ids: Sequence[str]) -> list[State]: ...

    def evidence(self, state_ids: Sequence[str], *, scopes: Sequence[str] | None = None,
                 include_private: bool = True) -> dict[str, list[Evidence]]:
        """Each state's evidence events (content, time, source), oldest first; only events in ``scopes``
        (``None``: any) and, unless ``include_private``, not private: a read of some scopes shows no event of
        another, even one a state of its scopes rests on."""
        ...

    def evidence_links(self, state_ids: Sequence[str]) -> dict[str, list[tuple[str, EvidenceStance, dt.datetime]]]:
        """(event id, stance, at) of each state's evidence, oldest first, without the events."""
        ...

    def about(self, state_ids: Sequence[str]) -> dict[str, list[str]]:
        """Entity ids each state is about (its ABOUT edges)."""
        ...

    def states_about(self, entity_ids: Sequence[str], kinds: Sequence[str] | None = None) -> list[str]:
        """Ids of the states about any of ``entity_ids`` (of the given kinds), current versions only."""
        ...

    def annotations(self, event_ids: Sequence[str]) -> dict[str, Annotation]: ...

    def revisions(self, state_id: str) -> list[Revision]: ...

    def revisions_of(self, state_ids: Sequence[str]) -> dict[str, list[Revision]]:
        """Every revision of each state, oldest first, in one read."""
        ...

    def indexable(self, since: dt.datetime | None = None, chunk: int = 20_000) -> Iterator[list[Indexable]]:
        """Every event recorded, and every unretracted state created, at or after ``since`` (all when None),
        in chunks: what a search index is rebuilt or caught up from."""
        ...

    def retracted_since(self, since: dt.datetime) -> list[str]:
        """Ids of states retracted at or after ``since``."""
        ...

    def periods_changed_since(self, since: dt.datetime) -> dict[str, Period]:
        """The period (valid_from, valid_to) of each state not retracted whose current version was written at
        or after ``since`` (closed, superseded or done then), by id."""
        ...

    def merged_since(self, since: dt.datetime) -> list[tuple[str, str]]:
        """(merged entity id, the id it was merged into) of merges made at or after ``since``, oldest first."""
        ...

    def annotated_after(self, after: dt.datetime) -> list[str]:
        """Ids of events annotated (given the period they are about, or entities) or named as a state's
        evidence (which makes them mention its subject and object) after ``after``."""
        ...

    def defined_predicates(self) -> list[tuple[str, str]]: ...

    def cursors(self, prefix: str) -> list[SourceCursor]:
        """Every source cursor whose key starts with ``prefix``, by key."""
        ...

    def stats(self, view: Sequence[ReadPass] | None = None) -> StoreStats:
        """Counts of what memory holds; with ``view``, of what a reader of it sees: its events and states,
        their versions and revisions, the threads holding one of its events and the entities one of its
        events names or one of its states is about. Engine and path are the same either way."""
        ...

    def backup(self, dest: Path) -> int:
        """Copy the stored memory, with every write acknowledged so far, to the new file ``dest``; returns its
        size in bytes. Writes wait meanwhile; reads go on."""
        ...

    def warm(self) -> None:
        """Read ahead, in bulk, what the first requests would otherwise read row by row (a server does this
        before it accepts requests)."""
        ...

    def close(self) -> None: ...
