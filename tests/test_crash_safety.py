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


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [1, 150])
def test_sigkill_loses_nothing_acknowledged(tmp_path, kill_after):
    path = tmp_path / "crash.kuzu"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    acked: dict[str, int] = {}
    try:
        for line in proc.stdout:
            event_id, number = line.split()
            acked[event_id] = int(number)
            if len(acked) >= kill_after:
                os.kill(proc.pid, signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with Memory.open(path) as mem:
        events = mem.get(list(acked))
        assert [e.id for e in events] == list(acked)
        for event in events:
            assert event.content == f"event number {acked[event.id]} " + "x" * 150
        # replaying what was acknowledged creates nothing new
        replay = mem.record(content=events[0].content, occurred_at="2025-11-27", agent_id="writer", thread="crash",
                            entities=[f"entity {acked[events[0].id] % 7}"])
        assert replay.status == "duplicate"
        assert mem.stats().events in (len(acked), len(acked) + 1)  # at most one unacknowledged write landed
