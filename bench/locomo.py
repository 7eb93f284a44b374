"""Evidence recall on LoCoMo: graphmem's recall against plain BM25 and plain dense retrieval, same run.

Reads ../shared/datasets/locomo/locomo10.json (never copied). Each conversation goes into its own memory
through ``Memory.record_many``: one event per turn, content "Speaker: text" plus the image caption, at the
session's date-time, in thread "<conversation>/session_<n>", the speaker tagged as an entity and the dialog
id ("D1:3") as the source ref. Every question with evidence is asked through ``Memory.recall`` (k = 25,
relative to the day after the last session); a hit's refs are its own dialog id, or its evidence's for a
state. Evidence recall@k = the share of a question's evidence ids among the first k distinct refs.

The baselines see the same turn texts: plain BM25 is the bm25s library (English stop words, Snowball
stemmer), plain dense is a brute-force cosine search over the same embedder's vectors. Malformed evidence
ids are normalised ("D8:6; D9:17" split, "D30:05" -> D30:5, "D:11:26" -> D11:26; ids of no turn dropped).

    python bench/locomo.py                     # the static embedder (built by `graphmem models build`)
    python bench/locomo.py --embedder minilm   # all-MiniLM-L6-v2 (needs torch; ~1 min of embedding)
    python bench/locomo.py --presets default,lexical,semantic

Headline: recall@10 over categories 1 (multi-hop), 2 (temporal) and 4 (single-hop), all their questions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from _common import dataset, table, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphmem import Memory
from graphmem.index import embedder_named

KS = (1, 5, 10, 25)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE = (1, 2, 4)
_EVIDENCE = re.compile(r"^D:?(\d+):0*(\d+)$")


def evidence_ids(raw: list[str], known: set[str]) -> list[str]:
    """Normalised evidence ids that name a real turn."""
    out: list[str] = []
    for item in raw:
        for part in re.split(r"[;\s]+", item.strip()):
            m = _EVIDENCE.match(part)
            if m and (eid := f"D{int(m.group(1))}:{int(m.group(2))}") in known and eid not in out:
                out.append(eid)
    return out


def conversations(data: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for sample in data:
        conv = sample["conversation"]
        turns = []
        n = 1
        while f"session_{n}" in conv:
            when = dt.datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            for t in conv[f"session_{n}"]:
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [image: {t['blip_caption']}]"
                turns.append({"ref": t["dia_id"], "speaker": t["speaker"], "text": text, "at": when,
                              "thread": f"{sample['sample_id']}/session_{n}"})
            n += 1
        known = {t["ref"] for t in turns}
        questions = [
            {"q": qa["question"], "category": qa["category"], "evidence": ev}
            for qa in sample["qa"] if (ev := evidence_ids(qa.get("evidence", []), known))
        ]
        out.append({"id": sample["sample_id"], "turns": turns, "questions": questions})
    return out


def recall_at(ranked_refs: list[str], evidence: list[str]) -> dict[int, float]:
    distinct = list(dict.fromkeys(ranked_refs))
    return {k: len(set(distinct[:k]) & set(evidence)) / len(evidence) for k in KS}


def graphmem_system(conv: dict, embedder: str, presets: list[str]) -> tuple[dict[str, list], dict]:  # type: ignore[type-arg]
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    mem = Memory.open(":memory:", embedder=embedder)
    mem.record_many({
        "content": t["text"], "occurred_at": t["at"].isoformat(), "thread": t["thread"],
        "source": {"system": "locomo", "ref": t["ref"]}, "entities": [t["speaker"]],
    } for t in conv["turns"])
    timings["ingest_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    mem.index.wait()
    timings["embed_wait_s"] = time.perf_counter() - t1
    asked_at = (max(t["at"] for t in conv["turns"]) + dt.timedelta(days=1)).isoformat()
    results: dict[str, list] = {p: [] for p in presets}  # type: ignore[type-arg]
    latencies = []
    for preset in presets:
        for q in conv["questions"]:
            t2 = time.perf_counter()
            hits = mem.recall(q["q"], k=25, preset=preset, relative_to=asked_at)
            latencies.append((time.perf_counter() - t2) * 1000)
            results[preset].append(recall_at([r for h in hits for r in h.refs], q["evidence"]))
    timings["recall_ms_median"] = float(np.median(latencies))
    mem.close()
    return results, timings


def bm25_baseline(conv: dict) -> list[dict[int, float]]:  # type: ignore[type-arg]
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    texts = [t["text"] for t in conv["turns"]]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    out = []
    for q in conv["questions"]:
        tokens = bm25s.tokenize([q["q"]], stopwords="en", stemmer=stemmer, show_progress=False)
        docs, scores = retriever.retrieve(tokens, k=min(25, len(texts)), show_progress=False)
        refs = [conv["turns"][int(d)]["ref"] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
        out.append(recall_at(refs, q["evidence"]))
    return out


def dense_baseline(conv: dict, embedder_name: str) -> list[dict[int, float]]:  # type: ignore[type-arg]
    embedder = embedder_named(embedder_name)
    assert embedder is not None
    vectors = embedder.embed([t["text"] for t in conv["turns"]])
    questions = embedder.embed([q["q"] for q in conv["questions"]])
    out = []
    for q, v in zip(conv["questions"], questions, strict=True):
        order = np.argsort(-(vectors @ v), kind="stable")[:25]
        out.append(recall_at([conv["turns"][int(i)]["ref"] for i in order], q["evidence"]))
    return out


def summarise(per_question: list[dict[int, float]], cats: list[int]) -> dict[str, dict[int, float]]:
    by: dict[str, list[dict[int, float]]] = defaultdict(list)
    for r, c in zip(per_question, cats, strict=True):
        by[str(c)].append(r)
        if c in HEADLINE:
            by["headline"].append(r)
    return {key: {k: float(np.mean([r[k] for r in rows])) for k in KS} for key, rows in by.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="static", help="static | minilm | none")
    parser.add_argument("--presets", default="default", help="comma-separated recall presets to run")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N (0: all ten)")
    args = parser.parse_args()
    presets = args.presets.split(",")
    convs = conversations(json.loads((dataset("locomo") / "locomo10.json").read_text()))
    if args.conversations:
        convs = convs[: args.conversations]
    systems: dict[str, list[dict[int, float]]] = defaultdict(list)
    cats: list[int] = []
    timings = []
    for conv in convs:
        cats.extend(q["category"] for q in conv["questions"])
        found, timing = graphmem_system(conv, args.embedder, presets)
        timings.append(timing)
        for preset, rows in found.items():
            systems[f"graphmem {preset} ({args.embedder})"].extend(rows)
        systems["plain BM25 (bm25s)"].extend(bm25_baseline(conv))
        if args.embedder != "none":
            systems[f"plain dense ({args.embedder})"].extend(dense_baseline(conv, args.embedder))
        print(f"{conv['id']}: {len(conv['turns'])} turns, {len(conv['questions'])} questions, "
              f"ingest {timing['ingest_s']:.1f} s + embedding wait {timing['embed_wait_s']:.1f} s, "
              f"recall median {timing['recall_ms_median']:.1f} ms", flush=True)
    summary = {name: summarise(rows, cats) for name, rows in systems.items()}
    headers = ["system", "headline@1", "@5", "@10", "@25"] + [f"{c} {CATEGORIES[c]}@10" for c in CATEGORIES]
    rows = []
    for name, s in summary.items():
        rows.append([name] + [f"{s['headline'][k]:.4f}" for k in KS]
                    + [f"{s[str(c)][10]:.4f}" if str(c) in s else "-" for c in CATEGORIES])
    print()
    print(table(headers, rows))
    print("\nrecall@25 by category:")
    print(table(["system"] + [f"{c} {CATEGORIES[c]}" for c in CATEGORIES],
                [[name] + [f"{s[str(c)][25]:.4f}" if str(c) in s else "-" for c in CATEGORIES]
                 for name, s in summary.items()]))
    counts = {c: cats.count(c) for c in CATEGORIES}
    print(f"\nquestions with evidence: {sum(counts.values())} {counts}; headline = categories 1, 2, 4")
    write_results("locomo", {"embedder": args.embedder, "questions": counts, "systems": summary,
                             "timings": timings})


if __name__ == "__main__":
    main()
