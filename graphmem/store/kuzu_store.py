"""The embedded graph store on Kuzu: the only module that imports ``kuzu``.

Engine facts this adapter is built around:

* one read-write process per database file; a second process fails to open it (-> :class:`StoreLocked`);
* inside a process, concurrent write transactions fail at once instead of waiting, so writes go through one
  connection under one lock; reads use a connection per thread and run concurrently;
* timestamps lose their offset silently, so only naive UTC reaches the engine, always as parameters;
* bulk edges are fast through ``COPY rel FROM <arrow table>`` and slow row by row, so a batch with many rows
  of one table goes through COPY, inside the same transaction as the rest of the batch;
* a transaction costs ~2 ms however little it holds, so a small write is acknowledged once it is in the write
  journal (``<path>.journal``, one disk sync; see store/journal.py) and a background applier moves the writes
  queued there into the engine, many per transaction. Reads see every acknowledged write: a read waits for the
  applier when a queued write could change its answer, and the few lookups a write itself makes (is this
  event stored? which entity has this name key?) consult the queued writes as well as the engine;
* a process killed while the engine folds its log into the file can leave a database the engine cannot open
  again, so a recovery copy of the file and the journal records since are kept to make it again from
  (see store/recovery.py).
"""

from __future__ import annotations

import bisect
import importlib.util  # noqa: F401  (kuzu's Arrow import path needs importlib.util loaded)
import dataclasses
import datetime as dt
import itertools
import logging
import operator
import os
import pickle
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any

import kuzu
import pyarrow as pa

from graphmem.errors import DuplicateKey, StoreError, StoreLocked
from graphmem.ontology import (
    Annotation,
    Entity,
    Event,
    Evidence,
    EvidenceStance,
    Revision,
    State,
    StateStatus,
    Thread,
    name_key,
)
from graphmem.store import rows
from graphmem.store.cache import ByIdCache, KnownIds
from graphmem.store.journal import Journal, parse_records
from graphmem.store.port import EventBrief, EventQuery, Indexable, ReadPass, SourceCursor, StateQuery, StoreStats
from graphmem.store.port import Period, TimelineQuery, WriteBatch, declared_subjects, in_view, object_key
from graphmem.store.recovery import RecoveryCopy, copy_whole, left_by_a_gone_database
from graphmem.store.schema import MIGRATIONS, NODES, RELS, Table
from graphmem.temporal import OPEN_START, bearing_on, without_buried

__all__ = ["KuzuStore"]

log = logging.getLogger(__name__)

# A transaction that ran a COPY is checkpointed by its COMMIT, even with automatic checkpoints off (the engine
# writes the shadow file and empties its log there): ~25 ms a node table and ~40 ms a relationship table
# copied into on a small database, 0.3-0.9 s for the commit of a 10,000-event batch in the first 300k events.
# Row-wise statements commit in ~1-5 ms; `UNWIND $rows` CREATE of nodes costs ~25 us a row, but relationships
# between existing nodes by UNWIND join every row against a scan of both tables (see
# ROWS_SCANNED_PER_JOINED_ROW; MATCHing both ends in one clause is planned as a cross product and exhausts the
# buffer pool)
COPY_THRESHOLD = 64  # rows of one table in one batch above which COPY beats row-wise CREATE
COPY_CHUNK = 4_096  # rows turned into Arrow at a time for a COPY or a LOAD FROM (see _arrow)
# the same for the applier's merged writes. A COPY's commit costs ~100 ms or more in a large database and
# slows the writes being acknowledged beside it; row by row the applier spends ~1 ms an event. One by one at
# a million events: ~490-510 records/s with this, ~360-440 with COPY_THRESHOLD. New nodes of a transaction
# that copies nothing go from Arrow rows past COPY_THRESHOLD even so (see _insert): `UNWIND $rows` CREATE took
# the applier ~15 ms for a merged write's ~150 annotations and as long for its revisions. Records one by one
# with extraction on one core (bench/extraction.py --speed, two rounds of three runs): 690 and 732/s against
# 631 and 677, until all were applied 589 and 626 against 541 and 580
APPLY_COPY_THRESHOLD = 1_000
# a transaction of at most this many rows writes the kinds that go in bulk by statements that read their rows
# from Arrow (`LOAD FROM`, see _load) rather than by COPY: a COPY's commit checkpoints the database (~25-40 ms
# a table copied into on a small one, ~1 s at a million events), which was most of the cost of a batch of 500
# events with extraction (622 events/s by COPY, 1,401 by statements, one core). Larger ones still COPY: a
# statement costs ~35-45 us an event against ~20 by COPY, and reads of a memory bulk-loaded by statements
# were slower (as-of p50 7.1 ms against 2.7 at a million events)
LOAD_MAX_ROWS = 8_000
# a single-key MATCH is a primary-key lookup, while `UNWIND $keys AS k MATCH (n) WHERE n.pk = k` joins the
# keys against a scan of the table (twice as fast as `MATCH (n {pk: k})` after UNWIND, which the engine
# plans worse): up to this many keys, one lookup per key is faster
LOOKUP_LOOP_MAX = 48
# keys one joined lookup takes at most: its join works in the engine's page cache, so a chunk bounds what one
# statement holds there (a chunk rescans the table: ~12 ms at 100k entities); what a join carries matters as
# much, see _read_subjects
LOOKUP_CHUNK = 5_000
# A join's page cache holds every row of the table with the columns it returns, not only the rows it finds:
# 50 events (their text among the columns) of 300,000 did not fit the default 192 MiB. So a lookup of wide
# columns looks each key up alone (~0.7 ms a key at 300,000 events, ~1.3 at a million) up to WIDE_LOOP_MAX
# keys; past that it joins the keys to the rows' offsets (a join that carries only the key), then reads the
# rows by offset (a scan, which reads every row's columns before it keeps the few: at 300,000 events 1,000
# rows took 0.16 s and 5,000 0.43 s, at a million 2.2-2.4 s and 3.0-3.4 s)
WIDE_LOOP_MAX = 1_000
# nodes of one table from which a transaction writes them in one statement (UNWIND) instead of one statement
# each: a statement costs the engine ~0.15 ms or more however little it writes
GROUP_FROM = 2
# the same for events with their thread and mentions. An event's own statement costs ~1.2-1.6 ms (prepared,
# one core); the grouped one ~3.5 ms, ~0.2-1 ms an event, and a scan of every entity to match the mentions
# (~0.12 us an entity: 1,000 entities add nothing that shows, 300k ~35 ms), where a statement of its own looks
# each up. Measured per event, groups of 8: 40 entities 0.94 ms grouped against 1.6 alone, 1,000 entities 0.66
# against 1.25, 100k 2.4 against 1.2. So events are grouped from EVENT_GROUP_FROM, and from one for every
# ENTITIES_PER_GROUPED_EVENT entities the memory holds
EVENT_GROUP_FROM = 4
# ... read from Arrow rows (LOAD FROM) from this many events, not from a parameter of rows: the engine takes
# a parameter's ~30 fields a row slowly (groups of ~38 events with their annotations, on one busy core: ~21 ms
# each that way, ~16 from Arrow). Other rows of the applier's transactions below its COPY threshold stay
# parameters. From Arrow too, 1,000 records one by one with extraction cost ~245 us of CPU a record in the
# applier against ~360 (bench/applier.py), but in bench/crash_soak.py the recovery copy was needed after 10 of
# 54 kills against 3 of 52, each time for a kill inside the checkpoint of a bulk COPY (see _lost_writes)
EVENT_LOAD_FROM = 16
ENTITIES_PER_GROUPED_EVENT = 4_000
# a statement that joins its rows to nodes by key reads them from Arrow rows (`LOAD FROM ... MATCH (n {id:
# id})`): the engine scans each table it joins once (~0.08-0.16 us a row), where a statement for each row
# looks it up (~0.6-1 ms a statement, one core). (Not from a parameter: `UNWIND $rows AS r MATCH (n {id:
# r.id})` scans the table again for every row. 300 edges between two tables of 30,000 nodes: 419 ms, against
# 6.5 ms from Arrow rows and 211 ms a statement each; at 300,000: 46 ms from Arrow, 208 a statement each.)
# So a transaction's edges between existing nodes, and its confirmations of held states, go in one statement
# from JOIN_GROUP_FROM rows, and when there is a row for every ROWS_SCANNED_PER_JOINED_ROW rows of the tables
# the statement scans (the scan is ~4,000-16,000 times cheaper than a statement)
JOIN_GROUP_FROM = 4
ROWS_SCANNED_PER_JOINED_ROW = 5_000
# ... while the engine's page cache can hold the join: it keeps the key of every row of the tables it scans
# there (a join against 600k + 300k rows ran in 192 MiB, against 1M + 500k it failed the statement: "the
# buffer pool is full"), so a join is chosen only while the tables it scans take at most this many bytes a row
# of the page cache (about twice what was measured); else its rows go a statement each
JOIN_ROW_BYTES = 256
EVENT_CACHE = 20_000  # events kept parsed in memory (see store/cache.py); ~3 KB each
ENTITY_CACHE = 50_000  # entities kept parsed; every change to one passes through write(), which refreshes it
STATE_CACHE = 20_000  # states by id, kept current the same way
# subjects whose state rows (every version) are kept: an as-of question and the planning of each write read
# a subject's states, and a subject with a long history costs the engine ~6 ms and parsing as much again; a
# write changes the kept rows as it changed the stored ones (see _SubjectRows), so a subject written to often
# is not read again. A subject read costs the engine ~7 ms (4,000 subjects of 2-3 versions at 100k events:
# 28 s) and its rows ~6 KB kept, so 20,000 subjects hold ~120 MB at most: an entity or as-of question about
# any of 10,000 people answers from memory once it has been asked
SUBJECT_CACHE = 20_000
SUBJECT_CACHE_READ = 1_000  # a read of more subjects (a bulk write's) is not kept: its rows would fill the cache
# a write of more rows than this (a bulk import) is journalled once the engine has taken the writes ahead of
# it, and applied in a transaction of its own, or with other bulk writes (see write and BULK_PER_COMMIT)
LARGE_WRITE_ROWS = 256
# a write whose journal record is larger than this returns once the engine holds it, not while the caller
# prepares the next. Two such batches alive at once (one being applied, the next being made) leave memory
# behind: the next one's allocations interleave with the freeing of the last, and the pieces stay resident.
# bench/scale.py's 40,000-state writes (19.6 MiB records) held ~150 MB more while in flight, and peaked at
# 2,080-2,123 MB at a million (the target is under 2 GB): they wait. (Measured again once the applier no longer
# kept an applied write alive, with a limit of 64 MiB: 1,966-1,975 MB against 1,902-1,911, and states/s no
# faster.) Its 10,000-event writes (~7 MB) overlap
# the engine: once the embedder cost ~24 us a text, 100k events loaded at 5,463-5,543 events/s in flight
# against 3,615-3,732 one at a time (a limit of 4 MiB), peaking at 745-755 MB against 721-726; a million at
# 3,258 and 3,377 against 3,030, peaking at 1,958 / 1,955 MB against 1,939
IN_FLIGHT_MAX_BYTES = 16 * 2**20
KNOWN_IDS_AFTER = 64  # journalled writes after which the stored events' ids are read into a filter
APPLY_MAX_ROWS = 20_000  # rows of journalled writes the applier merges into one transaction
# a transaction costs the engine ~2 ms besides its rows (~1 ms an event) and slows the reads running beside it,
# and its statements that join rows to stored nodes scan those tables once whatever their number of rows:
# unless a read waits for them, the applier lets writes gather for up to this long, or this many rows. Records
# one by one with extraction on one core (bench/extraction.py --speed, three runs each): 559-576/s, until all
# were applied 474-486/s, with 0.5 s and 3,000 rows; 346-427 (409) with 0.1 s and 1,000; the applier's
# statements took ~0.53 ms a record against ~1.2. bench/scale.py at 100k (two runs each): one by one
# 1,017-1,047/s against 964-982, from 8 threads 1,736-1,906 against 1,490-1,585. (Earlier, 0.1 s against 20 ms
# and 200 rows: one by one with extraction 370-450/s against 300-366.) A read that waits for the queued writes
# has them applied at once, so it waits for at most this long's writes
APPLY_LINGER_S = 0.5
APPLY_LINGER_ROWS = 3_000
# bulk writes the engine copies (over LOAD_MAX_ROWS rows each) share a transaction when one is acknowledged
# while the engine takes the one before: the commit of a transaction that copied checkpoints the whole
# database, a cost that grows with the database and hardly with the rows copied (the engine alone, 1M of
# bench/scale.py's events: 18,035 events/s with a commit every 10,000, 26,553 every 20,000, 31,009 every
# 30,000; bench/engine_floor.py). The applier copies each as it comes and commits after BULK_PER_COMMIT of
# them, or once the next has not come for BULK_PARTNER_WAIT_S, or a read waits for them, or the store closes.
# A bulk writer waits until the engine has taken the writes ahead of it, not until they are committed
BULK_PER_COMMIT = 2
BULK_PARTNER_WAIT_S = 3.0
COUNTED_VIEWS = 64  # views whose counts are kept (see KuzuStore._counts_in)
_MARK = "MATCH (j:JournalMark {key: 'applied'}) SET j.applied = $seq"
# the engine's write-ahead log is folded into the database file (a checkpoint) once it holds this much. The
# engine would do it inside the commit that crosses it, where it waits for every running read to finish and
# fails the commit after a timeout (though its writes stay committed): this adapter does it after the commit,
# and tries again a little later when reads keep it from finishing
CHECKPOINT_BYTES = 16 * 2**20
CHECKPOINT_RETRY_S = 5.0
RECOVERY_RETRY_S = 60.0  # after a recovery copy could not be taken (a full disk), the next try waits this
# opens the database in a process of its own and says how it went: after an unclean stop the engine may fail
# to open it, or crash the process that tries (the probe's exit: 0 opened, 3 held by another process)
_PROBE = """
import sys, kuzu
try:
    kuzu.Database(sys.argv[1], buffer_pool_size=int(sys.argv[2]) * 2**20, auto_checkpoint=False).close()
except RuntimeError as exc:
    print(exc, file=sys.stderr)
    sys.exit(3 if "lock" in str(exc).lower() else 1)
"""
PROBE_TIMEOUT_S = 600.0
_TABLES = {t.name: t for t in (*NODES, *RELS)}
# a write's state changes by subject, with the subject's cached rows and those the changes make of them
# (None: not cached); None for a write that did not make them ahead (see _rows_written)
_RowsWritten = Mapping[str, tuple[WriteBatch, "_SubjectRows | None", "_SubjectRows | None"]] | None
# the rows of bulk writes are made into Arrow from the C allocator's memory (see graphmem/allocator.py), which
# hands a freed table back at once: Arrow's own allocator keeps what it freed for later tables, and its
# threads' leftovers added ~25 MB to a million-event load (bench/scale.py's phases sampled)
_ARROW_POOL = pa.system_memory_pool()
_ARROW_TYPES = {
    "STRING": pa.string(), "TIMESTAMP": pa.timestamp("us"), "DOUBLE": pa.float64(), "INT64": pa.int64(),
    "BOOLEAN": pa.bool_(), "STRING[]": pa.list_(pa.string()),
}


def _given(columns: Iterable[str], prefix: str = "") -> str:
    return ", ".join(f"{c}: ${prefix}{c}" for c in columns)


def _props(table: Table, prefix: str = "") -> str:
    return _given(table.column_names, prefix)


_CREATE = {t.name: f"CREATE (:{t.name} {{{_props(t)}}})" for t in NODES}


def _loaded(columns: Iterable[str]) -> str:
    """Columns set from the same-named columns of the rows a ``LOAD FROM`` reads (quoted: ``order`` is one)."""
    return ", ".join(f"{c}: `{c}`" for c in columns)


def _grouped(head: str, column: Callable[[str, str], str], carry: str) -> tuple[dict[str, str], dict[bool, str]]:
    """The statements that write many rows at once: nodes of each table, and events with their thread (first;
    the key is with or without one) and mentions. ``head`` is the clause that yields the rows, ``column`` how
    a row's column (name, engine type) is read, ``carry`` what a WITH keeps of the row. The mentions are
    matched after the event is made, so one that names none is still written; the count returned says how
    many were linked (when it pays to group events: see EVENT_GROUP_FROM)."""

    def props(columns: Iterable[tuple[str, str]]) -> str:
        return ", ".join(f"{c}: {column(c, t)}" for c, t in columns)

    nodes = {t.name: f"{head}CREATE (:{t.name} {{{props(t.columns)}}})" for t in NODES}
    events = {
        with_thread: (
            f"{head}CREATE (e:Event {{{props(_TABLES['Event'].columns)}}}) "
            + (f"WITH e, {carry} MATCH (t:Thread {{key: {column('_thread', 'STRING')}}}) "
               "CREATE (e)-[:IN_THREAD]->(t) " if with_thread else "")
            + f"WITH e, {carry} UNWIND {column('_mentions', 'STRING[]')} AS mid MATCH (m:Entity {{id: mid}}) "
            "CREATE (e)-[:MENTIONS]->(m) RETURN count(*)"
        )
        for with_thread in (False, True)
    }
    return nodes, events


# from the parameter ``rows`` (each column cast: one null in every row would otherwise reach the engine
# untyped), and from an Arrow table (see _load), whose columns are typed
_GROUP_CREATE, _GROUP_EVENTS = _grouped("UNWIND $rows AS r ", lambda c, t: f"CAST(r.{c} AS {t})", "r")
_LOAD_CREATE, _LOAD_EVENTS = _grouped("", lambda c, _: f"`{c}`", "`_thread`, `_mentions`")
_EVENT_GROUP_COLUMNS = (*_TABLES["Event"].columns, ("_thread", "STRING"), ("_mentions", "STRING[]"))
# states with the edge from their subject (its columns prefixed h_: they share names with the state's)
_LOAD_STATES = (
    f"MATCH (n:Entity {{id: `subject_id`}}) CREATE (s:State {{{_loaded(_TABLES['State'].column_names)}}}) "
    "CREATE (n)-[:HAS_STATE {" + ", ".join(f"{c}: `h_{c}`" for c in _TABLES["HAS_STATE"].column_names)
    + "}]->(s) RETURN count(*)"
)
_STATE_LOAD_COLUMNS = (*_TABLES["State"].columns, *((f"h_{c}", t) for c, t in _TABLES["HAS_STATE"].columns))
_ENTITY_UPDATE = "MATCH (n:Entity {id: $id}) SET n.name = $name, n.type = $type, n.aliases = $aliases"
# many in one statement, reading them from Arrow rows (see _load); it joins them against a scan of the entities
_BULK_ENTITY_UPDATE = ("MATCH (n:Entity {id: `id`}) SET n.name = `name`, n.type = `type`, n.aliases = `aliases` "
                       "RETURN count(*)")
_ENTITY_UPDATE_COLUMNS = (("id", "STRING"), ("name", "STRING"), ("type", "STRING"), ("aliases", "STRING[]"))
_STATE_CREATE = (
    f"MATCH (n:Entity {{id: $subject_id}}) CREATE (s:State {{{_props(_TABLES['State'])}}}) "
    f"CREATE (n)-[:HAS_STATE {{{_props(_TABLES['HAS_STATE'], 'h_')}}}]->(s)"
)
_STATE_CREATE_WITH_OBJECT = (
    f"MATCH (n:Entity {{id: $subject_id}}), (o:Entity {{id: $object_id}}) "
    f"CREATE (s:State {{{_props(_TABLES['State'])}}}) "
    f"CREATE (n)-[:HAS_STATE {{{_props(_TABLES['HAS_STATE'], 'h_')}}}]->(s), (s)-[:OBJECT]->(o)"
)
# what a new version may change of a state (its subject, object, value and start never change in a version;
# a merge moves subject and object itself): set on the state, its current edge found from the state's side
_VERSIONED = ("valid_to", "valid_to_g", "stated_end", "stated_end_g", "recorded_at", "retracted_at",
              "last_confirmed_at", "confidence", "status", "done", "payload")


def _state_version(columns: Sequence[str], edge: Sequence[str] = _TABLES["HAS_STATE"].column_names) -> str:
    """A new current version of a state: its open edge closes at the version's transaction time, the state
    takes the version's ``columns``, and a new open edge carries the version's time and status (``edge``: the
    edge columns given; the others are null)."""
    sets = "".join(f", s.{c} = ${c}" for c in columns)
    # (the open-edge test after WITH: as a MATCH filter the engine plans a join that costs ~0.4 ms more)
    return ("MATCH (s:State {id: $id})<-[h:HAS_STATE]-(n:Entity) WITH s, h, n WHERE h.replaced_at IS NULL "
            f"SET h.replaced_at = $h_recorded_at{sets} "
            f"WITH n, s CREATE (n)-[:HAS_STATE {{{_given(edge, 'h_')}}}]->(s)")


_STATE_RETRACT = (
    "MATCH (n:Entity)-[h:HAS_STATE]->(s:State {id: $id}) WHERE h.replaced_at IS NULL "
    "SET h.replaced_at = $retracted_at, h.retracted_at = $retracted_at, s.retracted_at = $retracted_at, "
    "s.status = $status, s.recorded_at = $retracted_at"
)
_S_COLS = ", ".join(f"s.{c} AS s_{c}" for c in _TABLES["State"].column_names)
# a version of a state reads its period, status, confidence and time of recording from its edge (see
# rows.state_from_row): of the state's node, only the rest. Each column read costs the engine ~50-90 µs a
# subject, as it reads a column's whole vector of rows around the state's (a subject's read at 100k events,
# p50: 3.5 -> 3.2 ms)
_S_VERSION_COLS = ", ".join(f"s.{c} AS s_{c}" for c in _TABLES["State"].column_names
                            if c not in rows.EDGE_VERSIONED)
_NODE_VERSIONED = [c for c in _VERSIONED if c not in rows.EDGE_VERSIONED]  # (of a new version, on the node)
_H_COLS = ", ".join(f"h.{c} AS h_{c}" for c in _TABLES["HAS_STATE"].column_names)
_E_COLS = ", ".join(f"e.{c} AS {c}" for c in _TABLES["Event"].column_names)
_N_COLS = ", ".join(f"n.{c} AS {c}" for c in _TABLES["Entity"].column_names)
_BRIEF_COLS = ", ".join(f"e.{c} AS {c}" for c in rows.BRIEF_COLUMNS)  # a cold row costs ~65 µs per column


def _arrow(columns: Sequence[tuple[str, str]], items: Iterable[Mapping[str, Any]]) -> pa.Table:
    """``items`` as an Arrow table of ``columns`` (names and engine types), made ``COPY_CHUNK`` rows at a time
    from the iterable: no more than a chunk of a bulk write's rows (dicts of ~0.5-1 KB) exists at once."""
    schema = pa.schema([(name, _ARROW_TYPES[type_]) for name, type_ in columns])
    chunks = []
    rows_ = iter(items)
    while chunk := list(itertools.islice(rows_, COPY_CHUNK)):
        arrays = [pa.array(_column(chunk, f.name), f.type, memory_pool=_ARROW_POOL) for f in schema]
        chunks.append(pa.RecordBatch.from_arrays(arrays, schema=schema))
    return pa.Table.from_batches(chunks, schema)


def _column(rows_: list[Mapping[str, Any]], name: str) -> list[Any]:
    """The values of column ``name`` in ``rows_`` (None where a row lacks it), gathered by a loop in C: a bulk
    write's events went into Arrow at ~2.5 us a row, not ~5.8 (a Python loop a column), on the applier's
    thread, which needs the interpreter's lock that the caller preparing the next batch holds."""
    try:
        return list(map(operator.itemgetter(name), rows_))
    except KeyError:
        return [r.get(name) for r in rows_]


def _by_name(conn: Any, query: str, rows_: pa.Table) -> Any:
    """Run ``query``, which reads the Arrow table ``rows_`` by the name ``graphmem_rows``, on ``conn``.

    Not as a parameter (``FROM $rows``): the engine keeps every table passed that way alive (~660 bytes an
    event stayed in memory; a million events: ~650 MB). To find a table by name the engine reads the local
    variables of every frame of the calling thread, and Python then keeps a copy of each frame's variables
    for as long as the frame lives: a long-lived caller (the applier's loop, a server's worker) kept what it
    had since let go, such as a dropped memory's store. So the statement runs in a thread of its own (~0.1 ms),
    whose frames end with it."""
    outcome: list[Any] = []

    def run() -> None:
        graphmem_rows = rows_  # noqa: F841 - read by name, from this frame
        try:
            outcome.append(conn.execute(query))
        except BaseException as exc:  # noqa: BLE001 - raised again in the calling thread
            outcome.append(exc)

    runner = threading.Thread(target=run, name="graphmem-load")
    runner.start()
    runner.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _repeated_id(batch: WriteBatch) -> str | None:
    """An id the write's new nodes hold twice: the engine refuses such a write (a duplicated primary key),
    and it would do so after the write was acknowledged, stopping the memory."""
    for nodes in (batch.events, batch.entities, batch.new_states, batch.revisions):
        if len({n.id for n in nodes}) == len(nodes):
            continue
        seen: set[str] = set()
        for n in nodes:
            if n.id in seen:
                return n.id
            seen.add(n.id)
    return None


def _counted(result: Any, wanted: int, what: str) -> None:
    """Fail the transaction when a bulk statement wrote fewer rows than asked: a node it had to match (a
    state's subject, a link's end, an updated entity) is not in the engine."""
    made = int(result.get_all()[0][0])
    if made != wanted:
        raise StoreError(f"database error: {wanted - made} of {wanted} {what} found no node to attach to")


class KuzuStore:
    """A :class:`~graphmem.store.port.GraphStore` on an embedded Kuzu database.

    >>> store = KuzuStore(":memory:")
    >>> store.stats().events
    0
    """

    def __init__(self, path: str | Path, *, buffer_pool_mb: int = 1024, read_only: bool = False,
                 recovery: bool = True) -> None:
        self.path = str(path)
        self.engine = f"kuzu {kuzu.__version__}"
        self._read_only = read_only
        # (see store/recovery.py) kept for a database on disk that this process writes
        on_disk = self.path not in ("", ":memory:")
        self._recovery = RecoveryCopy(self.path) if recovery and not read_only and on_disk else None
        self._recovery_after = 0.0  # (monotonic) no copy is tried before: the last attempt failed
        self.restored_from: list[str] = []  # the files set aside when this open made the database again
        self._buffer_pool_mb = buffer_pool_mb
        self._warned_pool = False  # (said once: see _read_subjects)
        self._unjoinable: set[str] = set()  # patterns whose join of many keys the page cache cannot hold
        self._unclean = False  # the engine's files said its last process did not close the database
        left = left_by_a_gone_database(self.path) if on_disk and not read_only else []
        if left:  # a new database would take those writes for its own (or a later restore, the other's copy)
            raise StoreError(
                f"database {self.path!r} does not exist, but files of the database that was there do: "
                f"{', '.join(left)}. To start a new database there, delete them; to make the old one again, "
                f"copy {self.path}.recovery to {self.path} and open it (the journal then applies the writes "
                "acknowledged since the copy)"
            )
        self._connect(self._open_database())
        if not recovery and not read_only and self.path not in ("", ":memory:"):
            RecoveryCopy(self.path).drop()  # its journal records go now: a copy left would be stale
        self._write_lock = threading.RLock()  # one logical writer: a write is planned and acknowledged under it
        self._engine_lock = threading.Lock()  # one engine write transaction at a time (the applier's, or another)
        self._events: ByIdCache[Event] = ByIdCache(EVENT_CACHE)
        self._entities: ByIdCache[Entity] = ByIdCache(ENTITY_CACHE)
        self._states: ByIdCache[State] = ByIdCache(STATE_CACHE)
        self._subjects: ByIdCache[_SubjectRows] = ByIdCache(SUBJECT_CACHE)
        self._subject_of: dict[str, set[str]] = {}  # state id -> the subjects whose cached rows hold it
        self._evidenced: set[str] | None = None  # ids of the states with evidence (read at the first need)
        self._objects: dict[frozenset[str], set[str]] = {}  # predicates -> their states' objects (objects_of)
        self._known_events: KnownIds | None = None  # the stored events' ids (see _known_event_ids)
        self._journalled = 0  # writes acknowledged from the journal by this process
        self._changes = 0  # writes and removals made through this store: counts of a view are kept until one
        self._counted: dict[tuple[ReadPass, ...], tuple[int, tuple[int, ...]]] = {}  # view: (changes, counts)
        self._closed = False
        self._queued: list[_Queued] = []  # journalled writes the engine does not hold yet, oldest first
        self._queued_rows = 0  # their rows
        self._overlay = _Overlay()  # what they add, for the lookups that do not wait for them
        self._queue = threading.Condition()  # guards the two above, _applied, _taken, _failure and _stopping
        self._applied = 0  # the number of the last journal record the engine holds
        self._taken = 0  # ... or has in a transaction not committed yet (see BULK_PER_COMMIT)
        self._failure: StoreError | None = None  # a journalled write the engine refused: nothing more is taken
        self._stopping = False
        self._waiting = 0  # reads waiting for the applier
        self._taking = 0  # bulk writers waiting for the engine to take the writes ahead of theirs
        self._singly_until = 0  # after a merged transaction failed: its writes one per transaction
        self._applier: threading.Thread | None = None
        self._journal: Journal | None = None
        self._checkpoint_after = 0.0  # (monotonic) not before: the last attempt failed
        self._copy_at = COPY_THRESHOLD  # rows of one table above which the transaction being written uses COPY
        self._copying = True  # whether the transaction being written copies (else loads: see LOAD_MAX_ROWS)
        # rows of the tables whose size decides how a write is made: read before the first write, kept up by
        # this process's writes; during a transaction, with the rows it adds (an upper bound)
        self._held: dict[str, int] | None = None
        self._sizes: dict[str, int] = {}
        self._rolled_back = False  # a write transaction was rolled back and no checkpoint has run since
        self._gate = _ReadGate()
        self._copied = False  # whether the transaction being written has copied (its commit checkpoints)
        if read_only:
            self._check_journal_applied()
        else:
            self._migrate()
            if "JournalMark" in self._tables():  # (absent only where a test holds the migrations back)
                lost = self._lost_writes()
                if lost is not None:
                    self._disconnect()
                    assert self._recovery is not None
                    self._restore(self._recovery, lost)
                    self._known_events = None  # (the ids of the file set aside)
                    self._connect(self._engine())
                    self._migrate()
                self._journal = self._open_journal()
                if self._recovery is not None and self._recovery.mark() is None:
                    self._take_recovery_copy()

    def _engine(self) -> Any:
        # checkpoints are this adapter's to make: see _checkpoint. The engine's threads are as many as the
        # processors this process may run on, not the machine's (what it counts by itself): pinned to one,
        # two of them took turns with the applier on it, ~60 us a record more than one (records one by one
        # with extraction, bench/extraction.py --speed's scene)
        return kuzu.Database(self.path, buffer_pool_size=self._buffer_pool_mb * 1024 * 1024,
                             max_num_threads=_usable_cpus(), read_only=self._read_only,
                             auto_checkpoint=False)

    def _connect(self, db: Any) -> None:
        self._db = db
        # the database file, read through this for copies: the engine's lock on it against other processes
        # goes with any close of the file in this process (see recovery.copy_whole)
        self._file: int | None = None if self.path in ("", ":memory:") else os.open(self.path, os.O_RDONLY)
        self._writer = kuzu.Connection(self._db)
        self._local = threading.local()
        self._prepared: dict[tuple[int, str], Any] = {}

    def _disconnect(self) -> None:
        """Close the engine, and then the file held for copies (the engine's lock goes with its close)."""
        self._writer.close()
        self._db.close()
        if self._file is not None:
            os.close(self._file)
            self._file = None

    def _open_database(self) -> Any:
        """The engine's database; made again from the recovery copy when the engine cannot open the file.
        After an unclean stop the engine is tried in a process of its own first: it may crash the one that
        tries."""
        engine = self._engine
        copy = self._recovery if self._recovery is not None and self._recovery.mark() is not None else None
        self._unclean = copy is not None and copy.unclean()
        if copy is not None and self._unclean:
            failure = _probe(self.path, self._buffer_pool_mb)
            if failure is not None and _POOL_FULL in failure:  # the setting's, not the file's: left as it is
                raise StoreError(f"cannot open database {self.path!r}: {failure}{_POOL_HINT}")
            if failure is not None:
                self._restore(copy, failure)
        try:
            return engine()
        except RuntimeError as exc:
            if "lock" in str(exc).lower():
                raise StoreLocked(
                    f"database {self.path!r} is open in another process; only one process may hold it. "
                    "Send reads and writes to the process that holds it (graphmem serve), or stop that process"
                ) from exc
            if copy is None or self.restored_from or _POOL_FULL in str(exc):
                raise _open_error(self.path, exc) from exc
            self._restore(copy, str(exc))
        try:
            return engine()
        except RuntimeError as exc:
            raise _open_error(self.path, exc) from exc

    def _lost_writes(self) -> str | None:
        """After an unclean stop, with a recovery copy: what the engine lost of the writes the journal keeps
        for the copy (``None``: nothing). A kill in the middle of the engine's checkpoint can leave a file that
        opens but holds a write's mark without its rows (bench/crash_soak.py: the 8,999 events of the bulk
        write under way were gone, its mark kept), or rows without their mark. So every event the journal
        kept is looked for: those of the writes the mark says were applied must all be there, and those of a
        write after it all or none (all: the engine kept the write but not its mark; see _open_journal)."""
        if not self._unclean or self._recovery is None or self.restored_from:
            return None
        path = self._journal_path()
        if path is None or not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            records, _ = parse_records(f.read())
        applied = self._mark(self._writer)
        base = self._recovery.mark() or 0
        known = self._known_event_ids()  # (one scan; a rare collision of hashes would hide one lost event)
        for seq, payload in records:
            if seq <= base:
                continue
            ids = [e.id for e in pickle.loads(payload).events]  # noqa: S301 - this process's own file
            held = len(known.maybe(ids))
            if seq <= applied and held < len(ids):
                return (f"journal record {seq} is marked applied but {len(ids) - held} of its {len(ids)} "
                        "events are not in the database")
            if seq > applied and 0 < held < len(ids):
                return (f"{held} of the {len(ids)} events of journal record {seq}, not yet applied, are in the "
                        "database")
        return None

    def _restore(self, copy: RecoveryCopy, failure: str) -> None:
        """Put the recovery copy in place of a database the engine cannot open (its journal then applies
        every acknowledged write the copy lacks), once the engine has opened the copy: a database it cannot
        read at all (made by another version of it) stays where it is."""
        try:
            kuzu.Database(copy.copy_path, read_only=True, buffer_pool_size=64 * 2**20).close()
        except RuntimeError as exc:
            raise StoreError(f"cannot open database {self.path!r} ({failure}), nor its recovery copy "
                             f"{copy.copy_path!r} ({exc}); both are left as they are") from exc
        try:
            self.restored_from = copy.restore()
        except OSError as exc:
            raise StoreError(f"cannot open database {self.path!r} ({failure}), and cannot put its recovery "
                             f"copy {copy.copy_path!r} in its place: {exc}") from exc
        log.error("the engine cannot open database %s (%s): it was made again from its recovery copy, and "
                  "the journal applies the writes since; the files that failed are kept as %s", self.path,
                  failure, ", ".join(self.restored_from))

    # -- connections and statements ---------------------------------------------------------------------

    def _reader(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = kuzu.Connection(self._db)
            self._local.conn = conn
        return conn

    def _run(self, conn: Any, query: str, params: dict[str, Any] | None = None) -> Any:
        key = (id(conn), query)
        # a checkpoint runs on the writer, with the engine lock: never beside it; on a reader, preparing a
        # statement is a transaction too, which a checkpoint waits for (see _ReadGate)
        try:
            with nullcontext() if conn is self._writer else self._gate.read():
                statement = self._prepared.get(key)
                if statement is None:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", DeprecationWarning)
                        statement = conn.prepare(query)
                    self._prepared[key] = statement
                return conn.execute(statement, params or {})
        except RuntimeError as exc:
            raise _database_error("database error", exc) from exc

    def _run_one(self, tx: Any, query: str, params: dict[str, Any], what: str) -> None:
        """A write statement that matches nodes and writes one row: it fails the transaction when a node it
        matches is not in the engine (``what`` names them), where the engine would write nothing and say so
        nowhere."""
        made = int(self._run(tx, query + " RETURN count(*)", params).get_all()[0][0])
        if made != 1:
            raise StoreError(f"database error: {what} is not in the database ({made} rows written, not 1)")

    def _rows(self, query: str, params: dict[str, Any] | None = None, *, settled: bool = True) -> list[dict[str, Any]]:
        """The rows a read returns; ``settled``: once the engine holds every acknowledged write (else the
        caller has made sure no queued write changes the answer, or consults the queued writes itself)."""
        if settled:
            self._settle()
        result = self._run(self._reader(), query, params)
        names = result.get_column_names()
        return [dict(zip(names, values, strict=True)) for values in result.get_all()]

    def _lookup(self, pattern: str, key: str, returns: str, keys: Iterable[str], *,
                settled: bool = True, wide: bool = False, alone: bool = False) -> list[dict[str, Any]]:
        """``MATCH pattern WHERE key = k RETURN returns`` for every k of ``keys`` (see LOOKUP_LOOP_MAX and
        LOOKUP_CHUNK). ``wide``: ``pattern`` is one node, ``key`` its primary key, and ``returns`` many of its
        columns or long ones, ``key`` among them (see WIDE_LOOP_MAX). ``alone``: a statement a key, however
        many (no join)."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return []
        if settled:
            self._settle()
        if wide and len(wanted) > WIDE_LOOP_MAX and not alone:
            return self._wide_lookup(pattern, key, returns, wanted)
        single = f"MATCH {pattern} WHERE {key} = $key RETURN {returns}"
        found: list[dict[str, Any]] = []
        if len(wanted) > LOOKUP_LOOP_MAX and not wide and not alone and pattern not in self._unjoinable:
            joined = f"UNWIND $keys AS k MATCH {pattern} WHERE {key} = k RETURN {returns}"
            for start in range(0, len(wanted), LOOKUP_CHUNK):
                try:
                    found.extend(self._rows(joined, {"keys": wanted[start : start + LOOKUP_CHUNK]},
                                            settled=False))
                except StoreError as exc:
                    # the engine joins a table it scans whole in its page cache: past ~128 MiB of rows
                    # (a million events' mentions in the default cache) the cache is full, whatever the
                    # chunk, and stays so as the tables grow; a statement a key then (~1 ms each)
                    if _POOL_FULL not in str(exc):
                        raise
                    self._warn_pool(pattern)
                    self._unjoinable.add(pattern)
                    wanted = wanted[start:]
                    break
            else:
                return found
        for k in wanted:
            found.extend(self._rows(single, {"key": k}, settled=False))
        return found

    def _wide_lookup(self, pattern: str, key: str, returns: str, wanted: list[str]) -> list[dict[str, Any]]:
        """A wide lookup of many keys (see WIDE_LOOP_MAX): the rows' offsets, then the rows by offset. A row
        whose offset came to hold another one in between (removed, and its place reused) is looked up by its
        key."""
        variable = pattern.strip("()").split(":")[0]
        at = {row["k"]: row["o"] for row in self._lookup(pattern, key, f"{key} AS k, offset(id({variable})) AS o",
                                                         wanted, settled=False)}
        by_offset = f"MATCH {pattern} WHERE offset(id({variable})) IN $offsets RETURN {key} AS _key, {returns}"
        offsets = sorted(at.values())  # (the scan meets them in order)
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(offsets), LOOKUP_CHUNK):
            for row in self._rows(by_offset, {"offsets": offsets[start : start + LOOKUP_CHUNK]}, settled=False):
                if (k := row.pop("_key")) in at:
                    found[k] = row
        moved = [k for k in at if k not in found]
        return [*found.values(), *self._lookup(pattern, key, returns, moved, settled=False, wide=True)]

    @contextmanager
    def write_lock(self) -> Iterator[object]:
        with self._write_lock:
            yield self

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._engine_lock, self._in_transaction() as tx:
            yield tx

    @contextmanager
    def _in_transaction(self) -> Iterator[Any]:
        """One engine transaction on the writer connection (the engine lock held by the caller)."""
        conn = self._writer
        with self._undone_cleared():
            self._run(conn, "BEGIN TRANSACTION")
            try:
                yield conn
            except BaseException:
                self._held = None  # (it counted rows that the engine does not keep)
                with suppress(RuntimeError):  # the engine may have rolled the failed transaction back already
                    conn.execute("ROLLBACK")
                raise
            try:
                with self._gate.alone() if self._copied else nullcontext():  # (it checkpoints: see _ReadGate)
                    self._run(conn, "COMMIT")
            except BaseException:
                self._held = None
                raise

    @contextmanager
    def _undone_cleared(self) -> Iterator[None]:
        """Around a write (the engine lock held): a checkpoint after it if it fails (the engine rolls it
        back), and before it while an earlier failed one is not cleared yet (see _after_rollback). A failed
        write that had copied rows stops the store instead (see _stop_after_failed_copy)."""
        if self._rolled_back:
            self._after_rollback()
        self._copied = False
        try:
            yield
        except BaseException as exc:
            if self._copied:
                self._stop_after_failed_copy(exc)
                raise
            self._rolled_back = True
            self._after_rollback()
            raise

    def _stop_after_failed_copy(self, exc: BaseException) -> None:
        """After the engine refused a transaction that had copied rows, nothing more goes to it. In Kuzu
        0.11.3 such a rollback leaves the engine unsound for the rest of the process: with a checkpoint after
        it, later relationship copies silently miss nodes of their own transaction (raw engine, 2,000-row
        copies with one duplicate key each time: after 21 rounds 87,978 events and 87,072 of their edges)
        and then the database file grows without bound; without one, a later commit fails and the process
        aborts (round 5). A fresh open is sound (40 of 40 rounds). So this process stops writing, and the
        engine does not checkpoint when it closes (that crashed the process): what was committed is in its
        log, what was acknowledged is in the journal, and a reopen applies both. The usual refusal, a stored
        event, is caught before the engine sees the write (see write)."""
        with suppress(RuntimeError):
            self._writer.execute("CALL force_checkpoint_on_close=false")
        kept = self._journal.path if self._journal is not None and self._journal.path else None
        if self.path in ("", ":memory:"):
            then = ("this memory lives in memory only: it takes nothing more, and what it holds goes when it "
                    "closes")
        else:
            then = "close and reopen the memory" + (
                f" (writes acknowledged before it are kept in {kept} and applied when it opens)"
                if kept else "")
        failure = StoreError(f"the database refused a bulk write ({exc}); after that the engine cannot take "
                             f"more writes safely in this process: {then}")
        log.error("%s", failure)
        with self._queue:
            if self._failure is None:
                self._failure = failure
            self._queue.notify_all()

    def _after_rollback(self) -> None:
        """A checkpoint once a write transaction was rolled back (the engine lock held). The engine (Kuzu
        0.11.3) keeps traces of a rolled-back transaction's row changes: a later transaction changing the same
        rows can fail with a write-write conflict, or crash the process. A checkpoint clears them (one engine
        refusal in a group of journalled writes, then the group's writes one by one: 2 of 3 runs failed, 14 of
        14 passed with it). If it cannot finish, it is tried again before the next write."""
        try:
            self._checkpoint_now()
        except StoreError as exc:
            log.warning("checkpoint after a rolled-back write to %s put off: %s", self.path, exc)
            return
        self._rolled_back = False

    def _migrate(self) -> None:
        conn = self._writer
        self._run(conn, "CREATE NODE TABLE IF NOT EXISTS " + NODES[0].ddl().removeprefix("CREATE NODE TABLE "))
        done = {r[0] for r in self._run(conn, "MATCH (m:Migration) RETURN m.name").get_all()}
        for migration in MIGRATIONS:
            if migration.name in done:
                continue
            with self._transaction() as tx:
                for statement in migration.statements:
                    tx.execute(statement)
                self._run(
                    tx, "CREATE (:Migration {name: $name, applied_at: current_timestamp()})", {"name": migration.name}
                )
            log.info("applied migration %s to %s", migration.name, self.path)

    def migrations(self) -> list[str]:
        return [r["name"] for r in self._rows("MATCH (m:Migration) RETURN m.name AS name ORDER BY name")]

    # -- writes -----------------------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        """Durable when it returns: in the journal, from which the applier moves it into the engine.

        A large write (more than ``LARGE_WRITE_ROWS`` rows: a bulk ``record_many``) waits first until the
        engine has taken the writes ahead of it: one in flight, which the engine copies while the caller
        prepares the next (the engine's share of a 10,000-event batch is native work that no longer holds up
        Python's), and bulk writes one after another share a commit (see ``BULK_PER_COMMIT``). One whose record
        passes ``IN_FLIGHT_MAX_BYTES`` returns once it has landed."""
        size = len(batch)
        if not size:
            return
        with self._write_lock:
            self._check_failure()
            if self._read_only:
                raise StoreError(f"database {self.path!r} is open read-only; open it without read_only to write")
            if (twice := _repeated_id(batch)) is not None:  # refused now, not by the engine once acknowledged
                raise StoreError(f"the write holds {twice!r} twice, which the database refuses; nothing of it "
                                 "was written")
            if self._evidenced is not None:  # before the commit: the set may say more than is stored, never less
                self._evidenced.update(state_id for _, state_id, _, _ in batch.evidence)
            for predicates, objects in self._objects.items():  # (so may these: a merge's kept entity, always)
                objects.update(s.object_id for s in batch.new_states
                               if s.object_id and s.predicate in predicates)
                objects.update(kept for _, kept, _ in batch.merges)
            ids = [e.id for e in batch.events]
            large = size > LARGE_WRITE_ROWS
            self._changes += 1
            if self._journal is None:
                self._settle()
            elif large:
                self._settle(taken=True)
            else:
                self._journalled += 1
            # the engine would refuse a stored event after the write was acknowledged; a refused copy also
            # leaves it unsound (see _stop_after_failed_copy): stored events are found first, from the filter
            # of stored ids once it pays to read it
            self._refuse_stored(ids, self._known_events or (
                self._known_event_ids() if large or self._journalled > KNOWN_IDS_AFTER else None))
            if self._journal is None:  # (only while a test holds the migrations back)
                self._write_now(batch)
            else:
                queued, rows_written, record_bytes = self._journalled_as(batch, size)
                self._enqueue(queued, rows_written)
                if record_bytes > IN_FLIGHT_MAX_BYTES:
                    self._settle()
            if self._known_events is not None:
                self._known_events.add(ids)

    def _enqueue(self, queued: _Queued, rows_written: _RowsWritten) -> None:
        """A journalled write handed to the applier (the write lock held); ``rows_written``: see
        _rows_written."""
        with self._queue:
            # the applier is woken when it has something new to do: it lingers otherwise (see _applier), and
            # a wake-up for each small write costs the caller a thread switch. One waiting for a bulk write to
            # share its transaction (see _bulk_partner) is woken by any
            wake = (not self._queued or queued.rows > LARGE_WRITE_ROWS or self._taken > self._applied
                    or self._queued_rows < APPLY_LINGER_ROWS <= self._queued_rows + queued.rows)
            self._queued.append(queued)
            self._queued_rows += queued.rows
            self._overlay.add(queued)
            # the caches hold acknowledged values: a read answered from them need not wait for the applier
            self._committed(queued.batch, rows_written)
            if wake:
                self._queue.notify_all()
            if self._applier is None:
                self._applier = threading.Thread(target=_applier, args=(weakref.ref(self), self._queue),
                                                 name="graphmem-applier", daemon=True)
                self._applier.start()

    def _journalled_as(self, batch: WriteBatch, rows: int) -> tuple[_Queued, _RowsWritten, int]:
        """``batch`` of ``rows`` rows appended to the journal (on disk when this returns): as the applier will
        take it, the cached rows it changes (see _rows_written) and its record's size. Those are made while
        the record goes to disk (see Journal.writing), and nothing of the batch shows before it is there."""
        assert self._journal is not None
        payload = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)
        size, small = len(payload), rows <= LARGE_WRITE_ROWS

        def queued_as(seq: int) -> _Queued:
            return _Queued(seq, batch, rows, self._confirmed_subjects(batch), self._version_columns(batch))

        rows_written: _RowsWritten = None
        try:
            with self._journal.writing(payload) as seq:
                if small:  # (a large write's sync takes far longer: its record and payload go first)
                    queued = queued_as(seq)
                    rows_written = self._rows_written(batch)
        except OSError as exc:
            raise StoreError(f"cannot write to the journal {self._journal.path}: {exc}") from exc
        if not small:
            del payload
            queued = queued_as(seq)
        return queued, rows_written, size

    def _keep_recovery_copy(self) -> None:
        """A new recovery copy once the journal keeps enough records for the last one (see store/recovery.py);
        one that cannot be taken now is tried again later. No lock held."""
        copy, journal = self._recovery, self._journal
        if (copy is None or journal is None or time.monotonic() < self._recovery_after
                or not copy.due(journal.size) or self._failure is not None):
            return
        try:
            self._take_recovery_copy()
        except (OSError, StoreError) as exc:
            self._recovery_after = time.monotonic() + RECOVERY_RETRY_S
            log.warning("recovery copy of %s not taken (tried again in %.0f s): %s", self.path,
                        RECOVERY_RETRY_S, exc)

    def _take_recovery_copy(self) -> None:
        """Copy the database, with everything the engine holds folded into its file, and drop the journal
        records the copy holds. Journalled writes go on being acknowledged meanwhile; the engine waits."""
        assert self._recovery is not None and self._journal is not None
        with self._engine_lock:
            self._checkpoint_now()
            self._check_folded()
            mark = self._mark(self._writer)
            assert self._file is not None
            self._recovery.take(self._file, mark)
        self._journal.keep_after(mark)

    def _recopy_after_removal(self) -> None:
        """After events were removed or masked: a recovery copy without them, and no journal record with them.
        When it cannot be taken the copy goes, and the journal keeps nothing for it: the removed text must
        not stay on disk, and a new copy is taken later."""
        if self._recovery is None or self._journal is None:
            return
        try:
            self._take_recovery_copy()
        except (OSError, StoreError) as exc:
            self._recovery.drop()
            self._journal.keep_after(None)
            self._recovery_after = time.monotonic() + RECOVERY_RETRY_S
            log.error("recovery copy of %s dropped: a new one, without the removed events, could not be "
                      "taken (%s); it is tried again later", self.path, exc)

    def _refuse_stored(self, ids: list[str], known: KnownIds | None) -> None:
        """:class:`DuplicateKey` when the engine holds one of the events ``ids``; ``known`` narrows the ids
        the engine is asked about."""
        stored = self.existing_event_ids(known.maybe(ids) if known else ids) if ids else set()
        if stored:
            raise DuplicateKey(f"event {sorted(stored)[0]} is already stored")

    def _known_event_ids(self) -> KnownIds:
        """The ids of the stored events, as a filter (read in one scan: ~0.5 s at a million events, so only
        once this process has written ``KNOWN_IDS_AFTER`` times, or warms up); a write then asks the engine
        only about the ids it may hold. The write lock held."""
        if self._known_events is None:  # (the queued writes' own with them, without waiting for the applier)
            with self._queue:
                queued = list(self._overlay.events)
            known = KnownIds(self._values("MATCH (e:Event) RETURN e.id", settled=False))
            known.add(queued)
            self._known_events = known
        return self._known_events

    def _table(self, query: str, params: dict[str, Any] | None = None, *, settled: bool = True) -> pa.Table:
        """A read's whole answer through Arrow: a million rows in ~0.4 s (row by row ~2 s). ``settled``: as
        for :meth:`_rows`."""
        if settled:
            self._settle()
        return self._run(self._reader(), query, params).get_as_arrow(100_000)

    def _columns(self, query: str, *, settled: bool = True) -> list[list[Any]]:
        """A read's whole answer, column by column."""
        return [column.to_pylist() for column in self._table(query, settled=settled).columns]

    def _values(self, query: str, params: dict[str, Any] | None = None, *,
                settled: bool = True) -> Iterator[Any]:
        """The values of a one-column read, made Python objects a chunk of 100,000 at a time (the event ids
        of 300k events made at once peaked 24 MB above the memory before the read; a chunk at a time, 14)."""
        for chunk in self._table(query, params, settled=settled).column(0).chunks:
            yield from chunk.to_pylist()

    def _confirmed_subjects(self, batch: WriteBatch) -> set[str] | None:
        """The subjects of the states ``batch`` confirms (a confirmation names only its state), if known."""
        subjects: set[str] = set()
        for state_id, _ in batch.confirmations:
            state = self._states.peek(state_id)
            held = {state.subject_id} if state is not None else self._subject_of.get(state_id)
            if not held:
                return None
            subjects.update(held)
        return subjects

    def _write_now(self, batch: WriteBatch) -> None:
        """``batch`` committed by the engine before this returns, in one statement when it can be."""
        batch = dataclasses.replace(batch)  # the writers below consume edges from their copy, not the caller's
        with self._engine_lock:  # the caches change with the commit: no writer reads them in between
            if _single_event(batch):
                with self._undone_cleared():  # one statement commits by itself: no BEGIN
                    self._write_event_rows(self._writer, batch)
                if self._held is not None:
                    self._held["Event"] += 1
            elif (len(batch.state_versions) == len(batch.revisions) == 1 and len(batch.evidence) <= 1
                  and len(batch) == 2 + len(batch.evidence) + len(batch.confirmations)
                  and batch.revisions[0].state_id == batch.state_versions[0].id
                  and all(state_id == batch.state_versions[0].id for _, state_id, _, _ in batch.evidence)
                  and all(i == batch.state_versions[0].id and batch.state_versions[0].last_confirmed_at == at
                          for i, at in batch.confirmations)):
                with self._undone_cleared():  # a reweighed opinion, a confirmed preference: one statement
                    self._write_one_version(batch)
                if self._held is not None:
                    self._held["Revision"] += 1
            else:
                self._write_in_transaction(batch)
            self._committed(batch)
            self._checkpoint()

    def _write_in_transaction(self, batch: WriteBatch, mark: int | None = None,
                              columns: Sequence[Sequence[str]] | None = None) -> None:
        """``batch`` in one engine transaction (and the journal's mark moved to ``mark``); the engine lock held.
        ``columns``: those each of its state versions changes, worked out when it was acknowledged. A merge
        deletes relationships: a checkpoint comes first (see _edges_deleted)."""
        with self._edges_deleted() if batch.merges else self._in_transaction() as tx:
            self._write_batch(tx, batch, mark, columns)

    @contextmanager
    def _edges_deleted(self) -> Iterator[Any]:
        """A transaction that deletes relationships, begun right after a checkpoint (the engine lock held).

        The engine (Kuzu 0.11.3) crashes the process (SIGSEGV) in a checkpoint that follows this: relationships
        written since the last checkpoint are deleted, a checkpoint folds that deletion in (the checkpoint
        leaves the table's in-memory index pointing at rows it dropped), then a relationship the file holds is
        deleted. Removing a new event and then an older one did that. With every relationship in the file
        before a deletion, none deleted is in memory: of 150 random runs of the engine alone (creations,
        deletions, reads and checkpoints), 85 crashed, and 0 with a checkpoint before each deletion."""
        self._checkpoint_now()
        with self._in_transaction() as tx:
            yield tx

    def _write_batch(self, tx: Any, batch: WriteBatch, mark: int | None = None,
                     columns: Sequence[Sequence[str]] | None = None) -> None:
        """``batch`` written in the open transaction ``tx`` (see _write_in_transaction)."""
        self._copying = len(batch) > LOAD_MAX_ROWS
        if self._held is None:  # (a transaction's own rows count: a bound, see _held)
            self._held = {t: int(self._run(tx, f"MATCH (n:{t}) RETURN count(*)").get_all()[0][0]) for t in _SIZED}
        added = {"Entity": len(batch.entities), "Event": len(batch.events), "State": len(batch.new_states),
                 "Revision": len(batch.revisions), "Thread": len(batch.threads)}
        self._sizes = {t: self._held[t] + added[t] for t in _SIZED}  # (a version is not a new row)
        self._write_merges(tx, batch)
        self._write_nodes(tx, batch)
        self._write_edges(tx, batch)
        self._write_states(tx, batch, self._version_columns(batch) if columns is None else columns)
        if mark is not None:
            self._run(tx, _MARK, {"seq": mark})
        self._held = self._sizes  # (read again after a transaction that fails: see _in_transaction)

    # -- the journal and its applier -----------------------------------------------------------------------

    def _journal_path(self) -> str | None:
        return None if self.path in ("", ":memory:") else self.path + ".journal"

    def _mark(self, conn: Any) -> int:
        return int(self._run(conn, "MATCH (j:JournalMark {key: 'applied'}) RETURN j.applied").get_all()[0][0])

    def _open_journal(self) -> Journal:
        """The journal, once the engine holds every record it kept (a crash left them unapplied)."""
        applied = self._mark(self._writer)
        path = self._journal_path()
        # while a recovery copy is kept, the records after its mark stay (all while its mark is unknown)
        keep = None if self._recovery is None else (self._recovery.mark() or 0)
        try:
            journal = Journal(path, after=applied, keep_after=keep)
            waiting = [(seq, payload) for seq, payload in journal.records() if seq > applied]
        except OSError as exc:
            raise StoreError(f"cannot open the journal {path}: {exc}") from exc
        at, singly_until = 0, 0
        try:
            while at < len(waiting):
                if waiting[at][0] > singly_until:
                    together = self._replay_together(waiting, at)
                    if together > 0:
                        at += together
                        continue
                    if together < 0:  # refused together: one at a time, to find the one the engine refuses
                        singly_until = waiting[at - together - 1][0]
                self._replay_one(*waiting[at])
                at += 1
        except StoreError:  # (a page cache too small: nothing more is applied, nothing set aside)
            journal.close()
            self._disconnect()
            raise
        if waiting:
            log.warning("applied %d journalled writes to %s that a crash had left unapplied", len(waiting),
                        self.path)
        self._applied = self._taken = journal.last
        journal.applied(journal.last)
        return journal

    def _replay_together(self, waiting: Sequence[tuple[int, bytes]], at: int) -> int:
        """Apply ``waiting`` (journal records the engine lacks) from ``at`` on in one transaction, as many as go
        together (see APPLY_MAX_ROWS): a transaction costs the engine milliseconds however small, and a
        restore from the recovery copy replays up to its 64 MiB of records. Returns how many; 0 when fewer than
        two go together; -n when the engine refused the n together."""
        group: list[tuple[int, WriteBatch]] = []
        rows_ = 0
        for seq, payload in itertools.islice(waiting, at, None):
            try:
                batch = pickle.loads(payload)  # noqa: S301 - this process's own file, beside the database
            except Exception:  # noqa: BLE001 - said and set aside when replayed alone
                break
            # a write with merges goes alone, as one whose events the engine may hold (see _replay_one)
            if batch.merges or (group and rows_ + len(batch) > APPLY_MAX_ROWS) or self._known_event_ids().maybe(
                    [e.id for e in batch.events]):
                break
            group.append((seq, batch))
            rows_ += len(batch)
        if len(group) < 2:
            return 0
        try:
            with self._engine_lock:
                self._write_in_transaction(_merged([b for _, b in group]), mark=group[-1][0])
                self._checkpoint()
        except Exception as exc:  # noqa: BLE001 - each is tried alone next
            log.warning("journal records %d-%d of %s could not be applied together (%s); trying them one at a "
                        "time", group[0][0], group[-1][0], self.path, exc)
            self._reopen_if_unsound()
            return -len(group)
        for _, batch in group:
            self._known_event_ids().add([e.id for e in batch.events])
        return len(group)

    def _replay_one(self, seq: int, payload: bytes) -> None:
        """Apply one journal record the engine lacks; one it refuses is set aside in ``<journal>.rejected``,
        not lost."""
        path = self._journal_path()
        try:
            batch = pickle.loads(payload)  # noqa: S301 - this process's own file, beside the database
            ids = [e.id for e in batch.events]
            with self._engine_lock:
                if ids and len(self.existing_event_ids(self._known_event_ids().maybe(ids))) == len(ids):
                    self._run(self._writer, _MARK, {"seq": seq})  # held, its mark lost (see _lost_writes)
                    return
                self._write_in_transaction(batch, mark=seq)  # (read here, held by nothing else)
                self._checkpoint()
            self._known_event_ids().add(ids)
        except Exception as exc:  # noqa: BLE001 - every cause is handled the same way: set aside, said
            if _POOL_FULL in str(exc):  # the setting's, not the record's: it stays for an open with more
                raise StoreError(f"cannot apply journal record {seq} to {self.path!r}: {exc}") from exc
            rejected = f"{path}.rejected"
            with open(rejected, "ab") as out:
                out.write(len(payload).to_bytes(8, "little") + payload)
                out.flush()
                os.fsync(out.fileno())
            self._reopen_if_unsound()
            with self._engine_lock:
                self._run(self._writer, _MARK, {"seq": seq})
            log.error("journal record %d of %s could not be applied (%s); it is kept in %s", seq, self.path,
                      exc, rejected)

    def _reopen_if_unsound(self) -> None:
        """A refused copy leaves the engine unsound (see _stop_after_failed_copy); a fresh open of it is sound."""
        if self._failure is not None:
            self._disconnect()
            self._connect(self._engine())
            self._failure = None

    def _check_journal_applied(self) -> None:
        """A read-only open cannot apply the journal: refuse one that holds writes the engine does not."""
        path = self._journal_path()
        if path is None or not os.path.exists(path):
            return
        with open(path, "rb") as f:
            records, _ = parse_records(f.read())
        applied = self._mark(self._reader()) if "JournalMark" in self._tables() else 0
        waiting = [seq for seq, _ in records if seq > applied]
        if waiting:
            raise StoreError(f"database {self.path!r} has {len(waiting)} acknowledged writes in its journal that "
                             "it does not hold yet (the process writing it stopped before applying them); open "
                             "it once without read_only to apply them")

    def _tables(self) -> set[str]:
        return {r[1] for r in self._run(self._reader(), "CALL show_tables() RETURN *").get_all()}

    def _apply_next(self) -> bool:
        """Apply the oldest queued writes in one transaction (the applier's round); False: stop applying."""
        with self._queue:
            if not self._queued:
                return True
            group, rows_ = [self._queued[0]], self._queued[0].rows
            bulk = self._shares_commit(group[0])
            for q in () if bulk else self._queued[1:]:
                if (q.seq <= self._singly_until or rows_ + q.rows > APPLY_MAX_ROWS or q.batch.merges
                        or group[0].batch.merges):
                    break  # merges go first in a transaction: one with merges is applied alone
                group.append(q)
                rows_ += q.rows
        try:
            with self._engine_lock:
                try:
                    if bulk:
                        self._write_bulk(group)
                    else:
                        self._write_as_applier([q.batch for q in group], [c for q in group for c in q.columns],
                                               mark=group[-1].seq)
                except StoreError:
                    if self._mark(self._writer) != group[-1].seq:
                        raise
                    # the commit reported an error after it had landed (the mark moved with it)
        except Exception as exc:  # noqa: BLE001 - retried one by one, then reported to every later caller
            if self._failure is not None:  # (the store stopped: see _stop_after_failed_copy)
                return False
            if len(group) > 1:
                log.warning("journal records %d-%d failed together (%s); retrying them one at a time",
                            group[0].seq, group[-1].seq, exc)
                self._singly_until = group[-1].seq  # to find the one the engine refuses
                return True
            kept = self._journal.path if self._journal and self._journal.path else "memory"
            failure = StoreError(
                f"a write acknowledged earlier (journal record {group[0].seq}) could not be applied to the "
                f"database: {exc}. It is kept in {kept}; close and reopen the memory to retry it"
            )
            log.error("%s", failure)
            with self._queue:
                self._failure = failure
                self._queue.notify_all()
            return False
        with self._queue:
            del self._queued[: len(group)]
            self._queued_rows = sum(q.rows for q in self._queued)
            self._applied = group[-1].seq
            self._taken = max(self._taken, self._applied)
            self._overlay = _Overlay.of(self._queued)
            self._queue.notify_all()
            idle = not self._queued
        if self._journal is not None:
            self._journal.applied(self._applied)
        if idle:
            with self._engine_lock:
                self._checkpoint()
        self._keep_recovery_copy()
        return True

    def _shares_commit(self, q: _Queued) -> bool:
        """Whether the queued ``q`` is a bulk write that shares a transaction with those acknowledged right
        after it (see BULK_PER_COMMIT)."""
        return BULK_PER_COMMIT > 1 and q.rows > LOAD_MAX_ROWS and not q.batch.merges and q.seq > self._singly_until

    def _write_bulk(self, group: list[_Queued]) -> None:
        """The bulk write ``group[0]`` and those acknowledged right behind it, up to ``BULK_PER_COMMIT``, each
        written as it comes, in one transaction; ``group`` grows by them (the engine lock held)."""
        with self._applier_thresholds(), self._in_transaction() as tx:
            while True:
                q = group[-1]
                self._write_batch(tx, q.batch, mark=q.seq, columns=q.columns)
                with self._queue:
                    self._taken = q.seq
                    self._queue.notify_all()  # its writer may acknowledge the next
                    partner = self._bulk_partner(len(group)) if len(group) < BULK_PER_COMMIT else None
                if partner is None:
                    return
                group.append(partner)

    def _bulk_partner(self, taken: int) -> _Queued | None:
        """The bulk write acknowledged right after the ``taken`` at the head of the queue, once it comes (the
        queue's lock held). None, to commit now: a read waits, the store closes or stopped, another kind of
        write is next, or none came within ``BULK_PARTNER_WAIT_S``."""
        until = time.monotonic() + BULK_PARTNER_WAIT_S
        while not (self._waiting or self._stopping or self._failure is not None):
            if len(self._queued) > taken:
                q = self._queued[taken]
                return q if self._shares_commit(q) else None
            left = until - time.monotonic()
            if left <= 0:
                return None
            self._queue.wait(left)
        return None

    def _write_as_applier(self, batches: Sequence[WriteBatch], columns: Sequence[Sequence[str]],
                          mark: int | None = None) -> None:
        """``batches`` merged into one transaction, as the applier writes journalled writes (with its COPY
        threshold; ``columns``: those each of their versions changes, in order); the engine lock held."""
        with self._applier_thresholds():
            self._write_in_transaction(_merged(batches), mark=mark, columns=columns)

    @contextmanager
    def _applier_thresholds(self) -> Iterator[None]:
        """The applier's COPY threshold while it writes (see APPLY_COPY_THRESHOLD)."""
        self._copy_at = APPLY_COPY_THRESHOLD
        try:
            yield
        finally:
            self._copy_at = COPY_THRESHOLD

    def _checkpoint(self) -> None:
        """Fold the write-ahead log into the database once it has grown past ``CHECKPOINT_BYTES`` (the engine
        lock held); when it cannot finish it is tried again after ``CHECKPOINT_RETRY_S``."""
        if time.monotonic() < self._checkpoint_after:
            return
        try:
            if os.path.getsize(self.path + ".wal") < CHECKPOINT_BYTES:
                return
        except OSError:
            return  # no log (an in-memory database, or nothing written since the last checkpoint)
        try:
            self._checkpoint_now()
        except StoreError as exc:
            self._checkpoint_after = time.monotonic() + CHECKPOINT_RETRY_S
            log.info("checkpoint of %s put off: %s", self.path, exc)

    def _checkpoint_now(self) -> None:
        """A checkpoint (the engine lock held), while no read runs (see _ReadGate)."""
        with self._gate.alone():
            self._run(self._writer, "CHECKPOINT")

    def _check_folded(self) -> None:
        """After a checkpoint, before the file is copied: the engine's log must be empty (the engine deletes
        it at a checkpoint), else a copy of the file alone would lack what it holds."""
        with suppress(FileNotFoundError):
            if os.path.getsize(self.path + ".wal"):
                raise StoreError(f"the engine's log {self.path + '.wal'!r} still holds writes after a "
                                 "checkpoint: the database file alone is not a whole copy; try again later")

    def _check_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _settle(self, *, taken: bool = False) -> None:
        """Wait until the engine holds every write acknowledged so far (a read then sees them all); ``taken``:
        until it has them in a transaction, perhaps not committed yet (a bulk writer's wait, which leaves the
        applier to gather bulk writes into one commit: see BULK_PER_COMMIT)."""
        if not self._queued or threading.current_thread() is self._applier:
            self._check_failure()
            return
        with self._queue:
            target = self._queued[-1].seq if self._queued else self._applied
            if taken:
                self._taking += 1
            else:
                self._waiting += 1
            self._queue.notify_all()  # the applier stops lingering
            try:
                while (self._taken if taken else self._applied) < target and self._failure is None:
                    self._queue.wait()
            finally:
                if taken:
                    self._taking -= 1
                else:
                    self._waiting -= 1
        self._check_failure()

    def _settle_for(self, subjects: Iterable[str] = (), state_ids: Iterable[str] = (),
                    event_ids: Iterable[str] = ()) -> None:
        """Wait for the applier only if a queued write changes the states of these subjects or these states,
        or adds one of these events."""
        if not self._queued:
            return
        subjects, state_ids = list(subjects), list(state_ids)
        with self._queue:
            overlay = self._overlay
            touched = (overlay.merges or any(i in overlay.events for i in event_ids)
                       or ((subjects or state_ids) and overlay.any_subject)
                       or any(s in overlay.subjects for s in subjects) or any(i in overlay.state_ids for i in state_ids))
        if touched:
            self._settle()

    def pending_writes(self) -> int:
        """Acknowledged writes the engine does not hold yet (the applier's backlog)."""
        return len(self._queued)

    def settle(self) -> None:
        self._settle()

    def _committed(self, batch: WriteBatch, ready: _RowsWritten = None) -> None:
        """What the batch changed replaces what was cached (and recent events are read back often, but for a
        bulk import's: its events and the entities it makes would only push out what small writes and reads
        keep, and the churn of ~20,000 parsed events a batch left their memory in the allocator's pieces)."""
        bulk = len(batch.events) > LARGE_WRITE_ROWS
        if not bulk:
            self._events.put((e.id, e) for e in batch.events)
        renamed = bool(batch.merges) or any(  # a state carries its subject's name
            (before := self._entities.peek(e.id)) is None or before.name != e.name for e in batch.entity_updates)
        if batch.merges:  # states and names moved between entities
            self._entities.clear()
        elif batch.entities or batch.entity_updates:
            made = () if bulk else batch.entities
            self._entities.update(put=[(e.id, e) for e in [*made, *batch.entity_updates]])
        if renamed:
            self._states.clear()
            self._subjects.clear()
            self._subject_of.clear()
            return
        if batch.new_states or batch.state_versions or batch.retractions or batch.confirmations:
            self._subjects_written(batch, ready)
        versions = {s.id: s for s in batch.state_versions}
        changed = [s.id for s in batch.retractions] + [i for i, _ in _unversioned_confirmations(batch)]
        if versions or changed:
            self._states.update(put=versions.items(), drop=changed)

    def _subjects_written(self, batch: WriteBatch, ready: _RowsWritten = None) -> None:
        """The cached rows of each subject the batch wrote to, changed as the batch changed the stored ones;
        ``ready``: those made before (see _rows_written), taken where the rows they were made from are still
        the cached ones (a read may have cached a subject's since)."""
        if ready is None:
            ready = {subject: (part, None, None) for subject, part in self._subject_parts(batch).items()}
        changed = []
        for subject, (part, was, made) in ready.items():
            cached = self._subjects.peek(subject)
            if cached is not None:
                rows_ = made if made is not None and was is cached else cached.written(part)
                changed.append((subject, rows_))
                for s in part.new_states:
                    self._subject_of.setdefault(s.id, set()).add(subject)
        # an update even when none is cached: a read that overlapped this write must not cache what it read
        self._subjects.update(put=changed)
        if len(self._subject_of) > 8 * SUBJECT_CACHE:  # ids of evicted subjects pile up: start afresh
            self._subjects.clear()
            self._subject_of.clear()

    def _rows_written(self, batch: WriteBatch) -> _RowsWritten:
        """For each subject the batch writes states of: its changes, its cached rows (None: none are) and
        those the changes make of them, before the batch is acknowledged (nothing of it is cached yet); None
        for a batch that merges or renames entities (that empties the caches)."""
        if batch.merges or batch.entity_updates:
            return None
        out = {}
        for subject, part in self._subject_parts(batch).items():
            cached = self._subjects.peek(subject)
            out[subject] = (part, cached, None if cached is None else cached.written(part))
        return out

    def _subject_parts(self, batch: WriteBatch) -> dict[str, WriteBatch]:
        """The batch's state changes, by subject."""
        parts: dict[str, WriteBatch] = {}

        def of(subject: str) -> WriteBatch:
            return parts.setdefault(subject, WriteBatch())

        for s in batch.new_states:
            of(s.subject_id).new_states.append(s)
        for s in batch.state_versions:
            of(s.subject_id).state_versions.append(s)
        for s in batch.retractions:
            of(s.subject_id).retractions.append(s)
        made = {s.id: {s.subject_id} for s in batch.new_states}  # (not in _subject_of before this batch is)
        for state_id, at in batch.confirmations:
            for subject in self._subject_of.get(state_id) or made.get(state_id, set()):
                of(subject).confirmations.append((state_id, at))
        return parts

    def _write_merges(self, tx: Any, b: WriteBatch) -> None:
        """Move what hangs on a merged entity to the kept one. A state's open version is replaced by one on
        the kept entity (so ``known_at`` before the merge still reads it where it was); its object, the
        opinions about it and the events mentioning it point at the kept entity; its names resolve there."""
        for merged, kept, at in b.merges:
            params = {"m": merged, "k": kept, "at": rows.naive(at)}
            ids = {"m": merged, "k": kept}
            copied = ", ".join(f"{c}: h.{c}" for c in _TABLES["HAS_STATE"].column_names
                               if c not in ("recorded_at", "replaced_at"))
            self._run(tx, "MATCH (m:Entity {id: $m})-[h:HAS_STATE]->(s:State) WHERE h.replaced_at IS NULL "
                          "MATCH (k:Entity {id: $k}) SET h.replaced_at = $at, s.subject_id = $k, s.recorded_at = $at "
                          f"CREATE (k)-[:HAS_STATE {{{copied}, recorded_at: $at}}]->(s)", params)
            self._run(tx, "MATCH (s:State)-[o:OBJECT]->(m:Entity {id: $m}) MATCH (k:Entity {id: $k}) "
                          "SET s.object_id = $k, s.object = k.name CREATE (s)-[:OBJECT]->(k) DELETE o", ids)
            for rel, src in (("ABOUT", "State"), ("MENTIONS", "Event")):
                pointing = f"MATCH (x:{src})-[:{rel}]->(:Entity {{id: $e}}) RETURN x.id AS id"
                have = {r[0] for r in self._run(tx, pointing, {"e": kept}).get_all()}
                moving = [r[0] for r in self._run(tx, pointing, {"e": merged}).get_all()]
                self._link(tx, rel, src, "Entity", [(x, kept, {}) for x in moving if x not in have])
                self._run(tx, f"MATCH (:{src})-[r:{rel}]->(:Entity {{id: $m}}) DELETE r", {"m": merged})
            self._run(tx, "MATCH (a:Alias) WHERE a.entity_id = $m SET a.entity_id = $k", ids)
            self._run(tx, "MATCH (e:Entity) WHERE e.merged_into = $m SET e.merged_into = $k", ids)
            self._run(tx, "MATCH (e:Entity {id: $m}) SET e.merged_into = $k, e.merged_at = $at", params)

    def _write_nodes(self, tx: Any, b: WriteBatch) -> None:
        self._insert(tx, "Entity", [rows.entity_row(e) for e in b.entities])
        # each update is the entity whole: the last of each entity's is the one to write (one statement's rows
        # are not applied in order)
        updates = list({e.id: {"id": e.id, "name": e.name, "type": e.type, "aliases": list(e.aliases)}
                        for e in b.entity_updates}.values())
        if len(updates) > self._copy_at:  # one statement: ~0.08 s for 10,000 at a million events, not ~3.6 s
            _counted(self._load(tx, _BULK_ENTITY_UPDATE, _ENTITY_UPDATE_COLUMNS, updates), len(updates),
                     "entity updates")
        else:
            for update in updates:
                self._run_one(tx, _ENTITY_UPDATE, update, f"entity update {update['id']}: the entity")
        self._insert(tx, "Alias", [{"key": k, "entity_id": v} for k, v in b.aliases])
        self._insert(tx, "Thread", [rows.thread_row(t) for t in b.threads])
        self._insert(tx, "DefinedPredicate", [{"name": n, "definition": d} for n, d in b.predicates],
                     upsert="MERGE (p:DefinedPredicate {name: $name}) SET p.definition = $definition")
        for c in b.cursors:  # (in order: the last of a key's is the one kept)
            self._run(tx, _CURSOR_UPSERT, vars(c) | {"updated_at": rows.naive(c.updated_at)})
        if len(b.events) > self._copy_at and (self._copying or not self._groups_events(len(b.events))):
            self._insert(tx, "Event", [rows.event_row(e) for e in b.events])
        else:
            self._write_event_rows(tx, b)

    def _write_confirmations(self, tx: Any, confirmations: dict[str, dt.datetime]) -> None:
        """States confirmed, in one statement from Arrow rows (see JOIN_GROUP_FROM); their evidence, revisions
        and the states they supersede are left to the batch's others."""
        made = self._load(tx, _CONFIRM_LOADED, [("id", "STRING"), ("at", "TIMESTAMP")],
                          ({"id": state_id, "at": rows.naive(at)} for state_id, at in confirmations.items()))
        _counted(made, len(confirmations), "confirmations")

    def _write_event_rows(self, tx: Any, b: WriteBatch) -> None:
        """The events of ``b`` with their own edges, row by row: in one statement for each group large
        enough (see ``EVENT_GROUP_FROM``) in one thread (or in none), else one statement each. The edges
        written leave ``b``'s lists."""
        own = {e.id: _EventEdges() for e in b.events}
        in_thread, mentions, annotations = [], [], []
        for e, t in b.in_thread:
            if e in own:
                own[e].threads.append(t)
            else:
                in_thread.append((e, t))
        for e, n in b.mentions:
            if e in own:
                own[e].mentions.setdefault(n)
            else:
                mentions.append((e, n))
        for a in b.new_annotations:  # an event's first rides with it; any other is written with the rest
            if a.event_id in own and own[a.event_id].annotation is None:
                own[a.event_id].annotation = a
            else:
                annotations.append(a)
        b.in_thread, b.mentions, b.new_annotations = in_thread, mentions, annotations
        by_threads: dict[int, list[Event]] = {}  # events in no thread, or in one: a statement for all of each
        for event in b.events:
            by_threads.setdefault(min(len(own[event.id].threads), 2), []).append(event)
        for count, events in by_threads.items():
            if count < 2 and len(events) >= EVENT_GROUP_FROM:
                if self._groups_events(len(events)):
                    self._write_event_group(tx, events, own, with_thread=count == 1)
                    continue
            for event in events:
                edges = own[event.id]
                self._write_one_event(tx, event, edges.threads, list(edges.mentions), edges.annotation)

    def _joins_pay(self, rows_: int, *tables: str) -> bool:
        """Whether one statement joining ``rows_`` rows to ``tables`` beats a statement for each row (see
        JOIN_GROUP_FROM), and the engine's page cache can hold it."""
        return (rows_ >= JOIN_GROUP_FROM and self._join_fits(*tables)
                and rows_ * ROWS_SCANNED_PER_JOINED_ROW >= self._scanned(*tables))

    def _join_fits(self, *tables: str) -> bool:
        """Whether a statement joining rows to ``tables`` fits in the engine's page cache (see
        JOIN_ROW_BYTES)."""
        return self._scanned(*tables) * JOIN_ROW_BYTES <= self._buffer_pool_mb * 2**20

    def _scanned(self, *tables: str) -> int:
        """The rows a join against ``tables`` scans: those the engine holds and this transaction adds."""
        return sum(self._sizes.get(t, 0) for t in tables)

    def _groups_events(self, events: int) -> bool:
        """Whether a statement for ``events`` events pays for its scan of every entity (see
        ENTITIES_PER_GROUPED_EVENT)."""
        return (events * ENTITIES_PER_GROUPED_EVENT >= self._sizes["Entity"]
                and self._join_fits("Entity", "Thread"))

    def _write_event_group(self, tx: Any, events: list[Event], own: dict[str, _EventEdges], *,
                           with_thread: bool) -> None:
        """Events that each join one thread (or none, ``with_thread`` off) with their threads and mentions, in
        one statement; their annotations go in one more. The statement counts the mentions it linked: fewer
        than were asked for (a thread or an entity the engine does not hold) fails the transaction."""
        rows_ = [rows.event_row(e) | {"_mentions": list(own[e.id].mentions)} for e in events]
        if with_thread:
            for row, event in zip(rows_, events, strict=True):
                row["_thread"] = own[event.id].threads[0]
        if len(rows_) >= EVENT_LOAD_FROM:  # (many: from Arrow rows)
            result = self._load(tx, _LOAD_EVENTS[with_thread], _EVENT_GROUP_COLUMNS, rows_)
        else:
            result = self._run(tx, _GROUP_EVENTS[with_thread], {"rows": rows_})
        linked = int(result.get_all()[0][0])
        wanted = sum(len(r["_mentions"]) for r in rows_)
        if linked != wanted:
            raise StoreError(f"database error: {wanted - linked} of {wanted} mentions of a group of events "
                             "found no thread or entity to link to")
        self._insert(tx, "Annotation", [rows.annotation_row(a) for e in events
                                        if (a := own[e.id].annotation) is not None])

    def _write_one_event(self, tx: Any, event: Event, threads: list[str], mentions: list[str],
                         annotation: Annotation | None) -> None:
        """One event and its own edges in a single statement: the hot path of ``record`` (and of the groups
        of journalled writes the applier commits together)."""
        params = rows.event_row(event)
        matches = [f"(t{i}:Thread {{key: $t{i}}})" for i in range(len(threads))]
        matches += [f"(m{i}:Entity {{id: $m{i}}})" for i in range(len(mentions))]
        creates = [f"(e)-[:IN_THREAD]->(t{i})" for i in range(len(threads))]
        creates += [f"(e)-[:MENTIONS]->(m{i})" for i in range(len(mentions))]
        params |= {f"t{i}": t for i, t in enumerate(threads)} | {f"m{i}": m for i, m in enumerate(mentions)}
        query = _CREATE["Event"].replace("CREATE (:Event", "CREATE (e:Event", 1)
        if annotation is not None:  # the period the event talks about, read from its text
            query += " " + _CREATE["Annotation"].replace("$", "$a_")
            params |= {f"a_{k}": v for k, v in rows.annotation_row(annotation).items()}
        if not creates:
            self._run(tx, query, params)
            return
        query += f" WITH e MATCH {', '.join(matches)} CREATE {', '.join(creates)}"
        self._run_one(tx, query, params, f"event {event.id}: its thread or a mentioned entity")

    def _write_one_version(self, b: WriteBatch) -> None:
        """A new version of one state with its revision (and its evidence) in a single statement."""
        version = b.state_versions[0]
        query, params = self._version_statement(version, self._version_columns(b)[0])
        self._run_one(self._writer, query + _riders(b.revisions, b.evidence, [], params), params,
                      f"state {version.id}: the state or an event that is evidence for it")

    def _version_columns(self, b: WriteBatch) -> list[tuple[str, ...]]:
        """The columns each of the batch's state versions changes. Each column costs the engine ~40 µs, so a
        version writes only those: the cached current value says which (every write keeps it exact as it is
        acknowledged, so this is asked before the caches take ``b``); all of them when it is not cached, or
        when the batch holds more than one version of the state."""
        ids = [v.id for v in b.state_versions]
        twice = set() if len(ids) == len(set(ids)) else {i for i, n in Counter(ids).items() if n > 1}
        out = []
        for v in b.state_versions:
            before = None if v.id in twice else self._states.peek(v.id)
            out.append(_VERSIONED if before is None else _changed(rows.state_row(before), rows.state_row(v)))
        return out

    def _version_statement(self, version: State, columns: Sequence[str]) -> tuple[str, dict[str, Any]]:
        """A new version of a state writing ``columns`` of the state; the new edge takes only the columns
        given (the engine makes the others null)."""
        row = rows.state_row(version)
        edge = {k: v for k, v in rows.version_row(version).items() if v is not None}
        params = {"id": version.id} | {c: row[c] for c in columns} | _prefixed("h_", edge)
        return _state_version(columns, list(edge)), params

    def _write_edges(self, tx: Any, b: WriteBatch) -> None:
        self._link(tx, "IN_THREAD", "Event", "Thread", [(e, t, {}) for e, t in b.in_thread], "key")
        self._link(tx, "MENTIONS", "Event", "Entity", [(e, n, {}) for e, n in b.mentions])
        self._link(tx, "LINK", "Event", "Event", [(s, d, {"label": label}) for s, d, label in b.links])

    def _write_states(self, tx: Any, b: WriteBatch, columns: Sequence[Sequence[str]]) -> None:
        # a statement costs the engine ~1 ms whatever it does. New states go in one statement (their objects,
        # revisions, evidence and superseded states in one each) in bulk writes, and while the tables those
        # statements join are small (see JOIN_GROUP_FROM); else a state's riders go on the statement that
        # writes the state, as do a version's or a retraction's on theirs (each a statement of its own)
        confirmations = _confirmations_to_write(b, columns)
        b, columns, history = _folded(b, columns)
        b, confirmations = _confirmed_when_made(b, confirmations)
        many = len(b.new_states) > self._copy_at and (self._copying or self._join_fits("Entity"))
        riding = _Riders(b, bulk=many
                         or self._joins_pay(len(b.new_states), "Entity", "State", "Event", "Revision"))
        if riding.bulk and not self._copying:  # each with its subject's edge, then their objects
            made = self._load(tx, _LOAD_STATES, _STATE_LOAD_COLUMNS,
                              (rows.state_row(s) | _prefixed("h_", rows.version_row(s)) for s in b.new_states))
            _counted(made, len(b.new_states), "states")
            self._link(tx, "OBJECT", "State", "Entity", [(s.id, s.object_id, {}) for s in b.new_states if s.object_id])
        elif riding.bulk:
            self._copy(tx, "State", (rows.state_row(s) for s in b.new_states))
            self._copy(tx, "HAS_STATE",
                       ({"from": s.subject_id, "to": s.id, **rows.version_row(s)} for s in b.new_states))
            self._link(tx, "OBJECT", "State", "Entity", [(s.id, s.object_id, {}) for s in b.new_states if s.object_id])
        else:
            for s in b.new_states:
                params = rows.state_row(s) | _prefixed("h_", rows.version_row(s))
                query = _STATE_CREATE if s.object_id is None else _STATE_CREATE_WITH_OBJECT
                self._run_one(tx, query + riding.on(s.id, params), params, _STATE_ENDS.format(s.id))
        # (never many in one statement, nor two statements reading Arrow rows. One that matched each state's open
        # edge, closed it and made the next from Arrow rows gave a state of one subject an edge from another's, in
        # a crash soak's replay. Two, one closing the open edges and setting the states' columns and one making
        # the new edges from the subject each state holds, cost ~30 ms of CPU for 1,000 records one by one against
        # ~75 ms row by row, but the engine (0.11.3) got them wrong after a bulk COPY: its join of the rows to the
        # open edges returned one row 17 times, and in other runs the counts were right yet 38-42 states were left
        # with two open edges)
        self._link(tx, "HAS_STATE", "Entity", "State", history)  # (the earlier versions of states made here)
        for v, changed in zip(b.state_versions, columns, strict=True):
            query, params = self._version_statement(v, changed)
            self._run_one(tx, query + riding.on(v.id, params), params, _STATE_ENDS.format(v.id))
        for s in b.retractions:
            params = {"id": s.id, "retracted_at": rows.naive(s.retracted_at), "status": s.status.value}
            self._run_one(tx, _STATE_RETRACT + riding.on(s.id, params), params, _STATE_ENDS.format(s.id))
        if self._joins_pay(len(confirmations), "State", "Event"):
            self._write_confirmations(tx, confirmations)
        else:
            for state_id, at in confirmations.items():
                params = {"id": state_id, "at": rows.naive(at)}
                self._run_one(tx, _CONFIRM + riding.on(state_id, params), params, _STATE_ENDS.format(state_id))
        revisions, evidence, supersedes = riding.left()
        self._link(tx, "EVIDENCE", "Event", "State",
                   [(e, s, {"stance": st.value, "at": rows.naive(at)}) for e, s, st, at in evidence])
        self._link(tx, "SUPERSEDES", "State", "State", [(n, o, {"at": rows.naive(at)}) for n, o, at in supersedes])
        self._insert(tx, "Revision", [rows.revision_row(r) for r in revisions])
        self._link(tx, "HAS_REVISION", "State", "Revision", [(r.state_id, r.id, {}) for r in revisions])
        self._link(tx, "ABOUT", "State", "Entity", [(st, en, {}) for st, en in dict.fromkeys(b.about)])
        self._insert(tx, "Annotation", [rows.annotation_row(a) for a in b.new_annotations])
        for a in b.annotations:
            self._run(tx, "MATCH (a:Annotation {event_id: $event_id}) DELETE a", {"event_id": a.event_id})
            self._run(tx, _CREATE["Annotation"], rows.annotation_row(a))

    def _insert(self, tx: Any, table: str, items: list[dict[str, Any]], *, upsert: str | None = None) -> None:
        if not items:
            return
        # new nodes join nothing: a transaction that copies nothing (the applier's merged small writes too)
        # writes a table's from Arrow rows once it has more than COPY_THRESHOLD (see APPLY_COPY_THRESHOLD)
        if upsert is None and len(items) > (self._copy_at if self._copying else COPY_THRESHOLD):
            if self._copying:
                self._copy(tx, table, items)
            else:
                self._load(tx, _LOAD_CREATE[table], _TABLES[table].columns, items)
            return
        if upsert is None and len(items) >= GROUP_FROM:  # one statement: ~25 us a row, not ~150 us or more
            self._run(tx, _GROUP_CREATE[table], {"rows": items})
            return
        query = upsert or _CREATE[table]
        for item in items:
            self._run(tx, query, item)

    def _link(
        self,
        tx: Any,
        rel: str,
        src: str,
        dst: str,
        edges: list[tuple[str, str, dict[str, Any]]],
        dst_key: str = "id",
    ) -> None:
        if not edges:
            return
        src_key = "key" if src == "Thread" else "id"
        if len(edges) > self._copy_at and self._copying:
            self._copy(tx, rel, ({"from": a, "to": b, **props} for a, b, props in edges))
            return
        if len(edges) > self._copy_at and self._join_fits(src, dst) or self._joins_pay(len(edges), src, dst):
            # one MATCH clause for each end: both in one is a cross product
            statement = (f"MATCH (a:{src} {{{src_key}: `from`}}) MATCH (b:{dst} {{{dst_key}: `to`}}) "
                         f"CREATE (a)-[:{rel} {{{_loaded(_TABLES[rel].column_names)}}}]->(b) RETURN count(*)")
            made = self._load(tx, statement, [("from", "STRING"), ("to", "STRING"), *_TABLES[rel].columns],
                              ({"from": a, "to": b, **props} for a, b, props in edges))
            _counted(made, len(edges), f"{rel} links")
            return
        props = ", ".join(f"{c}: ${c}" for c in _TABLES[rel].column_names)
        query = (
            f"MATCH (a:{src} {{{src_key}: $a}}), (b:{dst} {{{dst_key}: $b}}) "
            f"CREATE (a)-[:{rel} {{{props}}}]->(b)"
        )
        for a, b, extra in edges:
            self._run_one(tx, query, {"a": a, "b": b, **extra}, f"{rel} link {a} -> {b}: one of its ends")

    def _copy(self, tx: Any, table: str, items: Iterable[Mapping[str, Any]]) -> None:
        """``COPY`` of ``items`` into ``table``."""
        spec = _TABLES[table]
        ends = [("from", "STRING"), ("to", "STRING")] if spec.endpoints is not None else []
        self._copied = True
        try:
            _by_name(tx, f"COPY {table} FROM graphmem_rows", _arrow([*ends, *spec.columns], items))
        except RuntimeError as exc:
            raise _database_error(f"database error while copying into {table}", exc) from exc

    def _load(self, tx: Any, statement: str, columns: Sequence[tuple[str, str]],
              items: Iterable[Mapping[str, Any]]) -> Any:
        """``LOAD FROM`` the rows ``items`` (of ``columns``: names and engine types) ``statement``: one
        statement, whatever the number of rows, with no parameter conversion."""
        try:
            return _by_name(tx, f"LOAD FROM graphmem_rows {statement}", _arrow(columns, items))
        except RuntimeError as exc:
            raise _database_error("database error", exc) from exc

    # -- reads ------------------------------------------------------------------------------------------

    def existing_event_ids(self, ids: Iterable[str]) -> set[str]:
        wanted = list(ids)
        with self._queue:  # queued first: once the applier has taken one, the engine holds it
            queued = {i for i in wanted if i in self._overlay.events}
        found = self._lookup("(e:Event)", "e.id", "e.id AS id", [i for i in wanted if i not in queued], settled=False)
        return queued | {r["id"] for r in found}

    def events(self, ids: Sequence[str]) -> list[Event]:
        self._check_failure()  # (the caches hold what the applier failed to apply)
        return self._events.get_many(ids, self._read_events)

    def event_briefs(self, ids: Sequence[str]) -> list[EventBrief]:
        self._check_failure()
        held = {i: e for i in ids if (e := self._events.peek(i)) is not None}
        rest = [i for i in dict.fromkeys(ids) if i not in held]
        self._settle_for(event_ids=rest)
        read = {r["id"]: rows.event_brief_from_row(r)
                for r in self._lookup("(e:Event)", "e.id", _BRIEF_COLS, rest, settled=False, wide=True)}
        out = []
        for i in ids:
            if (event := held.get(i)) is not None:
                out.append(EventBrief(id=event.id, kind=event.kind, scope=event.scope, thread=event.thread,
                                      content=event.content, occurred_at=event.occurred_at, source=event.source))
            elif i in read:
                out.append(read[i])
        return out

    def _read_events(self, ids: list[str]) -> dict[str, Event]:
        self._settle_for(event_ids=ids)  # a stored event never changes but by a masking, which waits itself
        found = self._lookup("(e:Event)", "e.id", _E_COLS, ids, settled=False, wide=True)
        return {r["id"]: rows.event_from_row(r) for r in found}

    def find_events(self, query: EventQuery) -> list[Event]:
        # only the tests asked for: each costs the engine a pass over every candidate (a since-page of 100k
        # events: 44 ms with switch parameters and DISTINCT, 12 ms without)
        where: list[str] = []
        params: dict[str, Any] = {"limit": query.limit}
        if not query.include_private:
            where.append("NOT e.private")
        if query.scopes is not None:
            where.append("e.scope IN $scopes")
            params["scopes"] = list(query.scopes)
        # from the entity's or thread's own adjacency list, not a scan of events; a thread holds the events
        # recorded in it and those a write plan added to it
        paths = ["(e:Event)"]
        if query.entity_id is not None:
            paths = ["(:Entity {id: $entity_id})<-[:MENTIONS]-(e:Event)"]
            params["entity_id"] = query.entity_id
        if query.thread is not None:
            paths.append("(:Thread {key: $thread})<-[:IN_THREAD]-(e)" if query.entity_id is not None
                         else "(:Thread {key: $thread})<-[:IN_THREAD]-(e:Event)")
            paths = paths[1:] if paths[0] == "(e:Event)" else paths
            params["thread"] = query.thread
        pattern = "MATCH " + ", ".join(paths)
        for name, clause in (("since", "e.occurred_at >= $since"), ("until", "e.occurred_at < $until")):
            value = getattr(query, name)
            if value is not None:
                where.append(clause)
                params[name] = rows.naive(value) if isinstance(value, dt.datetime) else value
        if query.kinds is not None:
            where.append("e.kind IN $kinds")
            params["kinds"] = list(query.kinds)
        if query.keyed:
            where.append("e.dedupe_key IS NOT NULL")
        if query.with_ttl:
            where.append("e.ttl_days > 0")
        if query.recorded_until is not None:
            where.append("e.recorded_at <= $recorded_until")
            params["recorded_until"] = rows.naive(query.recorded_until)
        if query.after is not None:
            op = ">" if query.ascending else "<"
            where.append(f"(e.occurred_at {op} $c_o OR (e.occurred_at = $c_o AND (e.recorded_at {op} $c_r "
                         f"OR (e.recorded_at = $c_r AND e.id {op} $c_id))))")
            params.update(c_o=rows.naive(query.after[0]), c_r=rows.naive(query.after[1]), c_id=query.after[2])
        order = "ASC" if query.ascending else "DESC"
        # order and cut on the three key columns only, then read the page's full rows by primary key: the
        # engine materialises every returned column of every candidate before sorting (7x slower at 10k)
        distinct = "" if paths == ["(e:Event)"] else "DISTINCT "  # joined paths may meet an event twice
        cypher = (f"{pattern}{' WHERE ' if where else ''}{' AND '.join(where)} RETURN {distinct}e.id AS id, "
                  f"e.occurred_at AS o, e.recorded_at AS r ORDER BY o {order}, r {order}, id {order} LIMIT $limit")
        return self.events([r["id"] for r in self._rows(cypher, params)])

    def mentions(self, event_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {i: [] for i in event_ids}
        for r in self._lookup("(e:Event)-[:MENTIONS]->(n:Entity)", "e.id", "e.id AS event, n.id AS entity",
                              event_ids):
            out[r["event"]].append(r["entity"])
        return out

    def mask_events(self, masked: Sequence[Event]) -> None:
        if not masked:
            return
        self._settle()
        with self._transaction() as tx:
            for e in masked:
                self._run(tx, "MATCH (e:Event {id: $id}) SET e.content = $content, e.redactions = $redactions",
                          {"id": e.id, "content": e.content, "redactions": list(e.redactions)})
        self._events.update(put=[(e.id, e) for e in masked])
        self._recopy_after_removal()

    def remove_events(self, ids: Sequence[str]) -> None:
        self._settle()
        self._changes += 1
        with self._engine_lock, self._edges_deleted() as tx:
            self._run(tx, "MATCH (a:Annotation) WHERE a.event_id IN $ids DELETE a", {"ids": list(ids)})
            self._run(tx, "MATCH (e:Event) WHERE e.id IN $ids DETACH DELETE e", {"ids": list(ids)})
        self._held = None  # (read again before the next write)
        self._events.update(drop=ids)
        self._recopy_after_removal()

    def superseded(self, event_ids: Sequence[str], known_at: dt.datetime | None = None) -> set[str]:
        wanted = list(dict.fromkeys(event_ids))
        if not wanted:
            return set()
        params: dict[str, Any] = {"ids": wanted}
        when = ""
        if known_at is not None:
            when, params["t"] = " AND a.recorded_at <= $t", rows.naive(known_at)
        found = self._rows("UNWIND $ids AS i MATCH (a:Event)-[l:LINK]->(b:Event {id: i}) WHERE l.label = "
                           f"'supersedes'{when} RETURN DISTINCT b.id AS id", params)
        return {r["id"] for r in found}

    def thread_keys(self, suffix: str, limit: int = 10) -> list[str]:
        found = self._rows("MATCH (t:Thread) WHERE t.key = $s OR t.key ENDS WITH $tail RETURN t.key AS key "
                           "ORDER BY key LIMIT $limit", {"s": suffix, "tail": f":{suffix}", "limit": limit})
        return [r["key"] for r in found]

    def entity_id_for_key(self, key: str) -> str | None:
        return self.entity_ids_for_keys([key]).get(key)

    def entity_ids_for_keys(self, keys: Iterable[str]) -> dict[str, str]:
        wanted = list(keys)
        queued = self._queued_overlay()
        found = {k: i for k in wanted if (i := queued.aliases.get(k)) is not None}
        rest = [k for k in wanted if k not in found]
        found.update((r["key"], r["id"]) for r in self._lookup("(a:Alias)", "a.key", "a.key AS key, a.entity_id AS id",
                                                               rest, settled=False))
        return found

    def entities(self, ids: Sequence[str]) -> list[Entity]:
        return self._entities.get_many(ids, self._read_entities)

    def _queued_overlay(self) -> _Overlay:
        """What queued writes add (empty when none waits); waits for the applier when they merge entities."""
        if not self._queued:
            return _EMPTY
        with self._queue:
            overlay = self._overlay
        if overlay.merges:
            self._settle()
            return _EMPTY
        return overlay

    def _read_entities(self, ids: list[str]) -> dict[str, Entity]:
        """Entities the cache does not hold: a queued write's value, else the engine's."""
        queued = self._queued_overlay()
        found = {i: e for i in ids if (e := queued.entities.get(i)) is not None}
        rest = [i for i in ids if i not in found]
        found.update((r["id"], rows.entity_from_row(r))
                     for r in self._lookup("(n:Entity)", "n.id", _N_COLS, rest, settled=False, wide=True))
        return found

    def entity_ids(self, limit: int) -> list[str]:
        found = self._rows("MATCH (n:Entity) WHERE n.merged_into IS NULL RETURN n.id AS id ORDER BY id LIMIT $limit",
                           {"limit": limit})
        return [r["id"] for r in found]

    def entities_of_types(self, types: Sequence[str] | None) -> list[Entity]:
        found = self._rows("MATCH (n:Entity) WHERE n.merged_into IS NULL "
                           f"AND ($everything OR n.type IN $types) RETURN {_N_COLS} ORDER BY id",
                           {"everything": types is None, "types": list(types or [])})
        return [rows.entity_from_row(r) for r in found]

    def entity_names(self, limit: int) -> list[tuple[str, str]]:
        found = self._rows("MATCH (n:Entity) WHERE n.merged_into IS NULL RETURN n.name AS name, n.type AS type, "
                           "n.aliases AS aliases ORDER BY n.created_at DESC LIMIT $limit", {"limit": limit})
        return [(name, r["type"]) for r in found for name in (r["name"], *(r["aliases"] or ()))]

    def all_name_keys(self) -> dict[str, str]:
        # the queued writes' keys are the overlay's, taken before the read: one applied meanwhile is read. A
        # key names one entity until a merge moves it, so only a queued merge makes the read wait for them
        # (a memory reads them all after its first writes: waiting, it took ~40 ms of the engine's for a few
        # dozen records that would otherwise have joined a larger transaction)
        with self._queue:
            merges, queued = self._overlay.merges, dict(self._overlay.aliases)
        keys, ids = self._columns("MATCH (a:Alias) RETURN a.key, a.entity_id", settled=merges)
        return dict(zip(keys, ids, strict=True)) | ({} if merges else queued)  # (moved: not the overlay's)

    def all_thread_keys(self) -> set[str]:
        with self._queue:
            queued = set(self._overlay.threads)
        return set(self._columns("MATCH (t:Thread) RETURN t.key", settled=False)[0]) | queued

    def thread(self, key: str) -> Thread | None:
        found = self._rows(
            "MATCH (t:Thread {key: $key}) RETURN t.key AS key, t.title AS title, t.created_at AS created_at",
            {"key": key},
        )
        return rows.thread_from_row(found[0]) if found else None

    def known_thread_keys(self, keys: Iterable[str]) -> set[str]:
        wanted = list(keys)
        with self._queue:
            queued = {k for k in wanted if k in self._overlay.threads}
        found = self._lookup("(t:Thread)", "t.key", "t.key AS key", [k for k in wanted if k not in queued],
                             settled=False)
        return queued | {r["key"] for r in found}

    def states(self, query: StateQuery) -> list[State]:
        subjects = [query.subject_id] if query.subject_id else query.subject_ids
        if subjects is not None:
            self._check_failure()
            # a subject has few edges: its rows (every version) are read once, kept (with the acknowledged
            # writes' changes) and filtered here
            wanted = list(dict.fromkeys(subjects))
            current = not query.all_versions and query.known_at is None and not query.include_retracted
            kept = [v for found in self._subjects.get_many(wanted, self._read_subjects,
                                                           keep=len(wanted) <= SUBJECT_CACHE_READ)
                    for v in (found.current(query.predicate) if current else found.versions(query.predicate))
                    if _keep(query, v.row)]
            if len(wanted) > 1 or not current:  # (one subject's current versions come in order)
                kept.sort(key=lambda v: _row_order(v.row))
            if query.object_id:
                kept = [v for v in kept if v.row["s_object_id"] == query.object_id]
            if query.limit is not None:
                kept = kept[: query.limit]
            return [_as_known(v.state, query.known_at) for v in kept]
        where, params = _state_filters(query)
        cypher = "MATCH (n:Entity)-[h:HAS_STATE]->(s:State)"
        if query.object_id:
            cypher += ", (s)-[:OBJECT]->(:Entity {id: $object_id})"
            params["object_id"] = query.object_id
        cypher += (
            f" WHERE {' AND '.join(where) or 'true'} RETURN n.name AS subject, {_S_VERSION_COLS}, {_H_COLS}"
            " ORDER BY h_valid_from, h_recorded_at, s_id"
        )
        if query.limit is not None:
            cypher += " LIMIT $limit"
            params["limit"] = query.limit
        found = self._rows(cypher, params)
        return [_as_known(_state(r), query.known_at) for r in found]

    def _read_subjects(self, ids: list[str]) -> dict[str, _SubjectRows]:
        """The subjects' state versions. A few subjects: one statement each (a key lookup, no join). More: two
        reads of one snapshot, the subjects' edges with each state's id, then those states' columns by id. One
        join carrying every state column built its hash table over every HAS_STATE edge with all of them: at a
        million events and 400k states, 5,000 subjects took 0.65-0.9 s and ~440 MB of the engine's page cache
        (no less in a 256 MiB cache: it failed); the two reads take ~0.5 s and fit in 256 MiB.
        The first read's join still holds every state edge of the database with its columns, whatever the
        subjects asked for (at a million events and 400k states: 128-160 MiB): in a page cache too small for
        it, a statement a subject, as for a few (~3 ms a subject at a million events), and a warning."""
        self._settle_for(subjects=ids)
        out: dict[str, list[_Version]] = {i: [] for i in ids}  # (then each subject's by predicate and state)
        subject = "n.id AS n_id, n.name AS subject"
        alone = len(ids) <= LOOKUP_LOOP_MAX  # a statement a subject, found by its key: no join, one read
        if not alone:
            try:
                edges = self._joined_subjects(ids, subject)
            except StoreError as exc:
                if _POOL_FULL not in str(exc):
                    raise
                alone = True
                self._warn_pool("(n:Entity)-[h:HAS_STATE]->(s:State)")
        if alone:
            edges = self._lookup("(n:Entity)-[h:HAS_STATE]->(s:State)", "n.id",
                                 f"{subject}, {_S_VERSION_COLS}, {_H_COLS}", ids, settled=False, alone=True)
        for r in edges:
            out[r["n_id"]].append(_Version(r))
            self._subject_of.setdefault(r["s_id"], set()).add(r["n_id"])  # before it is cached: see _committed
        return {subject: _SubjectRows.of(versions) for subject, versions in out.items()}

    def _warn_pool(self, pattern: str) -> None:
        """Say once that the page cache cannot hold a join of many keys (``pattern``'s): they are read a
        statement each, slower."""
        if not self._warned_pool:
            self._warned_pool = True
            log.warning("%s: the page cache (buffer_pool_mb=%d) cannot hold the join that reads many %s at "
                        "once; they are read one by one, slower. Open the memory with a larger "
                        "buffer_pool_mb",
                        self.path, self._buffer_pool_mb, pattern)

    def _joined_subjects(self, ids: list[str], subject: str) -> list[dict[str, Any]]:
        """Many subjects' state versions in two reads of one snapshot (see _read_subjects)."""
        with self._snapshot():
            edges = self._lookup("(n:Entity)-[h:HAS_STATE]->(s:State)", "n.id",
                                 f"{subject}, s.id AS s_id, {_H_COLS}", ids, settled=False)
            columns = {r["s_id"]: r for r in self._lookup("(s:State)", "s.id", _S_VERSION_COLS,
                                                          (r["s_id"] for r in edges), settled=False,
                                                          wide=True)}
        for r in edges:
            r.update(columns[r["s_id"]])  # (the versions of a state share its columns' values)
        return edges

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """The reads inside see one state of the database (a read-only transaction on this thread's reader)."""
        conn = self._reader()
        with self._gate.read():  # (the whole transaction is one read)
            self._run(conn, "BEGIN TRANSACTION READ ONLY")
            try:
                yield
            finally:
                with suppress(RuntimeError):
                    conn.execute("COMMIT")

    def timelines(self, queries: Sequence[TimelineQuery]) -> list[list[State]]:
        self._check_failure()
        wanted = list(dict.fromkeys(q.subject_id for q in queries))
        rows_by = self._subjects.get_many(wanted, self._read_subjects, keep=len(wanted) <= SUBJECT_CACHE_READ)
        found = dict(zip(wanted, rows_by, strict=True))
        out: list[list[State]] = []
        for q in queries:
            rows_of = found[q.subject_id]
            versions: Sequence[_Version]
            if q.object_keys is not None:
                objects = rows_of.by_object(q.predicate, q.scope, q.private)
                versions = sorted((v for k in set(q.object_keys) for v in objects.get(k, ())),
                                  key=_version_order)
            else:
                versions = rows_of.timeline(q.predicate, q.scope, q.private)
                if q.near is not None:
                    versions = bearing_on(versions, q.near, _version_start)
                    if q.stated_before is not None:
                        versions = without_buried(versions, _version_from, _version_stated,
                                                  q.stated_before.astimezone(dt.UTC).replace(tzinfo=None))
            out.append([v.state for v in versions])
        return out

    def states_by_id(self, ids: Sequence[str]) -> list[State]:
        """Current values of the given states (retracted ones included), in the order asked."""
        self._check_failure()
        return self._states.get_many(ids, self._read_states)

    def _read_states(self, ids: list[str]) -> dict[str, State]:
        self._settle_for(state_ids=ids)
        found = self._lookup("(s:State)", "s.id", _S_COLS, ids, settled=False, wide=True)
        names = {e.id: e.name for e in self.entities(list({r["s_subject_id"] for r in found}))}
        return {r["s_id"]: _state(r | {"subject": names.get(r["s_subject_id"], "")}, current_node=True)
                for r in found}

    def evidence_links(self, state_ids: Sequence[str]) -> dict[str, list[tuple[str, EvidenceStance, dt.datetime]]]:
        out: dict[str, list[tuple[str, EvidenceStance, dt.datetime]]] = {i: [] for i in state_ids}
        cols = "s.id AS state_id, r.stance AS stance, r.at AS at, e.id AS event_id"
        evidenced = self._evidenced_states()  # most states have none: ~1 ms saved on each of those
        links = self._lookup("(s:State)<-[r:EVIDENCE]-(e:Event)", "s.id", cols,
                             [i for i in state_ids if i in evidenced])
        for r in sorted(links, key=lambda r: (r["at"], r["event_id"])):
            out[r["state_id"]].append((r["event_id"], EvidenceStance(r["stance"]), rows.required(r["at"])))
        return out

    def objects_of(self, predicates: Collection[str]) -> Set[str]:
        wanted = frozenset(predicates)
        found = self._objects.get(wanted)
        if found is None:
            with self._write_lock:  # no state is written while the set is read
                found = self._objects.get(wanted)
                if found is None:
                    read = self._rows("MATCH (s:State) WHERE s.predicate IN $p AND s.object_id IS NOT NULL "
                                      "RETURN DISTINCT s.object_id AS id", {"p": sorted(wanted)})
                    found = self._objects[wanted] = {r["id"] for r in read}
        return found

    def _evidenced_states(self) -> set[str]:
        if self._evidenced is None:
            with self._write_lock:  # no evidence is written while the set is read
                if self._evidenced is None:
                    found = self._rows("MATCH (s:State)<-[:EVIDENCE]-(:Event) RETURN DISTINCT s.id AS id")
                    self._evidenced = {r["id"] for r in found}
        return self._evidenced

    def evidence(self, state_ids: Sequence[str], *, scopes: Sequence[str] | None = None,
                 include_private: bool = True) -> dict[str, list[Evidence]]:
        links = self.evidence_links(state_ids)
        events = {e.id: e for e in self.events(list({e for found in links.values() for e, _, _ in found}))
                  if in_view(e, scopes, include_private)}
        return {
            state_id: [rows.evidence_of(events[e], stance, at) for e, stance, at in found if e in events]
            for state_id, found in links.items()
        }

    def about(self, state_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {i: [] for i in state_ids}
        for r in self._lookup("(s:State)-[:ABOUT]->(n:Entity)", "s.id", "s.id AS s, n.id AS n", state_ids):
            out[r["s"]].append(r["n"])
        return out

    def states_about(self, entity_ids: Sequence[str], kinds: Sequence[str] | None = None) -> list[str]:
        found = self._lookup("(s:State)-[:ABOUT]->(n:Entity)", "n.id", "s.id AS s, s.kind AS kind", entity_ids)
        return list(dict.fromkeys(r["s"] for r in found if kinds is None or r["kind"] in kinds))

    def annotations(self, event_ids: Sequence[str]) -> dict[str, Annotation]:
        cols = ", ".join(f"a.{c} AS {c}" for c in _TABLES["Annotation"].column_names)
        found = self._lookup("(a:Annotation)", "a.event_id", cols, event_ids, wide=True)
        return {r["event_id"]: rows.annotation_from_row(r) for r in found}

    def revisions(self, state_id: str) -> list[Revision]:
        return self.revisions_of([state_id])[state_id]

    def revisions_of(self, state_ids: Sequence[str]) -> dict[str, list[Revision]]:
        cols = ", ".join(f"r.{c} AS {c}" for c in _TABLES["Revision"].column_names)
        out: dict[str, list[Revision]] = {i: [] for i in state_ids}
        found = self._lookup("(s:State)-[:HAS_REVISION]->(r:Revision)", "s.id", cols, state_ids)
        for r in sorted(found, key=lambda r: (r["at"], r["id"])):
            out[r["state_id"]].append(rows.revision_from_row(r))
        return out

    def defined_predicates(self) -> list[tuple[str, str]]:
        found = self._rows("MATCH (p:DefinedPredicate) RETURN p.name AS name, p.definition AS definition")
        return [(r["name"], r["definition"]) for r in found]

    def cursors(self, prefix: str) -> list[SourceCursor]:
        found = self._rows("MATCH (c:SourceCursor) WHERE starts_with(c.key, $prefix) RETURN c.key AS key, "
                           "c.digest AS digest, c.offset AS offset, c.line AS line, c.updated_at AS updated_at, "
                           "c.detail AS detail ORDER BY key", {"prefix": prefix})
        return [SourceCursor(**{**r, "updated_at": r["updated_at"].replace(tzinfo=dt.UTC)}) for r in found]

    def indexable(self, since: dt.datetime | None = None, chunk: int = 20_000) -> Iterator[list[Indexable]]:
        # (the time filter only when there is one: said as "$everything OR ...", the engine read every column
        # of every row of a range whatever it kept, ~0.8 s a range at a million events, 40 s to open one)
        params = {"since": rows.naive(since)} if since else {}
        recorded = "AND e.recorded_at >= $since " if since else ""
        events = ("MATCH (e:Event) WHERE offset(id(e)) >= $lo AND offset(id(e)) < $hi "
                  f"{recorded}RETURN e.id, e.content, e.occurred_at, "
                  "e.kind, e.scope, e.private, e.thread, e.recorded_at, e.entities")
        # (their mentions by the same range of offsets: a lookup by id joins every event in the page cache)
        mentioned = ("MATCH (e:Event)-[:MENTIONS]->(n:Entity) WHERE offset(id(e)) >= $lo "
                     f"AND offset(id(e)) < $hi {recorded}RETURN e.id, n.id")
        for (lo, hi), found in self._ranges("Event", events, params, chunk, recorded.replace("e.", "x.")):
            mentions: dict[str, list[str]] = {}
            for event, entity in self._in_range(mentioned, params, lo, hi):
                mentions.setdefault(event, []).append(entity)
            ids = [f[0] for f in found]
            resolved = self.entity_ids_for_keys({name_key(n) for f in found for n in f[8] or ()})
            about = {r["id"]: (rows.aware(r["s"]), rows.aware(r["e"])) for r in self._lookup(
                "(a:Annotation)", "a.event_id", "a.event_id AS id, a.about_start AS s, a.about_end AS e", ids)
                if r["s"] is not None or r["e"] is not None}
            yield [Indexable(id=i, type="event", text=text, time=rows.aware(at), kind=kind, scope=scope,
                             private=bool(private), thread=thread, entities=tuple(mentions.get(i, ())),
                             recorded_at=rows.aware(recorded), about=about.get(i),
                             subjects=declared_subjects(names or (), resolved, mentions.get(i, ())))
                   for i, text, at, kind, scope, private, thread, recorded, names in found]
        created = "AND s.created_at >= $since " if since else ""
        states = ("MATCH (n:Entity)-[h:HAS_STATE]->(s:State) WHERE offset(id(s)) >= $lo "
                  f"AND offset(id(s)) < $hi AND h.replaced_at IS NULL AND s.retracted_at IS NULL {created}"
                  "RETURN s.id, n.name, s.predicate, s.object, "
                  "s.text, s.valid_from, s.valid_to, s.kind, s.scope, s.private, s.subject_id, s.object_id, "
                  "s.created_at")
        for found in self._chunks("State", states, params, chunk, created.replace("s.", "x.")):
            yield [Indexable(id=i, type="state", text=rows.state_words(subject, predicate, obj, text),
                             time=rows.aware(at), kind=kind, scope=scope, private=bool(private),
                             entities=tuple(e for e in (subject_id, object_id) if e),
                             recorded_at=rows.aware(created), subjects=(subject_id,),
                             about=None if at is None and to is None else (rows.aware(at), rows.aware(to)))
                   for i, subject, predicate, obj, text, at, to, kind, scope, private, subject_id, object_id,
                   created in found]

    def retracted_since(self, since: dt.datetime) -> list[str]:
        found = self._rows("MATCH (s:State) WHERE s.retracted_at >= $since RETURN s.id AS id",
                           {"since": rows.naive(since)})
        return [r["id"] for r in found]

    def periods_changed_since(self, since: dt.datetime) -> dict[str, Period]:
        found = self._rows("MATCH (s:State) WHERE s.recorded_at >= $since AND s.retracted_at IS NULL RETURN "
                           "s.id AS id, s.valid_from AS f, s.valid_to AS t", {"since": rows.naive(since)})
        return {r["id"]: (rows.aware(r["f"]), rows.aware(r["t"])) for r in found}

    def merged_since(self, since: dt.datetime) -> list[tuple[str, str]]:
        found = self._rows("MATCH (e:Entity) WHERE e.merged_at >= $since RETURN e.id AS id, e.merged_into AS kept "
                           "ORDER BY e.merged_at, e.id", {"since": rows.naive(since)})
        return [(r["id"], r["kept"]) for r in found]

    def annotated_after(self, after: dt.datetime) -> list[str]:
        params = {"after": rows.naive(after)}
        annotated = self._values("MATCH (a:Annotation) WHERE a.recorded_at > $after RETURN a.event_id", params)
        evidence = self._values("MATCH (e:Event)-[v:EVIDENCE]->(:State) WHERE v.at > $after RETURN DISTINCT e.id",
                                params)
        return list(dict.fromkeys([*annotated, *evidence]))

    def _chunks(self, table: str, query: str, params: dict[str, Any], size: int,
                where: str = "") -> Iterator[list[list[Any]]]:
        """The rows of ``query`` read up to ``size`` nodes of ``table`` at a time (see :meth:`_ranges`)."""
        for _, found in self._ranges(table, query, params, size, where):
            yield found

    def _ranges(self, table: str, query: str, params: dict[str, Any], size: int,
                where: str = "") -> Iterator[tuple[tuple[int, int], list[list[Any]]]]:
        """The rows of ``query`` read up to ``size`` nodes of ``table`` at a time, each with its range of
        offsets: ``query`` keeps those whose offset (the engine's number of a node in its table) is in
        [``$lo``, ``$hi``). The engine holds a query's whole answer in its page cache until it is let go: one
        read of every event did not fit a 32 MiB cache at 60,000 events of ~400 characters, and three such
        readers at 250,000 events left a bulk copy beside them no room (the engine refused it). A range whose
        answer does not fit either (long texts) is read again in quarters, and the ranges grow back as they
        fit. ``where`` ("AND x...."): only the offsets from the first to the last node it keeps are read (a
        catch-up reads the newest nodes, not a range query for each 20,000 of a million)."""
        self._settle()
        bounds = f"MATCH (x:{table}) WHERE true {where}RETURN min(offset(id(x))), max(offset(id(x)))"
        first, top = self._run(self._reader(), bounds, params if where else None).get_all()[0]
        lo, span = first or 0, size
        while top is not None and lo <= top:
            try:
                found = self._run(self._reader(), query, {**params, "lo": lo, "hi": lo + span}).get_all()
            except StoreError as exc:
                if _POOL_FULL not in str(exc) or span == 1:
                    raise
                span = max(1, span // 4)
                continue
            if found:
                yield (lo, lo + span), found
            lo += span
            span = min(size, span * 2)

    def _in_range(self, query: str, params: dict[str, Any], lo: int, hi: int) -> list[list[Any]]:
        """The rows of ``query`` for the offsets in [``lo``, ``hi``) (see :meth:`_ranges`), read in halves
        where its answer does not fit the page cache."""
        try:
            found: list[list[Any]] = self._run(self._reader(), query, {**params, "lo": lo, "hi": hi}
                                               ).get_all()
            return found
        except StoreError as exc:
            if _POOL_FULL not in str(exc) or hi - lo <= 1:
                raise
        middle = (lo + hi) // 2
        return self._in_range(query, params, lo, middle) + self._in_range(query, params, middle, hi)

    def stats(self, view: Sequence[ReadPass] | None = None) -> StoreStats:
        if view is None or list(view) == [ReadPass(None, True)]:  # (a view of everything: the plain counts)
            patterns = ("(:Event)", "(:State)", "()-[:HAS_STATE]->()", "(:Revision)", "(:Thread)",
                        "(:Entity)")
            events, states, versions, revisions, threads, entities = (
                int(self._rows(f"MATCH {pattern} RETURN count(*) AS n")[0]["n"]) for pattern in patterns
            )
        else:
            events, states, versions, revisions, threads, entities = self._counts_in(view)
        return StoreStats(events=events, entities=entities, threads=threads, states=states,
                          state_versions=versions, revisions=revisions, engine=self.engine,
                          path=self.path)

    def _counts_in(self, view: Sequence[ReadPass]) -> tuple[int, ...]:
        """Events, states, state versions, revisions, threads and entities a reader of ``view`` sees (an
        entity: one its events name or its states are about). Kept until the next write: the entities' read
        costs ~0.3 s at 100k events, ~2.6 s at 760k (a server's health asked with a token, polled)."""
        changes, key = self._changes, tuple(view)
        kept = self._counted.get(key)
        if kept is not None and kept[0] == changes:
            return kept[1]
        params: dict[str, Any] = {}
        shown: list[str] = []
        for i, p in enumerate(view):
            terms = [] if p.include_private else ["NOT x.private"]
            if p.scopes is not None:
                terms.append(f"x.scope IN $scopes{i}")
                params[f"scopes{i}"] = list(p.scopes)
            shown.append(" AND ".join(terms) or "true")
        where = " OR ".join(f"({t})" for t in shown) or "false"

        def read(pattern: str, returns: str) -> list[Any]:
            found = self._rows(f"MATCH {pattern} WHERE {where} RETURN {returns} AS n", params)
            return [r["n"] for r in found]

        entities = {*read("(x:Event)-[:MENTIONS]->(n:Entity)", "DISTINCT n.id"),
                    *read("(n:Entity)-[:HAS_STATE]->(x:State)", "DISTINCT n.id"),
                    *read("(x:State)-[:OBJECT|ABOUT]->(n:Entity)", "DISTINCT n.id")}
        events, states, versions, revisions, threads = (
            int(read(pattern, returns)[0])
            for pattern, returns in (("(x:Event)", "count(*)"), ("(x:State)", "count(*)"),
                                     ("()-[:HAS_STATE]->(x:State)", "count(*)"),
                                     ("(x:State)-[:HAS_REVISION]->(:Revision)", "count(*)"),
                                     ("(x:Event)-[:IN_THREAD]->(t:Thread)", "count(DISTINCT t.key)"))
        )
        counts = (events, states, versions, revisions, threads, len(entities))
        if len(self._counted) >= COUNTED_VIEWS:
            self._counted.clear()
        self._counted[key] = (changes, counts)
        return counts

    def warm(self) -> None:
        """The newest entities, as many as the cache keeps, in one scan: one costs ~0.4 ms read alone (a recall
        hit names two or three), ~3 µs in a scan. Then the state rows of the newest of them, as many subjects as
        that cache keeps, in one read: an entity or as-of question about one of them answers from memory (one
        subject read alone costs the engine ~4 ms; together, 10,000 subjects at 100k events take ~1 s, 20,000
        at a million ~4 s). And the ids of the stored events, which the first write would read otherwise."""
        with self._write_lock:  # no write changes an entity or a state while the caches fill
            self._settle()
            found = self._rows(f"MATCH (n:Entity) RETURN {_N_COLS} ORDER BY n.created_at DESC LIMIT $limit",
                               {"limit": ENTITY_CACHE})
            self._entities.update(put=((r["id"], rows.entity_from_row(r)) for r in reversed(found)))
            subjects = self._read_subjects([r["id"] for r in found[:SUBJECT_CACHE]])
            self._subjects.update(put=reversed(subjects.items()))
            if not self._read_only:
                self._known_event_ids()

    def backup(self, dest: Path) -> int:
        """The database as it is now, copied to the new file ``dest``; returns its size. Every write acknowledged
        so far is in the copy: the applier's backlog lands and a checkpoint folds the engine's log into the
        file first. Writes wait while the file is copied; reads go on (they leave the file as it is)."""
        if self.path in ("", ":memory:"):
            raise StoreError("this memory lives in memory only: it has no file to back up")
        with self._write_lock:
            self._settle()
            with self._engine_lock:
                if self._read_only:
                    if os.path.exists(self.path + ".wal") and os.path.getsize(self.path + ".wal"):
                        raise StoreError(f"database {self.path!r} is open read-only and its log holds writes the "
                                         "file does not: open it without read_only to back it up")
                else:
                    self._checkpoint_now()
                    self._check_folded()
                try:
                    assert self._file is not None
                    copy_whole(self._file, dest)
                except OSError as exc:
                    raise StoreError(f"cannot write the backup {str(dest)!r}: {exc}") from exc
        return dest.stat().st_size

    def close(self) -> None:
        """Apply what the journal holds, then close (a write that fails meanwhile stays in the journal)."""
        if self._closed:
            return
        self._closed = True
        with self._write_lock:
            with self._queue:
                self._stopping = True
                self._queue.notify_all()
            if self._applier is not None:
                self._applier.join()
            if self._journal is not None:
                if self._failure is None:
                    self._journal.applied(self._applied)
                self._journal.close()
            with self._engine_lock:
                self._prepared.clear()
                self._disconnect()
            # what it kept of the database goes with it (a closing memory saves its search index next)
            for cache in (self._events, self._entities, self._states, self._subjects):
                cache.clear()
            self._subject_of, self._objects, self._counted = {}, {}, {}
            self._evidenced = self._known_events = None


_CURSOR_UPSERT = ("MERGE (c:SourceCursor {key: $key}) SET c.digest = $digest, c.offset = $offset, c.line = $line, "
                  "c.updated_at = $updated_at, c.detail = $detail")
_STATE_ENDS = "state {}: the state, its subject or object, or an event or state it links to"
RIDERS_MAX = 8  # edges and revisions created by one state's statement; more go row by row
_CONFIRM = "MATCH (s:State {id: $id}) SET s.last_confirmed_at = $at"
_CONFIRM_LOADED = "MATCH (s:State {id: `id`}) SET s.last_confirmed_at = `at` RETURN count(*)"
_SIZED = ("Entity", "Event", "State", "Revision", "Thread")  # see KuzuStore._held


class _ReadGate:
    """Reads of the engine, and the writes that must run while none does: a checkpoint, and the commit of a
    transaction that copied (the engine checkpoints there). The engine makes a checkpoint wait for the reads
    under way, and a read that starts beside it can hold both up until the engine gives up, ~6 s later (the
    checkpoint fails; a commit's writes stay). Kuzu 0.11.3, a thread reading in a loop beside one that
    checkpoints: 24 of 40 checkpoints (29 of 40 commits of a COPY) waited ~5.8 s; through this gate none did,
    all 40 in 0.26 s (1.25 s). A read waits while such a write waits or runs; the write waits for the reads
    under way. A thread's reads inside one of its own (a snapshot) pass. Preparing a statement on a reader is
    a read: the engine begins a transaction for it too."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._reading = 0  # threads reading
        self._alone = 0  # writes waiting to run alone, or running
        self._depth = threading.local()

    @contextmanager
    def read(self) -> Iterator[None]:
        depth = getattr(self._depth, "n", 0)
        if not depth:
            with self._changed:
                while self._alone:
                    self._changed.wait()
                self._reading += 1
        self._depth.n = depth + 1
        try:
            yield
        finally:
            self._depth.n = depth
            if not depth:
                with self._changed:
                    self._reading -= 1
                    self._changed.notify_all()

    @contextmanager
    def alone(self) -> Iterator[None]:
        with self._changed:
            self._alone += 1
            try:
                while self._reading:
                    self._changed.wait()
            except BaseException:
                self._alone -= 1
                self._changed.notify_all()
                raise
        try:
            yield
        finally:
            with self._changed:
                self._alone -= 1
                self._changed.notify_all()


def _applier(ref: weakref.ref[KuzuStore], queue: threading.Condition) -> None:
    """The applier thread: moves journalled writes into the engine until its store closes (or is dropped:
    it holds the store only while writes wait, so an unreferenced memory is collected as before)."""
    while True:
        with queue:
            store = ref()
            if store is None:
                return
            if not store._queued:
                if store._stopping or store._failure is not None:
                    return
                del store
                queue.wait(timeout=0.5)
                continue
            head = store._queued[0]
            left = _linger_left(time.monotonic() - head.at, head.rows, store._queued_rows,
                               hurried=bool(store._waiting or store._taking or store._stopping))
            del head  # (kept, it would keep the write alive after it was applied, while the next is made)
            if left > 0:
                del store  # more writes share the transaction
                queue.wait(timeout=left)
                continue
        if not store._apply_next():
            return
        del store


def _usable_cpus() -> int:
    """The processors this process may run on (0, all of the machine's, where the system cannot say)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0


def _linger_left(waited: float, first_rows: int, rows: int, *, hurried: bool) -> float:
    """How much longer the applier lets journalled writes gather into one transaction (0: apply them now),
    given how long the first has waited, its rows and those of all. Not when a read or a bulk writer waits for
    them or the store closes (``hurried``), nor for a large write: it has a transaction of its own (shared only
    with bulk writes, see BULK_PER_COMMIT), and the next waits for it.

    >>> _linger_left(0.1, 5, 40, hurried=False), _linger_left(0.1, 5, 40, hurried=True)
    (0.4, 0.0)
    >>> _linger_left(0.0, 5_000, 5_000, hurried=False), _linger_left(0.6, 5, 40, hurried=False)
    (0.0, 0.0)
    """
    if hurried or first_rows > LARGE_WRITE_ROWS or rows >= APPLY_LINGER_ROWS:
        return 0.0
    return max(0.0, APPLY_LINGER_S - waited)


@dataclasses.dataclass
class _Queued:
    """A journalled write waiting for the applier."""

    seq: int
    batch: WriteBatch
    rows: int
    confirmed: set[str] | None  # the subjects of the states it confirms (None: not all known)
    columns: list[tuple[str, ...]]  # those each of its state versions changes (see _version_columns)
    at: float = dataclasses.field(default_factory=time.monotonic)


@dataclasses.dataclass
class _Overlay:
    """What the queued writes add or change, for the lookups that answer without waiting for the applier."""

    events: set[str] = dataclasses.field(default_factory=set)
    aliases: dict[str, str] = dataclasses.field(default_factory=dict)  # name key -> entity id
    entities: dict[str, Entity] = dataclasses.field(default_factory=dict)  # their newest values
    threads: set[str] = dataclasses.field(default_factory=set)
    subjects: set[str] = dataclasses.field(default_factory=set)  # whose states change
    state_ids: set[str] = dataclasses.field(default_factory=set)
    merges: bool = False  # entities move: every lookup waits
    any_subject: bool = False  # a state of a subject not known here changes: every state read waits

    @classmethod
    def of(cls, queued: Iterable[_Queued]) -> _Overlay:
        overlay = cls()
        for q in queued:
            overlay.add(q)
        return overlay

    def add(self, q: _Queued) -> None:
        b = q.batch
        if q.confirmed is None:
            self.any_subject = True
        else:
            self.subjects.update(q.confirmed)
        self.events.update(e.id for e in b.events)
        self.aliases.update(b.aliases)
        self.entities.update((e.id, e) for e in (*b.entities, *b.entity_updates))
        self.subjects.update(e.id for e in b.entity_updates)  # a state read carries its subject's name
        self.threads.update(t.key for t in b.threads)
        for state in (*b.new_states, *b.state_versions, *b.retractions):
            self.subjects.add(state.subject_id)
            self.state_ids.add(state.id)
        self.state_ids.update(state_id for state_id, _ in b.confirmations)
        self.merges = self.merges or bool(b.merges)


_EMPTY = _Overlay()

def _merged(batches: Sequence[WriteBatch]) -> WriteBatch:
    """One batch doing what ``batches`` do one after the other (none of them but the first merges entities)."""
    if len(batches) == 1:
        return dataclasses.replace(batches[0])
    merged = WriteBatch()
    for b in batches:
        for name, values in vars(b).items():
            getattr(merged, name).extend(values)
    return merged


@dataclasses.dataclass
class _EventEdges:
    """What the statement writing one event also writes: its threads, its mentions (once each, in order) and
    the period it talks about."""

    threads: list[str] = dataclasses.field(default_factory=list)
    mentions: dict[str, None] = dataclasses.field(default_factory=dict)
    annotation: Annotation | None = None


def _probe(path: str, buffer_pool_mb: int) -> str | None:
    """Why the engine cannot open the database at ``path``, tried in a process of its own (``None``: it
    opens, or another process holds it, which the open then says)."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, path, str(buffer_pool_mb)], capture_output=True,
                              text=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("could not try opening %s in a process of its own (%s): opening it here", path, exc)
        return None
    if done.returncode in (0, 3):
        return None
    said = done.stderr.strip().splitlines()
    if said and done.returncode > 0:
        return said[-1]
    return f"the engine crashed opening it (exit {done.returncode})"


def _open_error(path: str, exc: RuntimeError) -> StoreError:
    """The engine's refusal to open a database, as ours. At an open the engine replays its write-ahead log,
    and Kuzu 0.11.3 cannot replay the log of a process killed while it checkpointed (bench/crash_soak.py):
    the replay finds a key stored twice. The files are left as they are (with a recovery copy this is not
    raised: the copy is put in their place, see _open_database)."""
    if "duplicated primary key" in str(exc):
        return StoreError(
            f"cannot open database {path!r}: the engine cannot replay its write-ahead log {path + '.wal'!r} "
            f"({exc}). Kuzu 0.11.3 fails so when the process writing the database was killed while it folded that "
            "log into the database file. Both files are left as they are, and the memory kept no recovery copy "
            "(it was opened with recovery off): restore the latest backup (graphmem backup, or a server's "
            "--backup-dir) in their place, and keep these two for inspection")
    return StoreError(f"cannot open database {path!r}: {exc}{_POOL_HINT if _POOL_FULL in str(exc) else ''}")


def _database_error(what: str, exc: RuntimeError) -> StoreError:
    """The engine's error as ours: a key stored already is a :class:`DuplicateKey` (a writer may retry); a
    full page cache names the setting that grows it."""
    kind = DuplicateKey if "duplicated primary key" in str(exc) else StoreError
    return kind(f"{what}: {exc}{_POOL_HINT if _POOL_FULL in str(exc) else ''}")


_POOL_FULL = "buffer pool is full"  # (the engine's words)
_POOL_HINT = ("; the database's page cache is full: open the memory with a larger buffer_pool_mb (a memory "
              "that lives in memory keeps all its data there)")


def _single_event(b: WriteBatch) -> bool:
    """Whether ``b`` is one event with its own edges and at most one annotation: one statement writes it."""
    if len(b.events) != 1 or len(b) != 1 + len(b.in_thread) + len(b.mentions) + len(b.new_annotations):
        return False
    event = b.events[0].id
    return (len(b.new_annotations) <= 1 and all(a.event_id == event for a in b.new_annotations)
            and all(e == event for e, _ in (*b.in_thread, *b.mentions)))


def _folded(b: WriteBatch, columns: Sequence[Sequence[str]]) -> tuple[
        WriteBatch, Sequence[Sequence[str]], list[tuple[str, str, dict[str, Any]]]]:
    """``b`` with the versions of the states it makes folded into them (``columns``: those each version
    changes), and the earlier versions' edges (subject, state, columns), closed as the versions after them
    closed them.

    Writes applied together (see _apply_next) often make a state and then a new version of it: a value is
    superseded a few records later, and a version is a statement that finds the state's open edge, closes it
    and adds the next (~0.9 ms of the engine at a few thousand states, ~2.5 ms at 300k events, where a
    version of a state already stored costs it). A state made in the same transaction is written as its last
    version says, with its earlier versions' edges beside it: the graph they leave is the same. Not a state
    the batch also retracts, nor one whose last version does not hold every column its versions wrote (then
    its versions go one by one, as before), nor in a batch that merges entities."""
    made = {s.id: at for at, s in enumerate(b.new_states)}
    if not made or not b.state_versions or b.merges:
        return b, columns, []
    retracted = {s.id for s in b.retractions}
    chains: dict[str, list[tuple[State, Sequence[str]]]] = {}
    for version, changed in zip(b.state_versions, columns, strict=True):
        if version.id in made and version.id not in retracted:
            chains.setdefault(version.id, []).append((version, changed))
    if not chains:
        return b, columns, []
    states = list(b.new_states)
    history: list[tuple[str, str, dict[str, Any]]] = []
    folded: set[str] = set()
    for state_id, chain in chains.items():
        first = states[made[state_id]]
        written = rows.state_row(first)  # the node as the statements would leave it: each sets its columns
        for version, changed in chain:
            row = rows.state_row(version)
            written.update((c, row[c]) for c in changed)
        last = chain[-1][0]
        if written != rows.state_row(last):
            continue
        versions = [first, *(version for version, _ in chain)]
        history.extend((first.subject_id, state_id,
                        rows.version_row(before) | {"replaced_at": rows.naive(after.recorded_at)})
                       for before, after in itertools.pairwise(versions))
        states[made[state_id]] = last
        folded.add(state_id)
    if not folded:
        return b, columns, []
    kept = [(version, changed) for version, changed in zip(b.state_versions, columns, strict=True)
            if version.id not in folded]
    return (dataclasses.replace(b, new_states=states, state_versions=[v for v, _ in kept]),
            [changed for _, changed in kept], history)


def _confirmed_when_made(b: WriteBatch, confirmations: dict[str, dt.datetime]) -> tuple[
        WriteBatch, dict[str, dt.datetime]]:
    """``b`` with the confirmations of the states it makes written with them (the last confirmation is a
    column of the state, set after everything else; its evidence and revision go as any other's), and the
    other confirmations: a statement of its own set each (~0.7-1.3 ms of the engine), most often the
    confirmation of a value stated again a few records after it was made."""
    if not confirmations or not b.new_states:
        return b, confirmations
    made = {s.id for s in b.new_states}.intersection(confirmations)
    if not made:
        return b, confirmations
    states = [s.model_copy(update={"last_confirmed_at": confirmations[s.id]}) if s.id in made else s
              for s in b.new_states]
    return (dataclasses.replace(b, new_states=states),
            {state_id: at for state_id, at in confirmations.items() if state_id not in made})


def _confirmations_to_write(b: WriteBatch, columns: Sequence[Sequence[str]]) -> dict[str, dt.datetime]:
    """Each confirmed state's last confirmation in ``b``, unless the last of its versions that writes the
    state's last confirmation (``columns``: those each version writes) already writes that one or a later
    one. A transaction writes the versions first and the confirmations after them, so an earlier
    confirmation written then would undo a later one a version carried: the applier merges many records into
    one batch (confirmed at 00:29 and 00:45, then superseded at 00:46 by a version that left the confirmation
    as it was, the state kept 00:29)."""
    latest: dict[str, dt.datetime] = {}
    for state_id, at in b.confirmations:
        if state_id not in latest or at > latest[state_id]:
            latest[state_id] = at
    written: dict[str, dt.datetime | None] = {}
    for version, changed in zip(b.state_versions, columns, strict=True):
        if version.id in latest and "last_confirmed_at" in changed:
            written[version.id] = version.last_confirmed_at
    return {state_id: at for state_id, at in latest.items()
            if (carried := written.get(state_id)) is None or carried < at}


def _unversioned_confirmations(b: WriteBatch) -> list[tuple[str, dt.datetime]]:
    """The batch's confirmations that its last new version of the same state does not already carry."""
    last = {v.id: v.last_confirmed_at for v in b.state_versions}
    return [(i, at) for i, at in b.confirmations if i not in last or last[i] != at]


class _Riders:
    """A batch's revisions, evidence and supersedes, handed to the statements that write their states.

    A kind with more rows than ``COPY_THRESHOLD`` in the batch does not ride: it goes in bulk afterwards (many
    riders make each statement slow, and the commit of many small edge inserts slower still)."""

    def __init__(self, b: WriteBatch, *, bulk: bool) -> None:
        self.bulk = bulk  # then none ride: they go in bulk (COPY, or a statement: see LOAD_MAX_ROWS)
        self._kinds = (_RidingKind(b.revisions, lambda r: r.state_id, bulk),
                       _RidingKind(b.evidence, lambda x: x[1], bulk),
                       _RidingKind(b.supersedes, lambda x: x[0], bulk))
        self.taken: set[str] = set()  # states whose riders went with their statement

    def on(self, state_id: str, params: dict[str, Any]) -> str:
        """``WITH s ...`` clauses creating what hangs on ``state_id`` (its parameters go into ``params``);
        only the first statement that writes a state takes them."""
        if self.bulk or state_id in self.taken:
            return ""
        revisions, evidence, supersedes = (kind.of(state_id) for kind in self._kinds)
        if len(revisions) + len(evidence) + len(supersedes) > RIDERS_MAX:
            return ""
        self.taken.add(state_id)
        return _riders(revisions, evidence, supersedes, params)

    def left(self) -> tuple[list[Revision], list[tuple[str, str, EvidenceStance, dt.datetime]],
                            list[tuple[str, str, dt.datetime]]]:
        revisions, supersedes = (kind.unridden(self.taken) for kind in (self._kinds[0], self._kinds[2]))
        return revisions, self._kinds[1].unridden(self.taken), supersedes


class _RidingKind:
    """One kind of rider (revisions, evidence or supersedes) of a batch, by the state each hangs on; ``None``
    groups when the kind does not ride (a bulk write, or more rows than ``COPY_THRESHOLD``)."""

    def __init__(self, items: list[Any], state_of: Callable[[Any], str], bulk: bool) -> None:
        self.items, self.state_of = items, state_of
        self.groups: dict[str, list[Any]] | None = None
        if not bulk and len(items) <= COPY_THRESHOLD:
            self.groups = {}
            for item in items:
                self.groups.setdefault(state_of(item), []).append(item)

    def of(self, state_id: str) -> list[Any]:
        return [] if self.groups is None else self.groups.get(state_id, [])

    def unridden(self, taken: set[str]) -> list[Any]:
        return self.items if self.groups is None else [x for x in self.items if self.state_of(x) not in taken]


def _riders(revisions: Sequence[Revision], evidence: Sequence[tuple[str, str, EvidenceStance, dt.datetime]],
            supersedes: Sequence[tuple[str, str, dt.datetime]], params: dict[str, Any]) -> str:
    """Clauses that follow a statement binding a state ``s``: its revisions (only their non-null columns),
    the events that are evidence for it, the states it supersedes."""
    out = []
    for i, r in enumerate(revisions):
        rev = {k: v for k, v in rows.revision_row(r).items() if v is not None}
        params |= {f"r{i}_{k}": v for k, v in rev.items()}
        out.append(f" WITH s CREATE (r{i}:Revision {{{_given(rev, f'r{i}_')}}}), (s)-[:HAS_REVISION]->(r{i})")
    for i, (event_id, _, stance, at) in enumerate(evidence):
        params |= {f"e{i}_id": event_id, f"e{i}_stance": stance.value, f"e{i}_at": rows.naive(at)}
        out.append(f" WITH s MATCH (e{i}:Event {{id: $e{i}_id}}) "
                   f"CREATE (e{i})-[:EVIDENCE {{stance: $e{i}_stance, at: $e{i}_at}}]->(s)")
    for i, (_, older, at) in enumerate(supersedes):
        params |= {f"o{i}_id": older, f"o{i}_at": rows.naive(at)}
        out.append(f" WITH s MATCH (o{i}:State {{id: $o{i}_id}}) CREATE (s)-[:SUPERSEDES {{at: $o{i}_at}}]->(o{i})")
    return "".join(out)


def _changed(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, ...]:
    """The versioned columns whose values differ between two rows of one state."""
    return tuple(c for c in _VERSIONED if old[c] != new[c])


def _state_filters(q: StateQuery) -> tuple[list[str], dict[str, Any]]:
    where: list[str] = []
    params: dict[str, Any] = {}
    if q.predicate:
        where.append("h.predicate = $predicate")
        params["predicate"] = q.predicate
    if q.all_versions:
        pass
    elif q.known_at is not None:
        where.append("h.recorded_at <= $known_at AND (h.replaced_at IS NULL OR h.replaced_at > $known_at)")
        params["known_at"] = rows.naive(q.known_at)
    elif q.include_retracted:
        where.append("(h.replaced_at IS NULL OR h.replaced_at = h.retracted_at)")
    else:
        where.append("h.replaced_at IS NULL")
    if q.starts_before is not None:
        where.append("(h.valid_from IS NULL OR h.valid_from < $starts_before)")
        params["starts_before"] = rows.naive(q.starts_before)
    if q.ends_after is not None:
        where.append("(h.valid_to IS NULL OR h.valid_to >= $ends_after)")
        params["ends_after"] = rows.naive(q.ends_after)
    if not q.include_private:
        where.append("NOT s.private")
    if q.scopes is not None:
        where.append("s.scope IN $scopes")
        params["scopes"] = list(q.scopes)
    if q.kinds is not None:
        where.append("s.kind IN $kinds")
        params["kinds"] = list(q.kinds)
    return where, params


_EARLIEST = dt.datetime.min


def _row_order(r: dict[str, Any]) -> tuple[dt.datetime, dt.datetime, str]:
    return (r["h_valid_from"] or _EARLIEST, r["h_recorded_at"] or _EARLIEST, r["s_id"])


def _version_order(v: _Version) -> tuple[dt.datetime, dt.datetime, str]:
    return _row_order(v.row)


def _version_start(v: _Version) -> dt.datetime:
    """Where a version starts, as ``temporal.bearing_on`` searches a timeline by it."""
    return v.start


def _version_from(v: _Version) -> dt.datetime | None:
    return v.row["h_valid_from"]  # type: ignore[no-any-return]


def _version_stated(v: _Version) -> tuple[dt.datetime, bool, bool]:
    """When a version's state was stated, whether it holds nowhere and whether it is retracted, as
    ``temporal.without_buried`` needs them (naive UTC, as stored)."""
    return v.stated


_OpenKey = str | tuple[str, str, bool] | tuple[str, str, bool, str]  # see _SubjectRows._open (None: all)


def _by_object_changed(before: dict[str, list[_Version]],
                       changes: list[tuple[_Version | None, _Version | None]]) -> dict[str, list[_Version]]:
    """A timeline's current versions by object (see ``_SubjectRows.by_object``) with ``changes`` made: each a
    state's current version before and after a write (None: it had none). A state's object never changes."""
    found = dict(before)
    for was, now in changes:
        state = was or now
        assert state is not None
        object_of = _object_key(state.row)
        listed = [v for v in found.get(object_of, ()) if v.row["s_id"] != state.row["s_id"]]
        if now is not None:
            bisect.insort(listed, now, key=_version_order)
        if listed:
            found[object_of] = listed
        else:
            found.pop(object_of, None)
    return found


def _open_predicate(key: _OpenKey) -> str:
    return key[0] if isinstance(key, tuple) else key


def _of_timeline(v: _Version, key: _OpenKey) -> bool:
    """``v`` is on the timeline ``key`` names (any of the predicate's, for a predicate alone)."""
    if not isinstance(key, tuple):
        return True
    return v.row["s_scope"] == key[1] and bool(v.row["s_private"]) == key[2]


def _object_key(r: dict[str, Any]) -> str:
    """A state row's :func:`object_key`."""
    return object_key(r["s_object_id"], r["s_object"])


def _keep(q: StateQuery, r: dict[str, Any]) -> bool:
    """The filters of :func:`_state_filters`, evaluated on one fetched row (naive UTC instants)."""
    replaced, retracted = r["h_replaced_at"], r["h_retracted_at"]
    if q.predicate and r["h_predicate"] != q.predicate:
        return False
    if q.all_versions:
        pass
    elif q.known_at is not None:
        known = rows.naive(q.known_at)
        if not (r["h_recorded_at"] <= known and (replaced is None or replaced > known)):
            return False
    elif q.include_retracted:
        if not (replaced is None or replaced == retracted):
            return False
    elif replaced is not None:
        return False
    vf, vt = r["h_valid_from"], r["h_valid_to"]
    if q.starts_before is not None and vf is not None and not vf < rows.naive(q.starts_before):
        return False
    if q.ends_after is not None and vt is not None and not vt >= rows.naive(q.ends_after):
        return False
    if not q.include_private and r["s_private"]:
        return False
    if q.kinds is not None and r["s_kind"] not in q.kinds:
        return False
    return q.scopes is None or r["s_scope"] in q.scopes


def _as_known(s: State, known_at: dt.datetime | None) -> State:
    """A version read as of ``known_at``: a retraction after that time had not happened yet."""
    if s.retracted_at is None:
        return s
    if known_at is not None and s.retracted_at > known_at:
        return s.model_copy(update={"retracted_at": None})
    return s.model_copy(update={"status": StateStatus.RETRACTED})


class _Version:
    """One version of a state as read with its subject (its state node's and edge's columns as ``s_`` and
    ``h_``), parsed at the first need, as are where it starts and when it was stated: a write plans on a
    timeline by searching it (see temporal.bearing_on), and a timeline of one start stated again and again
    ("moved to ... last week") has many of them. Never changed once cached: a write replaces it."""

    __slots__ = ("_start", "_state", "_stated", "row")

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row
        self._state: State | None = None
        self._start: dt.datetime | None = None
        self._stated: tuple[dt.datetime, bool, bool] | None = None

    @property
    def state(self) -> State:
        if self._state is None:
            self._state = _state(self.row)
        return self._state

    @property
    def start(self) -> dt.datetime:
        """Where it starts (aware UTC; :data:`OPEN_START` for an open start)."""
        if self._start is None:
            start = self.row["h_valid_from"]
            self._start = OPEN_START if start is None else start.replace(tzinfo=dt.UTC)
        return self._start

    @property
    def stated(self) -> tuple[dt.datetime, bool, bool]:
        """When its state was stated, whether it holds nowhere and whether it is retracted (naive UTC)."""
        if self._stated is None:
            row = self.row
            start, end = row["h_valid_from"], row["h_valid_to"]
            self._stated = (row["s_created_at"], start is not None and end is not None and end <= start,
                            row["s_retracted_at"] is not None)
        return self._stated


class _SubjectRows:
    """A subject's cached versions, by predicate and by state, changed as a committed batch changed the stored
    ones (the statements of ``KuzuStore._write_states``, in their order): new states add a version; a new
    version of a state closes its open edge and adds one; a retraction closes the open edge as retracted; a
    confirmation stamps the state. A state's columns are shared by all its versions, so they change on each.

    Copies, not changes in place (a reader may be going through the old ones), and only of what a write
    touches: the predicates of the states it wrote, each a dict of its states (copied in C), the others shared.
    A write to a subject with a long history used to copy and index every version it had: ~50 ms a write at
    20,000."""

    __slots__ = ("_by_predicate", "_open")

    def __init__(self, by_predicate: dict[str, dict[str, tuple[_Version, ...]]],
                 open_: dict[_OpenKey | None, Any] | None = None) -> None:
        self._by_predicate = by_predicate  # predicate -> state id -> its versions, oldest first
        # current versions, made when first asked for and kept in step with each write after: a predicate's
        # (None: all) in order; a timeline's, (predicate, scope, private), in order: what a write plans on
        # (~60 states, most with an older version: ~95 -> ~45 us a read); and a timeline's by object,
        # (predicate, scope, private, "objects"): the states a new value of a multi-valued predicate meets
        self._open = open_ if open_ is not None else {}

    @classmethod
    def of(cls, versions: Iterable[_Version]) -> _SubjectRows:
        grouped: dict[str, dict[str, list[_Version]]] = {}
        for v in versions:
            grouped.setdefault(v.row["h_predicate"], {}).setdefault(v.row["s_id"], []).append(v)
        return cls({p: {i: tuple(vs) for i, vs in states.items()} for p, states in grouped.items()})

    def versions(self, predicate: str | None = None) -> Iterator[_Version]:
        """Every version (of the states of ``predicate``, when given), in no particular order."""
        if predicate is not None:
            groups: Iterable[dict[str, tuple[_Version, ...]]] = (self._by_predicate.get(predicate, {}),)
        else:
            groups = self._by_predicate.values()
        for states in groups:
            for versions in states.values():
                yield from versions

    def current(self, predicate: str | None = None) -> list[_Version]:
        """The current version of each state (of ``predicate``, when given): in the order of ``_row_order``."""
        found = self._open.get(predicate)
        if found is None:
            found = sorted((v for v in self.versions(predicate) if v.row["h_replaced_at"] is None),
                           key=_version_order)
            self._open[predicate] = found  # (two readers may both make it: the same)
        return found

    def timeline(self, predicate: str, scope: str, private: bool) -> list[_Version]:
        """The current versions of one timeline of the subject's (see ``port.TimelineQuery``), in order."""
        key = (predicate, scope, private)
        found = self._open.get(key)
        if found is None:
            found = sorted((v for v in self.versions(predicate)
                            if v.row["h_replaced_at"] is None and _of_timeline(v, key)), key=_version_order)
            self._open[key] = found
        return found

    def by_object(self, predicate: str, scope: str, private: bool) -> dict[str, list[_Version]]:
        """The current versions of one timeline by their object (``_object_key``), each list in order."""
        key = (predicate, scope, private, "objects")
        found = self._open.get(key)
        if found is None:
            found = {}
            for v in self.timeline(predicate, scope, private):
                found.setdefault(_object_key(v.row), []).append(v)
            self._open[key] = found
        return found

    def written(self, part: WriteBatch) -> _SubjectRows:
        """These rows as ``part`` (the state changes of one committed batch that concern this subject) left
        them."""
        made = {s.id: s.predicate for s in part.new_states}  # (a state confirmed in the batch that makes it)
        confirmed = [(made.get(state_id) or self._predicate_of(state_id), state_id, at)
                     for state_id, at in part.confirmations]
        touched = {s.predicate for s in (*part.new_states, *part.state_versions, *part.retractions)}
        touched.update(p for p, _, _ in confirmed if p is not None)
        out = _SubjectRows(self._by_predicate | {p: dict(self._by_predicate.get(p, {})) for p in touched},
                           {k: v for k, v in self._open.items()
                            if k is not None and _open_predicate(k) not in touched})
        for s in part.new_states:
            out._add(s, {"n_id": s.subject_id, "subject": s.subject, **_prefixed("s_", _node_row(s))})
        for s in part.state_versions:
            row = rows.state_row(s)
            out._change(s.predicate, s.id, {f"s_{c}": row[c] for c in _NODE_VERSIONED},
                        open_edge={"h_replaced_at": rows.naive(s.recorded_at)})
            if kept := out._by_predicate[s.predicate].get(s.id):
                out._add(s, kept[-1].row)
        for s in part.retractions:
            at = rows.naive(s.retracted_at)
            out._change(s.predicate, s.id, {"s_retracted_at": at},
                        open_edge={"h_replaced_at": at, "h_retracted_at": at})
        for predicate, state_id, at in confirmed:
            if predicate is not None:
                out._change(predicate, state_id, {"s_last_confirmed_at": rows.naive(at)})
        changed: dict[str, set[str]] = {}
        for s in (*part.new_states, *part.state_versions, *part.retractions):
            changed.setdefault(s.predicate, set()).add(s.id)
        for predicate, state_id, _ in confirmed:
            if predicate is not None:
                changed.setdefault(predicate, set()).add(state_id)
        for key, before in self._open.items():
            if key is not None and (ids := changed.get(_open_predicate(key))):
                out._open[key] = out._kept(self, key, before, ids)
        return out

    def _kept(self, old: _SubjectRows, key: _OpenKey, before: Any, ids: set[str]) -> Any:
        """What ``old`` kept under ``key`` (``before``) as this copy holds it: each state of ``ids`` taken out
        of its place and its current version put in its place, found by searching the order. Not made again:
        that took a write to a timeline of a few thousand states milliseconds each time."""
        predicate = _open_predicate(key)
        changes: list[tuple[_Version | None, _Version | None]] = []
        for state_id in ids:
            was, now = old._current_of(predicate, state_id), self._current_of(predicate, state_id)
            either = was or now
            if either is not None and _of_timeline(either, key):
                changes.append((was, now))
        if isinstance(key, tuple) and len(key) == 4:
            return _by_object_changed(before, changes)
        found = list(before)
        for was, now in changes:
            if was is not None:
                at = bisect.bisect_left(found, _version_order(was), key=_version_order)
                if at < len(found) and found[at] is was:
                    del found[at]
                else:  # (not where its order puts it: taken out wherever it is)
                    found = [v for v in found if v.row["s_id"] != was.row["s_id"]]
            if now is not None:
                bisect.insort(found, now, key=_version_order)
        return found

    def _current_of(self, predicate: str, state_id: str) -> _Version | None:
        return next((v for v in self._by_predicate.get(predicate, {}).get(state_id, ())
                     if v.row["h_replaced_at"] is None), None)

    def _predicate_of(self, state_id: str) -> str | None:
        return next((p for p, states in self._by_predicate.items() if state_id in states), None)

    # (on the copy ``written`` makes, whose touched predicates' dicts are its own)
    def _add(self, s: State, node: dict[str, Any]) -> None:
        states = self._by_predicate[s.predicate]
        states[s.id] = (*states.get(s.id, ()), _Version({**node, **_prefixed("h_", rows.version_row(s))}))

    def _change(self, predicate: str, state_id: str, node: dict[str, Any],
                open_edge: dict[str, Any] | None = None) -> None:
        states = self._by_predicate[predicate]
        if state_id in states:
            states[state_id] = tuple(
                _Version({**v.row, **node, **(open_edge if open_edge and v.row["h_replaced_at"] is None else {})})
                for v in states[state_id])


def _node_row(s: State) -> dict[str, Any]:
    """The columns of ``s``'s node a version of it reads (as ``_S_VERSION_COLS`` reads them)."""
    return {k: v for k, v in rows.state_row(s).items() if k not in rows.EDGE_VERSIONED}


def _prefixed(prefix: str, row: dict[str, Any]) -> dict[str, Any]:
    return {f"{prefix}{k}": v for k, v in row.items()}


def _state(r: dict[str, Any], *, current_node: bool = False) -> State:
    s = {c: r[k] for k, c in _STATE_KEYS if k in r}
    h = None if current_node else {c: r[k] for k, c in _EDGE_KEYS if k in r}
    return rows.state_from_row(r["subject"], s, h)


# a read row's keys of a state's node and edge columns, and the columns (the rows hold others too)
_STATE_KEYS = tuple((f"s_{c}", c) for c in _TABLES["State"].column_names)
_EDGE_KEYS = tuple((f"h_{c}", c) for c in _TABLES["HAS_STATE"].column_names)
