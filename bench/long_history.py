"""Writes about a subject with a long history: does each one cost more as the subject's states pile up?

    python bench/long_history.py [--histories 0,2000,20000] [--runs 3]

A person in an agent's memory (the user, a colleague) gathers states for years: likes, opinions, tasks. For
each history size H a fresh memory first holds H ``likes`` states of Peter (written in batches), then takes
500 texts about Peter one by one through ``record`` with extraction: where he works, where he lives, what he
thinks, what he likes, most of them restating what is already held (so states are confirmed). Printed: records/s until the
last call returns, and the caller's thread CPU a record (the engine, the applier and the embedder work on
other threads), as the median of ``--runs`` fresh memories.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import table, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RECORDS = 500
STATEMENTS = (
    "Peter joined Globex in March and now leads the search team.",
    "Peter moved to Lisbon last week after the offsite.",
    "Peter thinks that the migration to Postgres needs another two weeks.",
    "We reviewed the roadmap with Peter; the budget stays flat until June.",
    "Peter likes jazz and chess.",  # another of his likes: it meets only the states with its objects
)


def measure(history: int, tmp: str, run: int) -> tuple[float, float]:
    from graphmem import Memory, StateInput

    with Memory.open(Path(tmp) / f"history-{history}-{run}.kuzu", extract=True) as mem:
        likes = [StateInput(subject="Peter", predicate="likes", object=f"topic {i}", valid_from=f"{2010 + i % 15}")
                 for i in range(history)]
        for start in range(0, history, 5_000):
            mem.assert_states(likes[start : start + 5_000])
        mem.store.settle()
        mem.extractor  # noqa: B018 - built before timing
        t0, cpu0 = time.perf_counter(), time.thread_time()
        for i in range(RECORDS):
            mem.record(content=f"{STATEMENTS[i % len(STATEMENTS)]} #{i}", occurred_at="2025-11-27")
        return RECORDS / (time.perf_counter() - t0), (time.thread_time() - cpu0) / RECORDS * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--histories", default="0,2000,20000", help="states Peter holds before the records")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows, out = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for history in (int(h) for h in args.histories.split(",")):
            found = [measure(history, tmp, run) for run in range(args.runs)]
            rate = statistics.median(r for r, _ in found)
            cpu = statistics.median(c for _, c in found)
            rows.append([history, f"{rate:,.0f} ({min(r for r, _ in found):,.0f}-{max(r for r, _ in found):,.0f})",
                         f"{cpu:,.0f}"])
            out.append({"history": history, "records_per_s": rate, "caller_cpu_us": cpu,
                        "runs": [{"records_per_s": r, "caller_cpu_us": c} for r, c in found]})
    print(table(["states Peter holds", "record ev/s (range)", "caller's CPU a record, us"], rows))
    write_results("long_history", {"records": RECORDS, "results": out})


if __name__ == "__main__":
    main()
