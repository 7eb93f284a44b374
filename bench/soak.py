"""Soak: many threads using most of the API on one on-disk memory at once, then a reopen that checks every
acknowledged event is there.

Each thread picks operations at random for ``--seconds``: ``record`` (extraction on), ``record_many`` of 30
events with extraction and of 300 / 1,500 / 9,000 without (the last goes to the engine by bulk copy), state
asserts, closes, retractions and confirmations, as-of / during / known-at questions, entity views and pages,
timelines, recall, opinions weighed by events, preferences, aliases, session checkpoints and summaries, resume
packs, entity merges, event removals, the janitor, tidy, snapshots, backups (each copy opened and checked for
the events acknowledged before it) and (rarely) a rebuild of the search index. A refusal the API documents
(bad input, a state already retracted, a name a merge took) is counted by its kind; any other exception is a
failure. After the threads stop the memory is closed and opened again, and
every event some call acknowledged (and no removal took back) must be there.

    python bench/soak.py [--seconds 60] [--threads 8] [--seed 1]

Prints the operations run, the refusals by kind and the check after the reopen; writes bench/results/soak.json.
Exits 1 when an unexpected error was raised or an acknowledged event is missing; a crash of the process (the
engine is native code) shows as its signal, with every thread's Python stack on stderr.
"""

from __future__ import annotations

import argparse
import collections
import faulthandler
import random
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import table, write_results

PEOPLE = [f"Person{i}" for i in range(60)]
CITIES = ["Paris", "Lima", "Oslo", "Kyoto", "Quito", "Accra"]


class Soak:
    """The shared record of one run: what was acknowledged, removed and asserted, and what each call did."""

    def __init__(self, mem: Any) -> None:
        self.mem = mem
        self.lock = threading.Lock()
        self.acked: set[str] = set()
        self.removed: set[str] = set()
        self.removing: set[str] = set()  # removals under way (a backup beside one may or may not hold them)
        self.states: list[str] = []
        self.ops: collections.Counter[str] = collections.Counter()
        self.refusals: collections.Counter[str] = collections.Counter()
        self.failures: list[str] = []

    def acknowledge(self, ids: list[str | None]) -> None:
        with self.lock:
            self.acked.update(i for i in ids if i)

    def some(self, values: list[str] | set[str], r: random.Random, n: int = 1) -> list[str]:
        with self.lock:
            pool = list(values)
        return r.sample(pool, min(n, len(pool)))

    # -- operations -------------------------------------------------------------------------------------

    def record(self, r: random.Random) -> None:
        text = f"{r.choice(PEOPLE)} moved to {r.choice(CITIES)} on {r.randint(1, 28)} March 2025. #{r.random()}"
        result = self.mem.record(content=text, occurred_at="2025-04-01", thread=f"t{r.randrange(5)}",
                                 ttl_days=r.choice([None, 1]))
        self.acknowledge([result.id])

    def record_many(self, r: random.Random) -> None:
        n = r.choice([30, 300, 1_500, 9_000])
        results = self.mem.record_many([
            {"content": f"{r.choice(PEOPLE)} met {r.choice(PEOPLE)} in {r.choice(CITIES)} #{r.random()}",
             "occurred_at": f"2025-0{r.randint(1, 9)}-1{r.randint(0, 9)}", "thread": f"t{r.randrange(5)}",
             "extract": n == 30}
            for _ in range(n)
        ])
        self.acknowledge([x.id for x in results])

    def assert_state(self, r: random.Random) -> None:
        state = self.mem.assert_state(subject=r.choice(PEOPLE), predicate="lives_in", object=r.choice(CITIES),
                                      valid_from=f"20{r.randint(10, 25)}-0{r.randint(1, 9)}")
        with self.lock:
            self.states.append(state.id)

    def change_state(self, r: random.Random) -> None:
        for state_id in self.some(self.states, r):
            how = r.choice(["close", "retract", "confirm"])
            if how == "close":
                self.mem.close_state(state_id, valid_to="2026-01-01")
            elif how == "retract":
                self.mem.retract_state(state_id, reason="soak: wrong")
            else:
                self.mem.confirm_state(state_id)

    def ask(self, r: random.Random) -> None:
        who = r.choice(PEOPLE)
        how = r.choice(["as_of", "during", "known_at", "entity", "page", "timeline", "recall", "events"])
        if how == "as_of":
            self.mem.as_of(f"20{r.randint(10, 26)}").states(subject=who)
        elif how == "during":
            self.mem.during("Nov 2025").states(subject=who)
        elif how == "known_at":
            self.mem.known_at("2026-01-01").as_of("2025-06").states(subject=who)
        elif how == "entity":
            self.mem.entity(who)
        elif how == "page":
            self.mem.entity_page(who)
        elif how == "timeline":
            self.mem.timeline(who, "lives_in")
        elif how == "recall":
            self.mem.recall(f"who moved to {r.choice(CITIES)}", k=5)
        else:
            self.mem.events(limit=20)

    def opinion(self, r: random.Random) -> None:
        held = self.mem.hold_opinion(f"{r.choice(PEOPLE)} likes {r.choice(CITIES)}", about=[r.choice(PEOPLE)],
                                     confidence=0.6)
        for event_id in self.some(self.acked, r):
            self.mem.weigh_opinion(held.id, event_id, stance=r.choice(["supports", "contradicts"]))

    def preference(self, r: random.Random) -> None:
        self.mem.update_preference(r.choice(["upsert_candidate", "confirm", "revoke"]), r.choice(CITIES),
                                   polarity=r.choice(["like", "dislike"]), holder=r.choice(PEOPLE[:5]))

    def alias(self, r: random.Random) -> None:
        self.mem.add_alias(r.choice(PEOPLE), f"{r.choice(PEOPLE)[:3]}{r.randrange(50)}")

    def session(self, r: random.Random) -> None:
        session = f"soak-{r.randrange(4)}"
        how = r.choice(["checkpoint", "finalize", "resume"])
        if how == "checkpoint":
            result = self.mem.checkpoint(session, f"step {r.randrange(100)}",
                                         f"{r.choice(PEOPLE)} did {r.random()}")
            self.acknowledge([result.id])
        elif how == "finalize":
            self.acknowledge([self.mem.finalize_session(session).id])
        else:
            self.mem.resume_pack(session=session)

    def reindex(self, r: random.Random) -> None:
        if r.random() < 0.1:
            self.mem.reindex()

    def merge(self, r: random.Random) -> None:
        keep, merge = r.sample(PEOPLE, 2)
        self.mem.merge_entities(keep, merge)

    def remove(self, r: random.Random) -> None:
        picked = self.some(self.acked, r, 3)
        if picked:
            with self.lock:
                self.removing.update(picked)
            try:
                self.mem.remove_events(picked, approved_by="soak", reason="soak", only_expired=False)
                with self.lock:
                    self.removed.update(picked)
                    self.acked.difference_update(picked)
            finally:
                with self.lock:
                    self.removing.difference_update(picked)

    def upkeep(self, r: random.Random) -> None:
        how = r.choice(["janitor", "tidy", "snapshot", "backup"])
        if how == "janitor":
            self.mem.janitor()
        elif how == "tidy":
            self.mem.tidy()
        elif how == "snapshot":
            self.mem.snapshot(agent_id="soak")
        elif r.random() < 0.25:
            self.backup()

    def backup(self) -> None:
        """A backup while the others write: every event acknowledged before it began (and not removed since)
        is in the copy, which opens as a memory."""
        from graphmem import Memory

        with self.lock:
            before = set(self.acked)
        name = f"backup-{threading.get_ident()}-{time.monotonic_ns()}.kuzu"
        target = Path(self.mem.stats().path).with_name(name)
        self.mem.backup(target)
        try:
            with Memory.open(target, embedder="none", extract=False) as copy:
                with self.lock:
                    wanted = before - self.removed - self.removing
                held = {e.id for e in copy.get(sorted(wanted))}
        finally:
            for leftover in target.parent.glob(target.name + "*"):
                shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
        if wanted - held:
            self.failures.append(f"backup: {len(wanted - held)} events acknowledged before it are not in the "
                                 f"copy, e.g. {sorted(wanted - held)[:3]}")

    def worker(self, seed: int, stop: threading.Event) -> None:
        from graphmem.errors import GraphmemError, StoreError

        r = random.Random(seed)
        ops: list[tuple[Callable[[random.Random], None], int]] = [
            (self.record, 6), (self.record_many, 2), (self.assert_state, 2), (self.change_state, 4),
            (self.ask, 8), (self.opinion, 1), (self.preference, 1), (self.alias, 1), (self.session, 1),
            (self.merge, 1), (self.remove, 1), (self.upkeep, 2), (self.reindex, 1),
        ]
        calls, weights = zip(*ops, strict=True)
        while not stop.is_set():
            op = r.choices(calls, weights)[0]
            try:
                op(r)
                with self.lock:
                    self.ops[op.__name__] += 1
            except GraphmemError as exc:
                if isinstance(exc, StoreError):  # the store's own failure: never expected here
                    self.failures.append(f"{op.__name__}: {exc}\n{traceback.format_exc()}")
                else:
                    with self.lock:
                        self.refusals[f"{op.__name__}: {type(exc).__name__}"] += 1
            except Exception as exc:  # noqa: BLE001 - counted, with its stack
                self.failures.append(f"{op.__name__}: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    faulthandler.enable()
    from graphmem import Memory

    with tempfile.TemporaryDirectory(prefix="graphmem-soak-") as tmp:
        path = Path(tmp) / "memory.kuzu"
        started = time.perf_counter()
        with Memory.open(path) as mem:
            soak = Soak(mem)
            stop = threading.Event()
            threads = [threading.Thread(target=soak.worker, args=(args.seed * 1_000 + k, stop), name=f"soak-{k}")
                       for k in range(args.threads)]
            for t in threads:
                t.start()
            time.sleep(args.seconds)
            stop.set()
            for t in threads:
                t.join()
        ran = time.perf_counter() - started
        with Memory.open(path) as mem:
            present = {e.id for e in mem.get(sorted(soak.acked))}
            back = {e.id for e in mem.get(sorted(soak.removed))}
            events = mem.stats().events
    missing = soak.acked - present
    print(f"{args.threads} threads for {ran:.0f} s (seed {args.seed}); {sum(soak.ops.values()):,} calls\n")
    print(table(["operation", "calls"], sorted(soak.ops.items())))
    if soak.refusals:
        print()
        print(table(["refusal (documented)", "count"], sorted(soak.refusals.items())))
    print()
    print(table(["after reopen", "count"], [("events acknowledged", len(soak.acked)), ("of them present", len(present)),
                                            ("missing", len(missing)), ("removed yet present", len(back)),
                                            ("events held", events), ("unexpected errors", len(soak.failures))]))
    for failure in soak.failures[:5]:
        print("\nunexpected:", failure, file=sys.stderr)
    write_results("soak", {
        "seconds": ran, "threads": args.threads, "seed": args.seed, "ops": dict(soak.ops),
        "refusals": dict(soak.refusals), "acknowledged": len(soak.acked), "present": len(present),
        "missing": sorted(missing)[:20], "removed_yet_present": sorted(back)[:20],
        "unexpected": soak.failures[:20],
    })
    return 1 if soak.failures or missing or back else 0


if __name__ == "__main__":
    sys.exit(main())
