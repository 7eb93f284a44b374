"""The graph store: the port memory talks to, and its adapters."""

from graphmem.store.port import EventBrief, EventQuery, GraphStore, Indexable, ReadPass, SourceCursor, StateQuery
from graphmem.store.port import StoreStats, TimelineQuery, WriteBatch, declared_subjects, in_view, object_key

__all__ = ["DEFAULT_BUFFER_POOL_MB", "EventBrief", "EventQuery", "GraphStore", "Indexable", "ReadPass", "SourceCursor",
           "StateQuery", "StoreStats", "TimelineQuery", "WriteBatch", "declared_subjects", "in_view",
           "object_key", "open_store"]


# The engine's page cache, in MiB: a ceiling the cache grows to, resident once filled. It also holds the
# primary-key indexes a commit works on and the joins of reads. Measured with bench/scale.py at a million
# events (a 897 MB database): 256 MiB runs it all since a read of many subjects' states takes two reads instead
# of one join that held every state edge with all its columns (see KuzuStore._read_subjects); the peak RSS was
# 1,972 MB with 256 MiB and 2,122 MB with 512, at the same speed within the noise. The cache filled to 225-235
# MiB of its 256 in the phases where the run peaked (the states' writes, the as-of reads, the close); with 192
# MiB the peak was 1,922-1,940 MB in four runs against 1,987-2,007 in four at 256, bulk and one-by-one rates
# about the same, as-of p95 2.97-3.97 ms against 3.00-3.12. Earlier defaults: a quarter of the machine's
# memory (4 GiB here; ~620 MB resident by the end of that run), 512 MiB, then 256. A larger memory may want
# more: Memory.open(buffer_pool_mb=...), or GRAPHMEM_BUFFER_POOL_MB for the server and the CLI.
DEFAULT_BUFFER_POOL_MB = 192


def open_store(path: str, *, buffer_pool_mb: int = DEFAULT_BUFFER_POOL_MB, read_only: bool = False,
               recovery: bool = True) -> GraphStore:
    """The default embedded store at ``path`` (``":memory:"`` for a throwaway one)."""
    from graphmem.store.kuzu_store import KuzuStore

    return KuzuStore(path, buffer_pool_mb=buffer_pool_mb, read_only=read_only, recovery=recovery)
