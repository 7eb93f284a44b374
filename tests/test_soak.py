"""The soak (bench/soak.py) as a short test: threads using most of the API at once on one on-disk memory, then
a reopen. It runs in a process of its own, so an engine crash fails this test instead of the suite."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_many_threads_using_the_whole_api_lose_nothing_and_raise_only_documented_refusals():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "soak.py"), "--seconds", "10", "--threads", "6", "--seed", "3"],
        check=False, capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    result = json.loads((ROOT / "bench" / "results" / "soak.json").read_text())
    assert result["unexpected"] == [] and result["missing"] == [] and result["removed_yet_present"] == []
    assert result["acknowledged"] == result["present"] > 0
    assert {"record", "record_many", "change_state", "ask"} <= set(result["ops"])
