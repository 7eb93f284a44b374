"""The recovery copy: a copy of the database file, and the journal records written since, from which the
database is made again when the engine cannot open it.

The engine (Kuzu 0.11.3) cannot always open a database whose writing process was killed while it folded its
write-ahead log into the file (bench/crash_soak.py: after 5 to 18 kills of a busy writer): it finds a key
stored twice while replaying the log, or crashes; or it opens one that lacks the rows of the write under way
while keeping that write's mark. Nothing in those files can be trusted to repair it. So beside a database
``<path>`` graphmem keeps ``<path>.recovery``, a copy of the file taken while the engine held exactly the
journal records up to a number (its mark, in ``<path>.recovery.mark`` and in the copy's own journal mark),
and the journal keeps every record after that number even once applied (see store/journal.py). When the
database will not open, or opens without events the journal says it holds (the store checks after an
unclean stop), its files are moved aside (``<path>.broken-<UTC time>``, with the engine's log beside them),
the copy is put in its place, and the usual replay of the journal applies every acknowledged write since.

A copy is taken when a database has none, and again once the journal's kept records reach
``RECOVERY_SHARE`` of the copy's size (at least ``RECOVERY_MIN_BYTES``): the copy is rewritten about every
time the memory grows by that much again, and a restore replays at most that much. Removing or masking
events takes a fresh copy at once, and their journal records go: the copy then holds no more of them than
the database file does (the engine leaves a removed row's bytes in pages it has not reused yet). A memory
opened without a copy deletes the one it had, whose journal records it does not keep. Where the database file
is missing, a copy (or journal records) left beside it belongs to the database that was there: the store
refuses to make a new one in its place until they are deleted (or the copy is put back, which restores it).
"""

from __future__ import annotations

import datetime as dt
import errno
import logging
import os
from contextlib import suppress
from pathlib import Path

from graphmem.store.journal import parse_records, replace_synced

__all__ = ["RECOVERY_MIN_BYTES", "RECOVERY_SHARE", "RecoveryCopy", "copy_whole", "left_by_a_gone_database"]

log = logging.getLogger(__name__)

RECOVERY_MIN_BYTES = 64 * 2**20
RECOVERY_SHARE = 0.5
# the engine's files beside the database file: its log, and the pages of a checkpoint under way
ENGINE_FILES = (".wal", ".shadow")
COPY_STEP = 2**20  # bytes copied at a time where the kernel cannot copy the file itself


def left_by_a_gone_database(path: str) -> list[str]:
    """Where no database file is at ``path``: the files beside it of the one that was there (its recovery
    copy, and its journal when that holds records), which a new database must not take for its own."""
    if os.path.exists(path):
        return []
    left = [p for p in RecoveryCopy(path).files() if os.path.exists(p)]
    journal = path + ".journal"
    if os.path.exists(journal):
        with open(journal, "rb") as f:
            if parse_records(f.read())[0]:
                left.append(journal)
    return left


def copy_whole(source: int, dest: str | Path) -> None:
    """Copy the file open as ``source`` in place of ``dest``, whole: into ``<dest>.partial``, put in place as
    the journal's rewrite is (see replace_synced); a failed copy leaves ``dest`` as it was and no partial.
    The engine locks its database file against other processes with a lock that any close of that file in
    this process releases (POSIX record locks): a copy must read it through a descriptor held open for as
    long as the engine holds the file, never open and close it."""
    partial = f"{os.fspath(dest)}.partial"
    try:
        _copy(source, partial)
        replace_synced(partial, dest)
    finally:
        with suppress(OSError):
            os.remove(partial)


def _copy(source: int, dest: str) -> None:
    size = os.fstat(source).st_size
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        at = 0
        in_kernel = hasattr(os, "copy_file_range")
        while at < size:
            if in_kernel:
                try:
                    sent = os.copy_file_range(source, fd, size - at, at)
                except OSError as exc:  # (another file system, or a kernel without it)
                    if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
                        raise
                    in_kernel = False
                    continue
            else:
                sent = os.write(fd, os.pread(source, min(COPY_STEP, size - at), at))
            if not sent:
                raise OSError(f"the database file ended at {at} of {size} bytes while copying it")
            at += sent
    finally:
        os.close(fd)


class RecoveryCopy:
    """The recovery copy of the database file at ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.copy_path = path + ".recovery"
        self.mark_path = path + ".recovery.mark"

    def exists(self) -> bool:
        return os.path.exists(self.copy_path)

    def mark(self) -> int | None:
        """The number of the last journal record the copy holds (``None``: no copy, or its mark is lost, as
        when a crash came between writing the two)."""
        if not self.exists():
            return None
        try:
            with open(self.mark_path) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def size(self) -> int:
        try:
            return os.path.getsize(self.copy_path)
        except OSError:
            return 0

    def due(self, kept_bytes: int) -> bool:
        """Whether a new copy is worth taking, the journal keeping ``kept_bytes`` of records for this one."""
        return not self.exists() or kept_bytes > max(RECOVERY_MIN_BYTES, RECOVERY_SHARE * self.size())

    def unclean(self) -> bool:
        """Whether the engine's files say its last process stopped without closing the database (a log left
        with writes in it, or a checkpoint's pages): only then may the engine fail to open it."""
        for suffix in ENGINE_FILES:
            with suppress(OSError):
                if os.path.getsize(self.path + suffix):
                    return True
        return False

    def take(self, source: int, mark: int) -> None:
        """Copy the database file, open as ``source``, which holds exactly the journal records up to ``mark``
        (its engine idle, its log folded in), and record ``mark``: the copy first, then the mark, each put in
        place whole. A crash between the two leaves the new copy with the old mark, which keeps more records
        than needed."""
        copy_whole(source, self.copy_path)
        written = self.mark_path + ".partial"
        try:
            with open(written, "w") as f:
                f.write(f"{mark}\n")
            replace_synced(written, self.mark_path)
        finally:
            with suppress(OSError):
                os.remove(written)

    def files(self) -> tuple[str, str]:
        """The copy's files: its mark first."""
        return self.mark_path, self.copy_path

    def drop(self) -> None:
        """Delete the copy (the mark first: a copy without one is never trusted for its mark)."""
        for name in self.files():
            with suppress(FileNotFoundError):
                os.remove(name)

    def restore(self) -> list[str]:
        """Move the database's files aside and put a copy of the recovery copy in their place; returns the
        names the files were moved to."""
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        moved = []
        for suffix in ("", *ENGINE_FILES):
            if os.path.exists(self.path + suffix):
                aside = f"{self.path}.broken-{stamp}{suffix}"
                os.replace(self.path + suffix, aside)
                moved.append(aside)
        fd = os.open(self.copy_path, os.O_RDONLY)
        try:
            copy_whole(fd, self.path)
        finally:
            os.close(fd)
        return moved
