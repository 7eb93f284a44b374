"""Extraction quality on the labelled corpus (tests/fixtures/extraction_corpus.py) and extraction speed.

    python bench/extraction.py            # precision / recall / F1 of entities, time intervals and states
    python bench/extraction.py --speed [--runs 3]   # import + pipeline build time; events/s through record()
                                                    # and the pipeline alone (and with open tasks known)

Speed, on one core (the process is pinned to one CPU before it starts any thread, so the database engine, the
applier and the index share it): 200-character texts, each with a statement (many restate one another, so
states are confirmed), through ``record_many`` in batches of 500 and of ``graphmem ingest``'s size (each batch
one transaction), and through ``record`` one by one (each call durable when it returns: one journal append;
the graph applies journalled writes in the background), timed until the last call returns and again until the
graph holds them all; each measured ``--runs`` times in fresh memories, printed as the median and the range.

Entities match on (name, type); times on (text, start day, end day); states on (subject, predicate, object,
assert|close, valid_from day, valid_to day), names compared case-insensitively.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import percentiles, table, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphmem.cli.main import INGEST_BATCH  # noqa: E402 - the batch size `graphmem ingest` writes in
from graphmem.memory import OPEN_TASKS_KNOWN as OPEN_TASKS  # noqa: E402 - open tasks a pipeline is told of


def _day(point: object) -> str | None:
    if point is None:
        return None
    return point.at.date().isoformat()  # type: ignore[attr-defined]


def _gold_day(value: str | None) -> str | None:
    return value[:10] if value else None


def score(gold: set, found: set) -> tuple[int, int, int]:
    return len(gold & found), len(found - gold), len(gold - found)


def quality() -> dict:
    from graphmem.extraction import Extractor
    from graphmem.ontology import load_ontology
    from tests.fixtures.extraction_corpus import ANCHOR, corpus

    extractor = Extractor(load_ontology())
    anchor = dt.datetime.fromisoformat(ANCHOR.replace("Z", "+00:00"))
    totals = {k: [0, 0, 0] for k in ("entities", "times", "states", "aliases")}
    misses: list[str] = []
    examples = corpus()
    for ex in examples:
        out = extractor.extract(ex.text, anchor)
        found = {
            "entities": {(e.name.casefold(), e.type) for e in out.entities},
            "times": {(t.text.casefold(), _day(t.interval.start), _day(t.interval.end)) for t in out.times},
            "aliases": {(a.name.casefold(), a.alias.casefold()) for a in out.aliases},
            "states": {(s.subject.casefold(), s.predicate, s.object.casefold(), s.action,
                        _day(s.valid_from) if s.action == "assert" else None,
                        _day(s.valid_to) if s.action == "close" else _day(s.valid_to))
                       for s in out.statements},
        }
        gold = {
            "entities": {(n.casefold(), t) for n, t in ex.entities},
            "times": {(t.casefold(), _gold_day(s), _gold_day(e)) for t, s, e in ex.times},
            "aliases": {(n.casefold(), a.casefold()) for n, a in ex.aliases},
            "states": {(s.casefold(), p, o.casefold(), a, _gold_day(f) if a == "assert" else None, _gold_day(u))
                       for s, p, o, a, f, u in ex.states},
        }
        # an undated statement is dated by the event later (record); compare it at the anchor day (one said
        # to have held until a time before it keeps its open start)
        dated = ANCHOR[:10]
        found["states"] = {(s, p, o, a, f or (dated if a == "assert" and not (u and u <= dated) else None),
                            u or (ANCHOR[:10] if a in ("close", "done") else None))
                           for s, p, o, a, f, u in found["states"]}
        for k in totals:
            tp, fp, fn = score(gold[k], found[k])
            totals[k][0] += tp
            totals[k][1] += fp
            totals[k][2] += fn
            if (fp or fn) and len(misses) < 15:
                misses.append(f"{k}: {ex.text!r} gold={sorted(gold[k] - found[k])} extra={sorted(found[k] - gold[k])}")
    result = {"examples": len(examples)}
    for k, (tp, fp, fn) in totals.items():
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        result[k] = {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r,
                     "f1": 2 * p * r / (p + r) if p + r else 0.0}
    result["misses"] = misses
    return result


def text_of(i: int, rng: random.Random) -> str:
    people = ["Peter", "Anna Schmidt", "Bob", "Maria", "Kenji", "Lena", "Tom", "Priya"]
    places = ["Berlin", "Lisbon", "Porto", "Tokyo", "Seattle"]
    orgs = ["Acme Inc", "Globex", "Initech", "Umbrella Labs"]
    base = rng.choice([
        f"{rng.choice(people)} moved to {rng.choice(places)} last week after the offsite.",
        f"{rng.choice(people)} joined {rng.choice(orgs)} in March and now leads the search team.",
        f"We reviewed the roadmap with {rng.choice(people)}; the budget stays flat until June.",
        f"{rng.choice(people)} thinks that the migration to Postgres needs another two weeks.",
        f"@{rng.choice(people).split()[0].lower()} said the deploy from yesterday broke the nightly export.",
    ])
    filler = " Notes: retro went fine, backlog groomed, incidents closed, pricing page copy drafted."
    return (base + filler)[:200] + f" #{i}"


def speed(runs: int) -> dict:
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})  # threads started from here on (the engine's, the applier, the index) inherit it

    def startup(work: str) -> dict:
        code = f"import time; t=time.perf_counter(); import graphmem; {work}; print(time.perf_counter()-t)"
        cmd = [sys.executable, "-c", code]
        took = [float(subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
                for _ in range(5)]
        return percentiles([s * 1000 for s in took])

    from graphmem import Memory

    rng = random.Random(7)
    # the target: the package and its extraction pipeline; then with an in-memory database (a memory builds its
    # pipeline with the names it holds), then with the default embedder loaded too
    pipeline = ("from graphmem.extraction import Extractor; from graphmem.ontology import load_ontology; "
                "Extractor(load_ontology())")
    out: dict = {"cpu": core, "import_and_build_s": startup(pipeline),
                 "import_build_and_memory_s": startup("graphmem.Memory.in_memory(embedder='none').extractor"),
                 "import_build_and_embedder_s": startup("graphmem.Memory.in_memory(embedder='auto').extractor")}
    n, n_ingest = 3000, 4 * INGEST_BATCH
    texts = [text_of(i, rng) for i in range(n + n_ingest)]
    with tempfile.TemporaryDirectory() as tmp:
        for label, extract in (("with extraction", True), ("without extraction", False)):
            runs_of: dict[str, list[float]] = {}
            for run in range(runs):  # each run in fresh memories: the machine's noise shows as the spread
                for batch, count in ((500, n), (INGEST_BATCH, n_ingest)):
                    with Memory.open(Path(tmp) / f"speed-{extract}-{batch}-{run}.kuzu", extract=extract) as mem:
                        mem.extractor  # noqa: B018 - built before timing
                        t0 = time.perf_counter()
                        for start in range(0, count, batch):
                            mem.record_many([{"content": t, "occurred_at": "2025-11-27", "thread": "bench"}
                                             for t in texts[start:start + min(batch, count - start)]])
                        mem.store.settle()  # until the graph holds the last batch too
                        runs_of.setdefault(f"record_many_{batch}_per_s", []).append(
                            count / (time.perf_counter() - t0))
                        if batch == 500:  # then one by one on the same memory
                            more = [text_of(n + n_ingest + 300 * run + i, rng) for i in range(300)]
                            t0 = time.perf_counter()
                            for t in more:
                                mem.record(content=t, occurred_at="2025-11-27", thread="bench")
                            runs_of.setdefault("record_per_s", []).append(len(more) / (time.perf_counter() - t0))
                            mem.store.settle()  # and until the graph holds them all (the applier's backlog)
                            runs_of.setdefault("record_applied_per_s", []).append(
                                len(more) / (time.perf_counter() - t0))
                            states = mem.stats().states
            out[label] = {key: statistics.median(values) for key, values in runs_of.items()} | {
                f"{key}_runs": values for key, values in runs_of.items()} | {"states": states}
        extractor = Memory.in_memory().extractor
        t0 = time.perf_counter()
        anchor = dt.datetime(2025, 11, 27, tzinfo=dt.UTC)
        for t in texts[:n]:
            extractor.extract(t, anchor)
        out["extract_only_per_s"] = n / (time.perf_counter() - t0)
        # the same with as many open tasks as a memory tells its pipeline of (text may say one is done): each
        # of a few verbs texts use in the past ("made", "got", "took"), a task of someone the texts name
        verbs = ("get", "make", "take", "see", "find", "finish", "review", "send")
        people = ("Peter", "Anna", "Bob")
        extractor.add_tasks((people[i % 3], f"{verbs[i % len(verbs)]} the report number {i}")
                            for i in range(OPEN_TASKS))
        t0 = time.perf_counter()
        for t in texts[:n]:
            extractor.extract(t, anchor)
        out["extract_with_open_tasks_per_s"] = n / (time.perf_counter() - t0)
    return out


def _spread(row: dict, key: str) -> str:
    """The median of a measurement's runs, and their range when there were several."""
    runs = row[f"{key}_runs"]
    spread = f" ({min(runs):,.0f}-{max(runs):,.0f}, {len(runs)} runs)" if len(runs) > 1 else ""
    return f"{row[key]:,.0f} events/s{spread}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="--speed: runs of the ingest measurements")
    args = parser.parse_args()
    if args.speed:
        res = speed(args.runs)
        s, m, e = res["import_and_build_s"], res["import_build_and_memory_s"], res["import_build_and_embedder_s"]
        print(table(["measure", "value"], [
            ["measured on", f"one core (CPU {res['cpu']}): the process and every thread it started"],
            ["import graphmem + build pipeline (5 runs) p50 / p95", f"{s['p50_ms']:.0f} ms / {s['p95_ms']:.0f} ms"],
            ["... in a new in-memory memory (5 runs) p50 / p95", f"{m['p50_ms']:.0f} ms / {m['p95_ms']:.0f} ms"],
            ["... + load the default embedder (5 runs) p50 / p95", f"{e['p50_ms']:.0f} ms / {e['p95_ms']:.0f} ms"],
            ["extraction alone (200-char texts)", f"{res['extract_only_per_s']:,.0f} events/s"],
            [f"... with {OPEN_TASKS:,} open tasks known",
             f"{res['extract_with_open_tasks_per_s']:,.0f} events/s"],
            *[[f"record_many, batches of {b:,}{' (graphmem ingest)' if b == INGEST_BATCH else ''}, {label}",
               _spread(res[label], f"record_many_{b}_per_s")]
              for label in ("with extraction", "without extraction") for b in (500, INGEST_BATCH)],
            ["record one by one (durable each), with extraction", _spread(res["with extraction"], "record_per_s")],
            ["... timed until the graph holds them all", _spread(res["with extraction"], "record_applied_per_s")],
            ["record one by one, without extraction", _spread(res["without extraction"], "record_per_s")],
            ["... timed until the graph holds them all", _spread(res["without extraction"], "record_applied_per_s")],
        ]))
        write_results("extraction_speed", res)
        return
    res = quality()
    print(f"{res['examples']} labelled sentences\n")
    print(table(["what", "precision", "recall", "F1", "tp / fp / fn"], [
        [k, f"{res[k]['precision']:.3f}", f"{res[k]['recall']:.3f}", f"{res[k]['f1']:.3f}",
         f"{res[k]['tp']} / {res[k]['fp']} / {res[k]['fn']}"] for k in ("entities", "times", "states",
                                                                         "aliases")]))
    if res["misses"]:
        print("\nfirst misses:")
        for m in res["misses"]:
            print("  " + m)
    write_results("extraction", res)


if __name__ == "__main__":
    main()
