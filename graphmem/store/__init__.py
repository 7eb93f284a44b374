"""The graph store: the port memory talks to, and its adapters."""

import os

from graphmem.store.port import EventBrief, EventQuery, GraphStore, Indexable, SourceCursor, StateQuery, StoreStats, WriteBatch
from graphmem.store.port import declared_subjects

__all__ = ["DEFAULT_BUFFER_POOL_MB", "EventBrief", "EventQuery", "GraphStore", "Indexable", "SourceCursor", "StateQuery", "StoreStats",
           "WriteBatch", "declared_subjects", "open_store"]


def _default_buffer_pool_mb() -> int:
    """A quarter of the machine's memory, between 1 and 4 GiB. The engine keeps its primary-key indexes in
    this pool too, and a commit that needs more fails: at a million events a 1 GiB pool ran out (in a
    checkpoint). It is a ceiling, not an allocation: a small memory uses little of it."""
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return 1024
    return max(1024, min(4096, total_mb // 4))


DEFAULT_BUFFER_POOL_MB = _default_buffer_pool_mb()


def open_store(path: str, *, buffer_pool_mb: int = DEFAULT_BUFFER_POOL_MB, read_only: bool = False) -> GraphStore:
    """The default embedded store at ``path`` (``":memory:"`` for a throwaway one)."""
    from graphmem.store.kuzu_store import KuzuStore

    return KuzuStore(path, buffer_pool_mb=buffer_pool_mb, read_only=read_only)
