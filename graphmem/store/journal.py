"""The write journal: numbered records in a file, synced to disk before a write is acknowledged.

A write lands here first (one record, one disk sync: ~0.1-0.4 ms) and reaches the graph database shortly
after, with the writes queued behind it, in one of the engine's transactions (which cost ~2 ms each however
little they hold). The database records the number of the last record it applied in that same transaction,
so after a crash the records past that number are applied again at the next open, exactly once.

A record is ``seq (8 bytes) | length (4) | crc32 of seq, length and payload (4) | payload``; each record's
number is one more than the one before it. The records sit at the start of the file and zeros follow them:
the file grows ahead of the records, in zero-filled steps of ``GROW_BYTES`` or more, so an append overwrites
space the file already has and its sync writes that data alone. An append that made the file longer would
also change the file system's own records of it, and its sync would wait for those: 1.4 times as long on a
quiet disk, up to twice as long with the database writing beside it.

Reading stops at the first record that is torn (a crash in the middle of an append: it was never
acknowledged), damaged or out of sequence, or at the zeros; what follows is zeroed at the next open, so later
appends do not follow garbage. Once every record is applied the records are zeroed and the next append starts
at the beginning again; under a steady stream of writes the file is rewritten with only the unapplied
records once they reach ``COMPACT_BYTES``.

A journal that keeps records ``keep_after`` a number holds every record past it even once applied: those
are what a recovery copy of the database taken at that number lacks (see store/recovery.py). Only records up
to both numbers are dropped.

A writer may do work of its own while its record goes to disk (:meth:`Journal.writing`): on Linux the disk
write starts as soon as the record is in the file, and the sync then waits only for what is left of it. With
~50 us of work between, a sync here took ~70 us instead of ~105 (a busy loop in place of the work); records
written one by one with extraction on one core (the store's work for a write, ~35 us, in between) waited
~160 us in the sync instead of ~225, time the core mostly stood idle.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import sys
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

__all__ = ["Journal", "replace_synced"]

_HEAD = struct.Struct("<QII")
COMPACT_BYTES = 64 * 2**20
GROW_BYTES = 2**20


def parse_records(data: bytes) -> tuple[list[tuple[int, bytes]], int]:
    """The intact records at the start of ``data`` and where they end (a torn, damaged or out-of-sequence
    record stops it, as do the zeros after the last)."""
    found: list[tuple[int, bytes]] = []
    at = 0
    while at + _HEAD.size <= len(data):
        seq, length, crc = _HEAD.unpack_from(data, at)
        end = at + _HEAD.size + length
        if end > len(data) or zlib.crc32(data[at + _HEAD.size : end], zlib.crc32(data[at : at + 12])) != crc:
            break
        if found and seq != found[-1][0] + 1:
            break
        found.append((seq, data[at + _HEAD.size : end]))
        at = end
    return found, at


def replace_synced(fresh: str | Path, target: str | Path) -> None:
    """Put the file ``fresh`` in the place of ``target`` so that a crash leaves one or the other, whole: its
    data on disk first, then the rename, then the folder's record of it."""
    fd = os.open(fresh, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(fresh, target)
    directory = os.open(os.path.dirname(os.path.abspath(target)), os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _writeback_starter() -> Callable[[int, int, int], object]:
    """``start(fd, offset, length)``: start writing that range of a file to disk, not waiting for it
    (Linux's sync_file_range, SYNC_FILE_RANGE_WRITE); elsewhere it does nothing and the sync does it all."""
    if sys.platform.startswith("linux"):
        try:
            call = ctypes.CDLL(None, use_errno=True).sync_file_range
        except (OSError, AttributeError):
            pass
        else:
            call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
            call.restype = ctypes.c_int
            write = 2  # SYNC_FILE_RANGE_WRITE
            return lambda fd, offset, length: call(fd, offset, length, write)  # (a failure: the sync does it)
    return lambda fd, offset, length: None


_start_writeback = _writeback_starter()


def _record(seq: int, payload: bytes) -> bytes:
    head = struct.pack("<QI", seq, len(payload))
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head))) + payload


class Journal:
    """Numbered records in the file at ``path`` (``None``: numbered only, nothing kept on disk).

    >>> import tempfile, os
    >>> folder = tempfile.TemporaryDirectory()
    >>> j = Journal(os.path.join(folder.name, "db.journal"))
    >>> j.append(b"first"), j.append(b"second")
    (1, 2)
    >>> [r for r in Journal(j.path).records()]
    [(1, b'first'), (2, b'second')]
    >>> j.close(); folder.cleanup()
    """

    def __init__(self, path: str | Path | None, *, after: int = 0, keep_after: int | None = None) -> None:
        self.path = None if path is None else str(path)
        self._lock = threading.Lock()
        self._last = after  # the number of the last record appended (or applied)
        self._applied = after  # the number of the last record the database holds
        self._keep_after = keep_after  # records past it are kept though applied (None: none are)
        self._first = 0  # the number of the first record in the file (0: none)
        self._size = 0  # where the records end
        self._capacity = 0  # the file's size: zeros from _size on
        self._fd: int | None = None
        if self.path is not None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._open()

    def _open(self) -> None:
        """Find where the records end; zero what follows them (a torn record, or records applied already)."""
        assert self._fd is not None
        self._capacity = os.fstat(self._fd).st_size
        data = os.pread(self._fd, self._capacity, 0)
        found, self._size = parse_records(data)
        if found and found[-1][0] <= self._droppable():  # none is needed: start again at the beginning
            self._size = 0
        elif found:
            self._last = max(self._last, found[-1][0])
            self._first = found[0][0]
        changed = False
        garbage = len(data.rstrip(b"\0"))
        if garbage > self._size:
            os.pwrite(self._fd, bytes(garbage - self._size), self._size)
            changed = True
        if self._size == 0 and self._capacity > GROW_BYTES:  # the space a burst of writes took: given back
            os.ftruncate(self._fd, GROW_BYTES)
            self._capacity, changed = GROW_BYTES, True
        if changed:
            os.fsync(self._fd)

    def __del__(self) -> None:  # a journal dropped without close() (its memory was never closed)
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)  # type: ignore[arg-type]

    @property
    def last(self) -> int:
        return self._last

    @property
    def size(self) -> int:
        """Bytes the records take."""
        return self._size

    def _droppable(self) -> int:
        """Records up to this number are neither waiting for the database nor kept for a recovery copy."""
        return self._applied if self._keep_after is None else min(self._applied, self._keep_after)

    def records(self) -> list[tuple[int, bytes]]:
        """The intact records in the file, in order."""
        if self._fd is None:
            return []
        with self._lock:
            return parse_records(os.pread(self._fd, self._size, 0))[0]

    def append(self, payload: bytes) -> int:
        """Add a record; returns its number once it is on disk."""
        with self.writing(payload) as seq:
            return seq

    @contextlib.contextmanager
    def writing(self, payload: bytes) -> Iterator[int]:
        """Add a record, on disk when the block ends; the block runs while it goes there (the writer's work
        that shows nothing of it to anyone yet) and gets its number. A failing disk, or the block raising,
        leaves no record: what part of it landed is zeroed. Other records wait for the block."""
        with self._lock:
            seq = self._last + 1
            if self._fd is None:
                yield seq
                self._last = seq
                return
            record = _record(seq, payload)
            try:
                if self._size + len(record) > self._capacity:
                    self._grow(self._size + len(record))
                written = os.pwrite(self._fd, record, self._size)
                if written != len(record):
                    raise OSError(f"short write to {self.path}: {written} of {len(record)} bytes")
                _start_writeback(self._fd, self._size, len(record))
                yield seq
                os.fdatasync(self._fd)
            except BaseException:  # acknowledge nothing
                with contextlib.suppress(OSError):
                    os.pwrite(self._fd, bytes(len(record)), self._size)
                raise
            if not self._size:
                self._first = seq
            self._size += len(record)
            self._last = seq

    def _grow(self, needed: int) -> None:
        """Zeros added to the file until it holds ``needed`` bytes: at least ``GROW_BYTES``, or as much as it
        had (up to 16 steps), so a busy journal grows rarely."""
        assert self._fd is not None
        step = min(max(GROW_BYTES, self._capacity), 16 * GROW_BYTES)
        size = -(-max(needed, self._capacity + step) // GROW_BYTES) * GROW_BYTES
        os.pwrite(self._fd, bytes(size - self._capacity), self._capacity)
        os.fsync(self._fd)
        self._capacity = size

    def applied(self, through: int) -> None:
        """Records up to ``through`` reached the database: zero them when no other waits or is kept, else
        rewrite the file with only those once the records have grown past ``COMPACT_BYTES``."""
        with self._lock:
            self._applied = max(self._applied, through)
            self._drop(compact_at=COMPACT_BYTES)

    def keep_after(self, seq: int | None) -> None:
        """Keep the records past ``seq`` though applied (a recovery copy holds those up to it; ``None``: keep
        none); those up to it go now."""
        with self._lock:
            self._keep_after = seq
            self._drop(compact_at=0)

    def _drop(self, *, compact_at: int) -> None:
        """Records no longer needed leave the file (the lock held): all of them zeroed, or the file rewritten
        without them once the records take more than ``compact_at`` bytes."""
        if self._fd is None or not self._size:
            return
        bound = self._droppable()
        if self._last <= bound:
            # not synced: the next append's sync takes these zeros to disk with it, and until then a crash
            # leaves records the database (and any recovery copy) holds, which the next open zeroes
            os.pwrite(self._fd, bytes(self._size), 0)
            self._size = self._first = 0
        elif self._first <= bound and self._size > compact_at:
            found, _ = parse_records(os.pread(self._fd, self._size, 0))
            self._rewrite([(s, p) for s, p in found if s > bound])

    def _rewrite(self, keep: Sequence[tuple[int, bytes]]) -> None:
        assert self.path is not None and self._fd is not None
        fresh = self.path + ".new"
        kept = b"".join(_record(seq, payload) for seq, payload in keep)
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, kept + bytes(GROW_BYTES))
        finally:
            os.close(fd)
        replace_synced(fresh, self.path)
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_RDWR)
        self._size, self._capacity = len(kept), os.fstat(self._fd).st_size
        self._first = keep[0][0] if keep else 0

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
