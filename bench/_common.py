"""Shared helpers for the benchmark scripts: where the datasets are, tables, JSON results, percentiles."""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def dataset(*parts: str) -> Path:
    """A file of the shared evaluation data (read in place, never copied): $GRAPHMEM_DATASETS or ../shared/datasets."""
    base = Path(os.environ.get("GRAPHMEM_DATASETS", ROOT.parent / "shared" / "datasets"))
    path = base.joinpath(*parts)
    if not path.exists():
        sys.exit(f"dataset file {path} is missing; set GRAPHMEM_DATASETS to the folder holding the shared datasets")
    return path


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}" if value < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": statistics.median(ordered), "p95_ms": p95, "n": len(ordered)}


def write_results(name: str, payload: dict[str, object]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    print(f"\nresults written to {path.relative_to(ROOT)}")
    return path
