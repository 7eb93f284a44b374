"""Recall speed: p50/p95 of ``Memory.recall`` at 10k, 100k and 1M synthetic events, index build time, RSS.

Per size, in a fresh process (so peak RSS is that size's own), on an on-disk database: events are written
through ``record_many`` in batches of 10,000 (each event is indexed for words as it is committed; its vector
is computed on the background thread), then the script waits until every event has its vector. Texts are
25 words drawn from a Zipf distribution over a 20,000-word vocabulary, so some words are in most events and
most words in few, as in real text. Queries are 2-4 words drawn the same way (common words included), a
third of them with a time window, a sixth with an entity filter, a tenth asking where and a tenth asking
for books; each asks for k = 10 with the default preset. Prints ingest rate, time until the vector index
caught up, optional full rebuild time (``Memory.reindex``), recall p50/p95 and peak RSS.

    python bench/recall_speed.py [--sizes 10000,100000,1000000] [--embedder static] [--queries 300]
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
import time
from pathlib import Path

import numpy as np
from _common import percentiles, table, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BATCH = 10_000
VOCABULARY = 20_000
SYLLABLES = ["ka", "ri", "to", "mo", "na", "se", "lu", "vi", "po", "da", "ne", "gu", "shi", "ra", "fe", "zo", "mi", "te", "bo", "la"]


def vocabulary(n: int) -> list[str]:
    rng = random.Random(7)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < n:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class Texts:
    def __init__(self, seed: int) -> None:
        self.words = vocabulary(VOCABULARY)
        ranks = np.arange(1, VOCABULARY + 1)
        self.p = (1 / ranks) / (1 / ranks).sum()  # Zipf, s = 1
        self.rng = np.random.default_rng(seed)

    def sample(self, n: int) -> str:
        return " ".join(self.words[i] for i in self.rng.choice(VOCABULARY, size=n, p=self.p))


def event(i: int, texts: Texts, n_entities: int) -> dict:  # type: ignore[type-arg]
    return {
        "content": texts.sample(25), "occurred_at": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
        "agent_id": "bench", "thread": f"thread-{i % 1000}", "entities": [f"person {i % n_entities}"],
        "source": {"system": "bench", "ref": f"synthetic#{i}"},
    }


def run_size(n_events: int, path: str, embedder: str, n_queries: int, rebuild: bool) -> dict:  # type: ignore[type-arg]
    from graphmem import Memory

    texts = Texts(n_events)
    n_entities = max(100, n_events // 100)
    out: dict = {"events": n_events, "embedder": embedder}  # type: ignore[type-arg]
    with Memory.open(path, extract=False, embedder=embedder) as mem:
        t0 = time.perf_counter()
        for start in range(0, n_events, BATCH):
            mem.record_many([event(i, texts, n_entities) for i in range(start, min(n_events, start + BATCH))])
        out["ingest_s"] = time.perf_counter() - t0
        out["lag_after_ingest"] = mem.index_status().lag
        t1 = time.perf_counter()
        mem.index.wait()
        out["vectors_caught_up_s"] = time.perf_counter() - t1
        out["index_ready_s"] = out["ingest_s"] + out["vectors_caught_up_s"]
        status = mem.index_status()
        out["documents"], out["vectors"] = status.documents, status.vectors
        out["vector_index"] = mem.index.vectors.kind if mem.index.vectors is not None else "none"
        rng = random.Random(1)
        latencies = []
        for q in range(n_queries):
            kwargs: dict = {}  # type: ignore[type-arg]
            if q % 3 == 1:
                kwargs["since"], kwargs["until"] = "2025-03-01", "2025-05-31"
            if q % 6 == 2:
                kwargs["entities"] = [f"person {rng.randrange(n_entities)}"]
            query = texts.sample(rng.randint(2, 4))
            if q % 5 == 3:  # questions that ask where, or for titles, add the place or the title part
                query = ("where did " if q % 10 == 3 else "which books about ") + query
            t = time.perf_counter()
            mem.recall(query, k=10, **kwargs)
            latencies.append((time.perf_counter() - t) * 1000)
        out["recall"] = percentiles(latencies[5:])  # the first few warm caches
        if rebuild:
            t2 = time.perf_counter()
            mem.reindex()
            out["rebuild_s"] = time.perf_counter() - t2
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--embedder", default="static", help="static | minilm | none")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rebuild-up-to", type=int, default=100_000, help="time a full reindex up to this size")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory() as tmp:
            result = run_size(args.child, os.path.join(tmp, "recall.kuzu"), args.embedder, args.queries,
                              args.child <= args.rebuild_up_to)
        print(json.dumps(result))
        return
    results = []
    for n in [int(s) for s in args.sizes.split(",")]:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--child", str(n), "--embedder", args.embedder,
                               "--queries", str(args.queries), "--rebuild-up-to", str(args.rebuild_up_to)],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            sys.exit(f"{n:,} events failed:\n{proc.stderr[-3000:]}")
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        results.append(res)
        print(f"{n:,} events: done in {time.perf_counter() - t0:.0f} s", flush=True)
    rows = [[f"{r['events']:,}", r["embedder"], r["vector_index"], f"{r['events'] / r['ingest_s']:,.0f}",
             f"{r['lag_after_ingest']:,}", f"{r['index_ready_s']:.1f}",
             f"{r['rebuild_s']:.1f}" if "rebuild_s" in r else "-",
             f"{r['recall']['p50_ms']:.2f} / {r['recall']['p95_ms']:.2f}", f"{r['peak_rss_mb']:,.0f}"]
            for r in results]
    print()
    print(table(["events", "embedder", "vectors", "ingest ev/s", "vector lag after ingest", "index ready s",
                 "reindex s", "recall p50 / p95 ms", "peak RSS MB"], rows))
    write_results("recall_speed", {"runs": results})


if __name__ == "__main__":
    main()
