"""Resolved times on LoCoMo: do the times graphmem reads out of a turn match the gold dates?

Reads ../shared/datasets/locomo/locomo10.json (never copied). Every turn is recorded through
``Memory.record`` as an event at its session's date-time, with extraction on. For each category-2 (temporal)
question whose gold answer is an absolute day, month or year ("7 May 2023", "June 2023", "2022"), the
evidence turn's resolved time is the first time expression graphmem found in it ("yesterday", "last
Saturday", "in 2022"), or the event's own time when the turn has none. It matches when it is at least as
fine as the gold and falls in the gold's period. Prints accuracy, the count, and what was excluded.

    python bench/locomo_dates.py
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import dataset, table, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphmem import Memory  # noqa: E402
from graphmem.errors import MalformedTime  # noqa: E402
from graphmem.temporal import parse_point, truncate  # noqa: E402


def gold_point(answer: object):  # type: ignore[no-untyped-def]
    """The gold as a TimePoint when it is an absolute day, month or year; else None."""
    text = str(answer).strip().rstrip(".")
    text = re.sub(r"^(?:on|in|by|around|during)\s+", "", text, flags=re.I)
    try:
        point = parse_point(text)
    except MalformedTime:
        return None
    return point if point.granularity.value in ("day", "month", "year") else None


def main() -> None:
    data = json.loads((dataset("locomo") / "locomo10.json").read_text())
    rows, outcomes, excluded = [], Counter(), Counter()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, Memory.open(Path(tmp) / "locomo.kuzu") as mem:
        for sample in data:
            conv = sample["conversation"]
            resolved: dict[str, object] = {}
            for key, turns in conv.items():
                if not key.startswith("session_") or key.endswith("date_time") or not isinstance(turns, list):
                    continue
                when = conv.get(f"{key}_date_time")
                batch = [{
                    "content": t.get("text") or t.get("blip_caption") or "",
                    "occurred_at": when, "agent_id": t["speaker"].lower(), "thread": f"{sample['sample_id']}/{key}",
                    "source": {"system": "locomo", "ref": t["dia_id"]},
                } for t in turns]
                for turn, result in zip(turns, mem.record_many(batch), strict=True):
                    ex = result.extraction
                    event = result.event or mem.get([result.id])[0]  # type: ignore[list-item]
                    resolved[turn["dia_id"]] = (ex.times[0].interval.start or ex.times[0].interval.end
                                                if ex and ex.times else event.occurred_at)
            for qa in sample["qa"]:
                if qa.get("category") != 2:
                    continue
                gold = gold_point(qa.get("answer", ""))
                if gold is None:
                    excluded["gold not an absolute date"] += 1
                    continue
                ev = [e for e in qa.get("evidence", []) if e in resolved]
                if not ev:
                    excluded["no evidence turn"] += 1
                    continue
                got = resolved[ev[0]]
                ok = (got.granularity.rank <= gold.granularity.rank  # type: ignore[attr-defined]
                      and truncate(got.at, gold.granularity) == gold.at)  # type: ignore[attr-defined]
                outcomes[(gold.granularity.value, ok)] += 1
                if not ok and len(rows) < 12:
                    rows.append([sample["sample_id"], qa["question"][:60], str(qa["answer"])[:24],
                                 f"{got.at.date()} ({got.granularity.value})"])  # type: ignore[attr-defined]
    total = sum(outcomes.values())
    right = sum(n for (g, ok), n in outcomes.items() if ok)
    by_g = [[g, sum(n for (gg, ok), n in outcomes.items() if gg == g and ok),
             sum(n for (gg, _), n in outcomes.items() if gg == g)] for g in ("day", "month", "year")]
    print(table(["gold granularity", "matched", "questions", "accuracy"],
                [[g, m, n, f"{m / n:.3f}" if n else "-"] for g, m, n in by_g]
                + [["all", right, total, f"{right / total:.3f}"]]))
    print(f"\nexcluded: {dict(excluded)}; ingest + extraction of all turns: {time.perf_counter() - t0:.1f} s")
    if rows:
        print("\nsome misses:")
        print(table(["conv", "question", "gold", "resolved"], rows))
    write_results("locomo_dates", {"accuracy": right / total, "questions": total, "excluded": dict(excluded),
                                   "by_granularity": {g: {"matched": m, "questions": n} for g, m, n in by_g}})


if __name__ == "__main__":
    main()
