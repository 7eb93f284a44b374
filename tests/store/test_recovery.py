"""The recovery copy: a database the engine cannot open is made again from its copy and the journal."""

import datetime as dt
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphmem import Memory, StoreError, StoreLocked
from graphmem.store import kuzu_store, recovery
from graphmem.store.journal import Journal, parse_records
from graphmem.store.port import SourceCursor, WriteBatch
from graphmem.store.recovery import RecoveryCopy


def _events(n: int, tag: str) -> list[dict]:
    return [{"content": f"{tag} note {i}", "occurred_at": "2025-11-27", "entities": [f"topic {i % 3}"]}
            for i in range(n)]


def _unreadable(path: Path) -> None:
    """What the engine finds after a kill in the middle of its checkpoint, as far as opening goes: a file
    it refuses."""
    with open(path, "r+b") as f:
        f.write(os.urandom(4096))


def _journalled(path: Path) -> list[int]:
    return [seq for seq, _ in parse_records(Path(str(path) + ".journal").read_bytes())[0]]


def test_a_memory_on_disk_keeps_a_copy_from_its_first_open(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False):
        copy = RecoveryCopy(str(path))
        assert copy.exists() and copy.mark() == 0
    with Memory.open(path, extract=False, recovery=False) as mem:  # turned off: the copy goes
        assert not RecoveryCopy(str(path)).exists()
        mem.record(content="a note", occurred_at="2025-11-27")
    assert _journalled(path) == []  # applied, and nothing kept
    with Memory.open(path, extract=False):  # on again: a copy of the memory as it is
        assert RecoveryCopy(str(path)).mark() == 1


@pytest.mark.slow
def test_a_database_the_engine_cannot_open_is_made_again_with_every_acknowledged_write(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        small = [mem.record(**e).id for e in _events(5, "small")]
        bulk = [r.id for r in mem.record_many(_events(400, "bulk"))]  # the engine's directly, journalled too
        state = mem.assert_state("Peter", "lives_in", "Lisbon", valid_from="2025-11-27", evidence=[small[0]])
        assert _journalled(path) == [1, 2, 3, 4, 5, 6, 7]
    _unreadable(path)
    with Memory.open(path, extract=False) as mem:
        assert mem.store.restored_from == [f"{path}.broken-{mem.store.restored_from[0].rsplit('-', 1)[1]}"]
        assert Path(mem.store.restored_from[0]).exists()  # kept for inspection
        held = {e.id: e.content for e in mem.get(small + bulk)}
        assert [held[i] for i in small] == [f"small note {i}" for i in range(5)]
        assert len(bulk) == 400 and all(i in held for i in bulk)
        assert mem.stats().events == 405
        assert [s.id for s in mem.as_of("2025-11-30").states(subject="Peter")] == [state.id]
        later = mem.record(content="after the restore", occurred_at="2025-11-28").id
    with Memory.open(path, extract=False) as mem:  # a sound database again: it opens as usual
        assert mem.store.restored_from == []
        assert mem.get([later])[0].content == "after the restore"


def test_where_readers_stopped_is_journalled_and_made_again_with_the_database(tmp_path):
    path = tmp_path / "m.kuzu"
    at = dt.datetime(2025, 11, 27, tzinfo=dt.UTC)
    with Memory.open(path, extract=False) as mem:
        mem.record(content="a line read from a log", occurred_at="2025-11-27")
        mem.save_cursors([SourceCursor(key="sessions:a", digest="d1", offset=10, line=1, updated_at=at),
                          SourceCursor(key="sessions:b", digest="d2", offset=20, line=2, updated_at=at)])
        mem.save_cursors([SourceCursor(key="sessions:a", digest="d3", offset=30, line=3, updated_at=at)])
        assert _journalled(path) == [1, 2, 3]
    _unreadable(path)
    with Memory.open(path, extract=False) as mem:
        assert mem.store.restored_from
        assert [(c.key, c.offset, c.line) for c in mem.cursors("sessions:")] == [("sessions:a", 30, 3),
                                                                                  ("sessions:b", 20, 2)]


def test_a_journal_record_written_before_a_batch_field_existed_is_replayed(tmp_path):
    """A record pickled by a version of graphmem whose write batch lacked a field (here: the cursors), left
    unapplied by a crash, is applied at the next open."""
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        ev = mem.record(content="a note", occurred_at="2025-11-27").event
    older = WriteBatch(events=[ev.model_copy(update={"id": "evt_older", "content_hash": "older"})])
    del older.__dict__["cursors"]
    journal_path = Path(str(path) + ".journal")
    records = parse_records(journal_path.read_bytes())[0]
    journal_path.unlink()
    journal = Journal(str(journal_path))
    for _, payload in records:
        journal.append(payload)
    journal.append(pickle.dumps(older))
    journal.close()
    with Memory.open(path, extract=False) as mem:
        assert mem.get(["evt_older"])[0].content == "a note"
        assert mem.stats().events == 2


def test_a_write_batch_is_journalled_without_its_empty_fields_and_read_back_whole():
    batch = WriteBatch(in_thread=[("ev_a", "notes")], mentions=[("ev_a", "en_peter")])
    payload = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"retractions" not in payload  # (one of the 20 fields it leaves empty)
    back = pickle.loads(payload)
    assert back == batch and back.retractions == [] and len(back) == 2
    back.retractions.append("x")  # each empty field a list of its own
    assert pickle.loads(payload).retractions == [] and back.confirmations == []


def test_a_missing_database_is_not_made_anew_beside_the_copy_and_journal_of_the_one_that_was_there(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        first = mem.record(content="before the copy", occurred_at="2025-11-27").id
    with Memory.open(path, extract=False) as mem:
        later = mem.record(content="after the copy", occurred_at="2025-11-28").id
    path.unlink()
    for recovery in (True, False):
        with pytest.raises(StoreError, match="does not exist, but files of the database that was there do") as err:
            Memory.open(path, extract=False, recovery=recovery)
        assert f"{path}.recovery" in str(err.value) and f"{path}.journal" in str(err.value)
        assert not path.exists() and RecoveryCopy(str(path)).exists()  # nothing made, nothing deleted
    Path(f"{path}.recovery").rename(path)  # the remedy the error names: the copy put back
    Path(f"{path}.recovery.mark").unlink()
    with Memory.open(path, extract=False) as mem:
        assert {e.content for e in mem.get([first, later])} == {"before the copy", "after the copy"}
    for name in (path, *(Path(f"{path}{x}") for x in (".journal", ".recovery", ".recovery.mark", ".index"))):
        if name.is_dir():
            shutil.rmtree(name)
        elif name.exists():
            name.unlink()
    with Memory.open(path, extract=False) as mem:  # all gone: a new database
        assert mem.stats().events == 0


CRASHING_WRITER = """
import os, sys
from graphmem import Memory
mem = Memory.open(sys.argv[1], extract=False)
for i in range(20):
    print(mem.record(content=f"note {i}", occurred_at="2025-11-27").id, flush=True)
mem.store.settle()  # in the engine's log, not yet folded into its file
os._exit(0)  # no close: as if killed
"""


def _crashed(path: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert RecoveryCopy(str(path)).unclean()
    return done.stdout.split()


@pytest.mark.slow
def test_after_an_unclean_stop_the_engine_is_tried_apart_before_the_copy_is_used(tmp_path):
    path = tmp_path / "m.kuzu"
    acked = _crashed(path)
    with Memory.open(path, extract=False) as mem:  # the engine replays its own log: nothing to restore
        assert mem.store.restored_from == []
        assert [e.content for e in mem.get(acked)] == [f"note {i}" for i in range(20)]
    broken = tmp_path / "broken.kuzu"
    acked = _crashed(broken)
    _unreadable(broken)
    with Memory.open(broken, extract=False) as mem:  # the trial open failed: made again from the copy
        assert len(mem.store.restored_from) == 2  # the file and the engine's log
        assert [e.content for e in mem.get(acked)] == [f"note {i}" for i in range(20)]


TAMPERING_WRITER = """
import os, sys
from graphmem import Memory
from graphmem.store import kuzu_store
mem = Memory.open(sys.argv[1], extract=False)
ids = [mem.record(content=f"note {i}", occurred_at="2025-11-27").id for i in range(20)]
store = mem.store
store.settle()
if sys.argv[2] == "rows-lost":  # the engine keeps the marks of writes whose rows it lost
    store._run(store._writer, "MATCH (e:Event {id: $id}) DETACH DELETE e", {"id": ids[3]})
else:  # it keeps the rows of writes whose marks it lost
    store._run(store._writer, kuzu_store._MARK, {"seq": 12})
print(" ".join(ids), flush=True)
os._exit(0)  # no close: as if killed
"""


def _tampered(path: Path, how: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", TAMPERING_WRITER, str(path), how], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


@pytest.mark.slow
def test_after_an_unclean_stop_writes_the_engine_lost_are_found_and_the_copy_used(tmp_path):
    path = tmp_path / "m.kuzu"
    acked = _tampered(path, "rows-lost")
    with Memory.open(path, extract=False) as mem:
        assert mem.store.restored_from  # the file opened, but lacked an event its mark said it held
        assert [e.content for e in mem.get(acked)] == [f"note {i}" for i in range(20)]


@pytest.mark.slow
def test_writes_held_without_their_mark_are_not_applied_twice(tmp_path):
    path = tmp_path / "m.kuzu"
    acked = _tampered(path, "mark-lost")
    with Memory.open(path, extract=False) as mem:
        assert mem.store.restored_from == []  # consistent: records 13-20 held, marked now
        assert [e.content for e in mem.get(acked)] == [f"note {i}" for i in range(20)]
        assert mem.stats().events == 20
    assert not Path(str(path) + ".journal.rejected").exists()


def test_a_copy_the_engine_cannot_open_either_is_not_put_in_place(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        mem.record(content="a note", occurred_at="2025-11-27")
    _unreadable(path)
    _unreadable(Path(str(path) + ".recovery"))
    with pytest.raises(StoreError, match="nor its recovery copy"):
        Memory.open(path, extract=False)
    assert sorted(p.name for p in tmp_path.iterdir() if "broken" in p.name) == []


def test_a_new_copy_is_taken_once_the_journal_outgrows_the_last(tmp_path, monkeypatch):
    monkeypatch.setattr(recovery, "RECOVERY_MIN_BYTES", 0)
    monkeypatch.setattr(recovery, "RECOVERY_SHARE", 0.0)  # any kept record is reason enough
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        mem.record_many(_events(400, "bulk"))
        mem.store.settle()
        deadline = time.monotonic() + 30  # the applier takes the next copy once it has applied the write
        while (RecoveryCopy(str(path)).mark(), _journalled(path)) != (1, []) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert RecoveryCopy(str(path)).mark() == 1 and _journalled(path) == []
        mem.record(content="a note", occurred_at="2025-11-27")
        mem.store.settle()  # the applier takes the next copy once it has applied the write
        deadline = time.monotonic() + 30
        while (RecoveryCopy(str(path)).mark(), _journalled(path)) != (2, []) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert RecoveryCopy(str(path)).mark() == 2 and _journalled(path) == []


def test_a_bulk_write_the_engine_refuses_once_acknowledged_is_applied_by_the_next_open(tmp_path, monkeypatch):
    """A large write is acknowledged once journalled, like a small one; when the engine then refuses it (here a
    failure of its own), the store stops taking writes and the next open applies it."""
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        mem.record(content="kept", occurred_at="2025-11-27")
        mem.store.settle()

        def refused(*args, **kwargs):
            raise StoreError("refused")

        monkeypatch.setattr(mem.store, "_write_in_transaction", refused)
        made = mem.record_many(_events(400, "refused"))
        assert {r.status for r in made} == {"created"}
        with pytest.raises(StoreError, match="journal record 2\\) could not be applied.*close and reopen"):
            mem.store.settle()
        monkeypatch.undo()
        assert _journalled(path) == [1, 2]
    with Memory.open(path, extract=False) as mem:
        assert mem.stats().events == 401


def test_removed_events_leave_the_journal_and_a_new_copy_is_taken(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        gone = mem.record(content="the albatross-crocodile plan", occurred_at="2025-11-27").id
        mem.record(content="another note", occurred_at="2025-11-27")
        mem.store.settle()
        assert b"albatross" in Path(str(path) + ".journal").read_bytes()
        mem.remove_events([gone], approved_by="ana", reason="asked to forget", only_expired=False)
        assert b"albatross" not in Path(str(path) + ".journal").read_bytes()
        assert RecoveryCopy(str(path)).mark() == mem.store._mark(mem.store._writer)
    _unreadable(path)
    with Memory.open(path, extract=False) as mem:
        assert mem.store.restored_from and mem.get([gone]) == []


def test_copies_keep_the_database_locked_against_other_processes(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False) as mem:
        mem.record(content="a note", occurred_at="2025-11-27")
        mem.backup(tmp_path / "backup.kuzu")
        mem.store._take_recovery_copy()
        code = ("import sys\nfrom graphmem import Memory, StoreLocked\n"
                "try:\n    Memory.open(sys.argv[1])\nexcept StoreLocked as e:\n    print(e.code)\n")
        out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60,
                             check=False)
    assert out.stdout.strip() == StoreLocked.code, out.stderr[-2000:]


def test_a_read_only_open_neither_takes_nor_uses_a_copy(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False, recovery=False):
        pass
    store = kuzu_store.KuzuStore(path, read_only=True)
    store.close()
    assert not RecoveryCopy(str(path)).exists()


def test_the_trial_open_tells_a_crash_a_refusal_and_a_held_lock_apart(tmp_path, monkeypatch):
    path = str(tmp_path / "m.kuzu")
    monkeypatch.setattr(kuzu_store, "_PROBE", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert kuzu_store._probe(path, 64) == f"the engine crashed opening it (exit {-11})"
    refusing = "import sys; print('not a valid file', file=sys.stderr); sys.exit(1)"
    monkeypatch.setattr(kuzu_store, "_PROBE", refusing)
    assert kuzu_store._probe(path, 64) == "not a valid file"
    monkeypatch.setattr(kuzu_store, "_PROBE", "import sys; sys.exit(3)")  # another process holds it
    assert kuzu_store._probe(path, 64) is None
