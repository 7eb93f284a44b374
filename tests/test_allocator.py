"""The C allocator set up for graphmem: large blocks mapped on their own even after a larger one was freed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from graphmem import allocator

glibc = pytest.mark.skipif(allocator._LIBC is None, reason="glibc's allocator only")

# In a fresh process: free a 16 MiB block (under glibc's defaults that lifts the mapping threshold past
# 1 MiB), then print whether a new 1 MiB block got a mapping of its own.
_PROBE = textwrap.dedent("""
    import ctypes, sys
    from graphmem import allocator
    if sys.argv[1] == "tuned":
        assert allocator.tune()
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    class Info(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in
                    "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
    libc.mallinfo2.restype = Info
    libc.free(libc.malloc(16 << 20))
    before = libc.mallinfo2().hblkhd
    block = libc.malloc(1 << 20)
    print(libc.mallinfo2().hblkhd - before >= 1 << 20)
    libc.free(block)
""")


def _mapped_after_a_large_free(mode: str) -> bool:
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


@glibc
def test_tuned_allocator_maps_large_blocks_after_a_larger_one_was_freed() -> None:
    assert _mapped_after_a_large_free("tuned")
    assert not _mapped_after_a_large_free("default")  # the sliding threshold the tuning fixes


def test_default_setting_leaves_the_allocator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_MALLOC", "default")
    assert allocator.tune() is False


@glibc
def test_tune_is_idempotent_and_release_returns_memory() -> None:
    assert allocator.tune() and allocator.tune()
    allocator.release()


# In a fresh process: a reference cycle dropped before a memory builds its pipeline, the number of objects
# set aside after, and whether a cycle dropped after that is collected.
_SET_ASIDE_PROBE = textwrap.dedent("""
    import gc, weakref
    from graphmem import Memory
    class Node:
        pass
    def cycle():
        node = Node()
        node.me = node
        return weakref.ref(node)
    before = cycle()
    memory = Memory.in_memory(embedder="none")
    memory.extractor
    frozen = gc.get_freeze_count()
    after = cycle()
    gc.collect()
    Memory.in_memory(embedder="none").extractor  # (once per process)
    print(before() is None, frozen, after() is None, gc.get_freeze_count() <= frozen)
""")


def _set_aside(env: dict[str, str]) -> list[str]:
    import os

    out = subprocess.run([sys.executable, "-c", _SET_ASIDE_PROBE], capture_output=True, text=True, check=True,
                         env=os.environ | env)
    return out.stdout.split()


def test_a_first_pipeline_sets_the_heap_aside_from_full_collections_once() -> None:
    collected_first, frozen, collected_after, once = _set_aside({"GRAPHMEM_GC": ""})
    assert collected_first == "True" and int(frozen) > 20_000  # the modules: nothing of the garbage before
    assert collected_after == "True" and once == "True"  # what is made after is collected as before
    assert _set_aside({"GRAPHMEM_GC": "default"})[1] == "0"
