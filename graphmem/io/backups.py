"""Backups taken on a schedule: a server's memory copied to a folder every so often, the newest few kept.

A server owns its database file (no other process may open it), so it is the one that copies it. Each copy
holds every write acknowledged before it began (see :meth:`graphmem.Memory.backup`); writes wait while the
file is copied (~0.2 s for 18 MB here), reads go on. A copy is named after the database and the UTC time it
was taken (``memory-20251127T031500Z.kuzu``); once a copy is made, the oldest beyond ``keep`` are deleted.
A failed copy (a full disk) is logged and tried again at the next turn; it never stops the server.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
from pathlib import Path

from graphmem.errors import GraphmemError, InvalidInput
from graphmem.memory import Backup, Memory

__all__ = ["BackupSchedule"]

log = logging.getLogger(__name__)


class BackupSchedule:
    """Copies of ``memory`` made in ``directory`` every ``every_s`` seconds, the newest ``keep`` kept. The
    first is made when the schedule starts unless the newest copy there is younger than ``every_s``.

    >>> import tempfile, os
    >>> folder = tempfile.TemporaryDirectory()
    >>> mem = Memory.open(os.path.join(folder.name, "memory.kuzu"))
    >>> schedule = BackupSchedule(mem, os.path.join(folder.name, "backups"), every_s=3600, keep=2)
    >>> Path(schedule.take().path).parent.name
    'backups'
    >>> mem.close(); folder.cleanup()
    """

    def __init__(self, memory: Memory, directory: str | Path, *, every_s: float, keep: int) -> None:
        if every_s <= 0:
            raise InvalidInput("backups need a positive interval; give the hours between two", field="every")
        if keep < 1:
            raise InvalidInput("backups keep at least one copy; give 1 or more", field="keep")
        path = memory.stats().path
        if path in ("", ":memory:"):
            raise InvalidInput("this memory lives in memory only: it has no file to back up", field="memory")
        self.memory = memory
        self.directory = Path(directory)
        self.every_s = every_s
        self.keep = keep
        self.stem = Path(path).name.removesuffix(".kuzu")
        self._pattern = re.compile(re.escape(self.stem) + r"-(\d{8}T\d{6}Z)(?:-(\d+))?\.kuzu")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def copies(self) -> list[Path]:
        """The copies in the folder, oldest first."""
        return [p for _, _, p in self._found()]

    def _found(self) -> list[tuple[str, int, Path]]:
        """Each copy in the folder with its time stamp and its number within that second, oldest first."""
        if not self.directory.is_dir():
            return []
        return sorted((m.group(1), int(m.group(2) or 0), p) for p in self.directory.iterdir()
                      if (m := self._pattern.fullmatch(p.name)))

    def take(self) -> Backup:
        """Make a copy now, then delete the oldest beyond ``keep``."""
        self.directory.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        taken = [n for at, n, _ in self._found() if at == stamp]
        # a second copy in one second is numbered after the last (the oldest may be deleted meanwhile)
        target = self.directory / (f"{self.stem}-{stamp}-{max(taken) + 1}.kuzu" if taken
                                   else f"{self.stem}-{stamp}.kuzu")
        made = self.memory.backup(target)
        for old in self.copies()[: -self.keep]:
            old.unlink(missing_ok=True)
        return made

    def _due_in(self) -> float:
        """Seconds until the next copy is due: the newest copy's age against the interval."""
        copies = self.copies()
        if not copies:
            return 0.0
        age = dt.datetime.now(dt.UTC).timestamp() - copies[-1].stat().st_mtime
        return max(0.0, self.every_s - age)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="graphmem-backups", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop taking copies (a copy under way finishes first)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        wait = self._due_in()
        while not self._stop.wait(wait):
            try:
                made = self.take()
                log.info("backed up %d events to %s (%.1f MB, %.2f s)", made.events, made.path,
                         made.bytes / 2**20, made.seconds)
            except (GraphmemError, OSError) as exc:
                log.error("backup to %s failed (tried again in %.0f s): %s", self.directory, self.every_s,
                          exc)
            wait = self.every_s
