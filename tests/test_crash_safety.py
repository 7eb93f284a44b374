"""Kill -9 in the middle of ingesting: every event whose record() returned is there, intact, exactly once."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from graphmem import Memory

WRITER = textwrap.dedent(
    """
    import sys
    from graphmem import Memory
    mem = Memory.open(sys.argv[1])
    i = 0
    while True:
        r = mem.record(content=f"event number {i} " + "x" * 150, occurred_at="2025-11-27", agent_id="writer",
                       thread="crash", entities=[f"entity {i % 7}"])
        print(r.id, i, flush=True)
        i += 1
    """
)


def _killed_after(writer: str, path, lines: int) -> tuple[list[str], int]:
    """The first ``lines`` lines the ``writer`` script printed (one per acknowledged write) before it was
    killed with SIGKILL right after the test read them, and how many it had printed in all: it may have run a
    few writes ahead of the test's reading (each acknowledged too, in the pipe still)."""
    proc = subprocess.Popen([sys.executable, "-c", writer, str(path)], stdout=subprocess.PIPE, text=True)
    printed: list[str] = []
    try:
        for line in proc.stdout:
            printed.append(line)
            if len(printed) >= lines:
                os.kill(proc.pid, signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    ahead = proc.stdout.read().splitlines()  # (printed before the kill, not read by then)
    return printed, len(printed) + len(ahead)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [1, 150])
def test_sigkill_loses_nothing_acknowledged(tmp_path, kill_after):
    path = tmp_path / "crash.kuzu"
    read, printed = _killed_after(WRITER, path, kill_after)
    acked = {event_id: int(number) for event_id, number in map(str.split, read)}
    with Memory.open(path) as mem:
        events = mem.get(list(acked))
        assert [e.id for e in events] == list(acked)
        for event in events:
            assert event.content == f"event number {acked[event.id]} " + "x" * 150
        # replaying what was acknowledged creates nothing new
        replay = mem.record(content=events[0].content, occurred_at="2025-11-27", agent_id="writer", thread="crash",
                            entities=[f"entity {acked[events[0].id] % 7}"])
        assert replay.status == "duplicate"
        assert mem.stats().events in (printed, printed + 1)  # at most one unacknowledged write landed


BULK_WRITER = textwrap.dedent(
    """
    import sys
    from graphmem import Memory
    from graphmem.store import kuzu_store
    kuzu_store.LOAD_MAX_ROWS = 100  # batches of 300 go by COPY, as large ones do, and share commits
    mem = Memory.open(sys.argv[1], extract=False)
    b = 0
    while True:
        made = mem.record_many([{"content": f"bulk {b} event {i}", "occurred_at": "2025-11-27", "thread": "crash"}
                                for i in range(300)])
        print(" ".join(r.id for r in made), flush=True)
        b += 1
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [1, 3])
def test_sigkill_between_bulk_writes_that_share_a_commit_loses_none(tmp_path, kill_after):
    """After an odd number of bulk writes the last is copied into a transaction that waits for the next to
    share its commit (see BULK_PER_COMMIT): a kill then loses nothing acknowledged."""
    path = tmp_path / "crash.kuzu"
    read, printed = _killed_after(BULK_WRITER, path, kill_after)
    acked = [event_id for line in read for event_id in line.split()]
    with Memory.open(path, extract=False) as mem:
        events = mem.get(acked)
        assert [e.id for e in events] == acked
        assert [e.content for e in events[:300]] == [f"bulk 0 event {i}" for i in range(300)]
        assert mem.stats().events in (300 * printed, 300 * printed + 300)  # at most one unacknowledged write
        # landed


LEFT_OPEN = textwrap.dedent(
    """
    import sys
    from graphmem import Memory
    mem = Memory.open(sys.argv[1])  # never closed: the program just ends
    mem.record_many([{"content": f"Peter moved to Berlin, note {i}.", "occurred_at": "2025-11-27"}
                     for i in range(300)])
    print(mem.index.status().embedder, flush=True)
    """
)


@pytest.mark.slow
def test_a_memory_left_open_is_closed_when_the_program_exits(tmp_path):
    """Its embedding worker is stopped before the interpreter kills it inside the model (which aborted the
    process) and its index is saved: the next open finds every event by its words and by its vector."""
    path = tmp_path / "open.kuzu"
    done = subprocess.run([sys.executable, "-c", LEFT_OPEN, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() not in ("", "None")  # an embedder was at work
    with Memory.open(str(path)) as mem:
        assert mem.stats().events == 300
        mem.index.wait()
        status = mem.index.status()
        assert status.documents == status.vectors >= 300  # the events and the state read out of them
        hits = mem.recall("Berlin note 299", k=3)
        assert hits and "note 299" in hits[0].content
