"""Scale: synthetic events, entities and states at 10k, 100k and 1M events on an on-disk database.

Per size, in a fresh process (so peak RSS is that size's own): bulk ingest through ``record_many`` (batches of
10,000 events, each mentioning two entities and joining a thread) and bulk states through ``assert_states``
(one single-valued ``lives_in`` move and one ``works_at`` change per entity, plus ``likes``), each timed in
the calls and until the database holds the last batch (not while the bench makes its input), then, once the
search index has embedded what the bulk load brought (it does so in the background; the time it took is
printed), ``record`` one by one (each call durable when it returns: one journal append and disk sync; the
graph applies journalled writes in the background, and the backlog left at the end and the time to apply it
are printed), then ``record`` from 8 threads at once (concurrent calls share journal appends), then as-of
entity queries and timeline queries on random entities (a read of the database waits for queued writes that
change its answer), then a backup of the database (writes wait that long). Text extraction is off for those
(the synthetic events name their entities; extraction has its own benchmark, bench/extraction.py on a fresh
memory); last, ``record`` one by one with extraction of bench/extraction.py's texts (each states something:
after as many in one batch, most restate states the memory holds, so the graph gains confirmations, revisions
and evidence in a large memory), timed until the last call returns and until the graph holds them all. Prints
rates, p50/p95 latencies, database size, the disk its recovery copy and journal take
(graphmem/store/recovery.py), backup time and peak RSS (before the extraction phase, which loads the
extraction pipeline and its names, and at the end), and, in a fresh process (as a restarted server), the
time to open the memory again once closed (the engine, the search index as saved at close, its catch-up on
the last write), then to answer an as-of entity query, and that process's peak RSS.

    python bench/scale.py [--sizes 10000,100000,1000000] [--runs 1] [--no-recovery]

A durable commit costs at least one disk sync; the script prints the sync time of the disk it runs on.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import percentiles, table, write_results

BATCH = 10_000
ONE_BY_ONE = 2_000
WRITERS = 8
QUERIES = 500
EXTRACTED = 1_000
WORDS = ("deploy review budget search index latency roadmap hiring design offsite retro incident "
         "customer launch pricing migration backlog sprint planning oncall").split()


def event(i: int, n_entities: int, rng: random.Random) -> dict:
    a, b = rng.randrange(n_entities), rng.randrange(n_entities)
    text = " ".join(rng.choice(WORDS) for _ in range(28))[:200]
    day = 1 + i % 28
    return {
        "content": f"{text} #{i}", "occurred_at": f"2025-{1 + i % 12:02d}-{day:02d}T{i % 24:02d}:00:00Z",
        "agent_id": "bench", "thread": f"thread-{i % 1000}", "entities": [f"person {a}", f"person {b}"],
        "source": {"system": "bench", "ref": f"synthetic#{i}"},
    }


def run_size(n_events: int, path: str, recovery: bool = True) -> dict:
    from extraction import text_of  # bench/extraction.py's texts, each stating something (here: not in the
    # RSS of a reopen's process, which imports this script)

    from graphmem import Memory, StateInput

    rng = random.Random(n_events)
    n_entities = max(100, n_events // 10)
    result: dict = {"events": n_events, "entities": n_entities}
    # the storage path alone; bench/extraction.py measures extraction
    with Memory.open(path, extract=False, recovery=recovery) as mem:
        spent = 0.0
        for start in range(0, n_events, BATCH):  # the time in record_many, and until the database holds the last
            items = [event(i, n_entities, rng) for i in range(start, min(n_events, start + BATCH))]
            t0 = time.perf_counter()
            mem.record_many(items)
            if start + BATCH >= n_events:
                mem.store.settle()
            spent += time.perf_counter() - t0
        del items  # (the bench's own input: not in the peak of the phases after)
        result["bulk_events_per_s"] = n_events / spent

        def states_of(entities: range) -> list[StateInput]:  # made batch by batch: the bench's own data stays small
            return [
                StateInput(subject=f"person {e}", predicate=p, object=o, valid_from=v)
                for e in entities
                for p, o, v in (("lives_in", f"city {e % 50}", "2020"),
                                ("lives_in", f"city {(e + 7) % 50}", f"2024-{1 + e % 12:02d}-01"),
                                ("works_at", f"company {e % 200}", f"2021-{1 + e % 12:02d}"),
                                ("likes", f"topic {e % 30}", "2022"))
            ]

        n_states, spent = 0, 0.0
        for start in range(0, n_entities, BATCH):  # 4 states per entity: 40,000 per write
            batch = states_of(range(start, min(n_entities, start + BATCH)))
            t0 = time.perf_counter()
            mem.assert_states(batch)
            if start + BATCH >= n_entities:
                mem.store.settle()
            spent += time.perf_counter() - t0
            n_states += len(batch)
        del batch  # (as the events above: 40,000 states of the bench's own, ~14 MB at 1M)
        result["bulk_states"] = n_states
        result["bulk_states_per_s"] = n_states / spent
        t0 = time.perf_counter()
        mem.index.wait()
        result["index_catch_up_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        for i in range(ONE_BY_ONE):
            mem.record(**event(n_events + i, n_entities, rng))
        result["record_one_by_one_per_s"] = ONE_BY_ONE / (time.perf_counter() - t0)
        result["backlog_writes"] = mem.store.pending_writes()
        t0 = time.perf_counter()
        mem.store.settle()
        result["backlog_applied_ms"] = (time.perf_counter() - t0) * 1000

        per_writer = ONE_BY_ONE // WRITERS
        batches = [[event(n_events + ONE_BY_ONE + w * per_writer + i, n_entities, rng) for i in range(per_writer)]
                   for w in range(WRITERS)]
        writers = [threading.Thread(target=lambda b: [mem.record(**e) for e in b], args=(b,)) for b in batches]
        t0 = time.perf_counter()
        for w in writers:
            w.start()
        for w in writers:
            w.join()
        result["record_concurrent_per_s"] = per_writer * WRITERS / (time.perf_counter() - t0)

        picks = [f"person {rng.randrange(n_entities)}" for _ in range(QUERIES)]
        asof, timeline = [], []
        for name in picks:
            when = f"2024-{rng.randrange(1, 13):02d}-15"
            q0 = time.perf_counter()
            mem.as_of(when).states(subject=name)
            asof.append((time.perf_counter() - q0) * 1000)
            q0 = time.perf_counter()
            mem.timeline(name, "lives_in")
            timeline.append((time.perf_counter() - q0) * 1000)
        result["as_of_entity"] = percentiles(asof)
        result["timeline"] = percentiles(timeline)
        stats = mem.stats()
        result["stored_events"] = stats.events
        result["stored_states"] = stats.states
        copy = mem.backup(Path(path).with_name("backup.kuzu"))  # (writes would wait this long)
        result["backup_s"], result["backup_mb"] = copy.seconds, copy.bytes / 2**20
        Path(copy.path).unlink()

        result["peak_rss_before_extraction_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        said = random.Random(7)
        texts = [text_of(i, said) for i in range(2 * EXTRACTED)]
        # what those say is held first (a memory's history), so the timed records mostly restate held states
        mem.record_many([{"content": t, "occurred_at": "2025-11-20", "thread": "extracted", "extract": True}
                         for t in texts[:EXTRACTED]])
        mem.store.settle()
        t0 = time.perf_counter()
        for text in texts[EXTRACTED:]:
            mem.record(content=text, occurred_at="2025-11-27", thread="extracted", extract=True)
        result["record_extracted_per_s"] = EXTRACTED / (time.perf_counter() - t0)
        mem.store.settle()
        result["record_extracted_applied_per_s"] = EXTRACTED / (time.perf_counter() - t0)
    def mb(*suffixes: str) -> float:
        return sum(os.path.getsize(path + x) for x in suffixes if os.path.exists(path + x)) / 2**20

    result["db_mb"] = mb("", ".wal")
    result["journal_mb"] = mb(".journal")  # the records a recovery copy lacks (and zeros it grew ahead)
    result["recovery_copy_mb"] = mb(".recovery")
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # opened again by a process of its own, as a restarted server opens it (this one's heap is no part of it)
    command = [sys.executable, __file__, "--reopen", path] + ["--no-recovery"] * (not recovery)
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"reopening the memory failed:\n{out.stderr[-4000:]}")
    result.update(json.loads(out.stdout.strip().splitlines()[-1]))
    return result


def reopen(path: str, recovery: bool) -> dict:
    """Open the memory at ``path`` in this fresh process: the time to open it and then to answer an as-of
    entity query, and the process's peak RSS."""
    from graphmem import Memory

    t0 = time.perf_counter()
    with Memory.open(path, extract=False, recovery=recovery) as mem:
        opened = time.perf_counter() - t0
        t0 = time.perf_counter()
        mem.as_of("2024-06-15").states(subject="person 1")  # (at every size: 100 entities at least)
        first = time.perf_counter() - t0
    # (not getrusage's peak: Linux carries the parent's over into a process it starts; VmHWM is this one's)
    peak_kb = int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])
    return {"reopen_s": opened, "reopen_first_read_ms": first * 1000, "reopen_peak_rss_mb": peak_kb / 1024}


def disk_sync_ms(directory: str, n: int = 200) -> float:
    """Median time of one 4 KiB write + fsync in ``directory``: the floor under any durable commit."""
    times = []
    fd = os.open(os.path.join(directory, "sync-probe"), os.O_WRONLY | os.O_CREAT)
    try:
        for _ in range(n):
            t0 = time.perf_counter()
            os.write(fd, b"x" * 4096)
            os.fsync(fd)
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        os.close(fd)
    return percentiles(times)["p50_ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (medians of runs are reported)")
    parser.add_argument("--no-recovery", action="store_true", help="without a recovery copy (to compare)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--reopen", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reopen:
        print(json.dumps(reopen(args.reopen, not args.no_recovery)))
        return
    if args.child:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(run_size(args.child, os.path.join(tmp, "scale.kuzu"), not args.no_recovery)))
        return
    results = []
    for n in [int(s) for s in args.sizes.split(",")]:
        for run in range(args.runs):
            t0 = time.perf_counter()
            command = [sys.executable, __file__, "--child", str(n)] + ["--no-recovery"] * args.no_recovery
            out = subprocess.run(command, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"the {n:,}-event run failed:\n{out.stderr[-4000:]}")
            res = json.loads(out.stdout.strip().splitlines()[-1])
            res["run"], res["wall_s"] = run + 1, time.perf_counter() - t0
            results.append(res)
            print(f"{n:,} events, run {run + 1}: done in {res['wall_s']:.0f} s", flush=True)
    rows = [[f"{r['events']:,}", r["run"], f"{r['bulk_events_per_s']:,.0f}", f"{r['bulk_states_per_s']:,.0f}",
             f"{r['index_catch_up_s']:,.0f}",
             f"{r['record_one_by_one_per_s']:,.0f}", f"{r['backlog_writes']} / {r['backlog_applied_ms']:.0f}",
             f"{r['record_concurrent_per_s']:,.0f}",
             f"{r['record_extracted_per_s']:,.0f} / {r['record_extracted_applied_per_s']:,.0f}",
             f"{r['as_of_entity']['p50_ms']:.2f} / {r['as_of_entity']['p95_ms']:.2f}",
             f"{r['timeline']['p50_ms']:.2f} / {r['timeline']['p95_ms']:.2f}",
             f"{r['db_mb']:,.0f}", f"{r['journal_mb']:,.0f} / {r['recovery_copy_mb']:,.0f}",
             f"{r['backup_s']:.2f}",
             f"{r['reopen_s']:.2f} / {r['reopen_first_read_ms']:.0f} / {r['reopen_peak_rss_mb']:,.0f}",
             f"{r['peak_rss_before_extraction_mb']:,.0f} / {r['peak_rss_mb']:,.0f}"]
            for r in results]
    print()
    print(table(["events", "run", "bulk ev/s", "bulk states/s", "index catch-up s", "record ev/s",
                 "backlog / applied in ms", f"record x{WRITERS} ev/s",
                 "record with extraction ev/s / until applied",
                 "as-of p50/p95 ms",
                 "timeline p50/p95 ms", "DB MB", "journal / recovery copy MB", "backup s",
                 "reopen s / first read ms / peak RSS MB",
                 "peak RSS MB before extraction / at the end"],
                rows))
    with tempfile.TemporaryDirectory() as tmp:
        sync = disk_sync_ms(tmp)
    print(f"\ndisk sync (4 KiB write + fsync) here: {sync:.2f} ms median")
    write_results("scale", {"runs": results, "disk_sync_ms": sync})


if __name__ == "__main__":
    main()
