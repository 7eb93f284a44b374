"""Writes about a subject with a long history: does each one cost more as the subject's states pile up?

    python bench/long_history.py [--histories 0,2000,20000] [--kinds likes,homes,jobs] [--runs 3]

A person in an agent's memory (the user, a colleague) gathers states for years: likes, opinions, tasks, and
values that follow one another (where he lives, a project's status). For each history size H a fresh memory
first holds H states of Peter (written in batches): ``likes``, H things he likes (a multi-valued predicate);
``homes``, H places he lived in turn, one a day from 1970 (a single-valued timeline of H states, which each
new value of it is placed in); ``jobs``, H firms he worked at in turn (one a day from 1970: the timeline
that "joined Globex" and "left Globex" write to). Then it takes 500 texts about Peter one by one through
``record`` with extraction: where he works and that he left, where he lives, what he thinks, what he likes,
most of them restating what is already held (so states are confirmed). Printed: records/s until the last call
returns, the caller's thread CPU a record (the engine, the applier and the embedder work on other threads),
and the process's CPU a record until the graph holds them all, as the median of ``--runs`` fresh memories.
"""

from __future__ import annotations

import argparse
import datetime as dt
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
    "Peter left Globex in May.",  # a close: the first ends his job there, the others find it ended
)


def _history(kind: str, size: int) -> list:
    from graphmem import StateInput

    if kind == "likes":
        return [StateInput(subject="Peter", predicate="likes", object=f"topic {i}",
                           valid_from=f"{2010 + i % 15}") for i in range(size)]
    first = dt.date(1970, 1, 1)
    predicate, value = {"homes": ("lives_in", "Town"), "jobs": ("works_at", "Firm")}[kind]
    return [StateInput(subject="Peter", predicate=predicate, object=f"{value} {i % 50}",
                       valid_from=(first + dt.timedelta(days=i)).isoformat()) for i in range(size)]


def measure(history: int, kind: str, tmp: str, run: int) -> tuple[float, float, float]:
    from graphmem import Memory

    with Memory.open(Path(tmp) / f"history-{kind}-{history}-{run}.kuzu", extract=True) as mem:
        states = _history(kind, history)
        for start in range(0, history, 5_000):
            mem.assert_states(states[start : start + 5_000])
        mem.store.settle()
        mem.extractor  # noqa: B018 - built before timing
        t0, cpu0, all0 = time.perf_counter(), time.thread_time(), time.process_time()
        for i in range(RECORDS):
            mem.record(content=f"{STATEMENTS[i % len(STATEMENTS)]} #{i}", occurred_at="2025-11-27")
        rate, caller = RECORDS / (time.perf_counter() - t0), (time.thread_time() - cpu0) / RECORDS * 1e6
        mem.store.settle()
        return rate, caller, (time.process_time() - all0) / RECORDS * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--histories", default="0,2000,20000", help="states Peter holds before the records")
    parser.add_argument("--kinds", default="likes,homes,jobs", help="what the history is: likes, homes, jobs")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows, out = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            for history in (int(h) for h in args.histories.split(",")):
                found = [measure(history, kind, tmp, run) for run in range(args.runs)]
                rate, caller, total = (statistics.median(f[i] for f in found) for i in range(3))
                low, high = min(f[0] for f in found), max(f[0] for f in found)
                rows.append([kind, history, f"{rate:,.0f} ({low:,.0f}-{high:,.0f})", f"{caller:,.0f}",
                             f"{total:,.0f}"])
                out.append({"kind": kind, "history": history, "records_per_s": rate, "caller_cpu_us": caller,
                            "process_cpu_us": total,
                            "runs": [{"records_per_s": r, "caller_cpu_us": c, "process_cpu_us": p}
                                     for r, c, p in found]})
    print(table(["history", "states Peter holds", "record ev/s (range)", "caller's CPU a record, us",
                 "all threads' CPU a record, us"], rows))
    write_results("long_history", {"records": RECORDS, "results": out})


if __name__ == "__main__":
    main()
