"""Scheduled backups: copies named by time in a folder, the newest kept, the first one made at start."""

import os
import time

import pytest

from graphmem import InvalidInput, Memory
from graphmem.io import BackupSchedule


def test_each_copy_holds_what_was_acknowledged_and_only_the_newest_are_kept(tmp_path):
    with Memory.open(tmp_path / "memory.kuzu") as mem:
        schedule = BackupSchedule(mem, tmp_path / "backups", every_s=3600, keep=2)
        made = []
        for i in range(4):
            mem.record(content=f"event {i}", occurred_at="2025-11-27")
            made.append(schedule.take())
        kept = schedule.copies()
        assert [p.name for p in kept] == [os.path.basename(m.path) for m in made[-2:]]
        assert all(p.name.startswith("memory-") and p.suffix == ".kuzu" for p in kept)
        assert [m.events for m in made] == [1, 2, 3, 4]
    with Memory.open(kept[-1]) as newest:
        assert newest.stats().events == 4


def test_a_started_schedule_copies_at_once_unless_a_recent_copy_exists_and_stops_cleanly(tmp_path):
    with Memory.open(tmp_path / "memory.kuzu") as mem:
        mem.record(content="something worth keeping", occurred_at="2025-11-27")
        schedule = BackupSchedule(mem, tmp_path / "backups", every_s=3600, keep=3)
        schedule.start()
        deadline = time.monotonic() + 30
        while not schedule.copies() and time.monotonic() < deadline:
            time.sleep(0.05)
        schedule.stop()
        assert len(schedule.copies()) == 1
        again = BackupSchedule(mem, tmp_path / "backups", every_s=3600, keep=3)
        assert 3500 < again._due_in() <= 3600  # the copy just made is recent: the next is due in an hour
        again.start()
        again.stop()
        assert len(again.copies()) == 1


def test_a_schedule_is_refused_for_a_memory_in_memory_and_for_bad_settings(tmp_path):
    with pytest.raises(InvalidInput, match="in memory only"):
        BackupSchedule(Memory.in_memory(), tmp_path, every_s=60, keep=1)
    with Memory.open(tmp_path / "memory.kuzu") as mem:
        with pytest.raises(InvalidInput) as every:
            BackupSchedule(mem, tmp_path, every_s=0, keep=1)
        assert every.value.field == "every"
        with pytest.raises(InvalidInput) as keep:
            BackupSchedule(mem, tmp_path, every_s=60, keep=0)
        assert keep.value.field == "keep"
