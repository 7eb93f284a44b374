"""The C allocator of a process that holds a memory: how it is set up, and how freed memory goes back.

graphmem's writes build large, short-lived batches beside long-lived index arrays, from several threads (the
caller's, the applier, the embedder, the engine's). glibc's defaults suit that badly:

- each thread allocates from an arena of its own (up to eight per core), and a block freed in one arena is
  reused only by the threads of that arena;
- a block larger than the mapping threshold gets its own mapping, returned to the system when it is freed;
  but the threshold rises to the size of the largest such block freed so far (up to 32 MiB), so after the
  first large batch every array of a later one comes from the arenas, and stays there, in pieces, once freed.

So resident memory ratchets up with each batch. When the first memory opens, :func:`tune` limits the arenas
to ``ARENAS`` and fixes the threshold at ``MMAP_THRESHOLD``. Measured with a million events (the load and
states of bench/scale.py, one process): peak RSS 2,544 MB with the defaults, 2,287 MB tuned.

``GRAPHMEM_MALLOC=default`` leaves the allocator as the process found it. On other C libraries both calls do
nothing.

Python's garbage collector is the other half. Its full passes walk every container the process holds, and
once the extraction pipeline is built that is ~125,000 objects, nearly all of them the modules it and the
database, index and embedder loaded, which live as long as the process: ~70-150 ms a pass, one every ~1,000
records written one by one (a write's objects wait for the applier long enough to reach the oldest
generation, and a pass comes when those reach a quarter of it). A record that met one took 0.1 s, and 300
records one by one with extraction ran at ~640/s instead of ~840/s. :func:`set_aside` takes what the process
holds after its first pipeline is built out of those passes (``gc.freeze``), once; what is made after is
collected as before. ``GRAPHMEM_GC=default`` leaves the collector as the process found it.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
from typing import Any

__all__ = ["ARENAS", "MMAP_THRESHOLD", "release", "set_aside", "tune"]

ARENAS = 1  # the engine keeps its pages in its own pool; what the threads allocate here is mostly Python's
MMAP_THRESHOLD = 256 * 1024  # bytes from which a block is mapped on its own (the default starts at 128 KiB)
_M_MMAP_THRESHOLD = -3  # mallopt's parameter numbers (malloc.h)
_M_ARENA_MAX = -8

_tuned = threading.Lock()
_done = False
_set_aside = False


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt, libc.malloc_trim  # noqa: B018 - glibc's (musl has neither)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()


def tune() -> bool:
    """Set the allocator up for graphmem, once per process (before the engine starts its threads); whether
    it was set (False on another C library, or when ``GRAPHMEM_MALLOC=default``)."""
    global _done
    if _LIBC is None or os.environ.get("GRAPHMEM_MALLOC", "").strip().lower() == "default":
        return False
    with _tuned:
        if not _done:
            _LIBC.mallopt(_M_ARENA_MAX, ARENAS)
            _LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
            _done = True
    return True


def release() -> None:
    """Hand the free memory the allocator keeps back to the system (~15 ms; nothing elsewhere)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def set_aside() -> bool:
    """Take what the process holds now out of the garbage collector's full passes (see above), once per
    process: what is garbage now is collected first, so nothing of it stays. Whether it was done now (False
    after the first time, when the process had set objects aside itself, or with ``GRAPHMEM_GC=default``).
    Objects set aside are still freed when nothing refers to them; only a reference cycle among them would
    stay."""
    global _set_aside
    if os.environ.get("GRAPHMEM_GC", "").strip().lower() == "default":
        return False
    with _tuned:
        if _set_aside or gc.get_freeze_count():  # (a process that sets objects aside itself knows which)
            return False
        _set_aside = True
    gc.collect()
    gc.freeze()
    return True
