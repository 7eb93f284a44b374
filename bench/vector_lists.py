"""The vector index's lists against an exact scan: how long placing their centroids takes, and what they find.

Texts: every LoCoMo turn, every LongMemEval haystack turn and every SituatedQA question (read in place from
the shared datasets), then synthetic texts made of the first half of one of them and the second half of
another, up to ``--size`` in all; queries: the LoCoMo questions. The texts are embedded with the default
static model. Per number of k-means rounds, the index grows as memory grows it (``VectorIndex.add`` in
batches: flat until ``LISTS_FROM`` vectors, then lists whose centroids are learnt from those), the rest is
added, and each query's top 10 (``PROBES`` lists scanned) is compared with the exact top 10.

    python bench/vector_lists.py [--size 150000] [--rounds 25,10,6]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
from _common import dataset, table, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

K = 10
ADD_BATCH = 10_000


def texts_and_queries() -> tuple[list[str], list[str]]:
    texts: list[str] = []
    queries: list[str] = []
    for conversation in json.loads(dataset("locomo", "locomo10.json").read_text()):
        for value in conversation["conversation"].values():
            if isinstance(value, list):
                texts += [turn["text"] for turn in value if turn.get("text")]
        queries += [qa["question"] for qa in conversation["qa"]]
    for item in json.loads(dataset("longmemeval", "longmemeval_s_3q_derived.json").read_text()):
        for session in item.get("haystack_sessions", []):
            texts += [turn["content"] for turn in session if turn.get("content")]
    for path in sorted(dataset("situatedqa", "qa_data").glob("*.jsonl")):
        texts += [json.loads(line)["question"] for line in path.read_text().splitlines() if line.strip()]
    return texts, queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=150_000)
    parser.add_argument("--rounds", default="25,10,6")
    args = parser.parse_args()

    import faiss

    from graphmem.index import vectors as lists_module
    from graphmem.index.embed import StaticEmbedder, default_static_dir
    from graphmem.index.vectors import LISTS_FROM, VectorIndex

    real, queries = texts_and_queries()
    rng = random.Random(5)
    words = [t.split() for t in real]
    mixed = []
    for _ in range(max(0, args.size - len(real))):
        a, b = rng.choice(words), rng.choice(words)
        mixed.append(" ".join(a[: len(a) // 2] + b[len(b) // 2 :]))
    texts = real + mixed
    rng.shuffle(texts)
    embedder = StaticEmbedder(default_static_dir())
    vectors = np.ascontiguousarray(embedder.embed(texts), np.float32)
    asked = np.ascontiguousarray(embedder.embed(queries), np.float32)
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(vectors)
    _, gold = exact.search(asked, K)
    print(f"{len(texts):,} texts ({len(real):,} from the datasets), {len(queries):,} queries; lists from "
          f"{LISTS_FROM:,} vectors\n")

    rows, out = [], []
    for rounds in [int(r) for r in args.rounds.split(",")]:
        lists_module.ROUNDS = rounds
        index = VectorIndex(vectors.shape[1])
        cpu, wall = time.process_time(), time.perf_counter()
        for start in range(0, LISTS_FROM, ADD_BATCH):  # (the last of these grows the flat index into lists)
            index.add(np.arange(start, start + ADD_BATCH), vectors[start : start + ADD_BATCH])
        grow_cpu, grow_wall = time.process_time() - cpu, time.perf_counter() - wall
        for start in range(LISTS_FROM, len(vectors), ADD_BATCH):
            end = min(len(vectors), start + ADD_BATCH)
            index.add(np.arange(start, end), vectors[start:end])
        found = [set(index.search(q, K)[0].tolist()) for q in asked]
        recall = float(np.mean([len(f & set(g.tolist())) / K for f, g in zip(found, gold, strict=True)]))
        rows.append([rounds, index.kind, grow_cpu, grow_wall, recall])
        out.append({"rounds": rounds, "kind": index.kind, "grow_cpu_s": grow_cpu, "grow_wall_s": grow_wall,
                    "recall_at_10": recall})
    print(table(["k-means rounds", "index", "growing into lists, CPU s", "wall s", f"of the exact top {K}"],
                rows))
    write_results("vector_lists", {"texts": len(texts), "from_datasets": len(real), "queries": len(queries),
                                   "results": out})


if __name__ == "__main__":
    main()
