"""The write journal: an append-only file of numbered records, synced to disk before a write is acknowledged.

A write lands here first (one record, one disk sync: ~0.1-0.4 ms) and reaches the graph database shortly
after, with the writes queued behind it, in one of the engine's transactions (which cost ~2 ms each however
little they hold). The database records the number of the last record it applied in that same transaction,
so after a crash the records past that number are applied again at the next open, exactly once.

A record is ``seq (8 bytes) | length (4) | crc32 of seq, length and payload (4) | payload``. A crash in the
middle of an append leaves a torn record at the end of the file; it was never acknowledged, and reading stops
before it (and cuts it off, so later appends do not follow garbage). Once every record is applied the file is
emptied; under a steady stream of writes it is rewritten with only the unapplied records when it grows past
``COMPACT_BYTES``.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Journal"]

_HEAD = struct.Struct("<QII")
COMPACT_BYTES = 64 * 2**20


def parse_records(data: bytes) -> tuple[list[tuple[int, bytes]], int]:
    """The intact records at the start of ``data`` and where they end (a torn or damaged record stops it)."""
    found: list[tuple[int, bytes]] = []
    at = 0
    while at + _HEAD.size <= len(data):
        seq, length, crc = _HEAD.unpack_from(data, at)
        end = at + _HEAD.size + length
        if end > len(data) or zlib.crc32(data[at + _HEAD.size : end], zlib.crc32(data[at : at + 12])) != crc:
            break
        found.append((seq, data[at + _HEAD.size : end]))
        at = end
    return found, at


def _record(seq: int, payload: bytes) -> bytes:
    head = struct.pack("<QI", seq, len(payload))
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head))) + payload


class Journal:
    """Numbered records in the file at ``path`` (``None``: numbered only, nothing kept on disk).

    >>> import tempfile, os
    >>> j = Journal(os.path.join(tempfile.mkdtemp(), "db.journal"))
    >>> j.append(b"first"), j.append(b"second")
    (1, 2)
    >>> [r for r in Journal(j.path).records()]
    [(1, b'first'), (2, b'second')]
    """

    def __init__(self, path: str | Path | None, *, after: int = 0) -> None:
        self.path = None if path is None else str(path)
        self._lock = threading.Lock()
        self._last = after  # the number of the last record appended (or applied)
        self._size = 0
        self._fd: int | None = None
        if self.path is not None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            self._size = os.fstat(self._fd).st_size

    def __del__(self) -> None:  # a journal dropped without close() (its memory was never closed)
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)  # type: ignore[arg-type]

    @property
    def last(self) -> int:
        return self._last

    def records(self) -> list[tuple[int, bytes]]:
        """The intact records in the file, in order; a torn tail is cut off."""
        if self._fd is None:
            return []
        with self._lock:
            data = os.pread(self._fd, self._size, 0)
            found, at = parse_records(data)
            if at < len(data):
                os.ftruncate(self._fd, at)
                os.fsync(self._fd)
                self._size = at
            if found:
                self._last = max(self._last, found[-1][0])
            return found

    def append(self, payload: bytes) -> int:
        """Add a record; returns its number once it is on disk."""
        with self._lock:
            seq = self._last + 1
            if self._fd is not None:
                record = _record(seq, payload)
                try:
                    written = os.write(self._fd, record)
                    if written != len(record):
                        raise OSError(f"short write to {self.path}: {written} of {len(record)} bytes")
                    os.fdatasync(self._fd)
                except OSError:  # a full or failing disk: cut off what part of it landed, acknowledge nothing
                    os.ftruncate(self._fd, self._size)
                    raise
                self._size += len(record)
            self._last = seq
            return seq

    def applied(self, through: int) -> None:
        """Records up to ``through`` reached the database: empty the file when no other waits, else rewrite it
        with only those that wait once it has grown past ``COMPACT_BYTES``."""
        if self._fd is None:
            return
        with self._lock:
            if self._last <= through:
                if self._size:
                    os.ftruncate(self._fd, 0)
                    self._size = 0
            elif self._size > COMPACT_BYTES:
                found, _ = parse_records(os.pread(self._fd, self._size, 0))
                self._rewrite([(s, p) for s, p in found if s > through])

    def _rewrite(self, keep: Sequence[tuple[int, bytes]]) -> None:
        assert self.path is not None and self._fd is not None
        fresh = self.path + ".new"
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"".join(_record(seq, payload) for seq, payload in keep))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(fresh, self.path)
        directory = os.open(os.path.dirname(self.path) or ".", os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        self._size = os.fstat(self._fd).st_size

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
