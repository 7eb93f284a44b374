"""The engine's floor under a bulk load: what the database engine alone takes to store bench/scale.py's events.

graphmem's schema (graphmem/store/schema.py) in a fresh on-disk database, then the rows a bulk ``record_many``
of bench/scale.py's synthetic events writes (each event mentions two of n/10 entities and joins one of 1,000
threads; entities, their aliases and threads are created as they first appear), copied from Arrow tables in
batches of 10,000 events: ``COPY`` into Event, Entity, Alias and Thread, then into MENTIONS and IN_THREAD, and
the journal mark moved, as graphmem's applier does. A commit of a transaction that copied checkpoints the whole
database (Kuzu 0.11.3), so its cost grows with the database; ``--per-commit`` sets how many batches share one
(the store's applier commits two: BULK_PER_COMMIT; with the default page cache of 128 MiB, a transaction
that copies five fails, the cache full).

Timed: the engine's calls only (copies and commits), not the making of the rows. None of graphmem's own work
is here (validation, the privacy guard, the journal, the search index and its embeddings, the caches): this is
the ceiling the engine puts on bulk ingest on this machine, for comparison with bench/scale.py.

    python bench/engine_floor.py [--events 100000,1000000] [--per-commit 1,2]

This is the one script outside graphmem/store/kuzu_store.py that imports the engine: it measures the engine
without graphmem around it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import table, write_results
from scale import BATCH, event

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run(n_events: int, per_commit: int, path: str) -> dict:
    import kuzu
    import pyarrow as pa

    from graphmem.store import DEFAULT_BUFFER_POOL_MB
    from graphmem.store.kuzu_store import _ARROW_TYPES as types  # the column types the store copies with
    from graphmem.store.schema import MIGRATIONS, NODES, RELS

    tables = {t.name: t for t in (*NODES, *RELS)}

    def arrow(name: str, rows: list[dict]) -> pa.Table:
        spec = tables[name]
        columns = [("from", "STRING"), ("to", "STRING")] * (spec.endpoints is not None) + list(spec.columns)
        return pa.table({c: pa.array([r.get(c) for r in rows], types[t]) for c, t in columns})

    db = kuzu.Database(path, buffer_pool_size=DEFAULT_BUFFER_POOL_MB * 2**20, auto_checkpoint=False)  # as the store
    conn = kuzu.Connection(db)
    for migration in MIGRATIONS:
        for statement in migration.statements:
            conn.execute(statement)
    rng = random.Random(n_events)
    n_entities = max(100, n_events // 10)
    seen: set[str] = set()  # entities and threads created
    now = dt.datetime(2026, 1, 1)
    copy_s = commit_s = 0.0
    open_batches = 0
    for start in range(0, n_events, BATCH):
        rows: dict[str, list[dict]] = {k: [] for k in ("Event", "Entity", "Alias", "Thread", "MENTIONS", "IN_THREAD")}
        for i in range(start, min(n_events, start + BATCH)):
            item = event(i, n_entities, rng)  # bench/scale.py's event, as graphmem stores it
            event_id = f"ev_{i:026x}"
            rows["Event"].append({
                "id": event_id, "recorded_at": now, "occurred_at": dt.datetime.fromisoformat(item["occurred_at"][:-1]),
                "occurred_g": "instant", "source_system": item["source"]["system"], "source_ref": item["source"]["ref"],
                "agent_id": item["agent_id"], "scope": "global", "kind": "observation", "thread": item["thread"],
                "content": item["content"], "tags": [], "privacy": [], "entities": item["entities"],
                "redactions": [], "private": False, "content_hash": f"{i:064x}"})
            for name in dict.fromkeys(item["entities"]):
                key = name.replace(" ", "-")
                if key not in seen:
                    seen.add(key)
                    rows["Entity"].append({"id": key, "name": name, "type": "person", "aliases": [], "created_at": now})
                    rows["Alias"].append({"key": name, "entity_id": key})
                rows["MENTIONS"].append({"from": event_id, "to": key})
            if item["thread"] not in seen:
                seen.add(item["thread"])
                rows["Thread"].append({"key": item["thread"], "title": item["thread"], "created_at": now})
            rows["IN_THREAD"].append({"from": event_id, "to": item["thread"]})
        made = {name: arrow(name, r) for name, r in rows.items() if r}
        t0 = time.perf_counter()
        if not open_batches:
            conn.execute("BEGIN TRANSACTION")
        for name, graphmem_rows in made.items():  # noqa: PERF102 - the engine reads graphmem_rows by name
            conn.execute(f"COPY {name} FROM graphmem_rows")
        conn.execute("MATCH (j:JournalMark {key: 'applied'}) SET j.applied = $seq", {"seq": start})
        t1 = time.perf_counter()
        copy_s += t1 - t0
        open_batches += 1
        if open_batches == per_commit or start + BATCH >= n_events:
            conn.execute("COMMIT")
            open_batches = 0
        commit_s += time.perf_counter() - t1
    conn.close()
    db.close()
    return {"events": n_events, "per_commit": per_commit, "engine_events_per_s": n_events / (copy_s + commit_s),
            "copy_s": copy_s, "commit_s": commit_s,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", default="100000,1000000")
    parser.add_argument("--per-commit", default="1,2", help="batches of 10,000 events per commit")
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(run(*args.child, os.path.join(tmp, "floor.kuzu"))))
        return
    results = []
    for n in [int(s) for s in args.events.split(",")]:
        for per_commit in [int(s) for s in args.per_commit.split(",")]:
            out = subprocess.run([sys.executable, __file__, "--child", str(n), str(per_commit)],
                                 capture_output=True, text=True, check=False)  # a fresh process each: its own peak RSS
            if out.returncode != 0:
                sys.exit(f"the {n:,}-event run failed:\n{out.stderr[-4000:]}")
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"{n:,} events, {per_commit} batch(es) a commit: done", flush=True)
    print()
    print(table(["events", "batches a commit", "engine ev/s", "copies s", "commits s", "peak RSS MB"],
                [[f"{r['events']:,}", r["per_commit"], f"{r['engine_events_per_s']:,.0f}", f"{r['copy_s']:.1f}",
                  f"{r['commit_s']:.1f}", f"{r['peak_rss_mb']:,.0f}"] for r in results]))
    write_results("engine_floor", {"runs": results, "batch": BATCH})


if __name__ == "__main__":
    main()
