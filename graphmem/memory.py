"""The ``Memory`` facade: one object that records events, grows states and answers time questions.

>>> from graphmem import Memory
>>> mem = Memory.in_memory()
>>> ev = mem.record(content="Peter moved to Marrakesh.", occurred_at="2025-11-27", agent_id="claude")
>>> _ = mem.assert_state(subject="Peter", predicate="lives_in", object="Marrakesh",
...                      valid_from="2025-11-27", evidence=[ev.id])
>>> [s.object for s in mem.as_of("2025-11-30").states(subject="Peter")]
['Marrakesh']
"""

from __future__ import annotations

import atexit
import copy
import datetime as dt
import gc
import hashlib
import json
import logging
import re
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, Literal, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ValidationError

from graphmem.extraction import Extraction, Extractor, parse_retain
from graphmem import allocator
from graphmem.errors import DuplicateKey, GraphmemError, InvalidInput, MalformedTime, NotFound, UnknownField
from graphmem.ontology import (
    AGENT_ID_PATTERN,
    UTC,
    Affect,
    Annotation,
    Entity,
    Event,
    EventDraft,
    EvidenceStance,
    Granularity,
    Interval,
    Ontology,
    Predicate,
    Revision,
    RevisionAction,
    Source,
    State,
    StateStatus,
    Thread,
    TimePoint,
    Visibility,
    check_scope,
    confidence_value,
    load_ontology,
    name_key,
    slugify,
)
from graphmem.index import Embedder, IndexStatus, SearchIndex, embedder_named
from graphmem.ontology.plans import ContextUpdates, PlanEntity, StateUpdate, WritePlan
from graphmem.privacy import PrivacyPolicy, guard, mask, scan
from graphmem.query import (
    ConfidenceChange,
    Opinion,
    RecallFilters,
    RecallHit,
    TimeView,
    asks_now,
    asks_title,
    asks_where,
    attach_evidence,
    build_opinions,
    hydrate,
    preset_named,
    from_the_other_side,
    rank,
    with_the_other_side,
)
from graphmem.query.pages import MARKER as PAGE_MARKER
from graphmem.query.pages import PageData, page_slug, render_entity_page, render_opinions_page
from graphmem.query.packs import (
    ResumePack,
    Snapshot,
    SnapshotRequest,
    event_line,
    fit_to_budget,
    pack_scopes,
    pinned_md,
    pins_of,
    ruleset_stamp,
    session_summary,
    task_line,
)
from graphmem.reasoning import (
    POLARITIES,
    PREFERENCE_OPS,
    Conflict,
    HeldBack,
    MergeCandidate,
    NameBlocks,
    Plan,
    PromotionCandidate,
    TtlCandidate,
    conflict_note,
    conflicts_of,
    find_duplicates,
    in_timeline_order,
    merge_candidates,
    names_like,
    plan_tidy,
    promotion_candidates,
    ttl_candidates,
    make_id,
    plan_assert,
    plan_close,
    plan_confirm,
    plan_merge,
    plan_preference,
    plan_restate,
    plan_retract,
    plan_revise,
    plan_weigh,
)
from graphmem.store import (
    DEFAULT_BUFFER_POOL_MB,
    EventQuery,
    GraphStore,
    Indexable,
    ReadPass,
    SourceCursor,
    StateQuery,
    TimelineQuery,
    StoreStats,
    WriteBatch,
    open_store,
)
from graphmem.store import declared_subjects, object_key
from graphmem.store.group_commit import GroupCommit
from graphmem.store.rows import state_words
from graphmem.temporal import (
    asks_when,
    holds_at,
    near_bound,
    parse_expression,
    parse_point,
    period_end,
    truncate,
)

__all__ = [
    "Backup",
    "EntityView",
    "JanitorReport",
    "Memory",
    "PlanResult",
    "RecordResult",
    "ReflectResult",
    "RetainResult",
    "StateInput",
    "TidyReport",
]

log = logging.getLogger(__name__)

RECENT_EVENTS = 10
MAX_RECALL = 200  # the most hits one recall returns
MAX_QUERY_CHARS = 2_000
MAX_PAGE = 1000  # the most events one read returns
ABOUT_FROM_TEXT = 0.6  # confidence of the period an event talks about when read from its own text
# entities a bulk write of states reads at once, ahead of changing them (not one by one as it plans them: at
# 300k events, states went ~4,600 -> ~5,100/s); a read of more is a scan of the table (the store's wide
# lookup), twice as fast again, but bench/scale.py then ended with 14 MiB more resident at 300k events
READ_AHEAD_CHUNK = 1_000
GAZETTEER_LIMIT = 50_000  # newest entities loaded into the extraction gazetteer when it is built
OPEN_TASKS_KNOWN = 10_000  # open tasks it is told of then, which text may say are done (see _open_tasks)
_NO_END_BEFORE = dt.datetime(3000, 1, 1, tzinfo=UTC)  # (what ends after it has no end: an open one)
# read once by warm(): names, a place, an organisation, relative and open times (the parts that load lazily),
# against a fixed day (reading the clock would move the clock a test gives memory)
WARM_ANCHOR = dt.datetime(2025, 1, 1, tzinfo=UTC)
WARM_TEXT = "Peter moved to Lisbon last week; since March he works at Acme Inc and thinks it is fine."
TIMES_READ_KEPT = 4_096  # time texts read into points kept for the next write that names them
BULK_GC_PAUSE = 100  # items from which a write pauses the cyclic garbage collector until it ends (see _bulk)
BULK_RELEASE = 1_000  # items from which a write hands the memory it freed back to the system (see _bulk)
UNKNOWN_ENTITY_HINT = "check the spelling or add an alias"  # (a server answers an entity a token cannot see so)
SUGGESTED_NAMES = 3  # names an unknown entity's error suggests (see Memory.entities_like)
LIKE_CANDIDATES = 24  # the likest names looked at for them (those of entities a caller cannot see are passed)
UNKNOWN_SESSION_HINT = "record an event with this thread first"  # (and a session whose events it cannot see)
READ_KEYS_AFTER = 64  # writes after which every name key and thread key is read at once (see _read_keys)
INDEX_SAVE_S = 300.0  # seconds between two saves of a changing search index (see _save_index_every)
EXTRACT_TURN = 64  # texts record_many extracts in one turn before other threads (a recall reading its query) may


@dataclass(frozen=True)
class RecordResult:
    """What ``record`` did: ``created``, ``duplicate`` (a replay; nothing written) or ``dropped`` (privacy)."""

    id: str | None
    status: Literal["created", "duplicate", "dropped"]
    event: Event | None = None
    extraction: Extraction | None = None  # what was read out of the text: entities, times, statements

    @property
    def redactions(self) -> tuple[str, ...]:
        return self.event.redactions if self.event else ()


@dataclass(frozen=True)
class StateInput:
    """One state to assert, as the bulk API and ingest files take it."""

    subject: str
    predicate: str
    object: str
    valid_from: Any = None
    valid_to: Any = None
    evidence: Sequence[str] = ()
    confidence: Any = 1.0
    text: str | None = None
    scope: str = "global"
    private: bool = False
    holder: str | None = None
    reason: str = "asserted"
    subject_type: str | None = None
    object_type: str | None = None
    action: Literal["assert", "close", "done"] = "assert"  # done: a close that marks a task done
    payload: Mapping[str, Any] | None = None  # details kept with the state (a plan's payload)
    # a close whose words say the value held up to ``valid_to``: with nothing held that it ends, the value is
    # stated as holding since before anything recorded until then ("graduated from MIT in 2019")
    held_before: bool = False
    # a close of whatever value its single-valued predicate holds then, the object left empty ("I quit my
    # job": the job held at ``valid_to`` ends, whatever its firm)
    unnamed: bool = False
    # valid_from to valid_to is a period the value was seen to hold in, not all of its time ("worked at Acme
    # in 2019"): a state of that value holding at its start is confirmed, not ended at valid_to
    witnessed: bool = False


@dataclass(frozen=True)
class RetainResult:
    """What reading a daily log's Retain sections did: one record result per bullet, and the opinions formed."""

    results: list[RecordResult]
    opinion_ids: list[str]

    @property
    def event_ids(self) -> list[str]:
        return [r.id for r in self.results if r.id is not None]


@dataclass(frozen=True)
class TidyReport:
    """What one tidy run found and closed: (duplicate id, kept id) pairs, counts by kind, and what it left."""

    scanned: int
    closed: list[tuple[str, str]]
    by_kind: dict[str, int]
    partial_overlaps: int  # duplicates overlapping without one inside the other: left open
    no_start: int  # duplicates without a start time: left open
    limited: bool  # more duplicates than one run closes: run again
    dry_run: bool
    seconds: float


@dataclass(frozen=True)
class JanitorReport:
    """What one janitor run found and did. Nothing is ever removed: TTL candidates wait for a person."""

    pinned_md: str
    pins: int
    ttl_candidates: list[TtlCandidate]
    conflicts: list[Conflict]
    conflict_events: list[str]
    warnings: list[str]
    masked: list[tuple[str, tuple[str, ...]]]  # (event id, kinds masked this run)
    audit_event: str | None
    dry_run: bool
    seconds: float


@dataclass(frozen=True)
class ReflectResult:
    """The pages a reflect made (every path) and those whose bytes changed (written)."""

    pages: list[Path]
    written: list[Path]


@dataclass(frozen=True)
class Backup:
    """A copy of a memory's database: its file, its size, the events it holds and the time the copy took."""

    path: str
    bytes: int
    events: int
    seconds: float


@dataclass(frozen=True)
class PlanResult:
    """What a write plan changed: the states each state update and preference update ended on."""

    event_id: str
    states: list[State]
    preferences: list[State]
    annotation: Annotation | None
    threads: list[str]
    links: list[tuple[str, str]]  # (label, event id)


@dataclass(frozen=True)
class MergeResult:
    """What merging one entity into another did: the kept entity (the merged one's names now among its
    aliases), the merged one (``merged_into`` set), the states whose subject or object moved, and the states
    of the kept entity's timelines that a moved value now bounds (or that now bound a moved one)."""

    entity: Entity
    merged: Entity
    moved_states: list[str]
    bounded_states: list[str]


@dataclass(frozen=True)
class EntityView:
    """An entity with what memory holds about it now."""

    entity: Entity
    states: list[State]
    recent_events: list[Event]

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.entity.aliases


class Memory:
    """A temporal knowledge-graph memory over one embedded database.

    Open one with :meth:`open` (a file) or :meth:`in_memory`; use it from scripts, notebooks and servers.
    Writes are serialised inside the process and each is one transaction; reads run concurrently.
    """

    def __init__(
        self,
        store: GraphStore,
        *,
        ontology: Ontology | None = None,
        timezone: str | dt.tzinfo = "UTC",
        privacy: PrivacyPolicy | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        extract: bool = True,
        index: SearchIndex | None = None,
        index_save_s: float = INDEX_SAVE_S,
    ) -> None:
        self.store = store
        self._closed = False
        self._reindexing = threading.Lock()  # one reindex at a time (see reindex)
        _OPEN.add(self)
        self.extract = extract  # record() reads entities, times and statements out of text by default
        self._extractor: Extractor | None = None
        self._extractor_lock = threading.Lock()
        self.tz = _zone(timezone)
        self._times_read: dict[str, TimePoint] = {}  # text -> point: a bulk write reads the same dates over and over
        self.privacy = privacy or PrivacyPolicy()
        self._clock = clock or (lambda: dt.datetime.now(UTC))
        self._last_tx = dt.datetime.min.replace(tzinfo=UTC)
        self._tx_lock = threading.Lock()
        self._known_threads: set[str] = set()
        self._stamp: tuple[Ontology, str] | None = None  # the ruleset stamp of the ontology in force
        # name key -> entity id, for entities this process has seen committed; this process is the only
        # writer of its database and keys never move to another entity, so entries never go stale
        self._entity_ids: dict[str, str] = {}
        self._known_entity_ids: set[str] = set()  # ids seen to exist (entities are never deleted)
        # ids of the place entities, for questions that ask where: read at the first such question, then kept
        # up to date by each commit (dropped, to be read again, when one retypes or merges entities)
        self._place_ids: frozenset[str] | None = None
        self._places_lock = threading.Lock()
        self._place_writes = 0  # commits adding, retyping or merging entities (overlapping reads are dropped)
        self._writes = 0  # writes of events by this process (see _read_keys)
        self._keys_read = False
        self._blocks: NameBlocks | None = None  # names a new name may join (built at the first need)
        # concurrent record calls share commits (one disk sync for many events)
        self._events_writer: GroupCommit[tuple[Event | None, Mapping[str, Any]], RecordResult] = GroupCommit(
            self._write_prepared
        )
        base = ontology or load_ontology()
        for name, definition in store.defined_predicates():
            base = base.with_predicate(Predicate.model_validate_json(definition))
        self.ontology = base
        self.index = index if index is not None else SearchIndex()
        self._stop_saving = threading.Event()
        self._saver: threading.Thread | None = None
        try:
            self._catch_up()
        except BaseException:
            self.close()  # (the database file is let go: a memory that failed to open holds nothing)
            raise
        self._index_whole = True  # the index holds everything the store does (it answers entity event pages)
        if self.index.directory is not None and index_save_s > 0:
            self._saver = threading.Thread(target=_save_index_every, name="graphmem-index-save", daemon=True,
                                           args=(weakref.ref(self), self._stop_saving, index_save_s))
            self._saver.start()

    def _catch_up(self) -> None:
        """Bring the search index up to the store: everything recorded since its watermark."""
        since = self.index.watermark
        added: set[str] = set()  # (indexed now with their current periods and mentions)
        for chunk in self.store.indexable(since):
            latest = max((i.recorded_at for i in chunk if i.recorded_at), default=None)
            if since is not None:  # (a whole build reads nothing again)
                added.update(i.id for i in chunk if i.id not in self.index.ids)
            self.index.add(chunk, at=latest)
            self.index.keep_up()
        if since is not None:
            self.index.remove(self.store.retracted_since(since))
            for state_id, (start, end) in self.store.periods_changed_since(since).items():  # (closed since)
                if state_id not in added:
                    self.index.set_about(state_id, None if start is None and end is None else (start, end))
            merges = self.store.merged_since(since)
            renamed = dict.fromkeys(kept for merged, kept in merges if merged not in self.index.merged)
            for merged, kept in merges:
                self.index.merge_entities(merged, kept)
            self._index_renamed_states(renamed)  # (those the saved index had not made yet)
            # earlier events a write plan annotated, or a state named as evidence, after the write the index
            # holds last (all of which it holds): their period and the entities they mention
            touched = [e for e in self.store.annotated_after(since) if e not in added]
            if touched:
                self.index.mention((e, n) for e, found in self.store.mentions(touched).items() for n in found)
                for event_id, annotation in self.store.annotations(touched).items():
                    self.index.set_about(event_id, _bounds(annotation.about))

    def _index_renamed_states(self, entity_ids: Iterable[str], only: Collection[str] | None = None) -> None:
        """Index again the states (``only`` those) whose subject or object is one of ``entity_ids``, entities
        that took others in: their words name the kept entity now, as a rebuilt index has them."""
        queries = [query for e in entity_ids for query in (StateQuery(subject_id=e, include_private=True),
                                                           StateQuery(object_id=e, include_private=True))]
        found = {s.id: s for query in queries for s in self.store.states(query)}
        items = [_state_indexable(s) for i, s in found.items() if only is None or i in only]
        if items:
            self.index.replace(items)

    # -- opening ----------------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        ontology: str | Path | Sequence[str | Path] | Ontology | None = None,
        timezone: str | dt.tzinfo = "UTC",
        privacy: PrivacyPolicy | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        buffer_pool_mb: int = DEFAULT_BUFFER_POOL_MB,
        read_only: bool = False,
        extract: bool = True,
        embedder: str | Embedder | None = "auto",
        recovery: bool = True,
        index_save_s: float = INDEX_SAVE_S,
    ) -> Memory:
        """Open (or create) the memory stored at ``path``.

        Its search index lives beside it in ``<path>.index`` and is rebuilt from the database when missing.
        ``embedder`` names the vector model: ``auto`` (the static model when it has been built, else none),
        ``static``, ``static:DIR``, ``minilm``, ``none``, or an :class:`~graphmem.index.Embedder`.
        ``recovery`` keeps a copy of the database file and the journal of the writes since, from which the
        database is made again if the engine cannot open it after a crash (see graphmem/store/recovery.py);
        the copy and the journal take about as much disk again as the database. The search index is saved
        every ``index_save_s`` seconds while it changes (0: only when the memory closes), so an open after a
        crash catches up on the writes since the last save, not on everything since the last close.

        >>> import tempfile, os
        >>> folder = tempfile.TemporaryDirectory()
        >>> mem = Memory.open(os.path.join(folder.name, "memory.kuzu"))
        >>> mem.stats().events
        0
        >>> mem.close(); folder.cleanup()
        """
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        allocator.tune()  # before the engine starts its threads
        model = embedder_named(embedder) if isinstance(embedder, str) else embedder
        store = open_store(str(path), buffer_pool_mb=buffer_pool_mb, read_only=read_only, recovery=recovery)
        directory = None if str(path) == ":memory:" else path.with_name(path.name + ".index")
        index = SearchIndex.load(directory, model) if directory else None
        if index is not None and not _index_of(store, index):
            log.warning("the search index in %s holds events the database does not (it was saved beside another "
                        "database, or a newer one than this copy): rebuilding it", directory)
            index.close()
            index = None
        index = index or SearchIndex(directory, model)
        return cls(store, ontology=_ontology(ontology), timezone=timezone, privacy=privacy, clock=clock,
                   extract=extract, index=index, index_save_s=index_save_s)

    @classmethod
    def in_memory(cls, **options: Any) -> Memory:
        """A throwaway memory that lives as long as the object."""
        return cls.open(":memory:", **options)

    def close(self) -> None:
        """Save the search index and close the database (a memory still open when the program exits is
        closed then)."""
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        try:
            self._stop_saving.set()
            if self._saver is not None:
                self._saver.join()  # (a save in progress finishes first)
            self.index.close()
        finally:
            self.store.close()
        # the search index is saved last, once the engine (its buffer pool), what the store kept and the
        # extraction pipeline are let go: what the save copies takes their place, not more (bench/scale.py at
        # a million events: the peak of the process was this save's)
        self._extractor = None
        self.index.save(last=True)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- time helpers -----------------------------------------------------------------------------------

    def now(self) -> dt.datetime:
        """Transaction time for the next write: the clock, strictly increasing within this process."""
        with self._tx_lock:
            now = self._clock().astimezone(UTC)
            if now <= self._last_tx:
                now = self._last_tx + dt.timedelta(microseconds=1)
            self._last_tx = now
            return now

    def parse_time(self, value: object, field: str = "time") -> TimePoint:
        """Read a time the way every method of this memory does (naive values in its timezone)."""
        if not isinstance(value, str):
            return parse_point(value, tz=self.tz, field=field)  # type: ignore[arg-type]
        point = self._times_read.get(value)
        if point is None:  # (a text that is no time raises here, every time, naming the field it came in)
            point = parse_point(value, tz=self.tz, field=field)
            if len(self._times_read) >= TIMES_READ_KEPT:
                self._times_read.clear()
            self._times_read[value] = point
        return point

    def read_time(self, text: object, field: str = "time", *, relative_to: object = None,
                  edge: Literal["start", "end"] | None = None) -> TimePoint:
        """Read a time as people write it: the forms of :meth:`parse_time`, or an expression ("last week",
        "3 days ago", "先週") resolved against ``relative_to`` (now by default), never a range. An expression
        of several periods (a season, "last summer": three months; a weekend: two days) is its first for
        ``edge="start"`` (where a window opens), its last for ``"end"`` (as of: what held by its end), and
        refused otherwise; one up to now ("the past 3 months", "since March") or a range ("2019-2021") is read
        only as where a window opens.

        >>> mem = Memory.in_memory(extract=False)
        >>> str(mem.read_time("last month", relative_to="2025-12-10"))
        '2025-11'
        >>> str(mem.read_time("last summer", relative_to="2025-12-10", edge="end"))
        '2025-08'
        """
        kinds = ("point", "since", "range") if edge == "start" else ("point",)  # (a window opens at a range's
        # first period: "--since 2019-2021")
        first, last = self._span(text, field, relative_to, kinds)
        if last is None or edge == "start":
            return first
        if edge == "end":
            return last
        raise InvalidInput(f"{field} {text!r} names several {first.granularity.value}s "
                           f"({first.label(self.tz)} to {last.label(self.tz)}); give one of them or a date",
                           field=field)

    def read_period(self, text: object, field: str = "period", *,
                    relative_to: object = None) -> tuple[TimePoint, TimePoint | None]:
        """Read a period as :meth:`read_time` does, or a range of periods ("between May and July 2024"): its
        first period, and its last when it spans several ("last summer": June and August): ``during(first,
        through=last)``.

        >>> mem = Memory.in_memory(extract=False)
        >>> [str(p) for p in mem.read_period("last summer", relative_to="2025-12-10")]
        ['2025-06', '2025-08']
        >>> [str(p) for p in mem.read_period("from May to July 2024")]
        ['2024-05', '2024-07']
        """
        return self._span(text, field, relative_to, ("point", "range"))

    def _span(self, text: object, field: str, relative_to: object,
              kinds: tuple[str, ...]) -> tuple[TimePoint, TimePoint | None]:
        """The first period ``text`` names and its last when it names several (else None)."""
        try:
            return self.parse_time(text, field), None
        except MalformedTime as exc:  # ("2025-13-01" is no expression to be read another way: 13 Jan)
            if not isinstance(text, str) or exc.out_of_range:
                raise
        anchor = self.parse_time(relative_to, "relativeTo").at if relative_to is not None else self._clock()
        mention = parse_expression(text, anchor, tz=self.tz, field=field)
        start, end = mention.interval.start, mention.interval.end
        if mention.kind == "since" and start is not None:  # ("the past 3 months", "since March": up to now)
            if "since" in kinds:  # (where a window opens)
                return start, None
            if "range" in kinds:  # (a period: through now)
                last = truncate(anchor, start.granularity, self.tz)
                return start, (TimePoint(at=last, granularity=start.granularity) if last > start.at else None)
            raise InvalidInput(f"{field} {text!r} runs from {start.label(self.tz)} up to now, not one point "
                               "or period; ask what held during it, or give one ('Nov 2025', 'last week', "
                               "'2025-11-27')", field=field)
        if mention.kind == "until" and end is not None and "until" not in kinds:
            raise InvalidInput(f"{field} {text!r} runs up to {end.label(self.tz)} from no start, not one "
                               "point or period; give one ('Nov 2025', 'last week', '2025-11-27')",
                               field=field)
        if mention.kind not in kinds or start is None:
            raise InvalidInput(f"{field} {text!r} is a {mention.kind} expression; ask what held during it, or "
                               "give one point or period ('Nov 2025', 'last week', '2025-11-27')", field=field)
        if end is None or end.at == period_end(start, self.tz):
            return start, None
        last = truncate(end.at - dt.timedelta(microseconds=1), start.granularity, self.tz)
        return start, TimePoint(at=last, granularity=start.granularity)

    def _optional_time(self, value: object, field: str) -> TimePoint | None:
        return None if value is None else self.parse_time(value, field)

    @property
    def extractor(self) -> Extractor:
        """The extraction pipeline, built on first use with the entities memory knows as its gazetteer."""
        if self._extractor is None:
            with self._extractor_lock:
                if self._extractor is None:
                    extractor = Extractor(self.ontology, known=self.store.entity_names(GAZETTEER_LIMIT))
                    extractor.add_tasks(self._open_tasks())
                    self._extractor = extractor
                    allocator.set_aside()  # (the modules it loaded live as long as the process)
        return self._extractor

    def _open_tasks(self) -> list[tuple[str, str]]:
        """(whose, task) of up to ``OPEN_TASKS_KNOWN`` open tasks (those with no end: not the done ones,
        however many they are)."""
        states = self.store.states(StateQuery(kinds=["task"], include_private=True, ends_after=_NO_END_BEFORE,
                                              limit=OPEN_TASKS_KNOWN))
        return [(s.subject, s.object) for s in states if _is_open_task(s)]

    def _track_tasks(self, batch: WriteBatch) -> None:
        """Tell the extraction pipeline which tasks the committed ``batch`` opened and which it ended (done,
        closed or retracted): text may say the open ones are done."""
        if self._extractor is None:
            return
        changed = (*batch.new_states, *batch.state_versions, *batch.retractions)
        final = {s.id: s for s in changed if s.kind == "task"}  # (each state as the write left it)
        if not final:
            return
        retracted = {s.id for s in batch.retractions}
        self._extractor.drop_tasks((s.subject, s.object) for s in final.values()
                                   if s.id in retracted or not _is_open_task(s))
        self._extractor.add_tasks((s.subject, s.object) for s in final.values()
                                  if s.id not in retracted and _is_open_task(s))

    def warm(self) -> None:
        """Get ready for the first requests: build the extraction pipeline and read once through it (about a
        second, which the first write or recall would otherwise spend while every other request queued behind
        it), and read ahead the store's caches. A server calls this before it accepts connections; a script
        need not."""
        self.extractor.extract(WARM_TEXT, TimePoint(at=WARM_ANCHOR), tz=self.tz)
        self.store.warm()
        with self.store.write_lock():
            self._read_keys()

    def _read_keys(self) -> None:
        """Every name key and thread key at once: a write names entities and threads by key, and one it has
        not seen costs a lookup (~0.3-0.8 ms at a million events). Done at warm-up, or once this process has
        written ``READ_KEYS_AFTER`` times (the write lock held)."""
        self._keys_read = True
        self._entity_ids.update(self.store.all_name_keys())
        self._known_threads.update(self.store.all_thread_keys())

    # -- recording events -------------------------------------------------------------------------------

    def record(
        self,
        content: str,
        *,
        occurred_at: object = None,
        occurred_end: object = None,
        source: Mapping[str, Any] | Source | None = None,
        agent_id: str = "unknown",
        scope: str = "global",
        kind: str = "observation",
        thread: str | None = None,
        tags: Sequence[str] = (),
        privacy: Sequence[str] = (),
        entities: Sequence[str] = (),
        dedupe_key: str | None = None,
        confidence: object = 1.0,
        supersedes: str | None = None,
        ttl_days: int | None = None,
        affect: Mapping[str, float] | None = None,
        links: Mapping[str, str | Sequence[str]] | None = None,
        extract: bool | None = None,
        may_link: Callable[[Event], bool] | None = None,
    ) -> RecordResult:
        """Append one event. Replays return the first id and write nothing; bad input writes nothing.
        ``may_link``: see :meth:`record_many`.

        >>> mem = Memory.in_memory()
        >>> first = mem.record(content="Deploys freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze")
        >>> mem.record(content="Deploys freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze").status
        'duplicate'
        """
        fields = dict(
            content=content, occurred_at=occurred_at, occurred_end=occurred_end, source=source, agent_id=agent_id,
            scope=scope, kind=kind, thread=thread, tags=tags, privacy=privacy, entities=entities,
            dedupe_key=dedupe_key, confidence=confidence, supersedes=supersedes, ttl_days=ttl_days,
            affect=affect, links=links, extract=extract,
        )
        return self.record_many([fields], may_link=may_link)[0]

    def record_many(
        self, items: Iterable[Mapping[str, Any]], *, may_link: Callable[[Event], bool] | None = None
    ) -> list[RecordResult]:
        """Append many events in one transaction (the bulk path: COPY for large batches).

        Every item is validated first; one bad item raises :class:`InvalidInput` naming its index and field,
        and nothing of the batch is written. Items may carry ``states`` (a list of state dicts whose evidence
        is that event) and ``links`` ({label: event id}).

        ``may_link``: which stored events the writer may point ``supersedes`` and ``links`` at (a server's
        caller: those it may read); any other is reported as missing, with the error a missing one gets, so a
        link never tells whether an event exists where the writer cannot look. ``None``: every event.
        """
        listed = list(items)
        if may_link is not None:  # carried with each item (a group commit writes several callers' items)
            listed = [{**item, _MAY_LINK: may_link} for item in listed]
        with _bulk(len(listed)):
            prepared: list[tuple[Event | None, Mapping[str, Any]]] = []
            for start in range(0, len(listed), EXTRACT_TURN):
                part = listed[start : start + EXTRACT_TURN]
                with self.extractor.batch() if any(map(self._extracts, part)) else nullcontext():
                    for index, item in enumerate(part, start):
                        try:
                            prepared.append(self._prepared(item))
                        except GraphmemError as exc:
                            if len(listed) == 1:
                                raise
                            raise _at_index(exc, index) from exc
            return self._events_writer.submit(prepared)

    def _prepared(self, item: Mapping[str, Any]) -> tuple[Event | None, Mapping[str, Any]]:
        """The item validated into its event (None: its privacy tags drop it), its text's extraction added."""
        event = self._prepare_event(item)
        if event is not None and self._extracts(item) and event.content.strip():
            read = self.extractor.extract(event.content, event.occurred_at, tz=self.tz, speaker=event.speaker)
            item = {**item, "_extraction": read}
        return event, item

    def _extracts(self, item: Mapping[str, Any]) -> bool:
        """Whether the item's text is read for entities, times and statements (its ``extract``, else memory's)."""
        wanted = item.get("extract")
        return bool(self.extract if wanted is None else wanted)

    def held(self, items: Iterable[Mapping[str, Any]]) -> list[bool | None]:
        """For each event ``record`` would write from an item: whether memory holds it (``None``: its privacy
        tags drop it). Reads only; an importer's ``--verify`` uses it."""
        events: list[Event | None] = []
        for index, item in enumerate(items):
            try:
                events.append(self._prepare_event(item))
            except GraphmemError as exc:
                raise _at_index(exc, index) from exc
        events = self._own_ids(events, read=True)
        stored = self.store.existing_event_ids([e.id for e in events if e is not None])
        return [None if e is None else e.id in stored for e in events]

    def _own_ids(self, events: list[Event | None], *, read: bool) -> list[Event | None]:
        """``events`` with ids of their own where one has the id of an event of the other visibility, written
        before it in the list or (``read``) stored: a public note with the dedupe key and text of a private
        one in its scope is no replay of it (it would not be stored, and its writer would learn of the
        private one). Its id is its first one, made its own by its visibility: a replay of it gets it too."""
        first: dict[str, Visibility] = {}
        for e in events:
            if e is not None:
                first.setdefault(e.id, e.visibility)
        if read:
            held = self.store.existing_event_ids(first)
            if held:
                first.update((e.id, e.visibility) for e in self.store.events(sorted(held)))
        return [e if e is None or first[e.id] == e.visibility
                else e.model_copy(update={"id": make_id("ev", e.id, e.visibility.value)}) for e in events]

    def _write_prepared(self, prepared: list[tuple[Event | None, Mapping[str, Any]]]) -> list[RecordResult]:
        with self.store.write_lock():
            try:  # optimistic: a fresh batch needs no existence read; a replayed event fails its primary key
                return self._write_events(prepared, check_existing=False)
            except DuplicateKey:
                return self._write_events(prepared, check_existing=True)

    def _prepare_event(self, item: Mapping[str, Any]) -> Event | None:
        unknown = set(item) - _RECORD_FIELDS - ({_MAY_LINK} if callable(item.get(_MAY_LINK)) else set())
        if unknown:
            raise UnknownField(sorted(unknown)[0], _RECORD_FIELDS, synonyms=_RECORD_SYNONYMS)
        occurred = self._optional_time(item.get("occurred_at"), "occurred_at")
        occurred_end = self._optional_time(item.get("occurred_end"), "occurred_end")
        privacy_tags = tuple(item.get("privacy") or ())
        draft = _validated(
            EventDraft,
            {
                k: v for k, v in item.items()
                if k not in ("occurred_at", "occurred_end", "links", "states", "extract", _MAY_LINK)
                and v is not None
            }
            | {"occurred_at": occurred or TimePoint(at=self._clock())}
            | ({"occurred_end": occurred_end} if occurred_end else {})
            | ({"source": Source()} if item.get("source") is None else {}),
        )
        if draft.occurred_end is not None and draft.occurred_end.at < draft.occurred_at.at:
            raise InvalidInput("occurred_end is before occurred_at; swap them or leave it out", field="occurred_end")
        self.ontology.check_kind(draft.kind)
        for tag in privacy_tags:
            if self.ontology.privacy_action(tag) is None:
                raise InvalidInput(
                    f"unknown privacy tag {tag!r}; known: {', '.join(sorted(self.ontology.privacy_tags))}",
                    field="privacy",
                )
        decision = guard(draft.content, privacy_tags, self.privacy, self.ontology)
        if not decision.store:
            return None
        content_hash = hashlib.sha256(decision.content.encode()).hexdigest()
        return Event.model_construct(
            **{
                **draft.__dict__,  # its fields as validated (dict(draft) walks them one by one: ~9 us an event)
                "content": decision.content,
                "id": _event_id(draft, content_hash, timed=occurred is not None),
                "recorded_at": dt.datetime.min.replace(tzinfo=UTC),
                "content_hash": content_hash,
                "redactions": decision.redactions,
            }
        )

    def _write_events(
        self, prepared: list[tuple[Event | None, Mapping[str, Any]]], *, check_existing: bool
    ) -> list[RecordResult]:
        """Write the prepared events; raises DuplicateKey when ``check_existing`` is off and one is stored."""
        self._writes += 1
        if self._writes == READ_KEYS_AFTER and not self._keys_read:
            self._read_keys()
        events = self._own_ids([e for e, _ in prepared], read=check_existing)
        prepared = [(event, item) for event, (_, item) in zip(events, prepared, strict=True)]
        ids = [e.id for e in events if e is not None]
        existing = self.store.existing_event_ids(ids) if check_existing else set()
        now = self.now()
        batch = WriteBatch()
        entities = _EntityCache(self, batch, now)
        checked_threads: set[str] = set()
        if len(prepared) > 1:
            entities.prefetch(n for e, _ in prepared if e is not None for n in e.entities)
            checked_threads = self._prefetch_threads(_thread_of(e) for e, _ in prepared if e is not None)
        results: list[RecordResult] = []
        seen: set[str] = set()
        state_requests: list[tuple[StateInput, Extraction | None]] = []
        for event, item in prepared:
            if event is None:
                results.append(RecordResult(id=None, status="dropped"))
                continue
            if event.id in existing or event.id in seen:
                results.append(RecordResult(id=event.id, status="duplicate"))
                continue
            seen.add(event.id)
            event = event.model_copy(update={"recorded_at": now})
            batch.events.append(event)
            self._event_edges(event, item, batch, entities, (seen, existing), now, checked_threads)
            stated = [_state_input(raw, event.id) for raw in item.get("states") or ()]
            extraction: Extraction | None = item.get("_extraction")
            if extraction is not None:  # what the text says beyond what the event states outright, once
                claims = {_claim(s) for s in stated}
                outright = [*claims]
                for s in _extracted_states(extraction, event, self.tz):
                    if (claim := _claim(s)) not in claims and not any(map(claim.restates, outright)):
                        claims.add(claim)
                        stated.append(s)
            state_requests.extend((s, extraction) for s in stated)
            if extraction is not None:
                about = next((t.interval for t in extraction.times if t.interval.start is not None), None)
                if about is not None:  # "yesterday I went ...": the day it talks about, found in recall by it
                    batch.new_annotations.append(Annotation(event_id=event.id, recorded_at=now, about=about,
                                                            about_confidence=ABOUT_FROM_TEXT))
            results.append(RecordResult(id=event.id, status="created", event=event, extraction=extraction))
        if state_requests:
            planned = self._plan_states([s for s, _ in state_requests], batch, entities, now,
                                        known_events=seen)
            made = {s.id for s in batch.new_states}
            for (_, extraction), state in zip(state_requests, planned, strict=True):
                if state is not None and state.kind == "opinion" and state.id in made:  # as hold_opinion's
                    named = _named_in(state.object, extraction) if extraction is not None else None
                    self._add_about(state, batch, entities, now, named)
        try:
            self.store.write(batch)
        except GraphmemError:
            self._known_threads.difference_update(t.key for t in batch.threads)
            raise
        entities.committed()
        self._index_batch(batch, now)
        if self._extractor is not None and batch.entities:
            self._extractor.add_known((e.name, e.type) for e in batch.entities)
        return results

    def _event_indexables(self, events: Sequence[Event], mentions: Mapping[str, Sequence[str]],
                          about: Mapping[str, Interval | None]) -> list[Indexable]:
        """What the search index keeps of ``events``, given the ids of the entities each mentions."""
        key_of = {n: name_key(n) for e in events for n in e.entities}  # (a name once, however many name it)
        keys = set(key_of.values())
        resolved = {k: i for k in keys if (i := self._entity_ids.get(k)) is not None}  # this write's names are here
        if len(resolved) < len(keys):
            resolved.update(self.store.entity_ids_for_keys(keys - set(resolved)))
        return [
            Indexable(id=e.id, type="event", text=e.content, time=e.occurred_at.at, kind=e.kind, scope=e.scope,
                      private=e.visibility is Visibility.PRIVATE, thread=e.thread, recorded_at=e.recorded_at,
                      entities=tuple(mentions.get(e.id, ())), about=_bounds(about.get(e.id)),
                      subjects=declared_subjects(e.entities, resolved, mentions.get(e.id, ()), key_of.__getitem__))
            for e in events
        ]

    def _index_batch(self, batch: WriteBatch, now: dt.datetime) -> None:
        """Make what ``batch`` committed findable by recall (called after the commit)."""
        self._track_tasks(batch)
        new_places = {e.id for e in batch.entities if e.type == "place"}
        if new_places or batch.merges or batch.entity_updates:
            with self._places_lock:
                self._place_writes += 1
                if batch.merges or batch.entity_updates:
                    self._place_ids = None
                elif self._place_ids is not None:
                    self._place_ids |= new_places
        mentions: dict[str, list[str]] = {}
        for event_id, entity_id in batch.mentions:
            mentions.setdefault(event_id, []).append(entity_id)
        about = {a.event_id: a.about for a in batch.new_annotations}
        items = self._event_indexables(batch.events, mentions, about)
        new = {e.id for e in batch.events}
        items.extend(_state_indexable(s) for s in batch.new_states)
        with self.index.changing():  # a save holds all of this write or none of it (see _catch_up)
            self.index.mention((e, n) for e, n in batch.mentions if e not in new)  # a plan named them for old events
            self.index.add(items, at=now)
            for a in batch.annotations:  # a write plan said what period an event talks about
                self.index.set_about(a.event_id, _bounds(a.about))
            self._index_periods(batch.state_versions)
            if batch.retractions:
                self.index.remove(s.id for s in batch.retractions)
        self.index.keep_up()  # (outside changing(): see SearchIndex.keep_up)

    def _index_periods(self, versions: Iterable[State]) -> None:
        """States a write closed, superseded or marked done held until then (recall's ``time`` part)."""
        for v in versions:
            self.index.set_about(v.id, _bounds(v.valid))

    def _prefetch_threads(self, keys: Iterable[str | None]) -> set[str]:
        """Look up many thread keys at once; returns the keys checked (stored ones become known)."""
        unknown = {k for k in keys if k} - self._known_threads
        if unknown:
            self._known_threads.update(self.store.known_thread_keys(unknown))
        return unknown

    def _event_edges(
        self, event: Event, item: Mapping[str, Any], batch: WriteBatch, entities: _EntityCache,
        known: tuple[set[str], set[str]], now: dt.datetime, checked_threads: set[str],
    ) -> None:
        thread = _thread_of(event)
        if thread:
            if thread not in self._known_threads and (
                thread in checked_threads or not self.store.known_thread_keys([thread])
            ):
                batch.threads.append(Thread(key=thread, created_at=now))
            self._known_threads.add(thread)  # pending in this batch, or stored
            batch.in_thread.append((event.id, thread))
        extraction: Extraction | None = item.get("_extraction")
        # (first: "Pete" below is then Peter Smith). Entities are shared: only a public event of the shared
        # scope names them so, as only a writer of that scope may add_alias (a private note's other name
        # would show on every reader's page)
        shared = event.scope == "global" and event.visibility is not Visibility.PRIVATE
        for said in extraction.aliases if extraction and shared else ():
            entities.alias(said.name, said.alias, said.type)
        for name in event.entities:
            batch.mentions.append((event.id, entities.resolve(name, None, field="entities")))
        for mention in extraction.entities if extraction else ():
            batch.mentions.append((event.id, entities.resolve(mention.name, mention.type, field="content")))
        targets: list[tuple[str, str]] = []
        if event.supersedes:
            targets.append(("supersedes", event.supersedes))
        for label, to in (item.get("links") or {}).items():
            self.ontology.check_link_label(label, field="links")
            targets.extend((label, t) for t in ([to] if isinstance(to, str) else to))
        if targets:
            wanted = {t for _, t in targets} - known[0] - known[1]
            missing = wanted - self.store.existing_event_ids(wanted)
            may_link: Callable[[Event], bool] | None = item.get(_MAY_LINK)
            if may_link is not None and wanted - missing:  # stored, but not the writer's to point at
                missing |= {e.id for e in self.store.events(sorted(wanted - missing)) if not may_link(e)}
            if missing:
                field = "supersedes" if event.supersedes in missing else "links"
                raise NotFound("event", sorted(missing)[0], field=field, hint="link only to recorded events")
            batch.links.extend((event.id, t, label) for label, t in targets)

    # -- states -----------------------------------------------------------------------------------------

    def assert_state(
        self,
        subject: str,
        predicate: str,
        object: str,
        *,
        valid_from: object = None,
        valid_to: object = None,
        evidence: Sequence[str] = (),
        confidence: object = 1.0,
        text: str | None = None,
        scope: str = "global",
        private: bool = False,
        holder: str | None = None,
        reason: str = "asserted",
        subject_type: str | None = None,
        object_type: str | None = None,
        witnessed: bool = False,
    ) -> State:
        """Assert that ``subject predicate object`` holds from ``valid_from`` (open when ``None``).

        For a single-valued predicate the previous value is closed at the new start, and a late-arriving
        older value is fitted into the timeline; restating what already holds confirms it. ``witnessed``:
        ``valid_from`` to ``valid_to`` is a period it was seen to hold in ("worked at Acme in 2019"), so what
        holds then with its value is confirmed, not ended.
        """
        request = StateInput(
            subject=subject, predicate=predicate, object=object, valid_from=valid_from, valid_to=valid_to,
            evidence=tuple(evidence), confidence=confidence, text=text, scope=scope, private=private,
            holder=holder, reason=reason, subject_type=subject_type, object_type=object_type,
            witnessed=witnessed,
        )
        return self.assert_states([request])[0]

    def assert_states(self, requests: Sequence[StateInput]) -> list[State]:
        """Assert many states in one transaction; the result is the state each request ended on."""
        with self.store.write_lock(), _bulk(len(requests)):
            now = self.now()
            batch = WriteBatch()
            entities = _EntityCache(self, batch, now)
            planned = self._plan_states(requests, batch, entities, now, known_events=set())
            missing = [i for i, state in enumerate(planned) if state is None]
            if missing:
                raise InvalidInput(f"item {missing[0]}: no open state matches this close; nothing to end",
                                   field=f"[{missing[0]}].object")
            self._commit(batch, entities, now)
        return [state for state in planned if state is not None]

    def _plan_states(
        self, requests: Sequence[StateInput], batch: WriteBatch, entities: _EntityCache, now: dt.datetime,
        *, known_events: set[str],
    ) -> list[State | None]:
        evidence_ids = {e for r in requests for e in r.evidence}
        missing = evidence_ids - known_events - self.store.existing_event_ids(evidence_ids - known_events)
        if missing:
            raise NotFound("event", sorted(missing)[0], field="evidence", hint="record the event first")
        if len(requests) > 1:
            entities.prefetch([n for r in requests for n in (r.subject, str(r.object or ""))], typed=True)
        # a timeline is a subject's predicate in one scope, public or private (see _timeline): a write never
        # ends, confirms or reorders a state of another scope (an agent's own, a project's) or of the other
        # visibility, whose readers may not see why, and which the writer may not be allowed to read
        groups: dict[_Timeline, list[tuple[int, State, Sequence[str], str]]] = {}
        closes: list[tuple[int, State, StateInput]] = []
        made = _StateIds()
        for index, request in enumerate(requests):
            if request.action in ("close", "done"):
                closes.append((index, self._new_state(replace(request, valid_to=None), entities, now), request))
                continue
            state = self._new_state(request, entities, now, made)
            groups.setdefault(_timeline(state), []).append((index, state, request.evidence, request.reason))
        results: dict[int, State] = {}
        closed = Counter(_timeline(s) for _, s, _ in closes)
        # of each timeline only what the write can touch is read: of a single-valued one, the part around
        # the new starts (see temporal.bearing_on); a multi-valued one's states never bound one another, so a
        # new one meets only those with its object. A close alone on its timeline reads the states with its
        # object, then (single-valued) the part around the one it ends; one beside others reads it all, as
        # the write's asserts and closes before it leave it.
        alone = {t for t, n in closed.items() if n == 1 and t not in groups}
        reads = [t for t in {*groups, *closed} if t[0] not in entities.created]
        # (what they end: read whole; an opinion's too, its claim said again in other words)
        unnamed = {_timeline(s) for _, s, r in closes if r.unnamed or self._reworded(s)}
        queries = []
        for timeline in reads:
            if timeline in alone and timeline not in unnamed:
                probes = [s for _, s, _ in closes if _timeline(s) == timeline]
                keys = {object_key(s.object_id, s.object) for s in probes}
                queries.append(TimelineQuery(*timeline, object_keys=keys))
            elif timeline in closed:
                queries.append(TimelineQuery(*timeline))
            else:
                new = [s for _, s, _, _ in groups[timeline]]
                keys = {object_key(s.object_id, s.object) for s in new}
                queries.append(TimelineQuery(*timeline, near=[s.valid.start for s in new], stated_before=now)
                               if self.ontology.predicate(timeline[1]).single_valued else
                               TimelineQuery(*timeline, object_keys=keys))
        # a close of a tie both have ends it as said from either side: "Tom broke up with Anna" ends Anna's
        # "dating Tom" when that is how memory holds it
        flipped = {index: from_the_other_side(probe) for index, probe, request in closes
                   if probe.predicate in self.ontology.mutual_predicates and probe.object_id
                   and not request.unnamed}
        for side in flipped.values():
            line = _timeline(side)
            if line not in reads and line[0] not in entities.created:
                reads.append(line)
                queries.append(TimelineQuery(*line, object_keys={object_key(side.object_id, side.object)}))
        existing: dict[_Timeline, list[State]] = dict(zip(reads, self.store.timelines(queries), strict=True))
        plans: list[Plan] = []
        witnessed = {s.id for items in groups.values() for index, s, _, _ in items if requests[index].witnessed}
        for timeline, items in groups.items():
            current = existing.get(timeline, [])
            requested = [(s, e, r) for _, s, e, r in items]
            plan = plan_assert(current, requested, self.ontology.predicate(timeline[1]), now,
                               witnessed=witnessed)
            plans.append(plan)
            for (index, *_), state in zip(items, plan.results, strict=True):
                results[index] = state
            if closes:  # a close sees the timeline as the write's asserts left it ("joined in March. Left in May.")
                existing[timeline] = _after_plan(current, plan)
        # a close said in words that fit two ties ("Tom and I split up": a marriage or a dating) comes as a
        # close of each; the one that finds no tie states none held before it when the other ended one then
        ties_of: dict[frozenset[str], set[str]] = {}
        for _, probe, _ in closes:
            if probe.object_id:
                ties_of.setdefault(frozenset((probe.subject_id, probe.object_id)), set()).add(probe.predicate)
        ended: set[tuple[frozenset[str], dt.datetime]] = set()  # (the two, when) of each tie a close ended
        held_later: list[tuple[int, State, StateInput, TimePoint]] = []
        for index, probe, request in closes:
            end = self._optional_time(request.valid_to, "valid_to")
            current = existing.get(_timeline(probe), [])
            target = _state_to_close(current, probe, end, any_object=request.unnamed,
                                     reworded=self._reworded(probe))
            other = flipped.get(index)
            if target is None and other is not None:
                theirs = existing.get(_timeline(other), [])
                target = _state_to_close(theirs, other, end)
                if target is not None:
                    probe, current = other, theirs
                elif end is not None and _held_before(theirs, other, end):
                    continue  # (ended so from the other side already: said again)
            elif target is None and request.unnamed and end is not None and \
                    probe.predicate in self.ontology.mutual_predicates and \
                    (told := self._tie_told_of(probe, end, entities)) is not None:
                probe = target = told  # ("I got divorced" where memory holds "Tom married Maria")
                current = self._around(told)
            if target is None and end is not None and request.held_before and \
                    not _held_before(current, probe, end):
                if len(ties_of.get(frozenset((probe.subject_id, probe.object_id or "")), ())) > 1:
                    held_later.append((index, probe, request, end))  # (once the other close is made)
                    continue
                plan = self._plan_held_before(probe, end, current, entities, now, made, request)
                plans.append(plan)
                results[index] = plan.results[0]
                existing[_timeline(probe)] = _after_plan(current, plan)
                continue
            if target is None or end is None:
                continue  # nothing stated holds that this could end
            if target.object_id:
                ended.add((frozenset((target.subject_id, target.object_id)), end.at))
            if (_timeline(probe) in alone or probe is other) and \
                    self.ontology.predicate(probe.predicate).single_valued:
                current = self._around(target)
            plan = plan_close(current, target.id, end, self.ontology.predicate(probe.predicate), now,
                              request.reason, request.evidence, done=request.action == "done")
            plans.append(plan)
            results[index] = plan.results[0]
            existing[_timeline(probe)] = _after_plan(current, plan)  # (a second close sees it)
        for index, probe, request, end in held_later:
            current = existing.get(_timeline(probe), [])
            if (frozenset((probe.subject_id, probe.object_id or "")), end.at) in ended or \
                    _held_before(current, probe, end):
                continue
            plan = self._plan_held_before(probe, end, current, entities, now, made, request)
            plans.append(plan)
            results[index] = plan.results[0]
            existing[_timeline(probe)] = _after_plan(current, plan)
        self._add_plans(plans, batch, now)
        return [results.get(i) for i in range(len(requests))]

    def _tie_told_of(self, probe: State, end: TimePoint, entities: _EntityCache) -> State | None:
        """The mutual tie of ``probe``'s predicate that another holds with its subject, live at ``end``, on a
        timeline of ``probe``'s kind (the latest such): whom an unnamed close ends, said of the other side."""
        if probe.subject_id in entities.created or \
                probe.subject_id not in self.store.objects_of(self.ontology.mutual_predicates):
            return None
        told = self.store.states(StateQuery(object_id=probe.subject_id, predicate=probe.predicate,
                                            scopes=[probe.scope], include_private=True))
        return _state_to_close([s for s in told if _kind(s) == _kind(probe)], probe, end, any_object=True)

    def _reworded(self, state: State) -> bool:
        """Whether a close of ``state`` ends a value said in more or fewer words (an opinion's claim: "no
        longer thinks the launch will slip" ends "thinks the launch will slip to March"; a task: "Done: book
        the venue" ends "book the venue for the offsite")."""
        kind = self.ontology.predicate(state.predicate).kind
        return kind in ("opinion", "task") and state.object_id is None

    def _plan_held_before(self, probe: State, end: TimePoint, current: list[State], entities: _EntityCache,
                          now: dt.datetime, made: _StateIds, request: StateInput) -> Plan:
        """The value of a close that ends nothing held, stated as holding until ``end`` (see
        ``StateInput.held_before``). A single-valued timeline read only for the close's object is read around
        the new state too: it may bound others."""
        state = self._new_state(replace(request, valid_from=None, valid_to=end), entities, now, made)
        predicate = self.ontology.predicate(probe.predicate)
        timeline = _timeline(probe)
        if predicate.single_valued and timeline[0] not in entities.created:
            query = TimelineQuery(*timeline, near=[state.valid.start], stated_before=now)
            read = self.store.timelines([query])[0]
            held = {s.id for s in current}
            current = current + [s for s in read if s.id not in held]
        return plan_assert(current, [(state, request.evidence, request.reason)], predicate, now)

    def _new_state(self, r: StateInput, entities: _EntityCache, now: dt.datetime,
                   made: _StateIds | None = None) -> State:
        """The state ``r`` asks for, new (``made``: the ids of the write's states made before it)."""
        predicate = self.ontology.predicate(r.predicate)
        if not r.subject or not r.subject.strip():
            raise InvalidInput("subject is missing; name the entity the state is about", field="subject")
        if r.action not in ("assert", "close", "done"):
            raise InvalidInput(f"action {r.action!r} is not one of assert, close, done (done marks a task "
                               "done)", field="action")
        if r.action == "done" and predicate.kind != "task":
            raise InvalidInput(f"action done marks a task done; {predicate.name!r} holds a {predicate.kind}, "
                               "not a task: close it instead", field="action")
        if r.unnamed and r.action != "close":
            raise InvalidInput("unnamed: only a close may leave its object out; give the object, or set "
                               "action to close", field="unnamed")
        if r.unnamed and not predicate.single_valued:
            raise InvalidInput(f"unnamed: {predicate.name!r} holds many values at once; name the one that "
                               "ends", field="unnamed")
        if (r.object is None or not str(r.object).strip()) and not r.unnamed:
            raise InvalidInput("object is missing; give the value or entity the state points at", field="object")
        valid = _validated(
            Interval,
            {"start": self._optional_time(r.valid_from, "valid_from"),
             "end": self._optional_time(r.valid_to, "valid_to")},
        )
        if valid.start is not None and valid.end is not None and valid.end.at == valid.start.at:
            raise InvalidInput("valid_to equals valid_from: the state would never hold; widen it", field="valid_to")
        if r.witnessed and (r.action != "assert" or valid.start is None or valid.end is None):
            raise InvalidInput("witnessed: only an assert with valid_from and valid_to is seen in a period; "
                               "give both, or leave witnessed out", field="witnessed")
        subject_type = r.subject_type or (predicate.subject_types[0] if predicate.subject_types else None)
        subject_id = entities.resolve(r.subject, subject_type, field="subject")
        object_id = None
        object_text = str(r.object or "").strip()
        if predicate.object == "entity" and not r.unnamed:
            object_type = r.object_type or (predicate.object_types[0] if predicate.object_types else None)
            object_id = entities.resolve(object_text, object_type, field="object")
            object_text = entities.name(object_id)
        try:
            confidence = confidence_value(r.confidence)
            check_scope(r.scope)
        except ValueError as exc:
            field = "confidence" if "confidence" in str(exc) else "scope"
            raise InvalidInput(f"{field}: {exc}", field=field) from None
        subject_name = entities.name(subject_id)
        parts = (subject_id, predicate.name, object_id or object_text.casefold(),
                 valid.start.at.isoformat() if valid.start else "open", now.isoformat())
        return State(
            id=made.id_for(parts) if made is not None else make_id("st", *parts),
            kind=predicate.kind, subject_id=subject_id, subject=subject_name, predicate=predicate.name,
            object_id=object_id, object=object_text,
            text=r.text or f"{subject_name} {predicate.name.replace('_', ' ')} {object_text}",
            valid=Interval(start=valid.start, end=None), stated_end=valid.end, recorded_at=now, created_at=now,
            confidence=confidence, scope=r.scope,
            visibility=Visibility.PRIVATE if r.private else Visibility.NORMAL, holder=r.holder,
            payload=dict(r.payload or {}),
        )

    def _add_plan(self, plan: Plan, batch: WriteBatch, now: dt.datetime) -> None:
        self._add_plans([plan], batch, now)

    def _add_plans(self, plans: Sequence[Plan], batch: WriteBatch, now: dt.datetime) -> None:
        """Add what ``plans`` write to ``batch``, in order (the mentions their evidence adds are checked
        against the batch's once for them all: a bulk write holds thousands)."""
        wanted: list[tuple[str, str]] = []  # evidence events mention what their states are about
        for plan in plans:
            batch.new_states.extend(plan.new_states)
            batch.state_versions.extend(plan.versions)
            batch.retractions.extend(plan.retractions)
            batch.confirmations.extend(plan.confirmations)
            batch.revisions.extend(_in_write_order(plan.revisions, len(batch.revisions)))
            batch.supersedes.extend(plan.supersedes)
            subjects = {s.id: s for s in (*plan.new_states, *plan.versions, *plan.retractions, *plan.results)}
            targets = [(t, EvidenceStance.SUPPORTS) for t in plan.evidence_targets]
            targets += [(t, EvidenceStance.CONTRADICTS) for t in plan.contradicting]
            for (state_id, events), stance in targets:
                for event_id in dict.fromkeys(events):  # (an event named twice is one piece of evidence)
                    batch.evidence.append((event_id, state_id, stance, now))
                    state = subjects.get(state_id)
                    if state is not None and plan.mention:
                        wanted.extend((event_id, e) for e in (state.subject_id, state.object_id) if e)
        if wanted:
            have = set(batch.mentions)
            new_events = {e.id for e in batch.events}
            stored = sorted({e for e, _ in wanted if e not in new_events})
            if stored:
                have |= {(e, n) for e, found in self.store.mentions(stored).items() for n in found}
            batch.mentions.extend(m for m in dict.fromkeys(wanted) if m not in have)

    def _timeline_of(self, state_id: str, read: str) -> tuple[State, list[State]]:
        """The state, and of the current states of its subject and predicate those ``read`` names: "all",
        "around" it (what ending or retracting it meets: see plan_close), or "none"."""
        found = self.store.states_by_id([state_id])
        if not found:
            raise NotFound("state", state_id, field="state_id", hint="list ids with mem.timeline(subject=...)")
        state = found[0]
        if read == "none":
            return state, []
        if read == "around":
            if not self.ontology.predicate(state.predicate).single_valued:
                return state, [state]
            return state, self._around(state)
        return state, _Timelines(self.store).get(_timeline(state))

    def _around(self, state: State) -> list[State]:
        """The current states of ``state``'s single-valued timeline that ending or retracting it meets: those
        around its start (see temporal.bearing_on)."""
        return self.store.timelines([TimelineQuery(*_timeline(state), near=[state.valid.start])])[0]

    def _update(self, build: Callable[[State, list[State], dt.datetime], Plan], state_id: str,
                evidence: Sequence[str], *, timeline: str = "all") -> State:
        """One update of a state, planned by ``build`` from the state and the current states of its subject
        and predicate that the update can change or meet (``timeline``: see _timeline_of)."""
        with self.store.write_lock():
            missing = set(evidence) - self.store.existing_event_ids(evidence)
            if missing:
                raise NotFound("event", sorted(missing)[0], field="evidence", hint="record the event first")
            state, current = self._timeline_of(state_id, timeline)
            now = self.now()
            plan = build(state, current, now)
            batch = WriteBatch()
            self._add_plan(plan, batch, now)
            self.store.write(batch)
            self._index_batch(batch, now)
        return plan.results[0]

    def close_state(
        self, state_id: str, *, valid_to: object, reason: str = "closed", evidence: Sequence[str] = ()
    ) -> State:
        """End a state at ``valid_to`` ("left Acme in March"); the state and its history stay."""
        end = self.parse_time(valid_to, "valid_to")
        return self._update(
            lambda s, cur, now: plan_close(cur, state_id, end, self.ontology.predicate(s.predicate), now, reason,
                                           evidence),
            state_id, evidence, timeline="around",
        )

    def mark_done(self, state_id: str, *, at: object = None, reason: str = "done",
                  evidence: Sequence[str] = ()) -> State:
        """Mark a task done at ``at`` (now by default); a state of another kind is refused (close it)."""
        end = self.parse_time(at, "at") if at is not None else TimePoint(at=self._clock())

        def build(s: State, cur: list[State], now: dt.datetime) -> Plan:
            predicate = self.ontology.predicate(s.predicate)
            if predicate.kind != "task":
                raise InvalidInput(f"{state_id} is a {predicate.kind} ({predicate.name}), not a task: only a "
                                   "task is marked done; close it instead", field="state_id")
            return plan_close(cur, state_id, end, predicate, now, reason, evidence, done=True)

        return self._update(build, state_id, evidence, timeline="around")

    def retract_state(self, state_id: str, *, reason: str, evidence: Sequence[str] = ()) -> State:
        """Withdraw a state: memory stops believing it from now on; what it had closed reopens."""
        if not reason or not reason.strip():
            raise InvalidInput("reason is required to retract a state; say why it was wrong", field="reason")
        return self._update(
            lambda s, cur, now: plan_retract(cur, state_id, self.ontology.predicate(s.predicate), now, reason,
                                             evidence),
            state_id, evidence, timeline="around",
        )

    def confirm_state(self, state_id: str, *, evidence: Sequence[str] = (), reason: str = "confirmed") -> State:
        """Record that a state was seen to hold again (``last_confirmed_at``, a ``confirm`` revision and its
        evidence). A retracted state, or a revoked preference, cannot be confirmed: assert it again."""
        return self._update(lambda state, _, now: plan_confirm(state, now, reason, evidence), state_id,
                            evidence, timeline="none")

    def define_predicate(
        self,
        name: str,
        *,
        cardinality: Literal["one", "many"],
        kind: str = "fact",
        object: Literal["entity", "literal"] = "entity",
        subject_types: Sequence[str] = (),
        object_types: Sequence[str] = (),
        inverse: str | None = None,
        synonyms: Sequence[str] = (),
        description: str = "",
    ) -> Predicate:
        """Add a predicate to this memory's vocabulary; it is stored, so it survives reopening."""
        predicate: Predicate = _validated(
            Predicate,
            dict(name=name, cardinality=cardinality, kind=kind, object=object, subject_types=tuple(subject_types),
                 object_types=tuple(object_types), inverse=inverse, synonyms=tuple(synonyms),
                 description=description),
        )
        for t in (*predicate.subject_types, *predicate.object_types):
            self.ontology.check_entity_type(t, field="subject_types")
        extended = self.ontology.with_predicate(predicate)
        self.store.write(WriteBatch(predicates=[(predicate.name, predicate.model_dump_json())]))
        self.ontology = extended
        return predicate

    # -- opinions and preferences -----------------------------------------------------------------------

    def hold_opinion(
        self,
        statement: str,
        *,
        holder: str = "self",
        about: Sequence[str] = (),
        confidence: object = None,
        evidence: Sequence[str] = (),
        valid_from: object = None,
        scope: str = "global",
        private: bool = False,
        reason: str = "formed",
    ) -> Opinion:
        """Form an opinion ``holder believes statement`` about ``about`` (entity names; read from the statement
        when empty). Holding the same statement again weighs each ``evidence`` event as support instead, or,
        when it comes with a ``confidence``, sets the confidence to the one the holder now states.

        >>> mem = Memory.in_memory(extract=False, embedder="none")
        >>> op = mem.hold_opinion("Kuzu is fast enough for us", about=["Kuzu"], confidence=0.6)
        >>> ev = mem.record(content="The 1M benchmark met its target on Kuzu.", kind="experience")
        >>> round(mem.weigh_opinion(op.id, ev.id).after, 2)
        0.68
        """
        with self._writing() as unit:
            state = self._plan_opinion(statement, holder=holder, about=about, confidence=confidence,
                                       evidence=evidence, valid_from=valid_from, scope=scope, private=private,
                                       reason=reason, unit=unit)
        return self.opinion(state.id)

    def _plan_opinion(
        self, statement: str, *, holder: str, about: Sequence[str], confidence: object, evidence: Sequence[str],
        valid_from: object, scope: str, private: bool, reason: str, unit: _Unit,
    ) -> State:
        batch, entities, now, timelines = unit.batch, unit.entities, unit.now, unit.timelines
        if not isinstance(statement, str) or not statement.strip():
            raise InvalidInput("statement is empty; say what is believed", field="statement")
        statement = " ".join(statement.split())
        holder_id = entities.resolve(holder, None, field="holder")
        held = [s for s in timelines.get((holder_id, "believes", scope, private))
                if s.object.casefold() == statement.casefold() and s.valid.end is None
                and s.status is not StateStatus.RETRACTED]
        if held:
            current = held[-1]
            kinds = {e.id: e.kind for e in self._evidence_events(evidence, "evidence")}
            if confidence is not None:
                try:
                    stated = confidence_value(confidence)
                except ValueError as exc:
                    raise InvalidInput(str(exc), field="confidence") from None
                if stated == current.confidence:
                    return current
                plan = plan_restate(current, stated, event_ids=list(evidence), now=now,
                                    reason=f"{reason} (stated again with c={stated:g})")
                self._add_plan(plan, batch, now)
                timelines.apply(plan)
                return plan.results[0]
            for event_id in dict.fromkeys(evidence):  # (an event named twice is one piece of evidence)
                plan = plan_weigh(current, self.ontology.opinions, supports=True, now=now, event_id=event_id,
                                  weight=self.ontology.opinions.weight(kinds[event_id]),
                                  reason=f"{reason} (the opinion was stated again)")
                self._add_plan(plan, batch, now)
                timelines.apply(plan)
                current = plan.results[0]
            return current
        initial = self.ontology.opinions.initial if confidence is None else confidence
        request = StateInput(subject=holder, predicate="believes", object=statement, valid_from=valid_from,
                             evidence=tuple(evidence), confidence=initial, scope=scope, private=private,
                             holder=holder.strip(), reason=reason)
        state = self._plan_states([request], batch, entities, now, known_events=set())[0]
        assert state is not None  # an assertion always ends on a state
        timelines.put(state)
        self._add_about(state, batch, entities, now, [(name, None) for name in about] or None)
        return state

    def _add_about(self, opinion: State, batch: WriteBatch, entities: _EntityCache, now: dt.datetime,
                   named: Sequence[tuple[str, str | None]] | None) -> None:
        """An opinion is about the entities ``named`` (name, type), or, when none are given, those its
        statement names."""
        if named is None:
            found = self.extractor.extract(opinion.object, TimePoint(at=now), tz=self.tz).entities
            named = [(m.name, None) for m in found]
        for name, type_ in named:
            batch.about.append((opinion.id, entities.resolve(name, type_, field="about")))

    def weigh_opinion(
        self,
        opinion_id: str,
        event_id: str,
        *,
        stance: str = "supports",
        strong: bool = False,
        weight: float | None = None,
        reason: str | None = None,
    ) -> ConfidenceChange:
        """Weigh one event as evidence for (``supports``) or against (``contradicts``) an opinion.

        The confidence moves by the ontology's opinion rule; the step (returned: ``before``, ``after``) is a
        revision naming the event. ``mem.opinion(id)`` reads the opinion with its whole history.
        """
        if stance not in ("supports", "contradicts"):
            raise InvalidInput(f"stance must be supports or contradicts, not {stance!r}", field="stance")
        rule = self.ontology.opinions
        if weight is not None and (isinstance(weight, bool) or not 0.0 < float(weight) <= rule.max_weight):
            raise InvalidInput(f"weight must lie in (0, {rule.max_weight}]", field="weight")
        with self.store.write_lock():
            opinion = self._opinion_state(opinion_id)
            found = self._evidence_events([event_id], "event_id")
            now = self.now()
            plan = plan_weigh(
                opinion, rule, supports=stance == "supports", event_id=event_id, now=now,
                weight=float(weight) if weight is not None else rule.weight(found[0].kind, strong=strong),
                reason=reason or f"{found[0].kind} evidence {stance} it",
            )
            batch = WriteBatch()
            self._add_plan(plan, batch, now)
            self.store.write(batch)
        return ConfidenceChange(
            recorded_at=now, happened_at=found[0].occurred_at.at, before=opinion.confidence,
            after=plan.results[0].confidence, action=RevisionAction.REWEIGH.value, reason=plan.revisions[0].reason,
            event_id=event_id, stance=EvidenceStance(stance),
        )

    def _opinion_state(self, opinion_id: str) -> State:
        found = self.store.states_by_id([opinion_id])
        if not found or found[0].kind != "opinion":
            raise NotFound("opinion", opinion_id, field="opinion_id", hint="list them with mem.opinions()")
        if found[0].status is StateStatus.RETRACTED:
            raise InvalidInput(f"opinion {opinion_id!r} is retracted; form a new one", field="opinion_id")
        return found[0]

    def opinion(self, opinion_id: str) -> Opinion:
        """One opinion with its about-entities, evidence and confidence history."""
        state = self.store.states_by_id([opinion_id])
        if not state or state[0].kind != "opinion":
            raise NotFound("opinion", opinion_id, field="opinion_id", hint="list them with mem.opinions()")
        return build_opinions(self.store, attach_evidence(self.store, state))[0]

    def opinions(
        self,
        *,
        about: str | None = None,
        holder: str | None = None,
        min_confidence: float = 0.0,
        as_of: object = None,
        known_at: object = None,
        include_private: bool = False,
        scopes: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[Opinion]:
        """Opinions, most confident first. ``as_of``: those holding then, with the confidence the evidence
        that had happened by then gave (``confidence_at``); ``known_at``: as memory held them at that
        transaction time."""
        if not 0.0 <= min_confidence <= 1.0:
            raise InvalidInput("min_confidence must lie in [0, 1]", field="min_confidence")
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInput(f"limit must be between 1 and {MAX_PAGE}", field="limit")
        known = self.known_at(known_at).known if known_at is not None else None
        subjects: list[str] | None = None
        wanted: set[str] | None = None
        if about is not None:
            wanted = set(self.store.states_about([self.resolve_entity(about, "about")], kinds=["opinion"]))
            subjects = sorted({s.subject_id for s in self.store.states_by_id(sorted(wanted))})
        if holder is not None:
            holder_id = self.resolve_entity(holder, "holder")
            subjects = [holder_id] if subjects is None or holder_id in subjects else []
        if subjects == []:
            return []
        found = self.store.states(StateQuery(subject_ids=subjects, kinds=["opinion"], known_at=known,
                                             include_private=include_private, scopes=scopes))
        found = [s for s in found if wanted is None or s.id in wanted]
        point = self.read_time(as_of, "as_of", edge="end") if as_of is not None else None
        if point is not None:
            found = [s for s in found if holds_at(s.valid.start, s.valid.end, point, self.tz)]
        else:
            found = [s for s in found if s.valid.end is None]
        found = attach_evidence(self.store, found, scopes=scopes, include_private=include_private)
        opinions = build_opinions(self.store, found, scopes=scopes, include_private=include_private)  # (its view)
        if point is not None:
            instant = period_end(point, self.tz) - dt.timedelta(microseconds=1)
            opinions = [replace(o, state=o.state.model_copy(update={"confidence": c}))
                        for o in opinions if (c := o.confidence_at(instant)) is not None]
        opinions = [o for o in opinions if o.confidence >= min_confidence]
        opinions.sort(key=lambda o: (-o.confidence, o.statement, o.id))
        return opinions[:limit]

    def opinions_bearing_on(self, event_id: str, k: int = 5) -> list[tuple[Opinion, float]]:
        """The opinions an event most likely bears on, with a score: shared entities plus how close its words
        are to the statement (the hybrid recall, restricted to opinions)."""
        found = self.store.events([event_id])
        if not found:
            raise NotFound("event", event_id, field="event_id")
        event = found[0]
        mentioned = set(self.store.mentions([event_id]).get(event_id, ()))
        scores: dict[str, float] = {}
        hits = self.recall(event.content[:MAX_QUERY_CHARS], k=min(MAX_RECALL, 4 * k), types=["state"],
                           kinds=["opinion"], include_private=True)
        top = max((h.score for h in hits), default=0.0) or 1.0
        for h in hits:
            scores[h.id] = h.score / top
        about = self.store.about(list(set(scores) | set(self.store.states_about(sorted(mentioned), ["opinion"]))))
        for state_id, entity_ids in about.items():
            if entity_ids and mentioned:
                scores[state_id] = scores.get(state_id, 0.0) + len(mentioned & set(entity_ids)) / len(entity_ids)
        best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: 4 * k]
        live = {s.id: s for s in self.store.states_by_id([i for i, _ in best])
                if s.status is not StateStatus.RETRACTED and s.valid.end is None}
        opinions = {o.id: o for o in build_opinions(self.store, attach_evidence(self.store, list(live.values())))}
        return [(opinions[i], round(score, 4)) for i, score in best if i in opinions][:k]

    def update_preference(
        self,
        op: str,
        subject: str,
        *,
        polarity: str,
        domain: str = "other",
        holder: str = "user",
        evidence: Sequence[str] = (),
        reason: str | None = None,
        note: str | None = None,
        confidence: object = 1.0,
        at: object = None,
    ) -> State:
        """``upsert_candidate``, ``confirm`` or ``revoke`` a like/dislike of ``subject``. Confirming one
        polarity revokes the other for the same subject; revoking closes the preference, keeping its history.

        >>> mem = Memory.in_memory(extract=False, embedder="none")
        >>> _ = mem.update_preference("confirm", "coriander", polarity="like", domain="food")
        >>> mem.update_preference("confirm", "coriander", polarity="dislike", domain="food").predicate
        'dislikes'
        >>> [(p.predicate, p.status.value) for p in mem.preferences(include_revoked=True)]
        [('dislikes', 'active'), ('likes', 'revoked')]
        """
        with self._writing() as unit:
            state = self._plan_preference(op, subject, polarity=polarity, domain=domain, holder=holder,
                                          evidence=evidence, reason=reason, note=note, confidence=confidence,
                                          at=at, unit=unit)
        return self.state(state.id)

    def _plan_preference(
        self, op: str, subject: str, *, polarity: str, domain: str, holder: str, evidence: Sequence[str],
        reason: str | None, note: str | None, confidence: object, at: object, unit: _Unit,
    ) -> State:
        entities, now, timelines = unit.entities, unit.now, unit.timelines
        if op not in PREFERENCE_OPS:
            raise InvalidInput(f"op must be one of {', '.join(PREFERENCE_OPS)}, not {op!r}", field="op")
        if polarity not in POLARITIES:
            raise InvalidInput(f"polarity must be like or dislike, not {polarity!r}", field="polarity")
        self.ontology.check_preference_domain(domain)
        cited = self._evidence_events(evidence, "evidence_event_ids")
        when = self._optional_time(at, "at")
        if when is None and cited:
            when = max((e.occurred_at for e in cited), key=lambda p: p.at)
        when = when or TimePoint(at=now)
        name = "likes" if polarity == "like" else "dislikes"
        other = "dislikes" if polarity == "like" else "likes"
        request = StateInput(subject=holder, predicate=name, object=subject, valid_from=when, evidence=tuple(evidence),
                             confidence=confidence, holder=holder.strip(), reason=reason or op, object_type="concept")
        proposed = self._new_state(request, entities, now).model_copy(update={
            "status": StateStatus.CANDIDATE if op == "upsert_candidate" else StateStatus.ACTIVE,
            "payload": {"domain": domain, **({"note": note} if note else {})},
        })
        plans, result = plan_preference(
            op, proposed, timelines.get(_timeline(proposed)),
            timelines.get((proposed.subject_id, other, *_kind(proposed))),
            self.ontology.predicate(name), self.ontology.predicate(other), now, tuple(evidence), reason or op, when,
        )
        self._add_plans(plans, unit.batch, now)
        for plan in plans:
            timelines.apply(plan)
        return result

    def preferences(
        self,
        holder: str = "user",
        *,
        domain: str | None = None,
        include_candidates: bool = True,
        include_revoked: bool = False,
    ) -> list[State]:
        """A holder's likes and dislikes that hold now (candidates marked by their status)."""
        try:
            holder_id = self.resolve_entity(holder, "holder")
        except NotFound:
            return []
        found = self.store.states(StateQuery(subject_id=holder_id, kinds=["preference"], include_private=True))
        keep = {StateStatus.ACTIVE} | ({StateStatus.CANDIDATE} if include_candidates else set()) | (
            {StateStatus.REVOKED} if include_revoked else set())
        found = [s for s in found if s.status in keep and (domain is None or s.payload.get("domain") == domain)]
        found.sort(key=lambda s: (s.object.casefold(), s.predicate, s.recorded_at))
        return attach_evidence(self.store, found)

    def _evidence_events(self, ids: Sequence[str], field: str) -> list[Event]:
        """The cited events, read once; an id memory does not hold is an error naming ``field``."""
        found = self.store.events(list(dict.fromkeys(ids)))
        missing = set(ids) - {e.id for e in found}
        if missing:
            raise NotFound("event", sorted(missing)[0], field=field, hint="record the event first")
        return found

    @contextmanager
    def _writing(self) -> Iterator[_Unit]:
        """One write: planned into a unit under the write lock, committed when the block ends without error."""
        with self.store.write_lock():
            now = self.now()
            batch = WriteBatch()
            unit = _Unit(batch=batch, entities=_EntityCache(self, batch, now), now=now,
                         timelines=_Timelines(self.store))
            yield unit
            self._commit(batch, unit.entities, now)

    def _commit(self, batch: WriteBatch, entities: _EntityCache, now: dt.datetime) -> None:
        self.store.write(batch)
        entities.committed()
        self._index_batch(batch, now)

    # -- Markdown Retain sections -----------------------------------------------------------------------

    def retain(
        self,
        markdown: str,
        *,
        path: str,
        day: object = None,
        agent_id: str = "unknown",
        holder: str = "self",
        scope: str = "global",
        thread: str | None = None,
        lines: Collection[int] | None = None,
    ) -> RetainResult:
        """Record the bullets of a daily log's ``## Retain`` sections: one event per bullet (source
        ``path#Lnn``, kind from its W/B/O/S prefix, its @mentions as entities, dated ``day`` or the date in
        the file name), and an opinion of ``holder`` for each ``O`` bullet with its ``c``. Reading the same
        log again changes nothing. ``lines``: only the bullets starting on these lines (a reader that already
        holds the others); every bullet is still checked.

        >>> mem = Memory.in_memory(embedder="none")
        >>> log = "## Retain\\n- W @Peter: moved to Marrakesh.\\n- O(c=0.9) @Peter: prefers short replies.\\n"
        >>> result = mem.retain(log, path="memory/2025-11-27.md")
        >>> [e.source.ref for e in mem.get(result.event_ids)], mem.opinions()[0].confidence
        (['memory/2025-11-27.md#L2', 'memory/2025-11-27.md#L3'], 0.9)
        """
        items = parse_retain(markdown)
        if lines is not None:
            items = [i for i in items if i.line in lines]
        if day is None:
            dated = _LOG_DATE.search(Path(path).name)
            if dated is None:
                raise InvalidInput(f"cannot tell the day of {path!r}; name it YYYY-MM-DD.md or pass day",
                                   field="day")
            day = dated.group(0)
        when = self.parse_time(day, "day")
        records = [
            dict(content=f"{', '.join(i.about)}: {i.text}" if i.about else i.text, occurred_at=when, kind=i.kind,
                 entities=i.mentions, source={"system": "markdown", "ref": f"{path}#L{i.line}"}, agent_id=agent_id,
                 scope=scope, thread=thread, confidence=i.confidence if i.confidence is not None else 1.0)
            for i in items
        ]
        results = self.record_many(records) if records else []
        opinions = []
        for item, record, result in zip(items, records, results, strict=True):
            if item.kind == "opinion" and result.status == "created" and result.id is not None:
                opinion = self.hold_opinion(str(record["content"]), holder=holder, about=item.mentions,
                                            confidence=item.confidence, evidence=[result.id], valid_from=when,
                                            scope=scope, reason=f"retained in {path}#L{item.line}")
                opinions.append(opinion.id)
        return RetainResult(results=results, opinion_ids=opinions)

    # -- write plans ------------------------------------------------------------------------------------

    def apply_write_plan(self, event_id: str, plan: Mapping[str, Any] | WritePlan, *,
                         may_see: Callable[[Event | State], bool] | None = None) -> PlanResult:
        """Apply an agent's write plan for one recorded event, all of it in one transaction.

        Every problem of the plan (shape, times, names, unknown events or states) is reported at once, each
        naming its field (``state_updates.1.valid_from_ts``); a plan with any problem writes nothing. A state
        it names by id must be of its event's scope and privacy: a plan, like a write of states, never
        changes another timeline (see ``_timeline``).

        ``may_see``: which stored events and states the writer may name (a server's caller: those it may
        read); any other is reported as missing, with the problem a missing one gets.
        """
        try:
            parsed: WritePlan = plan if isinstance(plan, WritePlan) else _validated(WritePlan, plan)
        except InvalidInput as exc:
            more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
            raise InvalidInput(f"write plan rejected, nothing written: {exc.message}{more}", field=exc.field,
                               problems=exc.problems) from None
        with self._writing() as unit:
            found = self.store.events([event_id])
            if not found:
                raise NotFound("event", event_id, field="event_id", hint="record the event first")
            event = found[0]
            times = self._check_plan(parsed, event, may_see)
            annotation = self._plan_annotation(parsed, event, times, unit)
            threads, links = self._plan_context(parsed, event, unit)
            states = self._plan_state_updates(parsed, event, times, unit)
            preferences = [
                self._plan_preference(p.op, p.subject, polarity=p.polarity, domain=p.domain, holder=p.holder,
                                      evidence=p.evidence_event_ids, reason=p.reason, note=p.note,
                                      confidence=p.confidence, at=None, unit=unit)
                for p in parsed.preference_updates
            ]
        return PlanResult(event_id=event.id, states=states, preferences=preferences, annotation=annotation,
                          threads=threads, links=links)

    def _check_plan(self, plan: WritePlan, event: Event,
                    may_see: Callable[[Event | State], bool] | None) -> dict[str, TimePoint | None]:
        """Every problem the plan has against this memory, raised together; the times it gives, parsed."""
        problems: list[dict[str, str]] = []
        times: dict[str, TimePoint | None] = {}

        def check(field: str, call: Callable[[], object]) -> None:
            try:
                call()
            except GraphmemError as exc:
                problems.append({"field": field, "message": exc.message})

        def time(field: str, value: str | None) -> None:
            if value is not None:
                check(field, lambda: times.__setitem__(field, self.parse_time(value, field)))

        entity_lists: list[tuple[str, list[PlanEntity]]] = []
        if plan.event_annotations is not None:
            ann = plan.event_annotations
            time("event_annotations.about_start_ts", ann.about_start_ts)
            time("event_annotations.about_end_ts", ann.about_end_ts)
            entity_lists.append(("event_annotations.entities", ann.entities))
        evidence: dict[str, str] = {}
        state_ids: dict[str, str] = {}
        for i, su in enumerate(plan.state_updates):
            at = f"state_updates.{i}"
            time(f"{at}.valid_from_ts", su.valid_from_ts)
            time(f"{at}.valid_to_ts", su.valid_to_ts)
            time(f"{at}.last_confirmed_at", su.last_confirmed_at)
            if su.predicate is not None:
                check(f"{at}.predicate", partial(self.ontology.predicate, su.predicate))
            entity_lists.append((f"{at}.entities", su.entities))
            evidence.update({e: f"{at}.evidence_event_ids" for e in su.evidence_event_ids})
            if su.state_id:
                state_ids[su.state_id] = f"{at}.state_id"
        for i, pu in enumerate(plan.preference_updates):
            check(f"preference_updates.{i}.domain", partial(self.ontology.check_preference_domain, pu.domain))
            evidence.update({e: f"preference_updates.{i}.evidence_event_ids" for e in pu.evidence_event_ids})
        for i, link in enumerate(plan.context_updates.links if plan.context_updates else ()):
            check(f"context_updates.links.{i}.label", partial(self.ontology.check_link_label, link.label))
            evidence.setdefault(link.to_event_id, f"context_updates.links.{i}.to_event_id")
        for field, found in entity_lists:
            for j, entity in enumerate(found):
                check(f"{field}.{j}.type", partial(self.ontology.check_entity_type, entity.type))
        others = set(evidence) - {event.id}
        known = ({e.id for e in self.store.events(list(others)) if may_see(e)} if may_see is not None
                 else self.store.existing_event_ids(others)) | {event.id}
        problems += [{"field": f, "message": f"no event has id {e!r}; record it first"}
                     for e, f in evidence.items() if e not in known]
        stored = {s.id: s for s in self.store.states_by_id(list(state_ids)) if may_see is None or may_see(s)}
        for state_id, field in state_ids.items():
            state = stored.get(state_id)
            if state is None:
                problems.append({"field": field, "message": f"no state has id {state_id!r}"})
            elif state.status is StateStatus.RETRACTED:
                problems.append({"field": field, "message": f"state {state_id!r} is retracted"})
            elif _kind(state) != _kind(event):
                kind = "private" if state.visibility is Visibility.PRIVATE else "public"
                problems.append({"field": field, "message": (
                    f"state {state_id!r} is a {kind} state of scope {state.scope!r}; a plan changes only "
                    f"states of its event's scope ({event.scope!r}) and privacy: change it with closeState, "
                    "or in a plan of an event of its own")})
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InvalidInput(f"write plan rejected, nothing written: {problems[0]['field']}: "
                               f"{problems[0]['message']}{more}", field=problems[0]["field"], problems=problems)
        return times

    def _plan_annotation(
        self, plan: WritePlan, event: Event, times: Mapping[str, TimePoint | None], unit: _Unit,
    ) -> Annotation | None:
        batch, entities, now = unit.batch, unit.entities, unit.now
        ann, affect = plan.event_annotations, plan.event_affect
        if ann is None and affect is None:
            return None
        about = None
        if ann is not None:
            start = times.get("event_annotations.about_start_ts") or _year(ann.about_year_start, self.tz)
            end = times.get("event_annotations.about_end_ts") or _year(ann.about_year_end, self.tz, after=True)
            if start is not None or end is not None:
                about = _validated(Interval, {"start": start, "end": end})
            for entity in ann.entities:
                batch.mentions.append((event.id, entities.resolve(entity.name, entity.type, field="entities")))
        vad = affect.moment_affect_score_vad if affect else None
        annotation = Annotation(
            event_id=event.id, recorded_at=now, about=about,
            about_confidence=ann.about_time_confidence if ann else None, life_stage=ann.life_stage if ann else None,
            affect_text=affect.moment_affect_text if affect else None,
            affect_labels=tuple(affect.moment_affect_labels) if affect else (),
            affect=Affect(valence=vad.v, arousal=vad.a, dominance=vad.d) if vad else None,
            affect_confidence=affect.moment_affect_confidence if affect else None,
        )
        batch.annotations.append(annotation)
        return annotation

    def _plan_context(self, plan: WritePlan, event: Event, unit: _Unit) -> tuple[list[str], list[tuple[str, str]]]:
        context = plan.context_updates or ContextUpdates()
        batch = unit.batch
        threads = list(dict.fromkeys(t.thread_key for t in context.threads))
        stored = self.store.known_thread_keys(threads)
        batch.threads.extend(Thread(key=k, created_at=unit.now) for k in threads if k not in stored)
        batch.in_thread.extend((event.id, k) for k in threads)
        links = [(link.label, link.to_event_id) for link in context.links]
        batch.links.extend((event.id, to, label) for label, to in links)
        return threads, links

    def _plan_state_updates(
        self, plan: WritePlan, event: Event, times: Mapping[str, TimePoint | None], unit: _Unit,
    ) -> list[State]:
        """Upserts of new states go through the timeline rules together; updates naming a state follow."""
        batch, entities, now, timelines = unit.batch, unit.entities, unit.now, unit.timelines
        results: dict[int, State] = {}
        requests: list[tuple[int, StateInput]] = []
        self_name = event.agent_id if event.agent_id != "unknown" else "self"
        for i, su in enumerate(plan.state_updates):
            at = f"state_updates.{i}"
            if su.op == "upsert" and not su.state_id:
                requests.append((i, StateInput(
                    subject=su.subject or (su.entities[0].name if su.entities else self_name),
                    predicate=su.predicate or _PLAN_PREDICATES.get(su.kind, "note"),
                    object=su.object or su.body_text, text=su.body_text or None,
                    valid_from=times.get(f"{at}.valid_from_ts") or event.occurred_at,
                    valid_to=times.get(f"{at}.valid_to_ts"), evidence=tuple(su.evidence_event_ids),
                    confidence=su.confidence, scope=event.scope, reason=su.reason, payload=su.payload,
                    private=event.visibility is Visibility.PRIVATE,
                )))
        planned = self._plan_states([r for _, r in requests], batch, entities, now, known_events={event.id})
        for (i, _), state in zip(requests, planned, strict=True):
            assert state is not None  # upserts always end on a state
            results[i] = state
            timelines.put(state)
        for i, su in enumerate(plan.state_updates):
            at = f"state_updates.{i}"
            if i in results:
                continue
            target = self._plan_target(su, at, event, timelines, entities, self_name)
            current = timelines.get(_timeline(target))
            if su.op == "upsert":
                step = plan_revise(target, now, RevisionAction.CONFIRM, su.reason, su.evidence_event_ids,
                                   confidence=su.confidence, payload={**target.payload, **su.payload} or None)
            else:
                kind = self.ontology.predicate(target.predicate).kind
                if su.op == "mark_done" and kind != "task":
                    raise InvalidInput(f"{at}.op: mark_done marks a task done; the state is a {kind} "
                                       f"({target.predicate}): close it instead", field=f"{at}.op")
                end = times.get(f"{at}.valid_to_ts") or event.occurred_at
                if target.valid.start is not None and end.at < target.valid.start.at:
                    raise InvalidInput(f"{at}.valid_to_ts is before the state's valid_from; a state cannot end "
                                       "before it starts", field=f"{at}.valid_to_ts")
                step = plan_close(current, target.id, end, self.ontology.predicate(target.predicate), now,
                                  su.reason, su.evidence_event_ids, done=su.op == "mark_done")
            self._add_plan(step, batch, now)
            timelines.apply(step)
            results[i] = step.results[0]
        for i, su in enumerate(plan.state_updates):
            batch.about.extend((results[i].id, entities.resolve(e.name, e.type, field=f"state_updates.{i}.entities"))
                               for e in su.entities)
        return [results[i] for i in range(len(plan.state_updates))]

    def _plan_target(
        self, su: StateUpdate, at: str, event: Event, timelines: _Timelines, entities: _EntityCache, self_name: str,
    ) -> State:
        """The state a close, mark_done or id-naming upsert acts on: by id, else the live one with its text."""
        if su.state_id:
            stored = self.store.states_by_id([su.state_id])[0]
            return next(s for s in timelines.get(_timeline(stored)) if s.id == stored.id)
        subject_id = entities.resolve(su.subject or (su.entities[0].name if su.entities else self_name), None,
                                      field=f"{at}.subject")
        predicate = su.predicate or _PLAN_PREDICATES.get(su.kind, "note")
        wanted = (su.object or su.body_text).strip().casefold()
        live = [s for s in timelines.get((subject_id, predicate, *_kind(event)))
                if s.valid.end is None and s.status in (StateStatus.ACTIVE, StateStatus.CANDIDATE)
                and (s.object.casefold() == wanted or s.text.casefold() == wanted)]
        if not live:
            raise InvalidInput(f"{at}: no open {predicate} state of {subject_id!r} says {wanted!r}; give its state_id",
                               field=f"{at}.state_id")
        return live[-1]

    def annotation(self, event_id: str) -> Annotation | None:
        """What write plans added to an event (the time it is about, the moment's affect), if anything."""
        return self.store.annotations([event_id]).get(event_id)

    # -- entities ---------------------------------------------------------------------------------------

    def resolve_entity(self, name_or_id: str, field: str = "entity") -> str:
        """The id of the entity called ``name_or_id`` (by id, name or alias)."""
        if not name_or_id or not str(name_or_id).strip():
            raise InvalidInput(f"{field} is empty; give an entity name or id", field=field)
        key = name_key(name_or_id)
        found = self._entity_ids.get(key)
        if found is None and name_or_id in self._known_entity_ids:
            return name_or_id
        if found is None:
            found = self.store.entity_id_for_key(key)
            if found is not None:
                self._entity_ids[key] = found  # names never move to another entity: safe to remember
        if found is None:
            by_id = self.store.entities([name_or_id])
            if by_id and by_id[0].merged_into:
                return by_id[0].merged_into  # an id handed out before its entity was merged
            if by_id:
                found = name_or_id
                self._known_entity_ids.add(found)
        if found is None:
            raise self.unknown_entity(name_or_id, field)
        return found

    def unknown_entity(self, name: str, field: str = "entity",
                       visible: Callable[[str], bool] | None = None) -> NotFound:
        """The error for an entity name memory does not hold (or a caller may not see), suggesting names
        like it (:meth:`entities_like`, of entities ``visible`` accepts the ids of)."""
        return NotFound("entity", name, field=field, hint=UNKNOWN_ENTITY_HINT, checked=visible is not None,
                        suggestions=[(e.id, e.name) for e in self.entities_like(name, visible=visible)])

    def entities_like(self, name: str, limit: int = SUGGESTED_NAMES,
                      visible: Callable[[str], bool] | None = None) -> list[Entity]:
        """Entities whose name or alias is like ``name``, the likest first: near-equal to it ("Petr") or with
        a word that opens with it ("Pete", "Smith" of "Peter Smith"); what a caller may have meant by a name
        memory does not hold. ``visible``: only entities it accepts the ids of (among the likest
        ``LIKE_CANDIDATES`` names). Reads every name key once a call when this process has not read them."""
        keys = dict(self._entity_ids) if self._keys_read else self.store.all_name_keys()
        likest = [keys[key] for key in names_like(name_key(name), list(keys), LIKE_CANDIDATES)]
        found = {e.id: e for e in self.store.entities(likest)}
        merged = [e.merged_into for e in found.values() if e.merged_into]
        kept = {e.id: e for e in self.store.entities(merged)}
        out: dict[str, Entity] = {}
        for entity_id in likest:
            e = found.get(entity_id)
            e = kept.get(e.merged_into) if e is not None and e.merged_into else e  # (as the one it went into)
            if e is not None and e.id not in out and (visible is None or visible(e.id)):
                out[e.id] = e
                if len(out) == limit:
                    break
        return list(out.values())

    def add_alias(self, entity: str, alias: str) -> Entity:
        """Make ``alias`` another name of ``entity``; an alias of a different entity is an error."""
        with self.store.write_lock():
            entity_id = self.resolve_entity(entity)
            key = name_key(alias)
            owner = self.store.entity_id_for_key(key)
            if owner is not None and owner != entity_id:
                raise InvalidInput(f"alias {alias!r} already names entity {owner!r}; merge them instead",
                                   field="alias")
            current = self.store.entities([entity_id])[0]
            if owner is None:
                updated = current.model_copy(update={"aliases": (*current.aliases, alias.strip())})
                self.store.write(WriteBatch(aliases=[(key, entity_id)], entity_updates=[updated]))
                if self._blocks is not None:
                    self._blocks.add(updated, [alias])
                return updated
            return current

    def merge_entities(self, keep: str, merge: str, *, reason: str = "the same entity") -> MergeResult:
        """Make ``merge`` part of ``keep``: two nodes found to be one real thing ("Pete" and "Peter Smith").

        The merged entity's open states move to the kept one (each with a ``merge`` revision; on a
        single-valued predicate the two timelines become one, each value bounded by the next one's start),
        states pointing at it point at the kept one, the events mentioning it and the opinions about it move,
        and its name, aliases and id resolve to the kept entity from now on. Nothing is deleted: what memory
        held before the merge stays readable with ``known_at``. Nothing merges by itself: resolution never
        joins two entities without this call (two people sharing a first name stay two).
        """
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("reason is empty; say why the two are one entity", field="reason")
        with self.store.write_lock():
            kept_id = self.resolve_entity(keep, "keep")
            merged_id = self.resolve_entity(merge, "merge")
            if kept_id == merged_id:
                raise InvalidInput(f"{merge!r} already names entity {kept_id!r}; nothing to merge", field="merge")
            kept, merged = self.store.entities([kept_id, merged_id])
            now = self.now()
            why = f"{merged.name} ({merged.id}) merged into {kept.name} ({kept.id}): {reason.strip()}"
            batch = WriteBatch(merges=[(merged_id, kept_id, now)])
            moved: dict[_Timeline, list[State]] = {}  # by the kept entity's timeline they join
            for s in self.store.states(StateQuery(subject_id=merged_id, include_private=True)):
                update = {"subject_id": kept_id, "subject": kept.name}
                if s.object_id == merged_id:  # about itself: stays about itself
                    update |= {"object_id": kept_id, "object": kept.name}
                moved_state = s.model_copy(update=update)
                moved.setdefault(_timeline(moved_state), []).append(moved_state)
            pointing = [s.model_copy(update={"object_id": kept_id, "object": kept.name})
                        for s in self.store.states(StateQuery(object_id=merged_id, include_private=True))
                        if s.subject_id != merged_id]
            plans = [plan_merge(pointing, [], None, now, why)] if pointing else []
            timelines = _Timelines(self.store)
            for timeline, states in sorted(moved.items()):
                predicate = self.ontology.predicate(timeline[1])
                plans.append(plan_merge(states, timelines.get(timeline), predicate, now, why))
            self._add_plans(plans, batch, now)
            names = [n for n in (merged.name, *merged.aliases) if name_key(n) != name_key(kept.name)]
            aliases = tuple(dict.fromkeys((*kept.aliases, *names)))
            kept_type = merged.type if kept.type == "concept" else kept.type
            kept_now = kept.model_copy(update={"aliases": aliases, "type": kept_type})
            merged_now = merged.model_copy(update={"merged_into": kept_id, "merged_at": now})
            batch.entity_updates.extend([kept_now, merged_now])
            self.store.write(batch)
            for key, found in list(self._entity_ids.items()):
                if found == merged_id:
                    self._entity_ids[key] = kept_id
            self._known_entity_ids.discard(merged_id)
            self._blocks = None
            self.index.merge_entities(merged_id, kept_id)
            moved_ids = [s.id for states in moved.values() for s in states] + [s.id for s in pointing]
            self._index_renamed_states([kept_id], set(moved_ids))
            with self.index.changing():
                self._index_periods(batch.state_versions)  # (the kept one's states the merge bounded)
        return MergeResult(entity=kept_now, merged=merged_now, moved_states=moved_ids,
                           bounded_states=sorted({v.id for v in batch.state_versions}))

    def merge_candidates(self, limit: int = 50) -> list[MergeCandidate]:
        """Pairs of entities that may be one thing, most alike first, for someone to merge (or not): names
        nearly equal, and a person named by another's first name. Nothing is merged by this call."""
        return merge_candidates(self.store.entities_of_types(None), self.ontology.resolution, limit)

    def _name_blocks(self) -> NameBlocks:
        """Called under the write lock."""
        if self._blocks is None:
            rule = self.ontology.resolution
            self._blocks = NameBlocks(rule, self.store.entities_of_types(rule.auto_types))
        return self._blocks

    def entity(
        self,
        name_or_id: str,
        *,
        include_private: bool = False,
        recent: int = RECENT_EVENTS,
        scopes: Sequence[str] | None = None,
    ) -> EntityView:
        """An entity: canonical node, aliases, states that hold now, and its recent events."""
        entity_id = self.resolve_entity(name_or_id)
        entity = self.store.entities([entity_id])[0]
        states = self.view().states(subject=entity_id, include_private=include_private, scopes=scopes)
        events = self.store.find_events(
            EventQuery(limit=recent, entity_id=entity_id, include_private=include_private, scopes=scopes)
        )
        return EntityView(entity=entity, states=states, recent_events=events)

    # -- reading ----------------------------------------------------------------------------------------

    def view(self) -> TimeView:
        """A time view of what is true now; chain ``as_of``, ``during`` and ``known_at`` on it."""
        return TimeView(store=self.store, resolve_entity=self.resolve_entity,
                        read_time=lambda when, field: self.read_time(when, field, edge="end"),
                        read_period=self.read_period, clock=self._clock, tz=self.tz,
                        mutual=self.ontology.mutual_predicates, mutual_one=self.ontology.mutual_one)

    def as_of(self, when: object) -> TimeView:
        """What was true at ``when``: ``mem.as_of("Nov 2025").states(subject="Peter")``."""
        return self.view().as_of(when)

    def during(self, period: object, through: object = None) -> TimeView:
        """What held at any point of ``period`` (through ``through``: ``during("2025-06",
        through="2025-08")``), each state marked ``throughout`` or not."""
        return self.view().during(period, through)

    def known_at(self, when: object) -> TimeView:
        """What memory held at transaction time ``when``: ``mem.known_at(t1).as_of(t2).states(...)``."""
        return self.view().known_at(when)

    def timeline(
        self,
        subject: str,
        predicate: str | None = None,
        *,
        include_retracted: bool = False,
        include_private: bool = False,
        known_at: object = None,
        scopes: Sequence[str] | None = None,
        evidence: bool = True,
    ) -> list[State]:
        """Every state of ``subject`` (for one predicate, or all): by predicate, then as the timeline orders
        them (by start, then in the order they were stated: see :func:`in_timeline_order`)."""
        if predicate is not None:
            self.ontology.predicate(predicate)
        known = None
        if known_at is not None:
            known = self.known_at(known_at).known
        query = StateQuery(subject_id=self.resolve_entity(subject, "subject"), predicate=predicate,
                           known_at=known, include_retracted=include_retracted,
                           include_private=include_private, scopes=scopes)
        # ("Anna is Peter's wife": Peter's married_to Anna too)
        found = with_the_other_side(self.store, query, self.store.states(query),
                                    self.ontology.mutual_predicates)
        found = in_timeline_order(found)
        return (attach_evidence(self.store, found, scopes=scopes, include_private=include_private) if evidence
                else found)

    def state(self, state_id: str) -> State:
        found = self.store.states_by_id([state_id])
        if not found:
            raise NotFound("state", state_id, field="state_id")
        return attach_evidence(self.store, found)[0]

    def revisions(self, state_id: str) -> list[Revision]:
        """Every change of a state, oldest first, with its reason."""
        self.state(state_id)
        return self.store.revisions(state_id)

    def events(
        self,
        *,
        entity: str | None = None,
        thread: str | None = None,
        since: object = None,
        until: object = None,
        kinds: Sequence[str] | None = None,
        scopes: Sequence[str] | None = None,
        include_private: bool = False,
        limit: int = 50,
        after: tuple[dt.datetime, dt.datetime, str] | None = None,
        ascending: bool = False,
    ) -> list[Event]:
        """Events newest first, filtered; ``since`` starts at a period's start, ``until`` ends after its end
        (either a time as people write it: "last week", "the past 3 months" for ``since``).

        >>> mem = Memory.in_memory(extract=False)
        >>> _ = mem.record(content="Kickoff.", occurred_at="2025-11-03")
        >>> [e.content for e in mem.events(since="Nov 2025", until="Nov 2025")]
        ['Kickoff.']
        """
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInput(f"limit must be between 1 and {MAX_PAGE}", field="limit")
        for kind in kinds or ():
            self.ontology.check_kind(kind, field="kinds")
        start = None if since is None else self.read_time(since, "since", edge="start")  # ("last week" too)
        end = None if until is None else self.read_time(until, "until", edge="end")
        query = EventQuery(
            limit=limit,
            entity_id=self.resolve_entity(entity) if entity else None,
            thread=thread,
            since=start.at if start else None,
            until=period_end(end, self.tz) if end else None,
            kinds=list(kinds) if kinds is not None else None,
            scopes=scopes,
            include_private=include_private,
            after=after,
            ascending=ascending,
        )
        if query.entity_id is not None and thread is None and self._index_whole:
            # an entity's page from the index's columns, then only the page's rows from the store: the store
            # would read every candidate's row to order them (~0.3 ms each, 10 ms for a few dozen)
            return self.store.events(self.index.events_of(
                query.entity_id, limit=limit, scopes=scopes, include_private=include_private, kinds=query.kinds,
                since=query.since, until=query.until, after=after, ascending=ascending))
        return self.store.find_events(query)

    def events_around(
        self,
        event_id: str,
        *,
        before: int = 5,
        after: int = 5,
        scopes: Sequence[str] | None = None,
        include_private: bool = False,
    ) -> list[Event]:
        """The events just before and after one event in time, oldest first, the event itself included."""
        for name, n in (("before", before), ("after", after)):
            if not 0 <= n <= MAX_PAGE:
                raise InvalidInput(f"{name} must be between 0 and {MAX_PAGE}", field=name)
        found = self.store.events([event_id])
        if not found:
            raise NotFound("event", event_id, field="event_id")
        anchor = found[0]
        cursor = (anchor.occurred_at.at, anchor.recorded_at, anchor.id)
        earlier = self.store.find_events(EventQuery(limit=before, after=cursor, scopes=scopes,
                                                    include_private=include_private)) if before else []
        later = self.store.find_events(EventQuery(limit=after, after=cursor, ascending=True, scopes=scopes,
                                                  include_private=include_private)) if after else []
        return [*reversed(earlier), anchor, *later]

    def _event_pages(self, query: EventQuery) -> Iterator[list[Event]]:
        """Every event ``query`` matches, a page of ``query.limit`` at a time (keyset cursor, stable while
        events are added)."""
        while True:
            page = self.store.find_events(query)
            if page:
                yield page
            if len(page) < query.limit:
                return
            query = replace(query, after=(page[-1].occurred_at.at, page[-1].recorded_at, page[-1].id))

    def get(self, ids: Sequence[str]) -> list[Event]:
        """Full events by id, in the order asked (unknown ids are skipped)."""
        return self.store.events(list(ids))

    def thread(self, key: str) -> Thread:
        found = self.store.thread(key)
        if found is None:
            raise NotFound("thread", key, field="key")
        return found

    def stats(self, view: Sequence[ReadPass] | None = None) -> StoreStats:
        """Counts of what memory holds; with ``view`` (a server's caller), of what a reader of it sees."""
        return self.store.stats(view)

    def backup(self, dest: str | Path) -> Backup:
        """Copy this memory's database, with every write acknowledged so far, to the new file ``dest`` (its
        search index is rebuilt from it when the copy is opened). Writes wait while the file is copied; reads
        go on. Open the copy with :meth:`open`, or put it in the place of a database that cannot be opened.

        >>> import tempfile, os
        >>> folder = tempfile.TemporaryDirectory()
        >>> mem = Memory.open(os.path.join(folder.name, "memory.kuzu"))
        >>> _ = mem.record(content="Peter moved to Marrakesh.", occurred_at="2025-11-27")
        >>> copy = mem.backup(os.path.join(folder.name, "copy.kuzu"))
        >>> with Memory.open(copy.path) as opened:
        ...     opened.stats().events
        1
        >>> mem.close(); folder.cleanup()
        """
        target = Path(dest)
        if target.exists():
            raise InvalidInput(f"{str(target)!r} exists already; name a new file for the backup", field="dest")
        if not target.parent.is_dir():
            raise InvalidInput(f"the folder {str(target.parent)!r} does not exist; create it first", field="dest")
        started = time.perf_counter()
        with self.store.write_lock():  # (no write between the copy and the count of what it holds)
            size = self.store.backup(target)
            events = self.store.stats().events
        return Backup(path=str(target), bytes=size, events=events, seconds=round(time.perf_counter() - started, 3))

    @property
    def engine(self) -> str:
        """The database engine and its version."""
        return self.store.engine

    def index_status(self, view: Sequence[ReadPass] | None = None) -> IndexStatus:
        """Documents in the search index, vectors, how many still wait for a vector (of those ``view`` reads,
        when given), and the embedder."""
        status = self.index.status()
        if view is None:
            return status
        return replace(status, lag=self.index.lag_in([(p.scopes, p.include_private) for p in view]))

    # -- recall -----------------------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        k: int = 10,
        *,
        since: object = None,
        until: object = None,
        entities: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        scopes: Sequence[str] | None = None,
        include_private: bool = False,
        preset: str = "default",
        relative_to: object = None,
    ) -> list[RecallHit]:
        """Events and states that answer ``query``, best first, each with its sources and score parts.

        ``since``/``until`` take times or expressions ("30d", "last month", "Nov 2025"), read relative to
        ``relative_to`` (default now); ``entities`` keeps hits that mention one of them. Entities and times
        the query itself names raise the hits that match them.

        >>> mem = Memory.in_memory(extract=False, embedder="none")
        >>> _ = mem.record(content="Caroline went to a support group.", occurred_at="2023-05-07",
        ...                source={"system": "locomo", "ref": "D1:3"})
        >>> [h.refs for h in mem.recall("When did Caroline go to the support group?")]
        [('D1:3',)]
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be non-empty text", field="query")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query is longer than {MAX_QUERY_CHARS} characters; shorten it", field="query")
        if not isinstance(k, int) or not 1 <= k <= MAX_RECALL:
            raise InvalidInput(f"k must be between 1 and {MAX_RECALL}", field="k")
        now = self._optional_time(relative_to, "relative_to")
        anchor = now.at if now else self._clock().astimezone(UTC)
        start = self._window_edge(since, "since", anchor)
        end = self._window_edge(until, "until", anchor, end=True)
        for kind in kinds or ():
            if kind not in self.ontology.state_kinds:
                self.ontology.check_kind(kind, field="kinds")
        for type_ in types or ():
            if type_ not in ("event", "state"):
                raise InvalidInput(f"unknown type {type_!r}; use event or state", field="types")
        filters = RecallFilters(
            since=start, until=end,
            entities=tuple(self.resolve_entity(e, field="entities") for e in entities) if entities else None,
            kinds=tuple(kinds) if kinds is not None else None, types=tuple(types) if types is not None else None,
            scopes=tuple(scopes) if scopes is not None else None, include_private=include_private,
        )
        named = self.extractor.extract(query, TimePoint(at=anchor), tz=self.tz)
        named_entities = tuple(dict.fromkeys(
            found for found in (self._known_entity(m.name) for m in named.entities) if found
        ))
        named_times = tuple(near_bound(m.interval, self.tz) for m in named.times)  # "before 4 October": just before
        chosen = preset_named(preset)
        places = tuple(self._places()) if chosen.place and asks_where(query) else ()
        ranked = rank(self.index, query, k, filters=filters, preset=chosen, now=anchor,
                      named_entities=named_entities, named_times=named_times, asks_when=asks_when(query),
                      places=places, asks_title=asks_title(query), asks_now=asks_now(query))
        return hydrate(self.store, ranked)

    def _places(self) -> frozenset[str]:
        """Ids of the entities of type place."""
        found = self._place_ids
        if found is None:
            before = self._place_writes
            found = frozenset(e.id for e in self.store.entities_of_types(["place"]))
            with self._places_lock:
                if self._place_writes == before:
                    self._place_ids = found
        return found

    def _known_entity(self, name: str) -> str | None:
        try:
            return self.resolve_entity(name)
        except NotFound:
            return None

    def _window_edge(self, value: object, field: str, anchor: dt.datetime, *, end: bool = False) -> dt.datetime | None:
        if value is None:
            return None
        if isinstance(value, str) and (short := _SHORT_SPAN.fullmatch(value.strip())):
            amount, unit = int(short.group(1)), short.group(2)
            return anchor - dt.timedelta(days=amount * _SPAN_DAYS[unit])
        point = self.read_time(value, field, relative_to=anchor, edge="end" if end else "start")
        return period_end(point, self.tz) if end else point.at

    # -- entity pages and reflect ----------------------------------------------------------------------

    def _page_data(self, entity_id: str, *, include_private: bool, scopes: Sequence[str] | None,
                   recent: int) -> PageData:
        entity = self.store.entities([entity_id])[0]
        states = attach_evidence(self.store, in_timeline_order(self.store.states(StateQuery(
            subject_id=entity_id, include_private=include_private, scopes=scopes))), scopes=scopes,
            include_private=include_private)
        incoming = self.store.states(StateQuery(object_id=entity_id, include_private=include_private,
                                                scopes=scopes))
        events = self.store.find_events(EventQuery(limit=recent, entity_id=entity_id,
                                                   include_private=include_private, scopes=scopes))
        about = self.opinions(about=entity_id, include_private=include_private, scopes=scopes, limit=MAX_PAGE)
        held = self.opinions(holder=entity_id, include_private=include_private, scopes=scopes, limit=MAX_PAGE)
        opinions = {o.id: o for o in (*about, *held)}
        inverse = {p: d.inverse for p, d in self.ontology.predicates.items() if d.inverse}
        return PageData(entity=entity, states=states, incoming=incoming, opinions=list(opinions.values()),
                        events=events,
                        inverse=inverse)

    def entity_page(self, name_or_id: str, *, include_private: bool = False,
                    scopes: Sequence[str] | None = None, recent: int = RECENT_EVENTS) -> str:
        """An entity's Markdown page: who or what, current states since when, timeline, related states,
        opinions with confidence and evidence, recent events with sources. Same memory, same bytes."""
        entity_id = self.resolve_entity(name_or_id)
        return render_entity_page(self._page_data(entity_id, include_private=include_private, scopes=scopes,
                                                  recent=recent), self.tz)

    def reflect(
        self,
        directory: str | Path,
        *,
        since: object = None,
        include_private: bool = False,
        scopes: Sequence[str] | None = None,
        recent: int = RECENT_EVENTS,
    ) -> ReflectResult:
        """Write entity pages (``bank/entities/<Slug>.md``) and ``bank/opinions.md`` under ``directory``.

        ``since`` (a time, a period or ``"7d"``) limits the entity pages to entities in events that happened
        since then; the opinions page is always whole. Only ``bank/`` is written, and a file there that
        graphmem did not generate (no marker line) is never overwritten: the call fails naming it and writes
        nothing. A page whose bytes would not change is left alone.
        """
        root = Path(directory)
        if root.exists() and not root.is_dir():
            raise InvalidInput(f"{root} is a file; reflect writes into a directory", field="directory")
        if since is not None:
            start = self._window_edge(since, "since", self.now())
            ids: set[str] = set()
            for page in self._event_pages(EventQuery(limit=MAX_PAGE, since=start, include_private=include_private,
                                                     scopes=scopes)):
                for found in self.store.mentions([e.id for e in page]).values():
                    ids.update(found)
            entity_ids = sorted(ids)
        else:
            entity_ids = self.store.entity_ids(MAX_REFLECT_ENTITIES)
        entities = self.store.entities(entity_ids)
        pages: dict[Path, str] = {}
        taken: dict[str, str] = {}
        for entity in sorted(entities, key=lambda e: e.id):
            slug = page_slug(entity.name)
            if slug.casefold() in taken:  # two names with one file name: the later id gets its id appended
                slug = f"{slug}-{entity.id}"
            taken[slug.casefold()] = entity.id
            data = self._page_data(entity.id, include_private=include_private, scopes=scopes, recent=recent)
            pages[root / "bank" / "entities" / f"{slug}.md"] = render_entity_page(data, self.tz)
        opinions = self.opinions(include_private=include_private, scopes=scopes, limit=MAX_PAGE)
        pages[root / "bank" / "opinions.md"] = render_opinions_page(opinions, self.tz)
        foreign = sorted(str(p) for p in pages if p.exists() and
                         not p.read_text(encoding="utf-8").startswith(PAGE_MARKER))
        if foreign:
            raise InvalidInput(f"{foreign[0]} was not written by graphmem (it has no marker line); move it or "
                               f"write the pages elsewhere — nothing was written", field="directory")
        written: list[Path] = []
        for path, text in sorted(pages.items()):
            if path.exists() and path.read_text(encoding="utf-8") == text:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(path.name + ".tmp")
            partial.write_text(text, encoding="utf-8")
            partial.replace(path)
            written.append(path)
        return ReflectResult(pages=sorted(pages), written=written)

    # -- maintenance: tidy, promotion, janitor ---------------------------------------------------------

    def dispute_state(self, state_id: str, *, evidence: Sequence[str], reason: str = "disputed") -> State:
        """Record evidence against a fact (a contradiction that stays open until the fact is confirmed again);
        its validity and confidence stay as they are."""
        if not evidence:
            raise InvalidInput("evidence must name at least one event that contradicts the state", field="evidence")
        return self._update(
            lambda state, _, now: plan_revise(state, now, RevisionAction.DISPUTE, reason, evidence,
                                              contradicts=True),
            state_id, evidence, timeline="none",
        )

    def tidy(self, *, dry_run: bool = False) -> TidyReport:
        """Close (never delete) exact duplicate states, at most the ontology's ``tidy.max_closures`` per run.

        Each closure is a new version ``[start, start)`` with a revision whose reason starts with ``tidy:``;
        as-of answers do not change. Moods are never touched. ``dry_run`` reports without writing.
        """
        started = time.perf_counter()
        rule = self.ontology.tidy
        with self.store.write_lock():
            kinds = [k for k in self.ontology.state_kinds if k not in rule.exclude_kinds]
            states = attach_evidence(self.store, self.store.states(StateQuery(kinds=kinds, include_private=True)))
            found = find_duplicates(states, rule)
            if found.pairs and not dry_run:
                now = self.now()
                batch = WriteBatch()
                self._add_plan(plan_tidy(found.pairs, now), batch, now)
                self.store.write(batch)
                self._index_batch(batch, now)
        by_kind: dict[str, int] = {}
        for _, dup in found.pairs:
            by_kind[dup.kind] = by_kind.get(dup.kind, 0) + 1
        return TidyReport(scanned=len(states), closed=[(d.id, k.id) for k, d in found.pairs],
                          by_kind=dict(sorted(by_kind.items())), partial_overlaps=found.partial_overlaps,
                          no_start=found.no_start, limited=found.limited, dry_run=dry_run,
                          seconds=time.perf_counter() - started)

    def promotion_candidates(
        self, *, include_private: bool = False, scopes: Sequence[str] | None = None
    ) -> tuple[list[PromotionCandidate], list[HeldBack]]:
        """Stable facts a person may promote into curated memory (by the ontology's ``promotion`` rule), and
        those held back by an open contradiction."""
        rule = self.ontology.promotion
        states = attach_evidence(self.store, self.store.states(StateQuery(
            kinds=list(rule.kinds), include_private=include_private, scopes=scopes)), scopes=scopes,
            include_private=include_private)
        states = [s for s in states if s.confidence >= rule.min_confidence]
        return promotion_candidates(states, self.store.revisions_of([s.id for s in states]), rule)

    def janitor(self, *, dry_run: bool = False) -> JanitorReport:
        """The periodic clean-up: pins, TTL removal candidates, dedupe-key conflicts, secrets and PII.

        - pins: the latest event per dedupe key per scope, superseded ones ignored (``pinned_md``);
        - TTL: events past ``ttl_days`` are listed for a person to approve; the janitor never removes them;
        - conflicts: one ``conflict_resolution`` event per conflict (the same conflict again: nothing new)
          and a warning that says which way confidence went;
        - secrets and personal data that slipped in (written under an older detector, or allowed then) are
          masked in place, re-indexed, and one ``audit`` event names the events and the kinds masked.

        ``dry_run`` reports all of it and writes nothing.
        """
        started = time.perf_counter()
        now = self.now()
        keyed = self.store.find_events(EventQuery(limit=MAX_PINNED_EVENTS, keyed=True, include_private=True))
        gone = self.store.superseded([e.id for e in keyed])
        pins = pins_of(keyed, gone)
        older = {e.id: e for e in self.store.events([i for p in pins for i in p.replaced])}
        conflicts = conflicts_of([(p.scope, p.key, p.event, [older[i] for i in p.replaced if i in older])
                                  for p in pins])
        expiring = self.store.find_events(EventQuery(limit=MAX_PINNED_EVENTS, with_ttl=True, include_private=True))
        ttl = ttl_candidates((e for e in expiring if e.id not in gone), now)
        warnings: list[str] = []
        notes: list[tuple[Conflict, str]] = []
        for conflict in conflicts:
            content, warning = conflict_note(conflict)
            warnings.append(warning)
            notes.append((conflict, content))
        masked = self._find_leaks()
        conflict_events: list[str] = []
        audit: str | None = None
        if not dry_run:
            for conflict, content in notes:
                result = self.record(
                    content=content, kind="conflict_resolution", scope=conflict.scope, agent_id="graphmem",
                    occurred_at=conflict.winner.occurred_at.at, extract=False,
                    source={"system": "graphmem", "ref": f"janitor:{conflict.key}"},
                    links={"conflict_of": [conflict.winner.id, *(e.id for e in conflict.losers)]},
                    privacy=("private",) if conflict.winner.visibility is Visibility.PRIVATE else (),
                )
                conflict_events.append(result.id or "")
            audit = self._mask(masked, now)
        return JanitorReport(
            pinned_md=pinned_md(pins), pins=len(pins), ttl_candidates=ttl, conflicts=conflicts,
            conflict_events=conflict_events, warnings=warnings,
            masked=[(e.id, e.redactions[len(before):]) for e, before in masked], audit_event=audit,
            dry_run=dry_run, seconds=time.perf_counter() - started,
        )

    def remove_events(
        self, event_ids: Sequence[str], *, approved_by: str, reason: str, only_expired: bool = True,
    ) -> RecordResult:
        """Delete events a person approved for removal: by default only TTL candidates (events past their
        ``ttl_days``, which the janitor lists and never removes by itself).

        An ``audit`` event is recorded first, one per scope, naming who approved, why, and each removed
        event's id and content hash (never its content); then the events go, with their edges and
        annotations, from the database and the search index. States they were evidence for stay, with the
        rest of their evidence. Returns the audit event of the first scope.
        """
        if not isinstance(approved_by, str) or not approved_by.strip():
            raise InvalidInput("approved_by is empty: removal needs the name of the person who approved it",
                               field="approved_by")
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("reason is empty; say why these events go", field="reason")
        ids = list(dict.fromkeys(event_ids))
        if not ids:
            raise InvalidInput("event_ids is empty; name the events to remove", field="event_ids")
        events = self._evidence_events(ids, "event_ids")
        if only_expired:
            expired = {c.event.id for c in ttl_candidates(events, self.now())}
            kept = [e.id for e in events if e.id not in expired]
            if kept:
                raise InvalidInput(f"event {kept[0]!r} is not past its ttl_days; only expired events are removed "
                                   "unless only_expired=False (still with approval)", field="event_ids")
        audits: list[RecordResult] = []
        for scope in sorted({e.scope for e in events}):
            listed = "; ".join(f"{e.id} (sha256 {e.content_hash[:16]})" for e in events if e.scope == scope)
            audits.append(self.record(
                content=f"Removed after approval by {approved_by.strip()}: {reason.strip()}. Events: {listed}.",
                kind="audit", agent_id="graphmem", scope=scope, extract=False,
                source={"system": "graphmem", "ref": "janitor:removal"},
                privacy=("private",) if any(e.scope == scope and e.visibility is Visibility.PRIVATE
                                            for e in events) else (),
            ))
        with self.store.write_lock():
            self.store.remove_events(ids)
            self.index.remove(ids)
            self.index.save()
        return audits[0]

    def _find_leaks(self) -> list[tuple[Event, tuple[str, ...]]]:
        """Events holding secrets (or personal data, unless the policy allows it), masked copies of them
        paired with their redactions before."""
        out: list[tuple[Event, tuple[str, ...]]] = []
        for chunk in self.store.indexable():
            if chunk and chunk[0].type != "event":
                break  # events come first
            leaking = {}
            for item in chunk:
                findings = [f for f in scan(item.text) if f.category == "secret" or self.privacy.pii != "allow"]
                if findings:
                    leaking[item.id] = findings
            for event in self.store.events(list(leaking)):
                findings = leaking[event.id]
                kinds = tuple(sorted({f.kind for f in findings} - set(event.redactions)))
                out.append((event.model_copy(update={"content": mask(event.content, findings),
                                                     "redactions": (*event.redactions, *kinds)}),
                            event.redactions))
        return out

    def _mask(self, masked: list[tuple[Event, tuple[str, ...]]], now: dt.datetime) -> str | None:
        if not masked:
            return None
        events = [e for e, _ in masked]
        with self.store.write_lock():
            # the index first, saved: one on disk never holds the text the database no longer does (an open
            # catches up on writes, not on masks); a stop in between leaves the leak to the next run
            mentions = self.store.mentions([e.id for e in events])
            about = {i: a.about for i, a in self.store.annotations([e.id for e in events]).items()}
            self.index.replace(self._event_indexables(events, mentions, about), at=now)
            self.index.save()
            self.store.mask_events(events)
        listed = ", ".join(f"{e.id} ({', '.join(e.redactions[len(before):]) or 'again'})" for e, before in masked)
        result = self.record(
            content=f"Janitor masked secrets or personal data in {len(events)} events: {listed}.", kind="audit",
            agent_id="graphmem", extract=False, source={"system": "graphmem", "ref": "janitor:privacy-scan"},
            links={"audit_of": [e.id for e in events]},
        )
        return result.id

    # -- snapshots, resume packs and sessions ----------------------------------------------------------

    def snapshot(
        self,
        *,
        agent_id: str | None = None,
        scopes: Sequence[str] | None = None,
        limit_recent: int = 50,
        include_private: bool = False,
        snapshot_id: str | None = None,
    ) -> Snapshot:
        """Pinned memory (latest event per dedupe_key) + recent events + ruleset stamp, with a repeatable id.

        ``scopes`` default to ``global`` and the agent's own ``agent:<id>``. Passing the ``snapshot_id`` a
        snapshot returned reads the same snapshot again (the request and the transaction time are in the id).

        >>> mem = Memory.in_memory(extract=False)
        >>> _ = mem.record(content="Deploys freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze",
        ...                occurred_at="2025-11-20")
        >>> print(mem.snapshot().pinned_md)
        ## global
        - **deploy-freeze** (decision, 2025-11-20): Deploys freeze on Fridays.
        """
        if snapshot_id is not None:
            return self._snapshot(SnapshotRequest.from_id(snapshot_id))
        if not 0 <= limit_recent <= MAX_PAGE:
            raise InvalidInput(f"limit_recent must be between 0 and {MAX_PAGE}", field="limit_recent")
        if agent_id is not None and not re.match(AGENT_ID_PATTERN, agent_id):
            raise InvalidInput("agent_id must be lowercase letters, digits, '_', '.', '-' (at most 64)",
                               field="agent_id")
        wanted = list(scopes) if scopes is not None else pack_scopes(None, agent_id)
        for scope in wanted:
            try:
                check_scope(scope)
            except ValueError as exc:
                raise InvalidInput(f"scopes: {exc}", field="scopes") from None
        with self.store.write_lock():  # every write stamped before this time has committed
            known_at = self.now()
        return self._snapshot(SnapshotRequest(scopes=tuple(sorted(set(wanted))), limit_recent=limit_recent,
                                              include_private=include_private, known_at=known_at,
                                              agent_id=agent_id))

    def _snapshot(self, request: SnapshotRequest) -> Snapshot:
        def read(**options: Any) -> list[Event]:
            return self.store.find_events(EventQuery(scopes=request.scopes, include_private=request.include_private,
                                                     recorded_until=request.known_at, **options))

        keyed = read(limit=MAX_PINNED_EVENTS, keyed=True)
        recent = read(limit=request.limit_recent + _RECENT_SLACK) if request.limit_recent else []
        gone = self.store.superseded([e.id for e in (*keyed, *recent)], request.known_at)
        fresh = [e for e in recent if e.id not in gone][: request.limit_recent]
        return Snapshot(request=request, pins=tuple(pins_of(keyed, gone)), recent=tuple(fresh),
                        ruleset_stamp=self.ruleset_stamp())

    def ruleset_stamp(self) -> str:
        """Which pin rules and which ontology (version and digest) answers are made with."""
        if self._stamp is None or self._stamp[0] is not self.ontology:
            digest = hashlib.sha256(self.ontology.model_dump_json().encode()).hexdigest()
            self._stamp = (self.ontology, ruleset_stamp(self.ontology.version, digest))
        return self._stamp[1]

    def resume_pack(
        self,
        project: str | None = None,
        *,
        session: str | None = None,
        token_budget: int = 1500,
        limit_recent: int = 20,
        include_private: bool = False,
        agent_id: str | None = None,
    ) -> ResumePack:
        """What an agent reads to continue a project or session, within ``token_budget`` (approximate tokens).

        Sections in priority order: pinned memory (global and the project's), the session's summary and
        checkpoints, open tasks, recent events (the session's first). Lines that do not fit are dropped and
        counted; the Markdown never exceeds the budget.
        """
        if not 50 <= token_budget <= 200_000:
            raise InvalidInput("token_budget must be between 50 and 200000", field="token_budget")
        snap = self.snapshot(scopes=pack_scopes(project, agent_id), limit_recent=limit_recent, include_private=include_private)
        cut = snap.request.known_at
        key = self.session_key(session) if session is not None else None
        session_lines: list[tuple[str, str | None, str | None]] = []
        session_recent: list[Event] = []
        if key is not None:
            found = self.store.find_events(EventQuery(limit=MAX_PAGE, thread=key, scopes=snap.request.scopes,
                                                      include_private=include_private, recorded_until=cut))
            marks = [e for e in found if e.kind in ("summary", "checkpoint")]
            summaries = [e for e in marks if e.kind == "summary"][:1]
            session_lines = [(event_line(e), e.id, None) for e in (*summaries, *(e for e in marks
                                                                                 if e.kind == "checkpoint"))]
            session_recent = [e for e in found if e.kind not in ("summary", "checkpoint")][:limit_recent]
        tasks = [s for s in self.store.states(StateQuery(kinds=["task"], scopes=snap.request.scopes,
                                                         include_private=include_private, limit=MAX_PAGE,
                                                         ends_after=_NO_END_BEFORE))  # (open ones: not done)
                 if _is_open_task(s)]
        tasks.sort(key=lambda s: (s.valid_from.at if s.valid_from else _MIN, s.id), reverse=True)
        seen = {e.id for e in session_recent}
        recent = [*session_recent, *(e for e in snap.recent if e.id not in seen)][:limit_recent]
        sections: list[tuple[str, list[tuple[str, str | None, str | None]]]] = [
            ("pinned", [(p.line(), p.event.id, None) for p in snap.pins]),
            ("session", session_lines),
            ("open_tasks", [(task_line(s), None, s.id) for s in tasks]),
            ("recent", [(event_line(e), e.id, None) for e in recent]),
        ]
        title = ", ".join(filter(None, [f"project {project}" if project else None,
                                        f"session {key}" if key else None])) or "memory"
        items, markdown, tokens, dropped = fit_to_budget(sections, token_budget, heading=f"# Resume: {title}")
        return ResumePack(project=project, session=key, token_budget=token_budget, items=tuple(items),
                          markdown=markdown, tokens=tokens, dropped=dropped, snapshot_id=snap.id,
                          sections=tuple(name for name, lines in sections if lines))

    def session_key(self, session: str) -> str:
        """The thread a session id names: the thread of that key, else the one key ending in ``:<session>``
        (the harness routes key sessions as ``<platform>:<session id>``)."""
        if not isinstance(session, str) or not session.strip():
            raise InvalidInput("session must be a session or thread key", field="session")
        found = self.store.thread_keys(session, limit=3)
        if session in found:
            return session
        if len(found) == 1:
            return found[0]
        if not found:
            raise NotFound("session", session, field="session", hint=UNKNOWN_SESSION_HINT)
        raise InvalidInput(f"session {session!r} is ambiguous: {', '.join(found)} all end in it; pass the full "
                           "key", field="session")

    def checkpoint(
        self,
        session: str,
        title: str,
        content: str,
        *,
        tags: Sequence[str] = (),
        privacy: Sequence[str] = (),
        agent_id: str = "unknown",
        scope: str = "global",
        occurred_at: object = None,
        source: Mapping[str, Any] | Source | None = None,
    ) -> RecordResult:
        """A named point in a session: an event of kind ``checkpoint`` in the session's thread."""
        if not isinstance(title, str) or not title.strip():
            raise InvalidInput("title must name the checkpoint in a few words", field="title")
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput("content must say what was reached", field="content")
        try:
            key = self.session_key(session)
        except NotFound:
            key = session  # the session's first event
        return self.record(content=f"{' '.join(title.split())}\n\n{content.strip()}", kind="checkpoint",
                           thread=key, tags=("checkpoint", *tags), privacy=privacy, agent_id=agent_id,
                           scope=scope, occurred_at=occurred_at, source=source)

    def finalize_session(self, session: str, *, agent_id: str = "graphmem") -> RecordResult:
        """Record a deterministic summary of a session (kind ``summary``, in its thread) and return it.

        The same events give the same summary, so finalizing twice writes nothing new; after more events a new
        summary supersedes the previous one.
        """
        key = self.session_key(session)
        events = [e for page in self._event_pages(EventQuery(limit=MAX_PAGE, thread=key, include_private=True,
                                                              ascending=True)) for e in page]
        body = [e for e in events if e.kind != "summary"]
        content = session_summary(key, events)
        previous = [e for e in events if e.kind == "summary" and e.content != content]
        last = body[-1]
        private = any(e.visibility is Visibility.PRIVATE for e in body)
        return self.record(
            content=content, kind="summary", thread=key, occurred_at=last.occurred_at.at, scope=last.scope,
            agent_id=agent_id, source={"system": "graphmem", "ref": f"session:{key}"}, extract=False,
            supersedes=previous[-1].id if previous else None, privacy=("private",) if private else (),
        )

    # -- analysis ---------------------------------------------------------------------------------------

    def to_networkx(self, as_of: object = None, *, include_private: bool = False,
                    scopes: Sequence[str] | None = None) -> Any:
        """The graph of what was true at ``as_of`` (default: now) as a ``networkx.MultiDiGraph`` for analysis
        (needs the ``analysis`` extra). Nodes are entities (``name``, ``type``, and ``facts``: their
        literal-valued states as ``(predicate, value)``); each entity-valued state is an edge subject -> object
        keyed by state id, with its predicate, kind, validity, confidence and evidence refs.

        >>> mem = Memory.in_memory(embedder="none")
        >>> _ = mem.record(content="Peter moved to Marrakesh.", occurred_at="2025-11-27")
        >>> g = mem.to_networkx("Dec 2025")
        >>> [(g.nodes[a]["name"], d["predicate"], g.nodes[b]["name"]) for a, b, d in g.edges(data=True)]
        [('Peter', 'lives_in', 'Marrakesh')]
        """
        try:
            import networkx as nx
        except ImportError:
            raise GraphmemError("to_networkx needs networkx: pip install 'graphmem[analysis]'") from None
        view = self.view() if as_of is None else self.as_of(as_of)
        states = view.states(include_private=include_private, scopes=scopes)
        graph: nx.MultiDiGraph[str] = nx.MultiDiGraph(as_of=None if as_of is None else str(as_of))
        ids = {s.subject_id for s in states} | {s.object_id for s in states if s.object_id}
        for entity in self.store.entities(sorted(ids)):
            graph.add_node(entity.id, name=entity.name, type=entity.type, facts=[])
        for s in states:
            if s.object_id and s.object_id in graph:
                graph.add_edge(s.subject_id, s.object_id, key=s.id, predicate=s.predicate, kind=s.kind,
                               valid_from=s.valid.start.at if s.valid.start else None,
                               valid_to=s.valid.end.at if s.valid.end else None,
                               confidence=s.confidence,
                               refs=[e.source.ref for e in s.evidence if e.source is not None and e.source.ref])
            elif s.subject_id in graph:
                graph.nodes[s.subject_id]["facts"].append((s.predicate, s.object))
        return graph

    # -- readers of source files --------------------------------------------------------------------------

    def cursors(self, prefix: str) -> list[SourceCursor]:
        """How far the readers of source files got (workspace pages, session logs), by key prefix."""
        return self.store.cursors(prefix)

    def save_cursors(self, cursors: Sequence[SourceCursor]) -> None:
        """Remember where readers stopped (replacing the cursors with the same keys), journalled as any write
        is. Written after the events they read, which replay harmlessly if a crash falls in between."""
        self.store.write(WriteBatch(cursors=list(cursors)))

    def reindex(self) -> IndexStatus:
        """Rebuild the search index from the database (after a model change, or to compact it). One rebuild
        at a time: each closes the index the one before waits on. Writes go on while the vectors are made."""
        with self._reindexing:
            with self.store.write_lock():
                old = self.index
                old.close()
                self._index_whole = False  # event pages read the store until the new index holds everything
                index = self.index = old.successor()
                self._catch_up()
                self._index_whole = True
            index.wait()
            if not index.closed:  # (the memory was closed meanwhile: its close saved the index)
                index.save()
            return index.status()


_MIN = dt.datetime.min.replace(tzinfo=UTC)
MAX_REFLECT_ENTITIES = 100_000  # entity pages one reflect writes at most
MAX_PINNED_EVENTS = 20_000  # keyed events a snapshot reads to find the pins
_RECENT_SLACK = 20  # extra recent events read so that dropping superseded ones still fills the page
# the predicate of a write plan's state update that names none, by its kind
_PLAN_PREDICATES = {"task": "todo", "summary": "summary", "long_mood_state": "feels"}
_PROJECT_SCOPE = "project:"  # a project's scope: "project:<slug>"
_LOG_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # a daily log's file name: memory/2025-11-27.md
_SHORT_SPAN = re.compile(r"(\d{1,5})\s*([dwmy])")  # "30d": the last 30 days
_SPAN_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}

_MAY_LINK = "_may_link"  # an item's key for record_many's may_link (no field of a record can be named so)
_RECORD_FIELDS = {
    "content", "occurred_at", "occurred_end", "source", "agent_id", "scope", "kind", "thread", "tags", "privacy",
    "entities", "dedupe_key", "confidence", "supersedes", "ttl_days", "affect", "links", "states", "extract",
}
# what other systems call an event's fields: an unknown one of these is named with the field it stands for
_RECORD_SYNONYMS = {
    "text": "content", "message": "content", "body": "content", "msg": "content", "note": "content",
    "timestamp": "occurred_at", "time": "occurred_at", "date": "occurred_at", "datetime": "occurred_at",
    "created_at": "occurred_at", "ts": "occurred_at", "when": "occurred_at", "agent": "agent_id",
    "author": "agent_id", "user": "agent_id", "type": "kind", "category": "kind", "labels": "tags",
    "session": "thread", "conversation": "thread", "thread_id": "thread", "id": "dedupe_key",
}
_STATE_SYNONYMS = {"relation": "predicate", "property": "predicate", "value": "object", "from": "valid_from",
                   "since": "valid_from", "start": "valid_from", "to": "valid_to", "until": "valid_to",
                   "end": "valid_to", "entity": "subject"}


@dataclass
class _Unit:
    """A write being planned: its batch, its entity resolution, its transaction time, the timelines it changes."""

    batch: WriteBatch
    entities: _EntityCache
    now: dt.datetime
    timelines: _Timelines


_Timeline = tuple[str, str, str, bool]  # subject id, predicate, scope, private


def _timeline(state: State) -> _Timeline:
    """The timeline ``state`` is on: its subject's predicate in its scope, among the public states or among
    the private ones. A write on one never ends, confirms or reorders a state of another, so no write changes
    what a reader sees for a reason it cannot see (a private note ending a public value), and no answer to a
    public write shows a private state (restating a private value confirmed it)."""
    return state.subject_id, state.predicate, *_kind(state)


def _kind(item: Event | State) -> tuple[str, bool]:
    """The scope of an event or a state, and whether it is private: which of a subject's timelines of a
    predicate a state of it is on (a write plan changes only those of its event's kind)."""
    return item.scope, item.visibility is Visibility.PRIVATE


class _Timelines:
    """The current states of each timeline (see :func:`_timeline`) during one write, with what the write
    already planned, so several updates of one plan see each other."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self._by: dict[_Timeline, list[State]] = {}

    def get(self, timeline: _Timeline) -> list[State]:
        if timeline not in self._by:
            subject_id, predicate, scope, private = timeline
            found = self._store.states(StateQuery(subject_id=subject_id, predicate=predicate,
                                                  include_private=True, scopes=[scope]))
            self._by[timeline] = [s for s in found if (s.visibility is Visibility.PRIVATE) == private]
        return self._by[timeline]

    def put(self, state: State) -> None:
        timeline = _timeline(state)
        self._by[timeline] = [s for s in self.get(timeline) if s.id != state.id] + [state]

    def apply(self, plan: Plan) -> None:
        for state in (*plan.new_states, *plan.versions, *plan.retractions):
            self.put(state)


class _StateIds:
    """The ids of one write's new states. A state's id is made from its subject, predicate, value, start and
    the write's time; within a write, the first state of a (subject, predicate, start) keeps that id and the
    next ones follow it in order (it, then a number). Two alike but for their end ("from March", "from March
    to May") had one id, and the engine refused the write once it was acknowledged. And of values with one
    start written together the later wins: a timeline orders them by id once that order is all that is left
    of it (a later value of that start superseded both, then was retracted)."""

    def __init__(self) -> None:
        self._first: dict[str, str] = {}  # (subject, predicate, start) -> the id of its first state
        self._made: dict[str, int] = {}  # a first state's id -> how many states of its start the write made

    def id_for(self, parts: tuple[str, ...]) -> str:
        made = make_id("st", *parts)
        first = self._first.setdefault("\x1f".join(parts[:2] + parts[3:4]), made)
        count = self._made.get(first, 0) + 1
        self._made[first] = count
        return first if count == 1 else f"{first}_{count:06d}"


class _EntityCache:
    """Entity resolution within one write: by name key, creating what memory does not know yet."""

    def __init__(self, memory: Memory, batch: WriteBatch, now: dt.datetime) -> None:
        self._memory = memory
        self._batch = batch
        self._now = now
        self._by_key: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._taken: set[str] = set()
        self._checked_ids: set[str] = set()
        self._checked_keys: set[str] = set()
        self._refined: set[tuple[str, str]] = set()
        self._written: dict[str, tuple[list[Entity], int]] = {}  # entity id -> where this write holds it
        self._read: dict[str, Entity] = {}  # stored entities read ahead for this write, until it changes them
        self._pending = NameBlocks(memory.ontology.resolution)  # entities this write creates, to join as well
        self.created: set[str] = set()

    def committed(self) -> None:
        """The write landed: remember its resolutions for later writes of this process."""
        self._memory._entity_ids.update(self._by_key)
        blocks = self._memory._blocks
        if blocks is not None:
            for e in self._batch.entities:
                blocks.add(e)
            for e in self._batch.entity_updates:  # retyped, or a joined name now among its aliases
                blocks.add(e)

    def prefetch(self, names: Iterable[str], *, typed: bool = False) -> None:
        """Resolve many names with three reads instead of two or three per name (the bulk paths call this).
        ``typed``: the names come with types (states' subjects and objects), which may change the stored
        entities they name: those are read too, in one read, not one by one when each is retyped."""
        known = self._memory._entity_ids  # every name this process has seen: not copied, it may be large
        all_keys = {k for n in names if (k := name_key(n))}
        keys = {k for k in all_keys if k not in self._by_key and k not in known}
        ahead: set[str] = set()  # (typed) the stored entities to read ahead, in one go
        if typed:
            ahead.update(i for k in all_keys - keys if (i := self._by_key.get(k) or known.get(k)) is not None)
        if keys:
            found = self._memory.store.entity_ids_for_keys(keys)
            self._by_key.update(found)
            self._checked_keys.update(keys)
            if typed:
                ahead.update(found.values())
            else:
                self._memory.store.entities(list(set(found.values())))  # one read warms the store's cache
            slugs = [slugify(k) for k in keys if k not in self._by_key]
            self._taken.update(e.id for e in self._memory.store.entities(slugs))
            self._checked_ids.update(slugs)
        if ahead:
            self._read_ahead(ahead)

    def _read_ahead(self, ids: set[str]) -> None:
        """The stored entities ``ids`` (those this write holds no version of yet), kept until it changes them,
        and their names."""
        wanted = [i for i in ids if i not in self._written and i not in self._read]
        for at in range(0, len(wanted), READ_AHEAD_CHUNK):
            for e in self._memory.store.entities(wanted[at : at + READ_AHEAD_CHUNK]):
                self._read[e.id] = e
                self._names.setdefault(e.id, e.name)

    def resolve(self, name: str, type_: str | None, *, field: str) -> str:
        key = name_key(name)
        if not key:
            raise InvalidInput(f"{field} holds an empty entity name", field=field)
        if key in self._by_key:
            if type_ is not None and type_ != "concept":
                self._refine(self._by_key[key], type_)
            return self._by_key[key]
        found = self._memory._entity_ids.get(key)
        if found is None and key not in self._checked_keys:
            found = self._memory.store.entity_id_for_key(key)
        if found is None and type_ in self._memory.ontology.resolution.auto_types:
            found = self._join(name, type_)
        if found is None:
            if type_ is not None:
                self._memory.ontology.check_entity_type(type_, field=f"{field}_type")
            found = self._unique_id(slugify(name))
            clean = _clean_name(name)
            created = Entity(id=found, name=clean, type=type_ or "concept", created_at=self._now)
            self._written[found] = (self._batch.entities, len(self._batch.entities))
            self._batch.entities.append(created)
            self._pending.add(created)
            self._batch.aliases.append((key, found))
            self._names[found] = clean
            self.created.add(found)
        elif type_ is not None and type_ != "concept":
            self._refine(found, type_)
        self._by_key[key] = found
        return found

    def alias(self, name: str, alias: str, type_: str) -> None:
        """``alias`` another name of the entity ``name`` names (made when new), as a text says outright; not
        when it names another entity already: two become one only by a merge."""
        entity_id = self.resolve(name, type_, field="content")
        key = name_key(alias)
        owner = self._by_key.get(key) or self._memory._entity_ids.get(key)
        if owner is None and key not in self._checked_keys:
            owner = self._memory.store.entity_id_for_key(key)
        if owner is not None or not key:
            return
        self._batch.aliases.append((key, entity_id))
        self._change(entity_id, lambda e: {"aliases": (*e.aliases, _clean_name(alias))})
        self._by_key[key] = entity_id

    def _join(self, name: str, type_: str) -> str | None:
        """An entity of ``type_`` this new name is (a typo, a legal suffix), by the ontology's resolution rule;
        the name becomes its alias."""
        found = self._memory._name_blocks().join(name, type_) or self._pending.join(name, type_)
        if found is None:
            return None
        self._batch.aliases.append((name_key(name), found))
        self._change(found, lambda e: {"aliases": (*e.aliases, _clean_name(name))})
        return found

    def _change(self, entity_id: str, changes: Callable[[Entity], dict[str, Any]]) -> None:
        """Change an entity in this write: one new in it, one already updated by it, or a stored one."""
        written = self._written.get(entity_id)
        if written is not None:
            entities, i = written
            entities[i] = entities[i].model_copy(update=changes(entities[i]))
            return
        ahead = self._read.pop(entity_id, None)
        current = [ahead] if ahead is not None else self._memory.store.entities([entity_id])
        update = changes(current[0]) if current else {}
        if update:
            self._written[entity_id] = (self._batch.entity_updates, len(self._batch.entity_updates))
            self._batch.entity_updates.append(current[0].model_copy(update=update))

    def _refine(self, entity_id: str, type_: str) -> None:
        """An entity first seen untyped (a mention) takes the type a state's predicate gives it, once. One
        guessed to be a person from its capitals ("joins Globex") takes another type a predicate gives it
        ("works_at Globex": an org) as long as nothing is said of it as a person (it is no state's subject)."""
        if (entity_id, type_) in self._refined:
            return
        self._refined.add((entity_id, type_))

        def retyped(e: Entity) -> dict[str, Any]:
            if e.type == "concept" or (e.type == "person" and type_ != "person" and self._retypable(entity_id)):
                return {"type": type_}
            return {}

        self._change(entity_id, retyped)

    def _retypable(self, entity_id: str) -> bool:
        """Nothing memory holds, or this write adds, has the entity as its subject."""
        if any(s.subject_id == entity_id for s in self._batch.new_states):
            return False
        return not self._memory.store.states(StateQuery(subject_id=entity_id, limit=1, include_private=True,
                                                        include_retracted=True))

    def name(self, entity_id: str) -> str:
        if entity_id not in self._names:
            self._names[entity_id] = self._memory.store.entities([entity_id])[0].name
        return self._names[entity_id]

    def _unique_id(self, slug: str) -> str:
        candidate, n = slug, 1
        while self._is_taken(candidate):
            n += 1
            candidate = f"{slug}-{n}"
        self._taken.add(candidate)
        return candidate

    def _is_taken(self, entity_id: str) -> bool:
        if entity_id in self._taken:
            return True
        if entity_id in self._checked_ids:
            return False
        self._checked_ids.add(entity_id)
        if self._memory.store.entities([entity_id]):
            self._taken.add(entity_id)
            return True
        return False


def _clean_name(name: str) -> str:
    """A name as an entity keeps it: spaces collapsed, without a leading '@'."""
    return " ".join(name.strip().lstrip("@").split())


def _zone(timezone: str | dt.tzinfo) -> dt.tzinfo:
    if isinstance(timezone, dt.tzinfo):
        return timezone
    if timezone.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput(f"unknown timezone {timezone!r}; use an IANA name such as 'Europe/Paris' or 'UTC'",
                           field="timezone") from None


def _ontology(value: str | Path | Sequence[str | Path] | Ontology | None) -> Ontology:
    if value is None:
        return load_ontology()
    if isinstance(value, Ontology):
        return value
    if isinstance(value, str | Path):
        return load_ontology([value])
    return load_ontology(value)


def _validated(model: Any, data: Mapping[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [{"field": ".".join(str(p) for p in e["loc"]) or "input", "message": _said(e)}
                    for e in exc.errors()]
        first = problems[0]
        raise InvalidInput(f"{first['field']}: {first['message']}", field=first["field"], problems=problems) from None


INDEX_CHECKED = 32  # events a saved search index indexed last, looked up in the database it is opened beside


def _index_of(store: GraphStore, index: SearchIndex) -> bool:
    """Whether the saved ``index`` can belong to the database of ``store``: the events it indexed last are
    there (an index saved beside another database, or a database put back from an older copy, fails)."""
    newest = index.newest_events(INDEX_CHECKED)
    return len(store.existing_event_ids(newest)) == len(newest)


def _year(year: int | None, tz: dt.tzinfo, *, after: bool = False) -> TimePoint | None:
    """A plan's about-year as a point: the year's start, or (``after``) the start of the next year."""
    if year is None:
        return None
    if after and year >= 9999:
        return None
    start = dt.datetime(year + (1 if after else 0), 1, 1, tzinfo=tz).astimezone(UTC)
    return TimePoint(at=start, granularity=Granularity.YEAR)


def _said(error: Mapping[str, Any]) -> str:
    """A validation error's message, with the fix where pydantic's own gives none."""
    kind, limits = error.get("type"), error.get("ctx") or {}
    if kind == "string_too_short" and limits.get("min_length") == 1:
        return "must not be empty"
    if kind == "string_too_long":
        split = ", or split it into several events" if error.get("loc", ())[-1:] == ("content",) else ""
        return f"holds more than {limits['max_length']:,} characters; shorten it{split}"
    return str(error["msg"]).removeprefix("Value error, ")


def _event_id(draft: EventDraft, content_hash: str, *, timed: bool) -> str:
    """Replays of the same event get the same id: by dedupe_key (and content) in a scope, else by everything
    the writer said (an occurred_at the writer left out defaults to the clock and is not part of the id)."""
    if draft.dedupe_key:
        material: list[object] = ["dk", draft.scope, draft.dedupe_key, content_hash]
    else:
        material = [
            "ev", draft.scope, draft.agent_id, draft.kind, draft.thread, draft.source.model_dump_json(),
            draft.occurred_at.at.isoformat() if timed else None,
            draft.occurred_at.granularity.value if timed else None, content_hash,
        ]
    return make_id("ev", json.dumps(material))


def _state_indexable(s: State) -> Indexable:
    """What the search index keeps of a state, as a rebuild from the database makes it: the period it held
    is what it is about ("where did Peter live in 2019": the home he had then, moved into in 2018)."""
    return Indexable(id=s.id, type="state", text=state_words(s.subject, s.predicate, s.object, s.text),
                     time=s.valid_from.at if s.valid_from else None, kind=s.kind, scope=s.scope,
                     private=s.visibility == Visibility.PRIVATE, recorded_at=s.created_at,
                     entities=tuple(e for e in (s.subject_id, s.object_id) if e), subjects=(s.subject_id,),
                     about=_bounds(s.valid))


def _is_open_task(state: State) -> bool:
    return state.status is StateStatus.ACTIVE and state.valid.end is None


def _extracted_states(extraction: Extraction, event: Event, tz: dt.tzinfo = UTC) -> list[StateInput]:
    """State requests for the statements read out of an event's text, dated by the event when undated ("works
    at Acme until June" starts at the event); one with no start that ended before the event holds since
    before anything recorded (from the event, it would start after it ended). A task no one is said to have
    ("TODO: renew the certificate" in a note of no speaker) is its project's, in a project's scope; else
    no one's, and not kept as a state (the event keeps it)."""
    out = []
    for s in extraction.statements:
        subject, subject_type = s.subject, s.subject_type
        if not subject:
            if not event.scope.startswith(_PROJECT_SCOPE):
                continue
            subject, subject_type = event.scope.removeprefix(_PROJECT_SCOPE), "project"
        closing = s.action in ("close", "done")
        ended = s.valid_to is not None and s.valid_to.at <= event.occurred_at.at
        details = (("title", s.title), ("object_title", s.object_title), ("due", s.due and s.due.label(tz)))
        out.append(StateInput(
            subject=subject, predicate=s.predicate, object=s.object,
            valid_from=None if closing or (s.valid_from is None and ended)
            else (s.valid_from or event.occurred_at),
            valid_to=(s.valid_to or event.occurred_at) if closing else s.valid_to,
            evidence=(event.id,), confidence=s.confidence, text=s.span, scope=event.scope,
            private=event.visibility is Visibility.PRIVATE, reason=f"extracted from: {s.span}"[:200],
            subject_type=subject_type, object_type=s.object_type,
            action="done" if s.action == "done" else "close" if closing else "assert",
            payload={k: v for k, v in details if v} or None,
            held_before=s.held_before and s.valid_to is not None,  # (only when the text says until when)
            witnessed=s.witnessed,
            unnamed=closing and not s.object,  # ("I quit my job": whatever job then)
        ))
    return out


def _named_in(statement: str, extraction: Extraction) -> list[tuple[str, str | None]]:
    """The entities ``extraction`` found that ``statement`` (a part of the text it read) names."""
    return list(dict.fromkeys((e.name, e.type) for e in extraction.entities
                              if re.search(rf"(?<!\w){re.escape(e.name)}(?!\w)", statement, re.IGNORECASE)))


class _Claim(NamedTuple):
    """What a state request says, whatever its wording: one event saying it twice is one piece of evidence."""

    subject: str
    predicate: str
    object: str
    action: str

    def restates(self, other: _Claim) -> bool:
        """Whether this says what ``other`` says in more or fewer words: "likes the new on-call rota" read
        from an event that states outright that Peter likes the on-call rota."""
        if self[:2] != other[:2] or self.action != other.action or not self.object or not other.object:
            return False
        mine, theirs = f" {self.object} ", f" {other.object} "  # (keys keep the words apart)
        return mine in theirs or theirs in mine


def _claim(r: StateInput) -> _Claim:
    return _Claim(name_key(r.subject), r.predicate, name_key(str(r.object or "")), r.action)


def _in_write_order(revisions: Sequence[Revision], first: int) -> list[Revision]:
    """``revisions`` with ids that lead with their place in the write (from ``first``, six hex digits), then
    18 of their own: a state's revisions of one write share its time, and revisions list by time, then id, so
    they list in the order the write made them (an opinion weighed by two events: the second step after the
    first). No two of a write share an id either: two plans of one write can change one state alike at one
    time (two closes of it), and a write with one id twice is refused by the database after it was
    acknowledged."""
    return [r.model_copy(update={"id": f"rv_{first + i:06x}{r.id[3:21]}"}) for i, r in enumerate(revisions)]


def _after_plan(current: Sequence[State], plan: Plan) -> list[State]:
    """A timeline's current states as ``plan`` leaves them."""
    changed = {s.id: s for s in (*plan.versions, *plan.retractions)}
    return [changed.get(s.id, s) for s in current] + list(plan.new_states)


def _held_before(current: Sequence[State], probe: State, end: TimePoint) -> bool:
    """Whether a live state with the probe's object holds at some time before ``end`` (a close that ends
    nothing, said again: "left Acme in May" twice)."""
    key = object_key(probe.object_id, probe.object)
    return any(s.status.value != "retracted" and object_key(s.object_id, s.object) == key
               and (s.valid.start is None or s.valid.start.at < end.at) for s in current)


def _state_to_close(current: Sequence[State], probe: State, end: TimePoint | None, *,
                    any_object: bool = False, reworded: bool = False) -> State | None:
    """The live state with the probe's object (``any_object``: with any; ``reworded``: or one whose words
    hold its words, or are held in them) that a close at ``end`` would end (the latest such; of those
    reworded, one with its very words first)."""
    key = object_key(probe.object_id, probe.object)

    def matches(s: State) -> bool:
        other = object_key(s.object_id, s.object)
        held_in = reworded and (f" {key} " in f" {other} " or f" {other} " in f" {key} ")
        return any_object or other == key or held_in

    live = [s for s in current if s.status.value != "retracted" and matches(s)
            and (s.valid.end is None or end is None or s.valid.end.at > end.at)
            and (s.valid.start is None or end is None or s.valid.start.at < end.at)]
    earliest = dt.datetime.min.replace(tzinfo=UTC)
    return max(live, key=lambda s: (object_key(s.object_id, s.object) == key,
                                    s.valid.start.at if s.valid.start else earliest), default=None)


def _bounds(about: Interval | None) -> tuple[dt.datetime | None, dt.datetime | None] | None:
    if about is None or (about.start is None and about.end is None):
        return None
    return (about.start.at if about.start else None, about.end.at if about.end else None)


def _thread_of(event: Event) -> str | None:
    return event.thread or event.source.thread_id or event.source.session_id


def _state_input(raw: Any, event_id: str) -> StateInput:
    if not isinstance(raw, Mapping):
        raise InvalidInput("each item of states must be an object with subject, predicate, object", field="states")
    allowed = set(StateInput.__dataclass_fields__)
    unknown = set(raw) - allowed
    if unknown:
        raise UnknownField(sorted(unknown)[0], allowed, where=" in states", synonyms=_STATE_SYNONYMS,
                           field="states")
    for required in ("subject", "predicate", "object"):
        if not raw.get(required) and not (required == "object" and raw.get("unnamed")):
            raise InvalidInput(f"states.{required} is missing", field=f"states.{required}")
    return StateInput(**{"object": "", **raw, "evidence": (*tuple(raw.get("evidence") or ()), event_id)})


_OPEN: weakref.WeakSet[Memory] = weakref.WeakSet()


def _save_index_every(memory: weakref.ref[Memory], stop: threading.Event, seconds: float) -> None:
    """Save the memory's search index every ``seconds`` while it changes, until ``stop`` is set (its close).
    The index is derived data: a failed save is said and tried again at the next turn."""
    while not stop.wait(seconds):
        held = memory()
        if held is None:
            return
        index = held.index
        del held  # (the memory may go while the index is written)
        if index.unsaved and not index.closed:
            try:
                index.save()
            except Exception:  # noqa: BLE001 - the next turn tries again
                log.exception("saving the search index in %s failed; tried again in %.0f s", index.directory,
                              seconds)


@atexit.register
def _close_left_open() -> None:
    """Close the memories a program left open as it exits: their embedding worker would otherwise be stopped
    by the interpreter inside the model (which aborts the process) and their newest index entries not saved."""
    for memory in list(_OPEN):
        try:
            memory.close()
        except Exception:  # noqa: BLE001 - the others are still closed
            log.exception("closing a memory left open at exit failed")


@contextmanager
def _bulk(items: int) -> Iterator[None]:
    """Pause the cyclic garbage collector while a write of many items runs. A batch makes millions of small
    objects that live until it commits, and the collector walked them again and again: a fifth of the time of
    a 5,000-event write with extraction. Reference counting still frees whatever the write drops at once;
    only reference cycles wait for the collector, which runs again when the write ends (or fails). A
    collector someone else paused stays paused.

    After a write of ``BULK_RELEASE`` items or more, the C allocator hands back the free memory it keeps:
    what such a write made and dropped stays resident otherwise (after 300k events and 120k states in bulk:
    1,366 MB resident, 1,141 MB after the release; ~15 ms a release)."""
    paused = items >= BULK_GC_PAUSE and gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
        if items >= BULK_RELEASE:  # whoever holds the collector
            allocator.release()


def _at_index(exc: GraphmemError, index: int) -> GraphmemError:
    """The same error, its message and field prefixed with the index of the batch item it is about."""
    located = copy.copy(exc)
    located.message = f"item {index}: {exc.message}"
    located.field = f"[{index}].{exc.field}" if exc.field else f"[{index}]"
    located.args = (located.message,)
    return located
