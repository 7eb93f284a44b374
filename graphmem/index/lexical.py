"""BM25 over numbered documents, grown one document at a time and saved as plain arrays.

Postings live in a *base* and a *tail*. The base is a run of segments, each a compressed-sparse-row block of
numpy arrays (term -> the documents holding it and how often) that never changes once built, so a search
reads them without a lock. The tail collects documents added since, as small per-term lists; when it passes
``TAIL_LIMIT`` documents it is merged into the last segment, or starts a new one when that would take the
segment past ``SEGMENT_POSTINGS``; the new base replaces the old one in a single assignment. So a merge builds
at most one segment's arrays beside the old ones, however large the index (a base of one block, at a million
documents ~20M postings, was copied whole by every merge: ~120 MB at once). Numbers of removed documents are
remembered and skipped.

Scores are Okapi BM25 (k1 = 1.2, b = 0.75) with the usual smoothed idf, log(1 + (N - df + 0.5) / (df + 0.5)).
How often a term occurs in a document is kept in 16 bits (capped at ``COUNT_MAX``) and scored as float32:
at a million documents the counts take 36 MB instead of 71, and a merge's new base as much less.
"""

from __future__ import annotations

import itertools
import json
import threading
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graphmem.arrays import grown, room, save_arrays, sorted_union
from graphmem.index.vocabulary import Vocabulary

__all__ = ["LexicalIndex", "write_arrays"]

K1 = 1.2
B = 0.75
COUNT_MAX = 65_535  # occurrences of a term in one document counted; BM25 barely moves past a few dozen
TAIL_LIMIT = 50_000  # documents gathered before the tail is merged into the base
SEGMENT_POSTINGS = 4_000_000  # postings past which a merge starts a new segment (~24 MB of arrays): what a
# merge copies at most; a query term looks itself up in each segment (~1 us each)
MANY_FROM = 16  # documents from which add_many counts their postings with numpy (fewer: one by one)
SELECTIVE = 1 / 32  # a filter letting fewer documents through is applied before scoring
PRUNE_FROM = 100_000  # base postings of a query's rarer terms walked before the commoner ones are only looked up


Counts = NDArray[np.uint16]


@dataclass(frozen=True)
class _Segment:
    """Postings of some documents: the terms they hold (numbers, ascending) and each one's postings."""

    terms: NDArray[np.int64]
    offsets: NDArray[np.int64]  # term terms[i]'s postings are [offsets[i], offsets[i + 1])
    docs: NDArray[np.int32]  # ascending within each term
    freqs: Counts  # how often each of those documents holds the term

    @classmethod
    def empty(cls) -> _Segment:
        return cls(np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint16))

    def postings(self, t: int) -> tuple[NDArray[np.int32], Counts] | None:
        i = int(np.searchsorted(self.terms, t))
        if i == len(self.terms) or self.terms[i] != t:
            return None
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return self.docs[lo:hi], self.freqs[lo:hi]


@dataclass(frozen=True)
class _Base:
    terms: Vocabulary  # shared by every base, grown in place: a segment knows only the terms it holds
    segments: tuple[_Segment, ...]

    @classmethod
    def empty(cls) -> _Base:
        return cls(Vocabulary(), ())

    def parts(self, term: str) -> list[tuple[NDArray[np.int32], Counts]]:
        """The postings of ``term``, one part for each segment that holds it (a document is in one part)."""
        t = self.terms.get(term)
        if t is None:
            return []
        return [found for segment in self.segments if (found := segment.postings(t)) is not None]

    def postings(self, term: str) -> tuple[NDArray[np.int32], Counts]:
        """The postings of ``term`` in one pair of arrays."""
        parts = self.parts(term)
        if not parts:
            return _NO_DOCS, _NO_FREQS
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([d for d, _ in parts]), np.concatenate([f for _, f in parts])


_TERMS_TEXT = "lexical_terms.json"  # the terms as a JSON list, as earlier versions saved them
_NO_DOCS = np.zeros(0, np.int32)
_NO_FREQS = np.zeros(0, np.uint16)
_NONE = (_NO_DOCS, _NO_FREQS)


@dataclass(frozen=True)
class _Postings:
    """One query term: its idf and the documents holding it, in the base (one part a segment, each
    ascending) and in the tail."""

    idf: float
    base: list[tuple[NDArray[np.int32], Counts]]
    base_count: int
    tail_docs: NDArray[np.int32]
    tail_freqs: Counts


def _weights(idf: float, counts: Counts, lengths: NDArray[np.int32], average: float) -> NDArray[np.float64]:
    """BM25 term scores of documents holding a term ``counts`` times, ``lengths`` terms long."""
    freqs = counts.astype(np.float32)  # the arithmetic scores have always had: the same floats, bit for bit
    return idf * freqs * (K1 + 1) / (freqs + K1 * (1 - B + B * lengths / average))


class LexicalIndex:
    """Okapi BM25 over documents numbered 0, 1, 2, ... by the caller.

    >>> index = LexicalIndex()
    >>> index.add(0, ["peter", "move", "marrakesh"])
    >>> index.add(1, ["ana", "join", "acm"])
    >>> docs, scores = index.search(["marrakesh"], k=5)
    >>> docs.tolist()
    [0]
    """

    def __init__(self) -> None:
        self._base = _Base.empty()
        self._tail: dict[str, tuple[array[int], array[int]]] = {}  # term -> documents, counts
        self._tail_docs = 0
        self._end = 0  # one past the highest document number added
        self._lengths = np.full(1024, -1, np.int32)  # terms per document, -1 for a number never added;
        # grown by reallocation, so a reader holding the old array still sees every document it knew of
        self._total_terms = 0
        self._docs = 0
        self._removed: set[int] = set()
        self._lock = threading.Lock()  # writers and tail reads; base reads need none

    def __len__(self) -> int:
        return self._docs - len(self._removed)

    # -- writing --------------------------------------------------------------------------------------

    def add(self, doc: int, terms: Sequence[str]) -> None:
        """Index document ``doc`` (numbers may arrive out of order; each is added once)."""
        counts = Counter(terms)
        with self._lock:
            if doc < len(self._lengths) and self._lengths[doc] >= 0:
                return
            self._lengths = grown(self._lengths, doc + 1, -1)
            self._lengths[doc] = len(terms)
            self._end = max(self._end, doc + 1)
            self._total_terms += len(terms)
            self._docs += 1
            for term, count in counts.items():
                found = self._tail.get(term)
                if found is None:
                    found = self._tail[term] = (array("i"), array("H"))
                found[0].append(doc)
                found[1].append(min(count, COUNT_MAX))
            self._tail_docs += 1
            if self._tail_docs >= TAIL_LIMIT:
                self._merge()

    def add_many(self, first: int, term_lists: Sequence[Sequence[str]]) -> None:
        """Index documents ``first``, ``first + 1``, ... (``term_lists[i]`` the terms of ``first + i``), as
        :meth:`add` would one by one. A batch's postings are counted and ordered by numpy, and each term's
        are appended to the tail in one piece: ~4 us a document in a batch of 10,000, not ~10."""
        n = len(term_lists)
        with self._lock:
            added = n >= MANY_FROM and bool((self._lengths[first : first + n] >= 0).any())
        if n < MANY_FROM or added:  # (a document added before is skipped, as add does)
            for doc, terms in enumerate(term_lists, first):
                self.add(doc, terms)
            return
        lengths = np.fromiter(map(len, term_lists), np.int64, n)
        terms = list(dict.fromkeys(itertools.chain.from_iterable(term_lists)))  # the batch's, as first met
        numbers = dict(zip(terms, range(len(terms))))
        flat = np.fromiter(map(numbers.__getitem__, itertools.chain.from_iterable(term_lists)), np.int64,
                           int(lengths.sum()))
        pairs, counts = np.unique(flat * n + np.repeat(np.arange(n), lengths), return_counts=True)
        term_of, row_of = np.divmod(pairs, n)  # by term, then by document
        starts = np.flatnonzero(np.diff(term_of, prepend=-1))  # where each term's postings begin
        ends = [*starts[1:].tolist(), len(pairs)] if len(starts) else []
        docs = (row_of + first).astype(np.int32)
        freqs = np.minimum(counts, COUNT_MAX).astype(np.uint16)
        with self._lock:
            self._lengths = grown(self._lengths, first + n, -1)
            self._lengths[first : first + n] = lengths
            self._end = max(self._end, first + n)
            self._total_terms += int(lengths.sum())
            self._docs += n
            tail = self._tail
            for t, lo, hi in zip(term_of[starts].tolist(), starts.tolist(), ends, strict=True):
                found = tail.get(terms[t])
                if found is None:
                    found = tail[terms[t]] = (array("i"), array("H"))
                found[0].frombytes(docs[lo:hi].tobytes())
                found[1].frombytes(freqs[lo:hi].tobytes())
            self._tail_docs += n
            if self._tail_docs >= TAIL_LIMIT:
                self._merge()

    def remove(self, doc: int) -> None:
        """Stop returning ``doc`` (its postings stay until the next rebuild)."""
        with self._lock:
            if doc < len(self._lengths) and self._lengths[doc] >= 0:
                self._removed.add(doc)

    def _merge(self, *, into_last: bool = True) -> None:
        """Fold the tail into the last segment, or into a new one when the last would grow past
        ``SEGMENT_POSTINGS`` or ``into_last`` is off (called with the lock held).

        The old base stays whole until the new one replaces it (readers may hold it), so a merge needs room
        for one segment's new arrays and little else: the segment's old postings move in runs, one slice copy
        for each stretch of terms the tail does not touch, never through per-posting temporaries, and the
        vocabulary is shared, not copied. Only the tail's postings are checked for order (:func:`_sort_tails`)."""
        base, tail = self._base, self._tail
        if not tail:
            return
        tail_terms = base.terms.numbers(list(tail))  # grown in place: older bases never ask for the new ones
        tail_counts = np.fromiter((len(docs) for docs, _ in tail.values()), np.int64, len(tail))
        last = base.segments[-1] if base.segments else None
        if into_last and last is not None and len(last.docs) + int(tail_counts.sum()) <= SEGMENT_POSTINGS:
            kept, old = base.segments[:-1], last
        else:
            kept, old = base.segments, _Segment.empty()
        self._base = _Base(base.terms, (*kept, _merged(old, tail_terms, tail_counts, list(tail.values()))))
        self._tail = {}
        self._tail_docs = 0

    # -- reading --------------------------------------------------------------------------------------

    def search(
        self, terms: Sequence[str], k: int, allowed: NDArray[np.bool_] | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """The ``k`` best documents for ``terms`` (best first) and their scores; only scores > 0.

        ``allowed`` (one flag per document number; numbers past its end count as not allowed) keeps only
        the documents it marks.

        Common terms are the cost: a word in most documents has postings for most of them, and adds little
        to any score. So terms are scored rarest first, and once the postings scored pass ``PRUNE_FROM``,
        the remaining terms' are only looked up for the documents found so far. That answer is exact when
        the ``k``-th best score found exceeds the most the remaining terms could give a document only they
        match (each term adds less than idf * (K1 + 1)); if not, the next term is scored and the check made
        again. A document's term scores are always added in the same order, so every way gives the same
        floats.
        """
        base = self._base
        with self._lock:
            lengths = self._lengths[: self._end]  # searches size their arrays by the documents, not the room
            tail = {t: (np.array(self._tail[t][0], np.int32), np.array(self._tail[t][1], np.uint16))
                    for t in set(terms) if t in self._tail}
            removed = np.fromiter(self._removed, np.int64, len(self._removed))
            docs_count = self._docs
            average = max(self._total_terms / docs_count if docs_count else 1.0, 1e-9)
        found: list[_Postings] = []
        for term in dict.fromkeys(terms):
            parts, (tail_docs, tail_freqs) = base.parts(term), tail.get(term, _NONE)
            in_base = sum(len(d) for d, _ in parts)
            df = in_base + len(tail_docs)
            if df:
                idf = float(np.log1p((docs_count - df + 0.5) / (df + 0.5)))
                found.append(_Postings(idf, parts, in_base, tail_docs, tail_freqs))
        found.sort(key=lambda p: p.base_count)  # rarest first: the order every document's sum is made in
        if allowed is not None and found:
            if np.count_nonzero(allowed[: len(lengths)]) < SELECTIVE * docs_count:  # a narrow filter: score
                permitted = np.flatnonzero(allowed[: len(lengths)])  # the documents it lets through
                if len(removed):
                    permitted = permitted[~np.isin(permitted, removed)]
                return _scored_among(found, permitted, lengths, average, k)
        scores = np.zeros(len(lengths), np.float32)
        for p in found:  # a tail document's every term, in that order: exact from the start
            scores[p.tail_docs] += _weights(p.idf, p.tail_freqs, lengths[p.tail_docs], average)
        scored = 0  # base postings scored so far
        for walked, p in enumerate(found, start=1):  # walked: terms whose base postings are scored
            for docs, freqs in p.base:
                scores[docs] += _weights(p.idf, freqs, lengths[docs], average)
            scored += p.base_count
            if walked == len(found) or scored + found[walked].base_count <= PRUNE_FROM:
                continue
            answer = self._pruned(found, walked, scores, lengths, average, k, allowed, removed)
            if answer is not None:
                return answer
        if len(removed):
            scores[removed] = 0
        if allowed is not None:
            scores[len(allowed):] = 0
            scores[: len(allowed)] *= allowed[: len(scores)]
        return top(scores, k)

    @staticmethod
    def _pruned(
        found: list[_Postings], walked: int, scores: NDArray[np.float32], lengths: NDArray[np.int32],
        average: float, k: int, allowed: NDArray[np.bool_] | None, removed: NDArray[np.int64],
    ) -> tuple[NDArray[np.int64], NDArray[np.float32]] | None:
        """The exact answer when the documents found by the first ``walked`` terms (and every tail document)
        prove to hold it, with the other terms' scores added; else None, and ``scores`` as they were."""
        touched = sum(p.base_count for p in found[:walked]) + sum(len(p.tail_docs) for p in found)
        if touched * 16 < len(scores):
            candidates = sorted_union(*[docs for p in found[:walked] for docs, _ in p.base],
                                      *[p.tail_docs for p in found]).astype(np.int64)
        else:
            candidates = np.flatnonzero(scores)
        if allowed is not None:
            candidates = candidates[candidates < len(allowed)]
            candidates = candidates[allowed[candidates]]
        if len(removed):
            candidates = candidates[~np.isin(candidates, removed)]
        if len(candidates) < k:
            return None
        before = scores[candidates]
        marked: NDArray[np.bool_] | None = None
        for p in found[walked:]:
            for part_docs, part_freqs in p.base:
                if len(candidates) * 20 < len(part_docs):  # few lookups: bisect
                    held, at = _found_in(part_docs, candidates)
                    docs: NDArray[Any] = candidates[held]
                    freqs = part_freqs[at]
                else:  # many: one pass over the postings against a mark per document
                    if marked is None:
                        marked = np.zeros(len(scores), bool)
                        marked[candidates] = True
                    at = np.flatnonzero(marked[part_docs])
                    docs, freqs = part_docs[at], part_freqs[at]
                scores[docs] += _weights(p.idf, freqs, lengths[docs], average)
        ceiling = sum(p.idf * (K1 + 1) for p in found[walked:])  # the most a document outside can score
        mine = scores[candidates]
        if float(np.partition(mine, len(mine) - k)[len(mine) - k]) <= ceiling:
            scores[candidates] = before
            return None
        return _best(candidates, mine, k)

    def _extent(self) -> int:
        """One past the highest document number added."""
        present = np.flatnonzero(self._lengths >= 0)
        return int(present[-1]) + 1 if len(present) else 0

    # -- files ----------------------------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        """Write the index as arrays, each segment's apart (nothing is concatenated), its terms as their keys
        (the tail is merged first)."""
        write_arrays(directory, self.snapshot())

    def snapshot(self, *, apart: bool = False) -> dict[str, NDArray[Any]]:
        """The arrays :meth:`save` writes, as of now (the tail merged first). ``apart``: the tail becomes a
        segment of its own, as a closing memory's save wants: folded into the last segment, it makes that one
        anew (up to ~24 MB held twice meanwhile); a segment not full takes the next merges whichever way.
        Segments and the vocabulary's arrays are never changed once built, so only the lengths are copied:
        the arrays can be written out while documents are added."""
        with self._lock:
            self._merge(into_last=not apart)
            base = self._base
            term_keys, term_numbers = base.terms.saved()
            segments = {f"s{i}_{name}": getattr(segment, name) for i, segment in enumerate(base.segments)
                        for name in ("terms", "offsets", "docs", "freqs")}
            return {"segments": np.array(len(base.segments)), "lengths": self._lengths[: self._extent()].copy(),
                    "removed": np.array(sorted(self._removed), np.int64), "term_keys": term_keys,
                    "term_numbers": term_numbers, **segments}

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex:
        index = cls()
        with np.load(directory / "lexical.npz") as arrays:
            if "term_keys" in arrays.files:
                terms = Vocabulary(arrays["term_keys"], arrays["term_numbers"])
            else:  # saved by an earlier version: the terms as text, in number order
                terms = Vocabulary.of(json.loads((directory / _TERMS_TEXT).read_text(encoding="utf-8")))
            if "segments" in arrays.files:
                segments = tuple(
                    _Segment(arrays[f"s{i}_terms"], arrays[f"s{i}_offsets"],
                             *_ascending(arrays[f"s{i}_offsets"], arrays[f"s{i}_docs"], arrays[f"s{i}_freqs"]))
                    for i in range(int(arrays["segments"])))
            else:  # saved by an earlier version: one block over every term
                segments = (_one_segment(arrays["offsets"], arrays["docs"], _counts(arrays["freqs"])),)
            index._base = _Base(terms, tuple(s for s in segments if len(s.docs)))
            present = arrays["lengths"]
            index._lengths = np.full(room(len(present), len(present)), -1, np.int32)
            index._lengths[: len(present)] = present
            index._end = len(present)
            index._removed = set(arrays["removed"].tolist())
        index._docs = int((present >= 0).sum())
        index._total_terms = int(present[present > 0].sum())
        return index


def _one_segment(offsets: NDArray[np.int64], docs: NDArray[np.int32], freqs: Counts) -> _Segment:
    """A segment from postings kept over every term number (as earlier versions saved them)."""
    docs, freqs = _ascending(offsets, docs, freqs)
    held = np.flatnonzero(np.diff(offsets))  # the terms with postings
    return _Segment(held.astype(np.int64), np.append(offsets[held], offsets[-1]), docs, freqs)


def _counts(saved: NDArray[Any]) -> Counts:
    """Saved counts as kept in memory (an index saved before counts were 16-bit holds them as float32)."""
    counts: Counts = saved if saved.dtype == np.uint16 else np.minimum(saved, COUNT_MAX).astype(np.uint16)
    return counts


def _ascending(
    offsets: NDArray[np.int64], docs: NDArray[np.int32], freqs: Counts
) -> tuple[NDArray[np.int32], Counts]:
    """Each term's postings in ascending document order, as searches look them up by bisection (documents
    indexed out of order, by concurrent writers, are the rare case that needs a sort)."""
    step = np.diff(docs)
    starts = np.zeros(len(docs), bool)
    starts[offsets[1:-1][offsets[1:-1] < len(docs)]] = True
    if not ((step > 0) | starts[1:]).all():
        term_of = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        order = np.lexsort((docs, term_of))
        docs, freqs = docs[order], freqs[order]
    return docs, freqs


def write_arrays(directory: Path, arrays: dict[str, NDArray[Any]]) -> None:
    """Write a :meth:`LexicalIndex.snapshot` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    save_arrays(directory / "lexical.npz", arrays)
    (directory / _TERMS_TEXT).unlink(missing_ok=True)  # (written by earlier versions)


def _merged(
    old: _Segment, tail_terms: NDArray[np.int64], tail_counts: NDArray[np.int64],
    tail: list[tuple[array[int], array[int]]],
) -> _Segment:
    """``old`` with the tail's postings (``tail[i]`` those of term ``tail_terms[i]``) after each term's own."""
    terms = np.union1d(old.terms, tail_terms)
    at_old = np.searchsorted(terms, old.terms)  # where each of old's terms lands among the new ones
    at_tail = np.searchsorted(terms, tail_terms)
    counts = np.zeros(len(terms), np.int64)
    counts[at_old] = np.diff(old.offsets)
    counts[at_tail] += tail_counts
    offsets = np.zeros(len(terms) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    docs = np.empty(offsets[-1], np.int32)
    freqs = np.empty(offsets[-1], np.uint16)
    # old postings, in runs of terms that all move by the same amount: a run lands in one piece
    shift = offsets[at_old] - old.offsets[:-1]
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(shift)) + 1, [len(old.terms)])).tolist()
    for lo, hi in itertools.pairwise(bounds):
        if lo == hi:
            continue
        src, stop, dst = int(old.offsets[lo]), int(old.offsets[hi]), int(offsets[at_old[lo]])
        docs[dst : dst + stop - src] = old.docs[src:stop]
        freqs[dst : dst + stop - src] = old.freqs[src:stop]
    # each term's tail postings after its old ones
    ends = offsets[at_tail + 1].tolist()
    for (tail_docs, tail_freqs), end in zip(tail, ends, strict=True):
        docs[end - len(tail_docs) : end] = tail_docs
        freqs[end - len(tail_docs) : end] = tail_freqs
    _sort_tails(offsets, docs, freqs, at_tail, tail_counts)
    return _Segment(terms, offsets, docs, freqs)


def _sort_tails(
    offsets: NDArray[np.int64], docs: NDArray[np.int32], freqs: Counts,
    tail_terms: NDArray[np.int64], tail_counts: NDArray[np.int64],
) -> None:
    """Put back in ascending document order, in place, the terms whose tail postings broke it (documents
    indexed out of order by concurrent writers; the old postings of a term are in order already). Only the
    tail's postings are checked: a few hundred thousand places, not the whole base."""
    total = int(tail_counts.sum())
    if not total:
        return
    first = offsets[tail_terms + 1] - tail_counts  # where each term's tail postings begin
    owner = np.repeat(np.arange(len(tail_terms)), tail_counts)
    places = first[owner] + (np.arange(total) - np.repeat(np.cumsum(tail_counts) - tail_counts, tail_counts))
    inside = places > offsets[tail_terms[owner]]  # a term's very first posting has none before it
    broken = owner[inside][docs[places[inside]] <= docs[places[inside] - 1]]
    for t in np.unique(tail_terms[broken]).tolist():
        lo, hi = int(offsets[t]), int(offsets[t + 1])
        order = np.argsort(docs[lo:hi], kind="stable")
        docs[lo:hi], freqs[lo:hi] = docs[lo:hi][order], freqs[lo:hi][order]


def _scored_among(
    found: list[_Postings], docs: NDArray[np.int64], lengths: NDArray[np.int32], average: float, k: int
) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The ``k`` best of ``docs`` (ascending numbers), each term looked up for them by bisection: a filter
    that lets a few hundred documents through then costs a few hundred lookups per term, not a walk of
    every posting (an entity's events among a million)."""
    scores = np.zeros(len(docs), np.float32)
    for p in found:
        for i, (postings, freqs) in enumerate([(p.tail_docs, p.tail_freqs), *p.base]):
            if not len(postings) or not len(docs):
                continue
            if i == 0:  # the tail is small and not in order: find its documents among ours
                held, places = _found_in(docs, postings)
                counts = freqs[held]
            else:
                held, at = _found_in(postings, docs)
                places, counts = np.flatnonzero(held), freqs[at]
            scores[places] += _weights(p.idf, counts, lengths[docs[places]], average)
    return _best(docs, scores, k)


def _found_in(ordered: NDArray[Any], wanted: NDArray[Any]) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Which of ``wanted`` are in ``ordered`` (ascending, not empty), and where (for those that are)."""
    at = np.minimum(np.searchsorted(ordered, wanted), len(ordered) - 1)
    held = ordered[at] == wanted
    return held, at[held]


def _best(docs: NDArray[np.int64], scores: NDArray[np.float32], k: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The ``k`` best of ``docs`` by their ``scores`` (positive only), best first, ties to the lower number."""
    kept = scores > 0
    docs, scores = docs[kept], scores[kept]
    if len(docs) > k:
        kept = scores >= np.partition(scores, len(scores) - k)[len(scores) - k]  # with its ties
        docs, scores = docs[kept], scores[kept]
    order = np.lexsort((docs, -scores))[:k]
    return docs[order].astype(np.int64), scores[order].astype(np.float32)


def top(scores: NDArray[np.float32], k: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """Indices of the ``k`` largest positive scores, best first (ties: lower index first)."""
    candidates = np.flatnonzero(scores > 0)
    return _best(candidates, scores[candidates], k)
