"""Document numbers and ids, both ways, in a few bytes a document.

The search index numbers its documents 0, 1, 2, ... and needs the id of a number (every hit) and the number of
an id (every add, removal and annotation). A list of id strings and a dict back cost ~180 bytes a document
(at 1.4M documents ~250 MB); here the ids are one fixed-width bytes array and the way back is a sorted array
of (hash, number) pairs checked against the stored id, plus a dict of the ids added since it was last sorted:
~50 bytes a document.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from graphmem.arrays import grown, room

__all__ = ["DocIds"]

FOLD_AT = 65_536  # ids added before they join the sorted arrays
MANY_FROM = 16  # ids from which extend and get_many take them with numpy, not one by one
_WIDTH = 27  # bytes an id is stored in at first: graphmem's ids ("ev_", 24 hex digits); a longer widens it


class DocIds:
    """The ids of documents 0 .. n-1, and the number of an id.

    An id given up with :meth:`forget` (a document indexed again under a new number) no longer maps to its
    old number; the number still names its id.

    >>> ids = DocIds()
    >>> ids.append("ev_a"), ids.append("st_b")
    (0, 1)
    >>> ids[1], ids.get("ev_a"), ids.get("nope")
    ('st_b', 0, None)
    """

    def __init__(self, ids: Iterable[str] = ()) -> None:
        self._ids: NDArray[np.bytes_] = np.zeros(1024, f"S{_WIDTH}")
        self._n = 0
        # the folded ids' hashes, ascending, and their numbers in the same order (-1: forgotten), as one pair
        # replaced in one assignment: a reader never sees the hashes of one fold with the numbers of another
        self._sorted: tuple[NDArray[np.int64], NDArray[np.int64]] = (np.zeros(0, np.int64), np.zeros(0, np.int64))
        self._recent: dict[str, int] = {}
        listed = [i.encode() for i in ids]
        if listed:
            self._take(np.array(listed))

    @classmethod
    def from_encoded(cls, encoded: NDArray[np.bytes_]) -> DocIds:
        """The ids :meth:`encoded` gave (what the search index saves)."""
        out = cls()
        if len(encoded):
            out._take(encoded)
        return out

    def _take(self, encoded: NDArray[np.bytes_]) -> None:
        n = len(encoded)
        self._ids = np.zeros(room(n, n), encoded.dtype)  # their own width
        self._ids[:n] = encoded
        self._n = n
        # (hashes of str: Python's, made again in each process; ~0.3 us an id from a list, ~0.5 one by one)
        self._fold(np.fromiter(map(hash, map(bytes.decode, encoded.tolist())), np.int64, n), np.arange(n))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, number: int) -> str:
        if not 0 <= number < self._n:
            raise IndexError(number)
        return bytes(self._ids[number]).decode()

    def __contains__(self, doc_id: str) -> bool:
        return self.get(doc_id) is not None

    def append(self, doc_id: str) -> int:
        """Give ``doc_id`` the next number (it must not have one)."""
        encoded = doc_id.encode()
        if len(encoded) > self._ids.itemsize:
            self._ids = self._ids.astype(f"S{len(encoded)}")
        self._ids = grown(self._ids, self._n + 1)  # (readers that took the old array still find every id it held)
        number = self._n
        self._ids[number] = encoded
        self._n += 1
        self._recent[doc_id] = number
        if len(self._recent) >= FOLD_AT:
            self._fold_recent()
        return number

    def _fold_recent(self) -> None:
        recent = self._recent
        self._fold(np.fromiter((hash(i) for i in recent), np.int64, len(recent)),
                   np.fromiter(recent.values(), np.int64, len(recent)))
        self._recent = {}

    def extend(self, doc_ids: Sequence[str]) -> int:
        """Give each of ``doc_ids`` (none of which has one, no two alike) the next number, in order; the
        first of them. One array assignment for them all: ~1 us an id in a batch of thousands, not ~3."""
        first = self._n
        if len(doc_ids) < MANY_FROM:  # (a few: the numpy calls would cost more than they save)
            for doc_id in doc_ids:
                self.append(doc_id)
            return first
        encoded = np.array([i.encode() for i in doc_ids])
        if encoded.itemsize > self._ids.itemsize:
            self._ids = self._ids.astype(encoded.dtype)
        end = first + len(doc_ids)
        self._ids = grown(self._ids, end)
        self._ids[first:end] = encoded
        self._n = end  # (after the ids: a reader never sees a number without its id)
        self._recent.update(zip(doc_ids, range(first, end)))
        if len(self._recent) >= FOLD_AT:
            self._fold_recent()
        return first

    def get_many(self, doc_ids: Sequence[str]) -> list[int | None]:
        """The number of each of ``doc_ids`` (None: it has none), the folded ones found by one search of the
        sorted hashes for them all: for ids being added (none found) ~0.3 us an id instead of ~3."""
        if len(doc_ids) < MANY_FROM:
            return [self.get(i) for i in doc_ids]
        recent = self._recent.get
        out = [recent(i) for i in doc_ids]
        keys, _ = self._sorted
        rest = [k for k, found in enumerate(out) if found is None] if len(keys) else []
        if rest:
            hashes = np.fromiter((hash(doc_ids[k]) for k in rest), np.int64, len(rest))
            at = np.searchsorted(keys, hashes)
            inside = at < len(keys)
            hit = np.zeros(len(rest), np.bool_)
            hit[inside] = keys[at[inside]] == hashes[inside]
            for k in np.flatnonzero(hit).tolist():  # (a hash alike: the stored id decides, as in get)
                out[rest[k]] = self.get(doc_ids[rest[k]])
        return out

    def get(self, doc_id: str) -> int | None:
        found = self._recent.get(doc_id)
        if found is not None:
            return found
        numbers, places = self._places(doc_id)
        return int(numbers[places[-1]]) if places else None

    def _places(self, doc_id: str) -> tuple[NDArray[np.int64], list[int]]:
        """The folded numbers and where ``doc_id`` is among them, oldest number first (more than one only when
        a saved list named it again after it was forgotten; the last is its number)."""
        keys, numbers = self._sorted
        key = hash(doc_id)
        at = int(np.searchsorted(keys, key))
        ids = self._ids
        found: list[int] = []
        encoded = b""  # encoded only once a hash matches: an id being added (the common look-up) has none
        while at < len(keys) and keys[at] == key:  # equal hashes: the stored id decides
            number = int(numbers[at])
            encoded = encoded or doc_id.encode()
            if number >= 0 and ids[number] == encoded:
                found.append(at)
            at += 1
        return numbers, found

    def forget(self, doc_id: str) -> None:
        """``doc_id`` maps to no number any more (its number keeps naming it)."""
        if self._recent.pop(doc_id, None) is not None:
            return
        numbers, places = self._places(doc_id)
        numbers[places] = -1

    def tolist(self) -> list[str]:
        return [bytes(i).decode() for i in self._ids[: self._n]]

    def encoded(self) -> NDArray[np.bytes_]:
        """The ids as one fixed-width bytes array (no string object made for any of them): a read-only view,
        valid until the next id is added (to save it; a copy would cost ~40 MB at a million ids)."""
        view = self._ids[: self._n]
        view.flags.writeable = False
        return view

    def _fold(self, hashes: NDArray[np.int64], numbers: NDArray[np.int64]) -> None:
        """Join ids (by their ``hashes``) with their ``numbers`` to the sorted arrays."""
        old_keys, old_numbers = self._sorted
        keys = np.concatenate((old_keys, hashes))
        values = np.concatenate((old_numbers, numbers))
        order = np.argsort(keys, kind="stable")
        self._sorted = (keys[order], values[order])
