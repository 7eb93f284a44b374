"""The write journal: numbered records that survive a crash, a torn tail cut off, emptied once applied."""

import os

from graphmem.store import journal as journal_module
from graphmem.store.journal import Journal, parse_records


def _two_records(path, first: bytes, second: bytes) -> int:
    """Where the records end."""
    j = Journal(path)
    j.append(first)
    j.append(second)
    j.close()
    return parse_records(path.read_bytes())[1]


def _changed(path, at: int, new: bytes) -> None:
    data = bytearray(path.read_bytes())
    data[at : at + len(new)] = new
    path.write_bytes(bytes(data))


def test_records_come_back_in_order_and_numbering_goes_on_after_a_reopen(tmp_path):
    path = tmp_path / "db.journal"
    first = Journal(path)
    assert [first.append(b"a"), first.append(b""), first.append(b"c" * 10_000)] == [1, 2, 3]
    first.close()
    again = Journal(path, after=1)  # the database holds record 1 already
    assert again.records() == [(1, b"a"), (2, b""), (3, b"c" * 10_000)]
    assert again.append(b"d") == 4


def test_a_torn_record_at_the_end_is_cut_off_and_later_records_follow_the_intact_ones(tmp_path):
    path = tmp_path / "db.journal"
    end = _two_records(path, b"kept", b"torn by a crash")
    _changed(path, end - 3, bytes(3))  # the crash came in the middle of the second append
    j = Journal(path)
    assert j.records() == [(1, b"kept")]
    assert j.append(b"next") == 2  # the torn record was never acknowledged: its number is free again
    assert Journal(path).records() == [(1, b"kept"), (2, b"next")]


def test_a_damaged_record_stops_the_reading(tmp_path):
    path = tmp_path / "db.journal"
    end = _two_records(path, b"first", b"second")
    _changed(path, end - 1, b"\xff")  # a changed byte in the last payload: its checksum no longer matches
    assert Journal(path).records() == [(1, b"first")]


def test_the_file_is_emptied_once_everything_is_applied_and_rewritten_when_it_grows(tmp_path, monkeypatch):
    path = tmp_path / "db.journal"
    j = Journal(path)
    for i in range(3):
        j.append(b"x%d" % i)
    j.applied(2)  # record 3 still waits: the file stays
    assert [s for s, _ in Journal(path).records()] == [1, 2, 3]
    j.applied(3)
    assert Journal(path, after=3).records() == []
    assert j.append(b"after") == 4
    monkeypatch.setattr(journal_module, "COMPACT_BYTES", 10)
    j.append(b"y" * 100)
    j.applied(4)  # record 5 waits and the file is past its size: only record 5 is kept
    assert Journal(path).records() == [(5, b"y" * 100)]
    assert j.append(b"z") == 6
    assert [s for s, _ in Journal(path).records()] == [5, 6]


def test_without_a_file_records_are_numbered_only():
    j = Journal(None)
    assert (j.append(b"a"), j.append(b"b")) == (1, 2)
    assert j.records() == []


def test_appends_overwrite_zeros_the_file_already_has_and_it_grows_in_steps(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "GROW_BYTES", 4096)
    path = tmp_path / "db.journal"
    j = Journal(path)
    j.append(b"a")
    assert os.path.getsize(path) == 4096  # zeros follow the record
    for i in range(2, 7):
        j.append(bytes([i]) * 1000)
    assert os.path.getsize(path) == 8192  # grew once, by a step
    j.append(b"b" * 20_000)  # more than a step: to what it needs, in whole steps
    assert os.path.getsize(path) == 7 * 4096
    expected = [b"a", *(bytes([i]) * 1000 for i in range(2, 7)), b"b" * 20_000]
    assert [p for _, p in Journal(path).records()] == expected
    j.applied(7)
    j.close()
    assert Journal(path, after=7).records() == [] and os.path.getsize(path) == 4096  # reopened: space given back


def test_records_the_database_holds_are_not_read_again_when_their_zeroing_did_not_reach_the_disk(tmp_path):
    path = tmp_path / "db.journal"
    j = Journal(path)
    for i in range(3):
        j.append(b"applied %d" % i)
    before = path.read_bytes()
    j.applied(3)
    j.close()
    path.write_bytes(before)  # a crash lost the zeros: the file holds records 1-3, which the database holds
    again = Journal(path, after=3)
    assert again.records() == []
    assert again.append(b"new") == 4  # written at the start, over them
    assert Journal(path, after=3).records() == [(4, b"new")]
    assert parse_records(path.read_bytes())[0] == [(4, b"new")]  # what followed was zeroed at the open


def test_a_record_out_of_sequence_stops_the_reading(tmp_path):
    path = tmp_path / "db.journal"
    end = _two_records(path, b"one", b"two")
    stray = journal_module._record(5, b"five")  # e.g. left over from before, where a record ended
    _changed(path, end, stray)
    assert Journal(path).records() == [(1, b"one"), (2, b"two")]


def test_records_past_a_recovery_copy_are_kept_though_applied(tmp_path):
    path = tmp_path / "db.journal"
    j = Journal(path, keep_after=0)  # a copy taken before any record: every record stays
    for payload in (b"a", b"b", b"c"):
        j.append(payload)
    j.applied(3)
    assert [s for s, _ in j.records()] == [1, 2, 3]
    j.close()
    j = Journal(path, after=3, keep_after=0)  # a reopen keeps them too
    assert [s for s, _ in j.records()] == [1, 2, 3]
    j.keep_after(2)  # a new copy holds records 1 and 2
    assert j.records() == [(3, b"c")]
    assert j.append(b"d") == 4
    j.applied(4)
    j.keep_after(4)  # the copy holds them all: the file is emptied
    assert j.records() == [] and j.size == 0
    j.close()
    assert Journal(path, after=4, keep_after=4).records() == []


def test_without_a_recovery_copy_only_unapplied_records_are_kept(tmp_path):
    path = tmp_path / "db.journal"
    j = Journal(path, keep_after=0)
    j.append(b"a")
    j.append(b"b")
    j.applied(2)
    j.keep_after(None)  # the copy was dropped: nothing is kept for it
    assert j.records() == []


def test_a_writer_works_while_its_record_goes_to_disk_and_a_failure_there_leaves_no_record(tmp_path, monkeypatch):
    import pytest

    path = tmp_path / "db.journal"
    j = Journal(path)
    calls: list[str] = []
    started = journal_module._start_writeback
    monkeypatch.setattr(journal_module, "_start_writeback", lambda *a: (calls.append("start"), started(*a)))
    sync = os.fdatasync
    monkeypatch.setattr(os, "fdatasync", lambda fd: (calls.append("sync"), sync(fd)))
    with j.writing(b"one") as seq:
        calls.append(f"work on {seq}")  # the disk write started, the sync not done yet
    assert calls == ["start", "work on 1", "sync"]
    with pytest.raises(RuntimeError), j.writing(b"two"):
        raise RuntimeError("the writer's work failed")
    assert j.records() == [(1, b"one")] == parse_records(path.read_bytes())[0]
    assert j.append(b"three") == 2  # (its number is free again)
    with pytest.raises(OSError), monkeypatch.context() as failing:
        failing.setattr(os, "fdatasync", lambda fd: (_ for _ in ()).throw(OSError("disk gone")))
        j.append(b"four")
    assert parse_records(path.read_bytes())[0] == [(1, b"one"), (2, b"three")]
