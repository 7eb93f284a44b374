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
