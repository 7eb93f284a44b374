"""Session transcript backlog: how long ``graphmem ingest-sessions`` takes to read a 10,000-line backlog.

The backlog is generated here: coding-agent rollout files (session metadata, user and assistant messages,
tool calls and their output, reasoning items and message echoes, in the proportions such logs have), split
over several sessions. Each run reads it with :func:`tail_sessions` into a fresh on-disk database with the
default embedder, timing the whole pass (parsing, extraction, the event writes, the cursors) and then the
wait until the search index holds every event. A second pass over the unchanged files is timed too (the cost
of a restart with nothing new), and a third after 100 more lines were appended.

Target: the 10,000-line backlog in < 30 s.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table, write_results

from graphmem import Memory
from graphmem.io import tail_sessions

TOPICS = ["the ranking path", "the vector index", "the on-call rota", "the release branch", "flaky tests",
          "the staging database", "the search latency", "the Kuzu migration", "the cache", "the tokenizer"]
PEOPLE = ["Lena", "Peter", "Sam", "Aiko", "Ravi", "Mina"]
ACTIONS = ["profile", "fix", "review", "rewrite", "document", "benchmark", "split", "simplify"]


def backlog(directory: Path, lines: int, sessions: int, seed: int) -> int:
    """Write ``lines`` rollout lines over ``sessions`` files; returns how many were written."""
    rng = random.Random(seed)
    per = lines // sessions
    written = 0
    for s in range(sessions):
        path = directory / f"2026/02/{s + 1:02d}/rollout-2026-02-{s + 1:02d}-{s:04x}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        count = per if s < sessions - 1 else lines - per * (sessions - 1)
        with path.open("w") as out:
            for i in range(count):
                ts = f"2026-02-{s % 28 + 1:02d}T{9 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
                out.write(json.dumps(_line(rng, i, s, ts)) + "\n")
                written += 1
    return written


def _line(rng: random.Random, i: int, session: int, ts: str) -> dict[str, object]:
    if i == 0:
        return {"timestamp": ts, "type": "session_meta",
                "payload": {"id": f"sess-{session:04x}", "cwd": f"/home/dev/project-{session % 3}"}}
    topic, person, action = rng.choice(TOPICS), rng.choice(PEOPLE), rng.choice(ACTIONS)
    roll = rng.random()
    if roll < 0.25:
        text = f"{person} asked to {action} {topic} before Friday; keep the p95 under {rng.randint(20, 90)} ms."
        payload = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    elif roll < 0.45:
        text = (f"I looked at {topic}: {rng.randint(2, 9)} call sites re-read the same rows. I will {action} it "
                f"and add a test; {person} should review.")
        payload = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    elif roll < 0.65:
        payload = {"type": "function_call", "name": "shell", "call_id": f"c{i}",
                   "arguments": json.dumps({"command": ["rg", "-n", topic.split()[-1]]})}
    elif roll < 0.8:
        payload = {"type": "function_call_output", "call_id": f"c{i - 1}", "output": "src/x.py:12: ..." * 5}
    elif roll < 0.9:
        payload = {"type": "reasoning", "summary": [{"type": "summary_text", "text": f"Think about {topic}"}]}
    else:
        return {"timestamp": ts, "type": "event_msg", "payload": {"type": "agent_message", "message": "echo"}}
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def run(lines: int, sessions: int, seed: int) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="graphmem-sessions-"))
    try:
        written = backlog(work / "sessions", lines, sessions, seed)
        mem = Memory.open(str(work / "m.kuzu"))
        try:
            start = time.perf_counter()
            first = tail_sessions(mem, [work / "sessions"])
            read_s = time.perf_counter() - start
            mem.index.wait()
            indexed_s = time.perf_counter() - start
            start = time.perf_counter()
            again = tail_sessions(mem, [work / "sessions"])
            again_s = time.perf_counter() - start
            extra = sorted((work / "sessions").rglob("*.jsonl"))[0]
            rng = random.Random(seed + 1)
            with extra.open("a") as out:
                for i in range(100):
                    out.write(json.dumps(_line(rng, 10_000 + i, 0, "2026-02-28T18:00:00Z")) + "\n")
            start = time.perf_counter()
            appended = tail_sessions(mem, [work / "sessions"])
            appended_s = time.perf_counter() - start
            events = mem.stats().events
        finally:
            mem.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"lines": written, "read_s": read_s, "indexed_s": indexed_s, "created": first.created,
            "skipped": first.skipped, "errors": len(first.errors), "lines_per_s": written / read_s,
            "restart_s": again_s, "restart_lines": again.lines, "append_s": appended_s,
            "append_created": appended.created, "events": events}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    runs = [run(args.lines, args.sessions, args.seed + r) for r in range(args.runs)]
    print(table(
        ["run", "lines", "events", "read s", "lines/s", "index caught up s", "restart s (0 new)",
         "100 appended s"],
        [[i, r["lines"], r["created"], r["read_s"], r["lines_per_s"], r["indexed_s"], r["restart_s"],
          r["append_s"]] for i, r in enumerate(runs, start=1)],
    ))
    reads = sorted(float(r["read_s"]) for r in runs)  # type: ignore[arg-type]
    print(f"\n{args.lines:,}-line backlog: median {statistics.median(reads):.1f} s, worst {reads[-1]:.1f} s "
          f"over {len(runs)} runs (target < 30 s)")
    write_results("ingest_sessions", {"lines": args.lines, "sessions": args.sessions, "runs": runs})


if __name__ == "__main__":
    main()
