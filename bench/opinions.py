"""Opinions under a stream of evidence: confidence trajectories and the time one update takes.

A scripted stream: 50 opinions, each with a hidden rate at which evidence supports it (0.05 .. 0.95); 1,000
evidence events (kinds mixed, one in twenty strong) are recorded into a real on-disk memory and each is weighed
against its opinion with ``Memory.weigh_opinion``. Prints confidence after every 100 events for a few opinions,
how far final confidences sit from the hidden rates, and the time per update (p50 / p95; target < 5 ms) and per
``opinions_bearing_on`` lookup; saves a PNG of the trajectories and JSON.

    python bench/opinions.py [--opinions 50] [--events 1000] [--runs 3] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, percentiles, table, write_results  # noqa: E402
from graphmem import Memory  # noqa: E402

KINDS = ("experience", "observation", "message", "opinion", "world")
TOPICS = ("the search rewrite", "remote Fridays", "the Kuzu store", "weekly demos", "the on-call rota",
          "pair programming", "the new CI runners", "design reviews", "the Tokyo office", "async standups")


def run(n_opinions: int, n_events: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp, Memory.open(Path(tmp) / "opinions.kuzu", extract=False,
                                                           embedder="none") as mem:
        rates = [0.05 + 0.9 * i / max(1, n_opinions - 1) for i in range(n_opinions)]
        opinions = []
        for i in range(n_opinions):
            topic = f"{TOPICS[i % len(TOPICS)]} #{i}"
            opinions.append(mem.hold_opinion(f"{topic} is working well", holder="team", about=[f"topic {i}"],
                                             confidence=0.5, valid_from="2025-01-01"))
        trajectories: list[list[float]] = [[0.5] for _ in range(n_opinions)]
        update_ms: list[float] = []
        lookup_ms: list[float] = []
        for n in range(n_events):
            i = rng.randrange(n_opinions)
            supports = rng.random() < rates[i]
            kind = rng.choice(KINDS)
            day = 1 + n * 364 // n_events
            event = mem.record(
                content=f"Note {n}: {'good' if supports else 'bad'} news about {TOPICS[i % len(TOPICS)]} #{i}.",
                occurred_at=f"2025-{1 + (day - 1) // 31 % 12:02d}-{1 + (day - 1) % 28:02d}", kind=kind,
                entities=[f"topic {i}"], source={"system": "bench", "ref": f"note-{n}"},
            )
            assert event.id is not None
            if n % 10 == 0:
                t0 = time.perf_counter()
                found = mem.opinions_bearing_on(event.id, k=3)
                lookup_ms.append((time.perf_counter() - t0) * 1000)
                assert found and found[0][0].id == opinions[i].id, "the lookup missed the opinion the event is about"
            t0 = time.perf_counter()
            step = mem.weigh_opinion(opinions[i].id, event.id, stance="supports" if supports else "contradicts",
                                     strong=rng.random() < 0.05)
            update_ms.append((time.perf_counter() - t0) * 1000)
            for j in range(n_opinions):
                trajectories[j].append(step.after if j == i else trajectories[j][-1])
        final = [t[-1] for t in trajectories]
        errors = [abs(c - r) for c, r in zip(final, rates, strict=True)]
        history_lengths = [len(mem.opinion(o.id).history) for o in opinions[:5]]
    return {"rates": rates, "trajectories": trajectories, "update": percentiles(update_ms),
            "lookup": percentiles(lookup_ms), "mean_abs_error": statistics.fmean(errors),
            "history_lengths": history_lengths}


def plot(result: dict[str, object], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no plot")
        return False
    rates: list[float] = result["rates"]  # type: ignore[assignment]
    trajectories: list[list[float]] = result["trajectories"]  # type: ignore[assignment]
    fig, ax = plt.subplots(figsize=(9, 5))
    picks = sorted({0, len(rates) // 4, len(rates) // 2, 3 * len(rates) // 4, len(rates) - 1})
    for i in picks:
        line, = ax.plot(trajectories[i], label=f"opinion {i} (supported {rates[i]:.0%} of the time)")
        ax.axhline(rates[i], color=line.get_color(), linestyle=":", linewidth=0.8)
    ax.set_xlabel("evidence events weighed (all opinions)")
    ax.set_ylabel("confidence")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("Opinion confidence under a stream of evidence (dotted: hidden support rate)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opinions", type=int, default=50)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    runs = [run(args.opinions, args.events, args.seed + r) for r in range(args.runs)]
    first = runs[0]
    rates: list[float] = first["rates"]  # type: ignore[assignment]
    trajectories: list[list[float]] = first["trajectories"]  # type: ignore[assignment]
    picks = sorted({0, len(rates) // 4, len(rates) // 2, 3 * len(rates) // 4, len(rates) - 1})
    steps = list(range(0, args.events + 1, max(1, args.events // 10)))
    print(f"confidence after n evidence events (run 1; {args.opinions} opinions, start 0.5)\n")
    print(table(["opinion", "support rate", *[f"n={s}" for s in steps]],
                [[i, f"{rates[i]:.2f}", *[f"{trajectories[i][s]:.2f}" for s in steps]] for i in picks]))
    rows = []
    for r, result in enumerate(runs, start=1):
        update, lookup = result["update"], result["lookup"]
        rows.append([r, update["p50_ms"], update["p95_ms"], lookup["p50_ms"], lookup["p95_ms"],  # type: ignore[index]
                     result["mean_abs_error"]])
    print("\n" + table(["run", "update p50 ms", "update p95 ms", "find opinion p50 ms", "find opinion p95 ms",
                        "mean |final c - support rate|"], rows))
    print(f"\nupdate p95 median over runs: {statistics.median(r[2] for r in rows):.2f} ms (target < 5 ms)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    png = RESULTS / "opinions.png"
    if plot(first, png):
        print(f"plot written to {png}")
    write_results("opinions", {
        "opinions": args.opinions, "events": args.events,
        "runs": [{k: v for k, v in result.items() if k != "trajectories"} for result in runs],
        "trajectory_samples": {str(i): trajectories[i][:: max(1, args.events // 100)] for i in picks},
    })


if __name__ == "__main__":
    main()
