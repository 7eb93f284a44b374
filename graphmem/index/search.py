"""The search index of one memory: words (BM25), vectors and the columns recall filters on.

Every event and every unretracted state is a *document* with a number. Beside the lexical and vector
indexes the index keeps, per document, its type, kind, scope, privacy, time, thread, the entities it mentions
and those it is about (see :class:`~graphmem.store.Indexable`) as arrays,
so a filter over a million documents is a few vectorised comparisons.

The index is derived data: the graph store is the truth. It is saved in a directory next to the database
with a *watermark*, the last transaction time it holds; opening it catches up on everything recorded since
(re-adding is harmless), so a crash loses nothing but the time to catch up, and deleting the directory
rebuilds it from the store. Embedding runs on a background thread, so a write never waits for a model;
:meth:`SearchIndex.status` says how many documents are still waiting for their vectors (the lag). A write
of a few documents only numbers them; that thread finishes them, many at once, unless a read comes first.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
import logging
import queue
import shutil
import threading
import time
import zipfile
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graphmem.arrays import grown, room, save_arrays
from graphmem.errors import StoreError
from graphmem.index.codes import Codes
from graphmem.index.docids import DocIds
from graphmem.index.embed import Embedder, WordEmbedder
from graphmem.index.lexical import LexicalIndex, write_arrays
from graphmem.index.mentions import Mentions
from graphmem.index.text import names_a_title, tokens
from graphmem.store import Indexable

__all__ = ["IndexStatus", "SearchIndex"]

log = logging.getLogger("graphmem")

# 2: the period each event talks about; 3: the entities each document is about; 4: transaction times;
# 5: words; 6: whether each document names a title; 7: the period each state held
FORMAT = 7
EMBED_BATCH = 256
# new documents of one add up to which they are finished later, many together (see SearchIndex.add). An add
# of one event costs its writer ~50 us finished at once, ~8 us numbered, and ~20 us more later in a batch of
# 25; in a writer recording one by one with extraction on one core (caches cold from the other threads),
# ~190 us against ~50
ADD_LATER_MAX = 32
EMBED_LINGER_S = 0.05  # a lone document waits this long for others: one text at a time costs ~5x as much
# documents waiting for their vectors past which a write waits for the embedder (see keep_up): a bulk load
# outpaces it on a busy machine, and what waits (each text, ~0.3 KB) and the vectors landed late, between the
# next writes, stay resident. bench/scale.py at a million events with its batches overlapping the engine: 35 s
# of embedding still left after the states' phase, ~200 MB more resident at its end
EMBED_BACKLOG_MAX = 100_000
FRESH_WAIT_S = 0.5  # the most a question waits for the vectors of what was just written (see wait_for)
CLOSE_WAIT_S = 60  # the most close() waits for the batch being embedded (or the vector lists being built)
_TYPES = ("event", "state")

_FLUSH = (-1, "")  # put by wait(): embed what is in hand now


@dataclass(frozen=True)
class IndexStatus:
    documents: int
    vectors: int
    lag: int  # documents waiting for their vector
    embedder: str | None
    degraded: bool  # no vectors: recall is lexical only
    watermark: dt.datetime | None


class _Pending(queue.Queue[tuple[int, str] | None]):
    """Documents waiting for their vectors: those queued, and those the worker took and has not landed yet
    (a save lists both)."""

    def __init__(self) -> None:
        super().__init__()
        self.landing = threading.Condition(self.mutex)  # notified as each batch lands

    def _init(self, maxsize: int) -> None:
        super()._init(maxsize)
        self._taken: list[tuple[int, str]] = []
        self.docs: set[int] = set()  # the numbers of the documents queued or taken, until they land

    def _put(self, item: tuple[int, str] | None) -> None:  # (called with the queue's mutex held)
        super()._put(item)
        if item is not None and item is not _FLUSH:
            self.docs.add(item[0])

    def _get(self) -> tuple[int, str] | None:  # (called with the queue's mutex held)
        item = super()._get()
        if item is not None and item is not _FLUSH:
            self._taken.append(item)
        return item

    def put_many(self, items: Sequence[tuple[int, str]]) -> None:
        """Queue ``items`` as one ``put`` each would, with one lock taken and one wake-up for them all."""
        if items:
            with self.not_full:  # (never full: the queue has no bound)
                self.queue.extend(items)
                self.docs.update(doc for doc, _ in items)
                self.unfinished_tasks += len(items)
                self.not_empty.notify()

    def take(self, limit: int) -> list[tuple[int, str] | None]:
        """Up to ``limit`` queued items, without waiting, as ``get_nowait`` would give them one by one; a stop
        or a flush is the last item taken."""
        taken: list[tuple[int, str] | None] = []
        with self.mutex:
            while len(taken) < limit and self.queue:
                item = self._get()
                taken.append(item)
                if item is None or item is _FLUSH:
                    break
        return taken

    def done(self, count: int) -> None:
        """``task_done`` for ``count`` items at once."""
        with self.all_tasks_done:
            self.unfinished_tasks -= count
            if self.unfinished_tasks <= 0:
                self.all_tasks_done.notify_all()

    def landed(self, batch: Sequence[tuple[int, str]]) -> None:
        """The worker is done with ``batch`` (embedded, or failed)."""
        done = {id(item) for item in batch}
        with self.mutex:
            self._taken = [item for item in self._taken if id(item) not in done]
            self.docs.difference_update(doc for doc, _ in batch)
            self.landing.notify_all()

    def listed(self) -> list[tuple[int, str]]:
        with self.mutex:
            return [item for item in [*self.queue, *self._taken] if item is not None and item is not _FLUSH]

    def waiting(self) -> int:
        with self.mutex:
            return len(self.queue) + len(self._taken)


class _Column:
    """A growable numpy column; readers keep whatever array they took (reallocation never mutates it)."""

    def __init__(self, dtype: Any, fill: Any) -> None:
        self.dtype, self.fill = dtype, fill
        self.data = np.full(1024, fill, dtype)

    def _reserve(self, end: int) -> None:
        self.data = grown(self.data, end, self.fill)

    def set(self, i: int, value: Any) -> None:
        self._reserve(i + 1)
        self.data[i] = value

    def put(self, start: int, values: Sequence[Any] | NDArray[Any]) -> None:
        """``values`` at ``start``, ``start + 1``, ..."""
        self._reserve(start + len(values))
        self.data[start : start + len(values)] = values

    def scatter(self, at: NDArray[np.int64], values: NDArray[Any]) -> None:
        """``values`` at the places ``at``."""
        if len(at):
            self._reserve(int(at.max()) + 1)
            self.data[at] = values

    def gather(self, at: NDArray[np.int64]) -> NDArray[Any]:
        """The values at the places ``at`` (fill beyond what was ever set)."""
        data = self.data  # one array throughout: a writer may swap in a grown one meanwhile
        out = np.full(len(at), self.fill, self.dtype)
        inside = at < len(data)
        out[inside] = data[at[inside]]
        return out

    def get(self, i: int) -> Any:
        return self.data[i] if i < len(self.data) else self.fill

    def head(self, n: int) -> NDArray[Any]:
        """The first ``n`` values, fill included for numbers never set (a column is grown only when set)."""
        if n <= len(self.data):
            return self.data[:n]
        return np.concatenate([self.data, np.full(n - len(self.data), self.fill, self.dtype)])


def _docs_of(docs: dict[str, array[int]], entity: str) -> array[int]:
    """The document numbers kept for ``entity`` (an empty list made when it has none yet)."""
    found = docs.get(entity)
    if found is None:
        found = docs[entity] = array("i")
    return found


def _about_bounds(about: tuple[dt.datetime | None, dt.datetime | None] | None) -> tuple[float, float]:
    """A period's bounds in seconds: an open side is infinite, no period at all is NaN on both."""
    lo, hi = about if about else (None, None)
    return (lo.timestamp() if lo else (-np.inf if hi else np.nan), hi.timestamp() if hi else (np.inf if lo else np.nan))


class _ThreadOrder:
    """A thread's documents in (time, number) order, as two arrays: 16 bytes a document (a list of
    (time, number) pairs took ~110)."""

    __slots__ = ("docs", "times")

    def __init__(self, times: NDArray[np.float64] | None = None, docs: NDArray[np.int64] | None = None) -> None:
        self.times, self.docs = array("d"), array("q")
        if times is not None and docs is not None:  # already in order
            self.times.frombytes(np.ascontiguousarray(times, np.float64).tobytes())
            self.docs.frombytes(np.ascontiguousarray(docs, np.int64).tobytes())

    def insert(self, time: float, doc: int) -> None:
        at = bisect.bisect_right(self.times, time)
        while at > 0 and self.times[at - 1] == time and self.docs[at - 1] > doc:  # equal times: by number
            at -= 1
        self.times.insert(at, time)
        self.docs.insert(at, doc)


class SearchIndex:
    """Documents for recall, in memory, saved to ``directory`` (None: never saved)."""

    def __init__(self, directory: Path | None = None, embedder: Embedder | None = None) -> None:
        self.directory = directory
        self.embedder = embedder
        self.lexical = LexicalIndex()
        self.vectors: Any = _vector_index(embedder.dim) if embedder else None
        self.ids = DocIds()  # document number <-> id
        self._type = _Column(np.int8, -1)
        self._kind = _Column(np.int32, -1)
        self._scope = _Column(np.int32, -1)
        self._private = _Column(np.bool_, True)
        self._time = _Column(np.float64, np.nan)
        self._about_lo = _Column(np.float64, np.nan)  # the period an event talks about (NaN: none / open)
        self._about_hi = _Column(np.float64, np.nan)
        self._thread = _Column(np.int32, -1)
        self._live = _Column(np.bool_, False)
        self._embedded = _Column(np.bool_, False)
        self._recorded = _Column(np.float64, np.nan)  # transaction time: with time and id, an event page's order
        self._titled = _Column(np.bool_, False)  # its text names a title or a name (text.names_a_title)
        # each document's content words (rows of the embedder's word table), set beside its vector: the words
        # of every document one after another, and where each document's begin and how many it has
        narrow = isinstance(embedder, WordEmbedder) and embedder.word_count <= np.iinfo(np.uint16).max
        self._words = _Column(np.uint16 if narrow else np.int32, 0)  # (~20k words: 2 bytes each)
        self._words_end = 0
        self._word_start = _Column(np.int64, 0)
        self._word_count = _Column(np.int32, 0)
        self.kinds, self.scopes, self.threads = Codes(), Codes(), Codes()
        self._entity_docs: dict[str, array[int]] = {}
        self.merged: set[str] = set()  # entities merged into others, as merge_entities was told
        self._mentions = Mentions()  # the same, by document
        self._subject_docs: dict[str, array[int]] = {}  # the documents about each entity
        self._thread_order: dict[int, _ThreadOrder] = {}
        self._thread_version: dict[int, int] = {}  # bumped by each change of a thread's order
        self._places: dict[int, tuple[int, list[int], dict[int, int]]] = {}  # read-side copy, by version
        self.watermark: dt.datetime | None = None
        self._lock = threading.Lock()  # writers of columns and the id map
        # one change of the index at a time, each whole (a save copies the index between two of them)
        self._changing = threading.RLock()
        self._embedding = threading.Lock()  # the worker landing a batch's vectors (a save holds it meanwhile)
        self._saving = threading.Lock()  # a save writes a fresh copy beside the directory, then swaps it in
        self.changes = 0  # changes made since the index was built or loaded
        self._saved = 0  # ... as of the last save
        self._pending = _Pending()
        self._worker: threading.Thread | None = None
        self._closing = threading.Event()  # the worker stops after its batch; what waits is saved as pending
        self._hurry = threading.Event()  # the worker stops gathering a batch: a wait() or a close came
        # adds numbered and not finished yet: (first number, documents, transaction time), in number order
        self._later: list[tuple[int, list[Indexable], dt.datetime | None]] = []

    # -- writing --------------------------------------------------------------------------------------

    def changing(self) -> threading.RLock:
        """Held around several changes that belong together (one write's): a save sees all or none of them."""
        return self._changing

    def add(self, items: Sequence[Indexable], *, at: dt.datetime | None = None) -> None:
        """Index ``items`` (already indexed ids are skipped); ``at`` is their transaction time.

        Up to ``ADD_LATER_MAX`` new documents (a write of one event, its states) are numbered now and finished
        later, together with those of the writes after them: by the embedding worker, which takes their texts
        meanwhile, or by the first read or change of the index that comes before it. A reader never sees a
        document half-added (see :meth:`_finish_adds`)."""
        with self._changing:
            self._add(items, at)

    def _add(self, items: Sequence[Indexable], at: dt.datetime | None) -> None:
        with self._lock:
            unknown: dict[str, Indexable] = {}  # (an id twice in items: its first)
            for item, number in zip(items, self.ids.get_many([item.id for item in items]), strict=True):
                if number is None:
                    unknown.setdefault(item.id, item)
            new = list(unknown.values())
            start = self.ids.extend(list(unknown))
            self.changes += bool(new)
            later = 0 < len(new) <= ADD_LATER_MAX and self.vectors is not None and not self._closing.is_set()
            if later:
                self._later.append((start, new, at))
        if not later:
            self._finish_adds()  # (the documents numbered before these first)
            self._finish(start, new, at)
        if self.vectors is not None:
            self._pending.put_many([(doc, item.text) for doc, item in enumerate(new, start)])
            self._start_worker()

    def _finish_adds(self) -> None:
        """Finish the documents numbered and not finished yet (see :meth:`add`), in one go: called before
        every read and every other change of the index, and by the embedding worker."""
        if not self._later:
            return
        with self._changing:  # (adds and finishes are made with it held: the list changes under no other)
            later = list(self._later)
            if not later:  # (another thread finished them meanwhile)
                return
            times = [at for _, _, at in later if at is not None]
            # their numbers follow one another: each add numbered right after the one before, and an add
            # finished at once finishes those before it first
            items = [item for _, added, _ in later for item in added]
            self._finish(later[0][0], items, max(times, default=None))
            with self._lock:  # only now: a reader that finds the list empty finds them whole, words too
                del self._later[: len(later)]

    def _finish(self, start: int, new: Sequence[Indexable], at: dt.datetime | None) -> None:
        """The columns, lists and words of the documents ``new``, numbered from ``start`` (``_changing``
        held)."""
        with self._lock:
            seconds = [item.time.timestamp() if item.time else np.nan for item in new]
            fallback = at.timestamp() if at else np.nan
            abouts = [_about_bounds(item.about) for item in new]
            for column, values in (  # a column at a time: one numpy assignment each, not one per document
                (self._type, [_TYPES.index(item.type) for item in new]),
                (self._kind, [self.kinds.code(item.kind) for item in new]),
                (self._scope, [self.scopes.code(item.scope) for item in new]),
                (self._private, [item.private for item in new]),
                (self._time, seconds),
                (self._recorded, [item.recorded_at.timestamp() if item.recorded_at else fallback for item in new]),
                (self._about_lo, [lo for lo, _ in abouts]),
                (self._about_hi, [hi for _, hi in abouts]),
                (self._thread, [self.threads.code(item.thread) if item.thread else -1 for item in new]),
                (self._titled, [names_a_title(item.text) for item in new]),
            ):
                column.put(start, values)
            # (each list made only when missing: a default given to setdefault is made every time)
            orders, entity_docs, subject_docs = self._thread_order, self._entity_docs, self._subject_docs
            for doc, item, second in zip(range(start, start + len(new)), new, seconds, strict=True):
                if item.thread:
                    code = self.threads.codes[item.thread]
                    order = orders.get(code)
                    if order is None:
                        order = orders[code] = _ThreadOrder()
                    order.insert(second, doc)
                    self._thread_version[code] = self._thread_version.get(code, 0) + 1
                named = tuple(dict.fromkeys(item.entities))
                for entity in named:
                    _docs_of(entity_docs, entity).append(doc)
                self._mentions.append(named)
                for entity in dict.fromkeys(item.subjects):
                    _docs_of(subject_docs, entity).append(doc)
            self._live.put(start, [True] * len(new))  # last: a reader sees a document whole or not at all
            if at is not None and (self.watermark is None or at > self.watermark):
                self.watermark = at
        self.lexical.add_many(start, [tokens(item.text) for item in new])

    def replace(self, items: Sequence[Indexable], *, at: dt.datetime | None = None) -> None:
        """Index new text for documents already indexed (an event the janitor masked): the old text is
        dropped from every index, and the new one gets a fresh document number."""
        self._finish_adds()
        with self._changing:
            self.remove(i.id for i in items)
            with self._lock:
                for item in items:
                    self.ids.forget(item.id)
            self._add(items, at)

    def remove(self, ids: Iterable[str]) -> None:
        self._finish_adds()
        with self._changing:
            self._remove(ids)

    def _remove(self, ids: Iterable[str]) -> None:
        embedded: list[int] = []
        for i in ids:
            doc = self.ids.get(i)
            if doc is None:
                continue
            self.changes += 1
            self._live.set(doc, False)
            self.lexical.remove(doc)
            if self._embedded.get(doc):
                embedded.append(doc)
        if self.vectors is not None:
            self.vectors.remove(embedded)  # one pass over the vector index for them all

    def _set_about(self, doc: int, about: tuple[dt.datetime | None, dt.datetime | None] | None) -> None:
        lo, hi = _about_bounds(about)
        self._about_lo.set(doc, lo)
        self._about_hi.set(doc, hi)

    def set_about(self, doc_id: str, about: tuple[dt.datetime | None, dt.datetime | None] | None) -> None:
        """The period an indexed event talks about changed (a write plan annotated it), or that a state held
        (a new version of it closed it). One added and not finished yet (see :meth:`add`) is finished with
        this period: a state of the write before ended by this one ("moved to Lisbon", then "moved to Porto")
        would otherwise finish every add waiting, each write of one event its own add."""
        with self._changing, self._lock:
            doc = self.ids.get(doc_id)
            if doc is None:
                return
            self.changes += 1
            if not self._later or doc < self._later[0][0]:
                self._set_about(doc, about)
                return
            for start, added, _ in self._later:  # (the lists change only with _changing held)
                if start <= doc < start + len(added):
                    added[doc - start] = replace(added[doc - start], about=about)
                    return
            self._set_about(doc, about)  # (numbered after them: none is, an add at once finishes them first)

    def dated(self, docs: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of ``docs`` say when: an event whose text (or a write plan) names the period it is about, or a
        state with a known start."""
        self._finish_adds()
        states = self._type.data[docs] == _TYPES.index("state")
        said: NDArray[np.bool_] = ~np.isnan(self._about_lo.data[docs]) | (states & ~np.isnan(self._time.data[docs]))
        return said

    def holding(self, at: dt.datetime, docs: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of ``docs`` are states that hold at ``at``: begun by then (or since before anything recorded)
        and not ended (a state with neither bound holds always)."""
        self._finish_adds()
        states = self._type.data[docs] == _TYPES.index("state")
        moment = at.timestamp()
        lo, hi = self._about_lo.data[docs], self._about_hi.data[docs]
        with np.errstate(invalid="ignore"):
            begun, going = (lo <= moment) | np.isnan(lo), (hi > moment) | np.isnan(hi)
        held: NDArray[np.bool_] = states & begun & going
        return held

    def titled(self, docs: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of ``docs`` name a title or a name in their text ("watched Little Women", "a puppy called
        Pixie")."""
        self._finish_adds()
        flags: NDArray[np.bool_] = self._titled.data[docs]
        return flags

    def within(self, start: dt.datetime | None, end: dt.datetime | None, n: int | None = None, *,
               held: bool = False) -> NDArray[np.bool_]:
        """Documents whose time lies in [start, end), or an event's period overlaps it ("yesterday I went
        ...", recorded today, is within yesterday); ``held``: a state whose period overlaps it too (it held
        then, begun before), else a state by its start alone (a window holds what began in it)."""
        self._finish_adds()
        n = self._seen() if n is None else n
        lo = start.timestamp() if start else -np.inf
        hi = end.timestamp() if end else np.inf
        times = self._time.data[:n]
        about_lo, about_hi = self._about_lo.data[:n], self._about_hi.data[:n]
        with np.errstate(invalid="ignore"):
            started, over = (times >= lo) & (times < hi), (about_lo < hi) & (about_hi > lo)
        if not held:
            over &= self._type.data[:n] != _TYPES.index("state")
        return started | over

    def mention(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Indexed documents mention more entities: (document id, entity id) pairs (a write plan named them)."""
        pairs = list(pairs)
        if not pairs:  # (most writes: nothing to finish first)
            return
        self._finish_adds()
        with self._changing, self._lock:
            for doc_id, entity in pairs:
                doc = self.ids.get(doc_id)
                if doc is not None and self._mentions.add(doc, entity):
                    self.changes += 1
                    _docs_of(self._entity_docs, entity).append(doc)

    def merge_entities(self, merged: str, kept: str) -> None:
        """Documents that mention ``merged`` mention ``kept`` instead (two entities found to be one)."""
        self._finish_adds()
        with self._changing, self._lock:
            self.changes += 1
            self.merged.add(merged)
            about = self._subject_docs.pop(merged, None)
            if about:
                target = _docs_of(self._subject_docs, kept)
                have = set(target)
                target.extend(d for d in about if d not in have)
            docs = self._entity_docs.pop(merged, None)
            if not docs:
                return
            target = _docs_of(self._entity_docs, kept)
            have = set(target)
            self._mentions.rename(merged, kept)
            for doc in docs:
                if doc not in have:
                    target.append(doc)

    def _start_worker(self) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._embed_loop, name="graphmem-embed", daemon=True)
            self._worker.start()

    def _embed_loop(self) -> None:
        assert self.embedder is not None and self.vectors is not None
        while not self._closing.is_set():
            first = self._pending.get()
            if first is None or first is _FLUSH:
                self._pending.task_done()
                if first is None:
                    return
                continue
            batch = [first]
            if self._gather(batch):  # documents come one by one from a writer recording one by one: they wait
                self._hurry.wait(EMBED_LINGER_S)  # to be embedded together, with one wake-up, not one each
                self._hurry.clear()
                self._gather(batch)
            self._finish_adds()  # (before a read or a change of the index asks for it, most often)
            try:
                texts = [text for _, text in batch]
                docs = np.array([doc for doc, _ in batch], np.int64)
                words: tuple[NDArray[np.int32], NDArray[np.int64]] | None = None
                if isinstance(self.embedder, WordEmbedder):
                    vectors, words = self.embedder.embed_with_words(texts)
                else:
                    vectors = self.embedder.embed(texts)
                with self._embedding:  # landed whole between two saves
                    self.vectors.add(docs, vectors)
                    if words is not None:
                        self._set_words(docs, *words)
                    self._embedded.scatter(docs, np.ones(len(docs), np.bool_))
                    self._pending.landed(batch)
            except Exception:  # a model failure must not kill the thread: the documents stay lexical
                log.exception("embedding %d documents failed; they are found by their words only", len(batch))
                self._pending.landed(batch)
            finally:
                self._pending.done(len(batch))

    def _gather(self, batch: list[tuple[int, str]]) -> bool:
        """Add to ``batch`` the documents that wait, up to ``EMBED_BATCH``; whether it may wait for more (not
        when full, nor when a stop or a wait() came)."""
        while len(batch) < EMBED_BATCH:
            taken = self._pending.take(EMBED_BATCH - len(batch))
            if not taken:
                return True
            last = taken[-1]
            if last is None or last is _FLUSH:
                batch.extend(t for t in taken[:-1] if t is not None)
                if last is None:
                    self._pending.put(None)  # stop after this batch
                self._pending.task_done()
                return False
            batch.extend(t for t in taken if t is not None)
        return False

    def _set_words(self, docs: NDArray[np.int64], rows: NDArray[np.int32], sizes: NDArray[np.int64]) -> None:
        with self._lock:
            start = self._words_end
            self._words.put(start, rows)  # first the words, then where they are: a reader sees them whole
            self._words_end += len(rows)
            self._word_start.scatter(docs, start + np.cumsum(sizes) - sizes)
            self._word_count.scatter(docs, sizes)

    def keep_up(self) -> None:
        """While more than ``EMBED_BACKLOG_MAX`` documents wait for their vectors, block until a tenth fewer do
        (or the worker stops): a bulk writer goes on at the embedder's pace, its writes reaching the engine
        meanwhile. Called by a writer outside :meth:`changing`: a save holds the landing of vectors while it
        waits for that."""
        if self.vectors is None or self._pending.waiting() <= EMBED_BACKLOG_MAX:
            return
        resume = EMBED_BACKLOG_MAX - EMBED_BACKLOG_MAX // 10
        while (self._pending.waiting() > resume and not self._closing.is_set()
               and (worker := self._worker) is not None and worker.is_alive()):
            time.sleep(0.02)

    def wait(self) -> None:
        """Block until every document added so far has its vector, or the index is closed (what still waits
        is then saved as pending): a wait beside a close, such as a reindex beside another, would otherwise
        never return (a closed worker leaves its queue unfinished)."""
        if self.vectors is None or self._worker is None:
            return
        if self._worker.is_alive():
            self._pending.put(_FLUSH)  # the batch in hand stops waiting for more
            self._hurry.set()
        done = self._pending.all_tasks_done
        with done:
            while (self._pending.unfinished_tasks and not self._closing.is_set()
                   and (worker := self._worker) is not None and worker.is_alive()):
                done.wait(timeout=0.1)

    def wait_for(self, docs: NDArray[np.int64], timeout: float = FRESH_WAIT_S) -> None:
        """Block until ``docs`` have their vectors (those that wait for them), the worker hurried, when no
        more than a batch waits: a question that matches what was written a moment ago scores it on its
        vector and its words as it does the rest (which would otherwise outrank it). Not while a bulk load's
        backlog waits, nor longer than ``timeout``."""
        pending = self._pending
        if self.vectors is None or not pending.docs or pending.waiting() > EMBED_BATCH:
            return
        wanted = {int(d) for d in docs} & pending.docs
        worker = self._worker
        if not wanted or worker is None or not worker.is_alive():
            return
        pending.put(_FLUSH)  # the batch in hand stops waiting for more
        self._hurry.set()
        deadline = time.monotonic() + timeout
        with pending.landing:
            while (wanted & pending.docs and not self._closing.is_set() and worker.is_alive()
                   and (left := deadline - time.monotonic()) > 0):
                pending.landing.wait(left)

    @property
    def closed(self) -> bool:
        return self._closing.is_set()

    # -- reading --------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.ids)

    def _seen(self) -> int:
        """How many document numbers a reader may look at: those given, as far as the liveness column reaches (it
        grows last in an add, so every other column reaches at least as far; an id is given before)."""
        return min(len(self.ids), len(self._live.data))

    def newest_events(self, count: int) -> list[str]:
        """The ids of the ``count`` events indexed last (of those still indexed)."""
        self._finish_adds()
        n = self._seen()
        docs = np.flatnonzero(self._live.data[:n] & (self._type.data[:n] == _TYPES.index("event")))[-count:]
        return [self.ids[int(d)] for d in docs]

    def status(self) -> IndexStatus:
        self._finish_adds()
        return IndexStatus(
            documents=len(self.lexical), vectors=len(self.vectors) if self.vectors is not None else 0,
            lag=self._pending.waiting(),
            embedder=self.embedder.name if self.embedder else None,
            degraded=self.vectors is None, watermark=self.watermark,
        )

    def lag_in(self, view: Sequence[tuple[Sequence[str] | None, bool]]) -> int:
        """How many documents of ``view`` (reads of (scopes or ``None`` for all, with private items or not))
        still wait for their vectors: a caller learns nothing of the writes it may not read."""
        self._finish_adds()
        with self._pending.mutex:
            docs = np.fromiter(self._pending.docs, np.int64, count=len(self._pending.docs))
        docs = docs[docs < self._seen()]
        seen = np.zeros(len(docs), bool)
        scope, private = self._scope.data[docs], self._private.data[docs]
        for scopes, include_private in view:
            found = np.ones(len(docs), bool) if scopes is None else np.isin(scope, self.scopes.known(scopes))
            seen |= found if include_private else found & ~private
        return int(seen.sum())

    def allowed(
        self, *, scopes: Sequence[str] | None = None, include_private: bool = False,
        kinds: Sequence[str] | None = None, types: Sequence[str] | None = None,
        since: dt.datetime | None = None, until: dt.datetime | None = None,
        entities: Sequence[str] | None = None,
    ) -> NDArray[np.bool_]:
        """One flag per document number (of the first :meth:`_seen`): live and passing every filter given."""
        self._finish_adds()
        n = self._seen()
        mask = self._live.data[:n].copy()
        if not include_private:
            mask &= ~self._private.data[:n]
        for column, codes, wanted in ((self._scope, self.scopes, scopes), (self._kind, self.kinds, kinds)):
            if wanted is not None:
                mask &= np.isin(column.data[:n], codes.known(wanted))
        if types is not None:
            mask &= np.isin(self._type.data[:n], [_TYPES.index(t) for t in types])
        if since is not None or until is not None:
            mask &= self.within(since, until, n)
        if entities is not None:
            mask &= self.mentioning(entities, n)
        return mask

    def mentioning(self, entities: Sequence[str], n: int | None = None) -> NDArray[np.bool_]:
        """Flags of the documents that mention any of ``entities``."""
        self._finish_adds()
        return _flags(self._entity_docs, entities, self._seen() if n is None else n)

    def about(self, entities: Sequence[str], n: int | None = None) -> NDArray[np.bool_]:
        """Flags of the documents about any of ``entities`` (declared with an event, a state's subject)."""
        self._finish_adds()
        return _flags(self._subject_docs, entities, self._seen() if n is None else n)

    def events_of(
        self, entity: str, *, limit: int, scopes: Sequence[str] | None = None, include_private: bool = False,
        kinds: Sequence[str] | None = None, since: dt.datetime | None = None, until: dt.datetime | None = None,
        after: tuple[dt.datetime, dt.datetime, str] | None = None, ascending: bool = False,
    ) -> list[str]:
        """Ids of one page of the events that mention ``entity``, ordered by (time, transaction time, id) and
        filtered as the store's event pages are (``since`` <= time < ``until``; ``after``: a page's last key).

        The entity's documents and their columns are all in memory, so this costs microseconds where the
        store reads each candidate's row (milliseconds for an entity in a few dozen events).
        """
        self._finish_adds()
        with self._lock:
            listed = self._entity_docs.get(entity)
            docs = np.frombuffer(listed, np.int32).copy() if listed else np.zeros(0, np.int32)
        docs = docs[docs < self._seen()]
        keep = self._live.data[docs] & (self._type.data[docs] == _TYPES.index("event"))
        if not include_private:
            keep &= ~self._private.data[docs]
        for column, codes, wanted in ((self._scope, self.scopes, scopes), (self._kind, self.kinds, kinds)):
            if wanted is not None:
                keep &= np.isin(column.data[docs], codes.known(wanted))
        times, recorded = self._time.data[docs], self._recorded.data[docs]
        if since is not None:
            keep &= times >= since.timestamp()
        if until is not None:
            keep &= times < until.timestamp()
        sign = 1.0 if ascending else -1.0  # order ascending on sign * key: newest first is ascending on -key
        if after is not None:
            t, r = sign * after[0].timestamp(), sign * after[1].timestamp()
            st, sr = sign * times, sign * recorded
            keep &= (st > t) | ((st == t) & (sr >= r))
            for i in np.flatnonzero(keep & (st == t) & (sr == r)):  # the cursor's own instants: its id decides
                keep[i] = (self.ids[docs[i]] > after[2]) if ascending else (self.ids[docs[i]] < after[2])
        docs, times, recorded = docs[keep], sign * times[keep], sign * recorded[keep]
        order = np.lexsort((recorded, times))
        if len(order) > limit:  # the first ``limit`` by instants, and whatever ties with the last of them
            last = order[limit - 1]
            order = order[: limit + int(np.count_nonzero((times[order[limit:]] == times[last])
                                                           & (recorded[order[limit:]] == recorded[last])))]
        keyed = [(float(times[i]), float(recorded[i]), self.ids[docs[i]]) for i in order.tolist()]
        keyed.sort(key=lambda k: k[2], reverse=not ascending)  # ids last: two stable sorts
        keyed.sort(key=lambda k: (k[0], k[1]))
        return [k[2] for k in keyed[:limit]]

    def search_words(self, text: str, k: int, allowed: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        self._finish_adds()
        return self.lexical.search(tokens(text), k, allowed)

    def search_vectors(
        self, text: str, k: int, allowed: NDArray[np.bool_]
    ) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        self._finish_adds()
        if self.vectors is None or self.embedder is None or len(self.vectors) == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        found: tuple[NDArray[np.int64], NDArray[np.float32]] = self.vectors.search(
            self.embedder.embed([text])[0], k, allowed)
        return found

    def word_match(self, text: str, docs: NDArray[np.int64]) -> NDArray[np.float32] | None:
        """How closely the words of each of ``docs`` match those of ``text`` (see
        :meth:`WordEmbedder.word_match`; 0 for a document not yet embedded); None when the embedder has no
        word vectors or ``text`` no content word. Word by word, "activities" finds "gardening" and "swimming"
        that the averaged vector of a whole turn dilutes."""
        self._finish_adds()
        if not isinstance(self.embedder, WordEmbedder):
            return None
        counts = self._word_count.gather(docs).astype(np.int64)
        starts = self._word_start.gather(docs)
        words = self._words.data  # after the places: a writer grows it before it points a document into it
        total = int(counts.sum())
        # each document's run of places, one after another: start, start + 1, ... for each document
        places = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total)
        return self.embedder.word_match(text, words[places], counts)

    def neighbours(self, docs: NDArray[np.int64], reach: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The documents up to ``reach`` places before and after each of ``docs`` in its thread (time order),
        as three arrays: which of ``docs`` (its place in ``docs``), the neighbour, the distance. Grouped by
        ``docs`` in their order, then nearest first, the earlier before the later."""
        self._finish_adds()
        sources: list[int] = []
        found: list[int] = []
        distances: list[int] = []
        threads = self._thread.data
        for i, doc in enumerate(docs.tolist()):
            code = int(threads[doc]) if doc < len(threads) else -1
            if code < 0:
                continue
            order, place = self._thread_places(code)
            at = place.get(doc)
            if at is None:
                continue
            for step in range(1, reach + 1):
                for j in (at - step, at + step):
                    if 0 <= j < len(order):
                        sources.append(i)
                        found.append(order[j])
                        distances.append(step)
        return (np.array(sources, np.int64), np.array(found, np.int64), np.array(distances, np.int64))

    def _thread_places(self, code: int) -> tuple[list[int], dict[int, int]]:
        """A thread's documents in time order and each one's place, kept until the thread changes."""
        version = self._thread_version.get(code, 0)
        cached = self._places.get(code)
        if cached is None or cached[0] != version:
            found = self._thread_order.get(code)
            order = found.docs.tolist() if found is not None else []
            cached = (version, order, {doc: at for at, doc in enumerate(order)})
            self._places[code] = cached
        return cached[1], cached[2]

    def entities_of(self, doc: int) -> tuple[str, ...]:
        self._finish_adds()
        return self._mentions.of(doc)

    def times(self, docs: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """Times (epoch seconds, NaN for none) of ``docs``, or a view of every document's."""
        self._finish_adds()
        return self._time.data if docs is None else self._time.data[docs]

    def types(self, docs: NDArray[np.int64]) -> list[str]:
        self._finish_adds()
        return [_TYPES[t] for t in self._type.data[docs]]

    # -- files ----------------------------------------------------------------------------------------

    def successor(self) -> SearchIndex:
        """An empty index, to be built in this one's place: it saves to this one's directory, and this one no
        longer does (a save of it already begun finishes before the successor's first)."""
        with self._saving:
            successor = SearchIndex(self.directory, self.embedder)
            successor._saving = self._saving
            self.directory = None
        return successor

    @property
    def unsaved(self) -> bool:
        """Whether the index changed since it was last saved (or loaded)."""
        return self.changes != self._saved

    def save(self, *, last: bool = False) -> None:
        """Write the index to its directory, as it was at one moment, while it goes on changing.

        Writers pause while the columns they change and the maps are copied (the lexical index's segments
        never change once built; the other columns and the vectors are the embedder's, which waits until the
        save is written): 13 ms at 300,000 documents, of a whole save's 0.13-0.27 s. The copy is written to
        a new directory beside the old one, which it then replaces; one save at a time. A document is saved
        either with its vector or with its text among those waiting for one.

        ``last``: the save of a memory that closes, whose writers may as well wait until it is written: the
        columns they change are written as they are, not copied (~24 MB at 1.4M documents), and the lexical
        tail becomes a segment of its own (see LexicalIndex.snapshot). At a million events bench/scale.py's
        peak came in this save: 86 MiB over what the memory held before it, 36 MiB saved so."""
        with self._saving:
            if self.directory is None:
                return
            target = self.directory
            fresh = target.with_name(target.name + ".new")
            shutil.rmtree(fresh, ignore_errors=True)
            fresh.mkdir(parents=True)
            with self._embedding:  # the vectors are written as they were when the rest was copied
                with self._changing:
                    self._finish_adds()
                    changes = self.changes
                    parts = self._snapshot(last=last)
                    if last:
                        self._write_snapshot(fresh, *parts)
                if not last:
                    self._write_snapshot(fresh, *parts)
            old = target.with_name(target.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            if target.exists():
                target.rename(old)
            fresh.rename(target)
            shutil.rmtree(old, ignore_errors=True)
            self._saved = changes

    def _write_snapshot(self, fresh: Path, columns: dict[str, NDArray[Any]], meta: dict[str, Any],
                        waiting: list[tuple[int, str]], lexical: dict[str, NDArray[Any]]) -> None:
        (fresh / "pending.json").write_text(json.dumps(waiting), encoding="utf-8")
        save_arrays(fresh / "columns.npz", columns)
        (fresh / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        write_arrays(fresh, lexical)
        if self.vectors is not None:
            self.vectors.save(fresh / "vectors.faiss")

    def _snapshot(self, *, last: bool) -> tuple[dict[str, NDArray[Any]], dict[str, Any],
                                                list[tuple[int, str]], dict[str, NDArray[Any]]]:
        """Copies of what :meth:`save` writes (``_changing`` and ``_embedding`` held; ``last``: held until it
        is written, so what writers change is not copied)."""
        with self._lock:
            n = len(self.ids)
            live = self._live.head(n)
            # documents still waiting for a vector keep their text in the file (not those removed since)
            waiting = [(doc, text) for doc, text in self._pending.listed() if doc < n and live[doc]]
            entities, offsets, entity_docs = _packed(self._entity_docs)
            subjects, subject_offsets, subject_docs = _packed(self._subject_docs)
            # a document's place in a column is set when it is added and, in these, never again (a grown
            # column is a new array): the first n places are read as they are, not copied
            columns = {name: column.head(n) for name, column in (
                ("type", self._type), ("kind", self._kind), ("scope", self._scope), ("private", self._private),
                ("time", self._time), ("thread", self._thread), ("titled", self._titled),
                ("recorded", self._recorded))}
            # writers change these after the copy (a removal, a period given later): copied
            columns |= {name: column.head(n) if last else column.head(n).copy() for name, column in (
                ("live", self._live), ("about_lo", self._about_lo), ("about_hi", self._about_hi))}
            # the embedder's, which waits until the save is written
            columns |= {"embedded": self._embedded.head(n), "word_start": self._word_start.head(n),
                        "word_count": self._word_count.head(n), "words": self._words.head(self._words_end)}
            columns |= {"entity_offsets": offsets, "entity_docs": entity_docs, "subject_offsets": subject_offsets,
                        "subject_docs": subject_docs, "ids": self.ids.encoded()}
            meta = {
                "format": FORMAT, "watermark": self.watermark.isoformat() if self.watermark else None,
                "embedder": self.embedder.name if self.embedder else None,
                "kinds": list(self.kinds.names), "scopes": list(self.scopes.names),
                "threads": list(self.threads.names), "entities": entities, "subjects": subjects,
                "merged": sorted(self.merged),
            }
        return columns, meta, waiting, self.lexical.snapshot(apart=last)

    @classmethod
    def load(cls, directory: Path, embedder: Embedder | None) -> SearchIndex | None:
        """The saved index, or None when there is none or it was built differently (then rebuild)."""
        try:
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if meta.get("format") != FORMAT or meta.get("embedder") != (embedder.name if embedder else None):
            return None
        index = cls(directory, embedder)
        try:
            with np.load(directory / "columns.npz") as c:
                # the ids: a bytes array, or a list in the metadata (saved by earlier versions)
                ids = np.array([i.encode() for i in meta["ids"]], bytes) if "ids" in meta else c["ids"]
                n = len(ids)
                for name, column in (("type", index._type), ("kind", index._kind), ("scope", index._scope),
                                     ("private", index._private), ("time", index._time),
                                     ("about_lo", index._about_lo), ("about_hi", index._about_hi),
                                     ("thread", index._thread), ("live", index._live),
                                     ("titled", index._titled), ("embedded", index._embedded),
                                     ("recorded", index._recorded),
                                     ("word_start", index._word_start), ("word_count", index._word_count)):
                    column.data = np.full(room(n, n), column.fill, column.dtype)
                    column.data[:n] = c[name]
                index._words_end = len(c["words"])
                index._words.data = np.full(room(index._words_end, index._words_end), 0, index._words.dtype)
                index._words.data[:index._words_end] = c["words"]
                index._entity_docs = _unpacked(meta["entities"], c["entity_offsets"], c["entity_docs"])
                index._subject_docs = _unpacked(meta["subjects"], c["subject_offsets"], c["subject_docs"])
            index.lexical = LexicalIndex.load(directory)
            if embedder is not None:
                from graphmem.index.vectors import VectorIndex

                index.vectors = VectorIndex.load(directory / "vectors.faiss", embedder.dim)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, StoreError) as exc:
            log.warning("the search index in %s is unreadable (%s); rebuilding it", directory, exc)
            return None
        index.ids = DocIds.from_encoded(ids)
        index.kinds, index.scopes, index.threads = (Codes(meta["kinds"]), Codes(meta["scopes"]),
                                                    Codes(meta["threads"]))
        index._mentions = Mentions.from_docs(len(index.ids), index._entity_docs)
        threads = index._thread.data[: len(index.ids)]
        in_thread = np.flatnonzero(threads >= 0)
        times = index._time.data[in_thread]
        ordered = in_thread[np.lexsort((in_thread, times, threads[in_thread]))]  # by thread, time, number
        for docs in np.split(ordered, np.flatnonzero(np.diff(threads[ordered])) + 1) if len(ordered) else ():
            index._thread_order[int(threads[docs[0]])] = _ThreadOrder(index._time.data[docs], docs)
        index.watermark = dt.datetime.fromisoformat(meta["watermark"]) if meta["watermark"] else None
        index.merged = set(meta.get("merged", ()))  # (none in a save of an earlier version)
        if index.vectors is not None:
            try:
                waiting = json.loads((directory / "pending.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                waiting = []
            for doc, text in waiting:
                if not index._embedded.data[doc]:
                    index._pending.put((doc, text))
            if waiting:
                index._start_worker()
        return index

    def close(self) -> None:
        """Stop embedding after the batch in hand (the documents still waiting are saved as pending and
        embedded after the next open). Waiting for the worker matters: a thread left inside the model or
        faiss when the interpreter exits aborts the process."""
        if self._worker is not None and self._worker.is_alive():
            self._closing.set()
            self._hurry.set()
            self._pending.put(None)  # wakes a worker waiting for work
            self._worker.join(timeout=CLOSE_WAIT_S)
            if self._worker.is_alive():
                log.warning("the embedding worker did not stop within %d s", CLOSE_WAIT_S)


def _flags(table: dict[str, array[int]], entities: Sequence[str], n: int) -> NDArray[np.bool_]:
    """Flags of the first ``n`` documents listed under any of ``entities`` in ``table``."""
    flags = np.zeros(n, bool)
    for entity in entities:
        docs = table.get(entity)
        if docs:
            found = np.frombuffer(docs, np.int32).copy()  # no view of it outlives this line: it may grow
            flags[found[found < n]] = True
    return flags


def _packed(table: dict[str, array[int]]) -> tuple[list[str], NDArray[np.int64], NDArray[np.int32]]:
    """An entity -> documents table as its keys, offsets and one array of documents (to save)."""
    keys = list(table)
    offsets = np.zeros(len(keys) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, table.values()), np.int64, len(keys)), out=offsets[1:])
    docs = np.frombuffer(b"".join(table.values()), np.int32)  # the documents' bytes once, no array per key
    return keys, offsets, docs


def _unpacked(keys: list[str], offsets: NDArray[np.int64], docs: NDArray[np.int32]) -> dict[str, array[int]]:
    return {key: array("i", docs[offsets[i]:offsets[i + 1]].tolist()) for i, key in enumerate(keys)}


def _vector_index(dim: int) -> Any:
    from graphmem.index.vectors import VectorIndex  # faiss loads only when vectors are used

    return VectorIndex(dim)
