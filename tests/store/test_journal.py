"""The write journal: numbered records that survive a crash, a torn tail cut off, emptied once applied."""

import os

from graphmem.store import journal as journal_module
from graphmem.store.journal import Journal


def _two_records(path, first: bytes, second: bytes) -> None:
    j = Journal(path)
    j.append(first)
    j.append(second)
    j.close()


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
    _two_records(path, b"kept", b"torn by a crash")
    size = os.path.getsize(path)
    os.truncate(path, size - 3)  # the crash came in the middle of the second append
    j = Journal(path)
    assert j.records() == [(1, b"kept")]
    assert j.append(b"next") == 2  # the torn record was never acknowledged: its number is free again
    assert Journal(path).records() == [(1, b"kept"), (2, b"next")]


def test_a_damaged_record_stops_the_reading(tmp_path):
    path = tmp_path / "db.journal"
    _two_records(path, b"first", b"second")
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # one flipped bit in the last payload: its checksum no longer matches
    path.write_bytes(bytes(data))
    assert Journal(path).records() == [(1, b"first")]


def test_the_file_is_emptied_once_everything_is_applied_and_rewritten_when_it_grows(tmp_path, monkeypatch):
    path = tmp_path / "db.journal"
    j = Journal(path)
    for i in range(3):
        j.append(b"x%d" % i)
    j.applied(2)  # record 3 still waits: the file stays
    assert [s for s, _ in Journal(path).records()] == [1, 2, 3]
    j.applied(3)
    assert os.path.getsize(path) == 0
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
