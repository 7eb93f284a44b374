"""SituatedQA as-of questions answered by graphmem's state timelines (exact gold).

For every time-dependent question each timeline becomes a subject whose single-valued ``value`` holds the
previous answer from ``prev_start`` and the current answer from ``cur_start``, at the source granularity
(year, month or day; a missing ``prev_start`` is an open start). Static questions hold one value with an
open start. Every (question, date) row is then answered with ``mem.as_of(date)``; a row is correct when the
answer memory gives (any timeline's, for multi-timeline questions) matches a gold answer after normalisation.

    python bench/situatedqa.py [--split dev|train|both]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import string
import time
import unicodedata

from _common import dataset, table, write_results

from graphmem import Memory, StateInput

SEP = " ||| "


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKD", str(text)).casefold()
    text = "".join(c for c in text if c not in string.punctuation)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def start_text(start: dict | None) -> str | None:
    """The timeline start at its own granularity: '2017', '2017-07' or '2017-07-25'."""
    if not start or start.get("year") is None:
        return None
    if start.get("month") is None:
        return f"{start['year']:04d}"
    if start.get("date") is None:
        return f"{start['year']:04d}-{start['month']:02d}"
    return f"{start['year']:04d}-{start['month']:02d}-{start['date']:02d}"


def load(mem: Memory, split: str) -> tuple[dict[int, list[str]], int]:
    subjects: dict[int, list[str]] = {}
    requests: list[StateInput] = []
    for line in dataset("situatedqa", "raw_data", f"temp.{split}.jsonl").open():
        q = json.loads(line)
        names = []
        timelines = q["timelines"] if q["is_dependent"] and q["timelines"] else [None]
        for i, tl in enumerate(timelines):
            name = f"{split}:{q['id']}:{i}"
            names.append(name)
            if tl is None:
                requests.append(StateInput(subject=name, predicate="value", object=SEP.join(q["nq_answers"]),
                                           text=q["question"]))
                continue
            if tl["prev_answers"]:  # some timelines record no previous value
                requests.append(StateInput(subject=name, predicate="value", object=SEP.join(tl["prev_answers"]),
                                           valid_from=start_text(tl["prev_start"]), text=q["question"]))
            if tl["cur_answers"]:
                requests.append(StateInput(subject=name, predicate="value", object=SEP.join(tl["cur_answers"]),
                                           valid_from=start_text(tl["cur_start"]), text=q["question"]))
        subjects[q["id"]] = names
    mem.assert_states(requests)
    return subjects, len(requests)


def evaluate(mem: Memory, split: str, subjects: dict[int, list[str]]) -> tuple[dict[str, list[int]], list[dict]]:
    scores: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    misses = []
    for line in dataset("situatedqa", "qa_data", f"temp.{split}.jsonl").open():
        row = json.loads(line)
        gold = {normalise(a) for a in row["answer"]}
        view = mem.as_of(row["date"])
        got = set()
        for name in subjects[row["id"]]:
            for state in view.states(subject=name, predicate="value", evidence=False):
                got |= {normalise(a) for a in state.object.split(SEP)}
        hit = int(bool(gold & got))
        scores[row["date_type"]][0] += hit
        scores[row["date_type"]][1] += 1
        if not hit and len(misses) < 20:
            misses.append({"id": row["id"], "date": row["date"], "gold": row["answer"], "got": sorted(got)})
    return scores, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "train", "both"], default="both")
    args = parser.parse_args()
    splits = ["dev", "train"] if args.split == "both" else [args.split]
    rows, payload = [], {}
    for split in splits:
        with Memory.in_memory() as mem:
            t0 = time.perf_counter()
            subjects, n_states = load(mem, split)
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            scores, misses = evaluate(mem, split, subjects)
            query_s = time.perf_counter() - t0
        total = [sum(v[0] for v in scores.values()), sum(v[1] for v in scores.values())]
        for date_type, (hit, n) in sorted(scores.items()) + [("all", total)]:
            rows.append([split, date_type, n, hit, hit / n])
        payload[split] = {"scores": {k: {"correct": v[0], "rows": v[1], "em": v[0] / v[1]} for k, v in scores.items()},
                          "em": total[0] / total[1], "states": n_states, "load_s": load_s, "query_s": query_s,
                          "queries_per_s": total[1] / query_s, "misses": misses}
        print(f"{split}: {n_states:,} states loaded in {load_s:.2f} s; {total[1]:,} as-of questions in {query_s:.2f} s")
    print()
    print(table(["split", "date_type", "rows", "correct", "exact match"], rows))
    write_results("situatedqa", payload)


if __name__ == "__main__":
    main()
