"""The graph store: the port memory talks to, and its adapters."""

from graphmem.store.port import EventBrief, EventQuery, GraphStore, Indexable, ReadPass, SourceCursor, StateQuery
from graphmem.store.port import StoreStats, TimelineQuery, WriteBatch, declared_subjects, in_view, object_key

__all__ = ["DEFAULT_BUFFER_POOL_MB", "EventBrief", "EventQuery", "GraphStore", "Indexable", "ReadPass", "SourceCursor",
           "StateQuery", "StoreStats", "TimelineQuery", "WriteBatch", "declared_subjects", "in_view",
           "object_key", "open_store"]


# The engine's page cache, in MiB: a ceiling the cache grows to, resident once filled. It also holds the
# primary-key indexes a commit works on and the joins of reads. Measured with bench/scale.py at a million
# events (a ~890 MB database): the peak RSS was 2,122 MB with 512 MiB, 1,972 with 256, 1,922-2,066 with 192
# and 1,914-1,960 with 128 (bulk, one-by-one and as-of speeds the same within the noise); 96 failed the read
# of many subjects' states a bulk state write makes: that join holds every state edge of the database with
# its columns (see KuzuStore._read_subjects), 128-160 MiB at a million events and 400k states, and where it
# does not fit the subjects are read one by one (~3 ms each there, against ~0.1-0.5 ms joined), with a
# warning. So past about a million events, bulk state writes and writes with extraction of many subjects
# want more: Memory.open(buffer_pool_mb=...), or GRAPHMEM_BUFFER_POOL_MB for the server and the CLI. Earlier
# defaults: a quarter of the machine's memory, 512 MiB, 256, then 192.
DEFAULT_BUFFER_POOL_MB = 128


def open_store(path: str, *, buffer_pool_mb: int = DEFAULT_BUFFER_POOL_MB, read_only: bool = False,
               recovery: bool = True) -> GraphStore:
    """The default embedded store at ``path`` (``":memory:"`` for a throwaway one)."""
    from graphmem.store.kuzu_store import KuzuStore

    return KuzuStore(path, buffer_pool_mb=buffer_pool_mb, read_only=read_only, recovery=recovery)
