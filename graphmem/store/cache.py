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

__all__ = ["ByIdCache"]

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

    def get_many(self, keys: Sequence[str], load: Callable[[list[str]], dict[str, V]]) -> list[V]:
        """Values for ``keys`` in order (unknown keys left out); ``load`` reads the missing ones."""
        with self._lock:
            generation = self._generation
            found = {k: self._items[k] for k in keys if k in self._items}
            for k in found:
                self._items.move_to_end(k)
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if missing:
            loaded = load(missing)
            with self._lock:
                if self._generation == generation:  # else a write may have changed what was just read
                    self._put(loaded.items())
            found.update(loaded)
        return [found[k] for k in keys if k in found]
