"""A bounded, thread-safe cache of values by id (least recently used goes first).

This process is the only writer of its database, so a cache it keeps up to date on every write is never
stale: events never change once written; a state or an entity that a write changes is replaced (or dropped)
by that write through :meth:`ByIdCache.update` once it has committed. A read that loaded a value while such
a write ran does not cache what it read (it may be the value from before), so an old value never comes back.
Reading one event's full row costs the engine about 40 µs per column (~1.5 ms), so serving pages of events
from here is what keeps entity and event reads fast under load.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

import numpy as np

from graphmem.arrays import sorted_union, sorted_unique

__all__ = ["ByIdCache", "KnownIds"]

V = TypeVar("V")


class ByIdCache(Generic[V]):
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()
        self._generation = 0  # counts the writes that changed cached values

    def __len__(self) -> int:
        return len(self._items)

    def put(self, items: Iterable[tuple[str, V]]) -> None:
        """Values just written for the first time (nothing read before can be older than them)."""
        with self._lock:
            self._put(items)

    def _put(self, items: Iterable[tuple[str, V]]) -> None:
        for key, value in items:
            self._items[key] = value
            self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def peek(self, key: str) -> V | None:
        """The cached value of ``key``, if any (a write holding the write lock reads the current one)."""
        with self._lock:
            return self._items.get(key)

    def update(self, put: Iterable[tuple[str, V]] = (), drop: Iterable[str] = ()) -> None:
        """A committed write changed these values: ``put`` their new values, ``drop`` those to read again."""
        with self._lock:
            self._generation += 1
            for key in drop:
                self._items.pop(key, None)
            self._put(put)

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._items.clear()

    def get_many(self, keys: Sequence[str], load: Callable[[list[str]], dict[str, V]], *,
                 keep: bool = True) -> list[V]:
        """Values for ``keys`` in order (unknown keys left out); ``load`` reads the missing ones, kept for the
        next reads unless ``keep`` is off (a bulk read would only push out what small reads use)."""
        with self._lock:
            generation = self._generation
            found = {k: self._items[k] for k in keys if k in self._items}
            for k in found:
                self._items.move_to_end(k)
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if missing:
            loaded = load(missing)
            with self._lock:
                if keep and self._generation == generation:  # else a write may have changed what was just read
                    self._put(loaded.items())
            found.update(loaded)
        return [found[k] for k in keys if k in found]


class KnownIds:
    """Which ids may be stored, in 8 bytes an id: the sorted 64-bit hashes of those stored when it was made,
    and a set of the hashes added since. A no is certain; a maybe (a stored id, or a rare collision of two
    hashes) is for the database to confirm. Hashes are this process's own (``hash``): never saved.

    >>> known = KnownIds(["ev_1", "ev_2"])
    >>> known.add(["ev_3"])
    >>> known.maybe(["ev_1", "ev_3", "ev_4"])
    ['ev_1', 'ev_3']
    """

    MERGE_AT = 65_536  # recent hashes kept in the set before they join the sorted array
    ONE_BY_ONE = 8  # ids up to which each is looked up alone: ~1 us, where arrays of them cost ~6 us at least

    def __init__(self, ids: Iterable[str]) -> None:
        self._sorted = sorted_unique(np.fromiter(map(hash, ids), dtype=np.int64))
        self._recent: set[int] = set()

    def __len__(self) -> int:
        return len(self._sorted) + len(self._recent)

    def add(self, ids: Iterable[str]) -> None:
        self._recent.update(hash(i) for i in ids)
        if len(self._recent) >= self.MERGE_AT:
            self._sorted = sorted_union(self._sorted, np.fromiter(self._recent, dtype=np.int64))
            self._recent.clear()

    def maybe(self, ids: Iterable[str]) -> list[str]:
        wanted = list(ids)
        if len(wanted) <= self.ONE_BY_ONE:
            known, end = self._sorted, len(self._sorted)
            return [i for i in wanted if (h := hash(i)) in self._recent
                    or (end and known[min(int(known.searchsorted(h)), end - 1)] == h)]
        hashes = np.fromiter((hash(i) for i in wanted), dtype=np.int64, count=len(wanted))
        at = np.minimum(np.searchsorted(self._sorted, hashes), max(len(self._sorted) - 1, 0))
        stored = self._sorted[at] == hashes if len(self._sorted) else np.zeros(len(wanted), dtype=bool)
        return [i for i, h, hit in zip(wanted, hashes.tolist(), stored.tolist(), strict=True)
                if hit or h in self._recent]
