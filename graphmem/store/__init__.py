"""The graph store: the port memory talks to, and its adapters."""

from graphmem.store.port import EventBrief, EventQuery, GraphStore, Indexable, SourceCursor, StateQuery, StoreStats, WriteBatch
from graphmem.store.port import declared_subjects

__all__ = ["DEFAULT_BUFFER_POOL_MB", "EventBrief", "EventQuery", "GraphStore", "Indexable", "SourceCursor", "StateQuery", "StoreStats",
           "WriteBatch", "declared_subjects", "open_store"]


# The engine's page cache, in MiB: a ceiling the cache grows to, resident once filled. It also holds the
# primary-key indexes a commit works on and the joins of reads. Measured with bench/scale.py at a million
# events (a 896 MB database): 256 MiB ran the whole bulk load but not a read of 10,000 subjects' states in one
# join (reads are chunked since: see kuzu_store.LOOKUP_CHUNK); 512 MiB ran it all. The default was a quarter of
# the machine's memory (4 GiB here), whose resident part grew to ~620 MB by the end of that run. A larger
# memory may want more: Memory.open(buffer_pool_mb=...), or GRAPHMEM_BUFFER_POOL_MB for the server and the CLI.
DEFAULT_BUFFER_POOL_MB = 512


def open_store(path: str, *, buffer_pool_mb: int = DEFAULT_BUFFER_POOL_MB, read_only: bool = False) -> GraphStore:
    """The default embedded store at ``path`` (``":memory:"`` for a throwaway one)."""
    from graphmem.store.kuzu_store import KuzuStore

    return KuzuStore(path, buffer_pool_mb=buffer_pool_mb, read_only=read_only)
