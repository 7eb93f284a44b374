"""YAGO11k validity intervals: load all 20,506 facts as states, probe them with as-of questions.

Every fact becomes a state ``head rel tail`` valid from its start to its end at their own granularity
(YYYY, YYYY_MM or YYYY_MM_DD). YAGO's end is inclusive ("2012" means through 2012), so it is stored as the
exclusive start of the next period at the same granularity; ``None`` is an open end. YAGO states both ends
and a player can play for a club and a national team at once, so the relations are multi-valued here: memory
must return exactly the facts whose interval contains the probe.

For playsFor, isAffiliatedTo, isMarriedTo, worksAt and owns, each closed interval is probed at its start and
at its midpoint (days). Gold is computed here, independently of graphmem, as the set of objects of (head,
rel) whose interval contains the probe day (each boundary compared at its own granularity). Hits@1 ranks
memory's answers by latest start; set-F1 compares the whole answer set with the gold set.
Gold noise excluded: facts whose end precedes their start (memory refuses them as invalid intervals) and
facts dated before year 1 (negative years; instants in graphmem run from year 1 to 9998).

    python bench/yago11k.py
"""

from __future__ import annotations

import collections
import datetime as dt
import time

from _common import dataset, percentiles, table, write_results

from graphmem import InvalidInterval, Memory, StateInput

PROBED = ("playsFor", "isAffiliatedTo", "isMarriedTo", "worksAt", "owns")


def read_dict(name: str) -> dict[str, str]:
    out = {}
    for line in dataset("yago11k", name).read_text().splitlines():
        key, value = line.split("\t")
        out[key] = value.strip("<>")
    return out


def parse(raw: str) -> tuple[dt.date, dt.date, str] | None:
    """(first day, last day, granularity) of a YAGO date, or None for an open end."""
    if raw == "None":
        return None
    parts = [int(p) for p in raw.split("_")]
    if len(parts) == 1:
        return dt.date(parts[0], 1, 1), dt.date(parts[0], 12, 31), "year"
    if len(parts) == 2:
        first = dt.date(parts[0], parts[1], 1)
        nxt = dt.date(parts[0] + parts[1] // 12, parts[1] % 12 + 1, 1)
        return first, nxt - dt.timedelta(days=1), "month"
    day = dt.date(*parts)
    return day, day, "day"


def predicate(relation: str) -> str:
    """playsFor -> yago_plays_for (predicate names are snake_case)."""
    return "yago_" + "".join(f"_{c.lower()}" if c.isupper() else c for c in relation)


def text(raw: str) -> str:
    """YAGO's 988_05_12 as ISO 0988-05-12 (years have four digits)."""
    year, *rest = raw.split("_")
    return "-".join([year.zfill(4), *rest])


def exclusive_end(raw: str) -> str:
    """YAGO's inclusive end as the exclusive start of the next period, at the same granularity."""
    _, last, granularity = parse(raw)
    nxt = last + dt.timedelta(days=1)
    return {"year": f"{nxt.year:04d}", "month": f"{nxt.year:04d}-{nxt.month:02d}", "day": nxt.isoformat()}[granularity]


def main() -> None:
    entities, relations = read_dict("entities.dict"), read_dict("relations.dict")
    facts, noise, before_ce = [], 0, 0
    for line in dataset("yago11k", "temporal").read_text().splitlines():
        h, r, t, start, end = line.split("\t")
        fact = (entities[h], relations[r], entities[t], start, end)
        if start.startswith("-") or end.startswith("-"):
            before_ce += 1
            continue
        if end != "None" and parse(end)[1] < parse(start)[0]:
            noise += 1
            continue
        facts.append(fact)

    with Memory.in_memory() as mem:
        for rel in sorted(relations.values()):
            mem.define_predicate(predicate(rel), cardinality="many", object="entity")
        requests = [
            StateInput(subject=h, predicate=predicate(r), object=t, valid_from=text(start),
                       valid_to=None if end == "None" else exclusive_end(end))
            for h, r, t, start, end in facts
        ]
        t0 = time.perf_counter()
        mem.assert_states(requests)
        load_s = time.perf_counter() - t0
        refused = 0
        try:
            mem.assert_state("probe", "yago_owns", "x", valid_from="2012", valid_to="2011")
        except InvalidInterval:
            refused = 1
        stats = mem.stats()

        by_pair = collections.defaultdict(list)
        for h, r, t, start, end in facts:
            by_pair[(h, r)].append((t, parse(start), parse(end)))

        def gold(h: str, r: str, day: dt.date) -> set[str]:
            return {t for t, s, e in by_pair[(h, r)] if s[0] <= day and (e is None or day <= e[1])}

        scores = collections.defaultdict(lambda: {"probes": 0, "hits": 0, "f1": 0.0})
        latencies = []
        t0 = time.perf_counter()
        for (h, r), items in sorted(by_pair.items()):
            if r not in PROBED:
                continue
            for _, (first, _, _), end in items:
                if end is None:
                    continue
                midpoint = first + (end[1] - first) / 2
                for kind, day in (("start", first), ("midpoint", midpoint)):
                    q0 = time.perf_counter()
                    states = mem.as_of(day.isoformat()).states(subject=h, predicate=predicate(r), evidence=False)
                    latencies.append((time.perf_counter() - q0) * 1000)
                    ranked = sorted(states, key=lambda s: s.valid.start.at if s.valid.start else dt.datetime.min,
                                    reverse=True)
                    answer = [s.object for s in ranked]
                    expected = {entities_name(g) for g in gold(h, r, day)}
                    got = set(answer)
                    tp = len(got & expected)
                    f1 = 2 * tp / (len(got) + len(expected)) if got or expected else 1.0
                    for key in (f"{r}/{kind}", "all"):
                        scores[key]["probes"] += 1
                        scores[key]["hits"] += int(bool(answer) and answer[0] in expected)
                        scores[key]["f1"] += f1
        probe_s = time.perf_counter() - t0

    rows = [[k, v["probes"], v["hits"] / v["probes"], v["f1"] / v["probes"]] for k, v in sorted(scores.items())]
    print(f"loaded {len(facts):,} facts ({noise} excluded as end < start, {before_ce} as dated before year 1; "
          f"an inverted interval is refused: "
          f"{bool(refused)}) in {load_s:.2f} s = {len(facts) / load_s:,.0f} facts/s; "
          f"{stats.entities:,} entities, {stats.states:,} states")
    print(f"{int(scores['all']['probes']):,} probes in {probe_s:.2f} s; as-of latency {percentiles(latencies)}\n")
    print(table(["relation/probe", "probes", "Hits@1", "set-F1"], rows))
    write_results("yago11k", {
        "facts_loaded": len(facts), "excluded_end_before_start": noise, "excluded_before_year_1": before_ce,
        "load_s": load_s,
        "entities": stats.entities, "states": stats.states, "probe_s": probe_s, "latency": percentiles(latencies),
        "scores": {r[0]: {"probes": r[1], "hits_at_1": r[2], "set_f1": r[3]} for r in rows},
    })


def entities_name(raw: str) -> str:
    """How memory names an entity created from a YAGO name (whitespace-normalised, '@' stripped)."""
    return " ".join(raw.strip().lstrip("@").split())


if __name__ == "__main__":
    main()
