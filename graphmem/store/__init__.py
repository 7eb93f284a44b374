"""The graph store: the port memory talks to, and its adapters."""

from graphmem.store.port import EventQuery, GraphStore, Indexable, SourceCursor, StateQuery, StoreStats, WriteBatch

__all__ = ["EventQuery", "GraphStore", "Indexable", "SourceCursor", "StateQuery", "StoreStats", "WriteBatch", "open_store"]


def open_store(path: str, *, buffer_pool_mb: int = 1024, read_only: bool = False) -> GraphStore:
    """The default embedded store at ``path`` (``":memory:"`` for a throwaway one)."""
    from graphmem.store.kuzu_store import KuzuStore

    return KuzuStore(path, buffer_pool_mb=buffer_pool_mb, read_only=read_only)
