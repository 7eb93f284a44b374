"""The applier's cost for records written one by one: the same journalled writes, applied again afresh.

A memory takes 3,000 events in batches of 500, then 1,000 one by one (200-character texts with extraction, as
bench/extraction.py --speed writes them); each write's journal record is kept as it is appended. Then, in a
fresh database on one core, the bulk writes are applied a transaction each and the 1,000 records in
transactions of ``--group`` records merged, as the applier merges the writes that queued up while it
lingered. Timed: the one-by-one transactions only, as process CPU (the engine's threads and the statements'
own threads included) and wall time a record. The writes are the same in every run, so this measures the
store's statements and the engine without the noise of the callers around them.

    python bench/applier.py [--runs 3] [--group 250]
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import table, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from extraction import text_of  # the texts bench/extraction.py --speed writes

from graphmem import Memory
from graphmem.store import kuzu_store
from graphmem.store.port import WriteBatch

BULK, BATCH, ONE_BY_ONE = 3_000, 500, 1_000


def journalled_writes() -> list[bytes]:
    """The journal records of a memory's bulk writes, then of its records one by one, in order."""
    kept: list[bytes] = []
    journalled = kuzu_store.KuzuStore._journalled_as

    def keep(self: kuzu_store.KuzuStore, batch: WriteBatch, *rest: Any) -> Any:
        kept.append(pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
        return journalled(self, batch, *rest)

    rng = random.Random(7)
    texts = [text_of(i, rng) for i in range(BULK + ONE_BY_ONE)]
    kuzu_store.KuzuStore._journalled_as = keep
    try:
        with tempfile.TemporaryDirectory() as tmp, Memory.open(Path(tmp) / "source.kuzu") as mem:
            for start in range(0, BULK, BATCH):
                mem.record_many([{"content": t, "occurred_at": "2025-11-27", "thread": "bench"}
                                 for t in texts[start : start + BATCH]])
            mem.store.settle()
            for t in texts[BULK:]:
                mem.record(content=t, occurred_at="2025-11-27", thread="bench")
    finally:
        kuzu_store.KuzuStore._journalled_as = journalled
    return kept


def replay(records: list[bytes], group: int) -> dict:
    """``records`` applied again in a fresh store: the bulk ones a transaction each, then the rest ``group`` at
    a time; the CPU and wall time of the latter, a record."""
    batches: list[WriteBatch] = [pickle.loads(r) for r in records]
    bulk, singles = batches[: BULK // BATCH], batches[BULK // BATCH :]
    with tempfile.TemporaryDirectory() as tmp:
        store = kuzu_store.KuzuStore(Path(tmp) / "replay.kuzu")
        try:
            for b in bulk:
                with store._engine_lock:
                    store._write_in_transaction(b)
                store._committed(b)
            columns = []  # what each version changes, worked out as the write was acknowledged (see _enqueue)
            for b in singles:
                columns.append(store._version_columns(b))
                store._committed(b)
            cpu, wall = time.process_time(), time.perf_counter()
            for start in range(0, len(singles), group):
                with store._engine_lock:
                    store._write_as_applier(singles[start : start + group],
                                            [c for cs in columns[start : start + group] for c in cs])
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        finally:
            store.close()
    return {"cpu_us_per_record": cpu / len(singles) * 1e6, "wall_us_per_record": wall / len(singles) * 1e6,
            "records": len(singles), "transactions": -(-len(singles) // group)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--group", type=int, default=250, help="records merged into one transaction")
    args = parser.parse_args()
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})  # the engine's threads inherit it
    records = journalled_writes()
    runs = [replay(records, args.group) for _ in range(args.runs)]
    cpu = [r["cpu_us_per_record"] for r in runs]
    wall = [r["wall_us_per_record"] for r in runs]
    print(table(["measure", "value"], [
        ["measured on", f"one core (CPU {core}): the process and every thread it started"],
        ["records one by one, applied again",
         f"{runs[0]['records']:,} in {runs[0]['transactions']} transactions of {args.group}"],
        [f"process CPU a record, median ({args.runs} runs; range)",
         f"{statistics.median(cpu):,.0f} us ({min(cpu):,.0f}-{max(cpu):,.0f})"],
        [f"wall time a record, median ({args.runs} runs; range)",
         f"{statistics.median(wall):,.0f} us ({min(wall):,.0f}-{max(wall):,.0f})"],
    ]))
    write_results("applier", {"core": core, "group": args.group, "runs": runs})


if __name__ == "__main__":
    main()
