"""GraphQL under load: many agents reading and writing one memory through ``graphmem serve`` over HTTP.

Builds (or reuses) an on-disk memory of N synthetic events with states, starts the real server in its own
process on 127.0.0.1, then runs C concurrent clients for D seconds: 80% reads (``entity`` page data, ``asOf``
questions, ``recall`` in words) and 20% writes (``recordEvent`` of new text, extraction on, as the server runs by
default). Afterwards it counts the events the server holds: every acknowledged write must be there.
Prints req/s and p50/p95 per operation and writes bench/results/graphql_load.json.

Each client is an agent: after each answer it thinks for a random time (exponential, mean ``--think``
seconds) before its next request. ``--think 0`` sends back to back: that measures the most the server can
answer (latency then grows with the number of clients waiting, by construction). ``--warmup S`` runs S seconds
of the same load first and does not measure them: a server that has just started reads from the database
what its caches will soon hold, so both figures are worth printing (writes of the warm-up are counted too).

    python bench/graphql_load.py [--events 100000] [--clients 50] [--seconds 60] [--think 1] [--warmup 0]
                                 [--db PATH]

The clients run on the same machine as the server (this one has 2 cores), so the figures are pessimistic.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from collections.abc import Callable
from typing import IO

import httpx
import psutil
from _common import percentiles, table, write_results
from scale import BATCH, WORDS, event

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from graphmem.cli.main import main; main()"]

ENTITY = """query($name: String!) { entity(name: $name) { name states { predicate object validFrom { label }
  evidence { event { content source { ref } } } } events(first: 5) { nodes { content occurredAt { label } } } } }"""
AS_OF = """query($at: String!, $e: String!) { asOf(at: $at, entity: $e) { period { label }
  states { predicate object validFrom { label } validTo { label } } } }"""
RECALL = """query($q: String!) { recall(query: $q, k: 10) { hits { id type score content refs time { label } } } }"""
RECORD = """mutation($i: RecordEventInput!) { recordEvent(input: $i) {
  ... on RecordEventSuccess { id status } ... on RecordEventError { code message } } }"""
NAMES = ["Peter", "Aiko", "Sam", "Lena", "Omar", "Mia"]
CITIES = ["Berlin", "Lisbon", "Tokyo", "Marrakesh", "Oslo"]


def build(path: str, n_events: int) -> None:
    from graphmem import Memory, StateInput

    rng = random.Random(n_events)
    n_entities = max(100, n_events // 10)
    with Memory.open(path, extract=False) as mem:
        for start in range(0, n_events, BATCH):
            mem.record_many([event(i, n_entities, rng) for i in range(start, min(n_events, start + BATCH))])
        states = [
            StateInput(subject=f"person {e}", predicate=p, object=o, valid_from=v)
            for e in range(n_entities)
            for p, o, v in (("lives_in", f"city {e % 50}", "2020"),
                            ("lives_in", f"city {(e + 7) % 50}", f"2024-{1 + e % 12:02d}-01"),
                            ("works_at", f"company {e % 200}", f"2021-{1 + e % 12:02d}"))
        ]
        for start in range(0, len(states), 4 * BATCH):
            mem.assert_states(states[start:start + 4 * BATCH])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(path: str, log: IO[str]) -> tuple[subprocess.Popen[str], str]:
    port = free_port()  # the server's stderr goes to a file: an unread pipe would fill and stall it
    proc = subprocess.Popen([*CLI, "--db", path, "serve", "--port", str(port)], stderr=log, text=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    sys.exit("the server did not start")


def pick(rng: random.Random, n_entities: int, serial: str) -> tuple[str, str, dict]:
    roll = rng.random()
    person = f"person {rng.randrange(n_entities)}"
    if roll < 0.30:
        return "entity", ENTITY, {"name": person}
    if roll < 0.60:
        return "asOf", AS_OF, {"at": rng.choice(["Nov 2024", "2024-03-15", "2023", "2025-06"]), "e": person}
    if roll < 0.80:
        words = " ".join(rng.sample(WORDS, 2))
        return "recall", RECALL, {"q": f"what was said about the {words} in #{rng.randrange(n_entities * 10)}"}
    name, city = rng.choice(NAMES), rng.choice(CITIES)
    text = f"{name} moved to {city} in March and joined Acme Labs as a designer. (note {serial})"
    return "recordEvent", RECORD, {"i": {"content": text, "occurredAt": "2025-11-27", "agentId": "load",
                                         "source": {"system": "bench", "ref": f"load#{serial}"}}}


async def client(http: httpx.AsyncClient, seed: int, measured_from: float, deadline: float, n_entities: int,
                 think: float, out: dict) -> None:
    rng = random.Random(seed)
    await asyncio.sleep(rng.uniform(0, think))  # agents do not all start at the same instant
    async with http:
        serial = 0
        while time.perf_counter() < deadline:
            serial += 1
            op, query, variables = pick(rng, n_entities, f"{out['run']}-{seed}-{serial}")
            t0 = time.perf_counter()
            try:
                response = await http.post("/graphql", json={"query": query, "variables": variables})
                body = response.json()
                ok = response.status_code == 200 and not body.get("errors")
                if op == "recordEvent":
                    result = body["data"]["recordEvent"]
                    ok = ok and result.get("status") == "created"
                    if ok:
                        out["created"] += 1
            except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
                ok, body = False, {"exception": repr(exc)}
            if t0 >= measured_from:  # requests of the warm-up are not measured (their writes are counted)
                out["latency"].setdefault(op, []).append((time.perf_counter() - t0) * 1000)
                if ok and (timing := response.headers.get("server-timing", "")).startswith("app;dur="):
                    out["in_server"].setdefault(op, []).append(float(timing.removeprefix("app;dur=")))
            if not ok:
                out["errors"].append(op)
                out["error_samples"].append(f"{op}: {str(body)[:300]}")
            if think:
                await asyncio.sleep(rng.expovariate(1 / think))


async def load(url: str, clients: int, seconds: float, warmup: float, n_entities: int, think: float,
               cpu: Callable[[], tuple[float, float]]) -> dict:
    """Run the clients; ``cpu`` says the (server, clients) CPU seconds so far, read when measuring starts and
    ends."""
    out: dict = {"latency": {}, "in_server": {}, "errors": [], "error_samples": [], "created": 0, "run": f"{time.time():.0f}"}
    # every agent's HTTP client is made before the clock starts: making one costs ~35 ms of this process's CPU
    # (its TLS context), and 50 of them made while the first requests wait were ~2 s added to those requests
    https = [httpx.AsyncClient(base_url=url, timeout=60) for _ in range(clients)]
    measured_from = time.perf_counter() + warmup
    deadline = measured_from + seconds

    async def start_measuring() -> None:
        await asyncio.sleep(warmup)
        out["cpu_start"] = cpu()

    await asyncio.gather(start_measuring(), *(client(http, i + 1, measured_from, deadline, n_entities, think, out)
                                             for i, http in enumerate(https)))
    out["cpu_end"] = cpu()
    out["elapsed_s"] = time.perf_counter() - measured_from
    return out


def count_events(url: str) -> int:
    body = httpx.post(f"{url}/graphql", json={"query": "{ stats { events } }"}, timeout=60).json()
    return int(body["data"]["stats"]["events"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=1.0, help="mean pause between a client's requests (s)")
    parser.add_argument("--warmup", type=float, default=0.0,
                        help="seconds of load before the measured ones (the server's caches fill; not measured)")
    parser.add_argument("--db", help="reuse (or create) this database instead of a temporary one")
    args = parser.parse_args()
    if args.db:
        path = args.db
    else:  # a database of its own, removed when the script ends
        scratch = tempfile.mkdtemp(prefix="graphmem-load-")
        atexit.register(shutil.rmtree, scratch, True)
        path = os.path.join(scratch, "memory.kuzu")
    if not Path(path).exists():
        t0 = time.perf_counter()
        build(path, args.events)
        print(f"built {args.events:,} events in {time.perf_counter() - t0:.1f} s at {path}")
    log = tempfile.NamedTemporaryFile("w+", prefix="graphmem-serve-", suffix=".log")
    proc, url = start_server(path, log)
    try:
        httpx.post(f"{url}/graphql", timeout=120, json={"query": RECORD, "variables": {"i": {  # warm the extractor
            "content": "Warm-up: Peter moved to Lisbon.", "agentId": "load"}}})
        before = count_events(url)
        server, here = psutil.Process(proc.pid), psutil.Process()

        def cpu() -> tuple[float, float]:
            return sum(server.cpu_times()[:2]), sum(here.cpu_times()[:2])

        result = asyncio.run(load(url, args.clients, args.seconds, args.warmup, max(100, args.events // 10),
                                  args.think, cpu))
        after = count_events(url)
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    server_cpu_s = result["cpu_end"][0] - result["cpu_start"][0]
    clients_cpu_s = result["cpu_end"][1] - result["cpu_start"][1]
    rows, payload = [], {"events": before, "clients": args.clients, "think_s": args.think, "warmup_s": args.warmup,
                         "seconds": result["elapsed_s"],
                         "errors": len(result["errors"]), "created": result["created"],
                         "stored_after": after, "lost_writes": before + result["created"] - after, "ops": {}}
    total = 0
    for op in ("entity", "asOf", "recall", "recordEvent"):
        samples = result["latency"].get(op, [])
        total += len(samples)
        stats = percentiles(samples) if samples else {"p50_ms": 0.0, "p95_ms": 0.0, "n": 0}
        rate = len(samples) / result["elapsed_s"]
        inside = result["in_server"].get(op, [])
        served = percentiles(inside) if inside else {"p50_ms": 0.0, "p95_ms": 0.0, "n": 0}
        payload["ops"][op] = {**stats, "per_s": rate, "errors": result["errors"].count(op),
                              "in_server_p50_ms": served["p50_ms"], "in_server_p95_ms": served["p95_ms"]}
        rows.append([op, len(samples), rate, stats["p50_ms"], stats["p95_ms"], served["p50_ms"], served["p95_ms"],
                     result["errors"].count(op)])
    rows.append(["all", total, total / result["elapsed_s"], "", "", "", "", len(result["errors"])])
    print(table(["operation", "requests", "req/s", "p50 ms", "p95 ms", "in server p50", "p95", "errors"], rows))
    n_requests = total
    payload["server_cpu_s"] = server_cpu_s
    payload["server_cpu_ms_per_request"] = 1000 * server_cpu_s / max(1, n_requests)
    payload["clients_cpu_s"] = clients_cpu_s
    payload["error_samples"] = result["error_samples"][:20]
    print(f"\nevents before {before:,}, acknowledged writes {result['created']:,}, stored after {after:,}: "
          f"lost {payload['lost_writes']}")
    print(f"server CPU {server_cpu_s:.1f} s over {result['elapsed_s']:.0f} s "
          f"({payload['server_cpu_ms_per_request']:.1f} ms a request); the clients used {clients_cpu_s:.1f} s "
          f"(same machine: {os.cpu_count()} cores in all)")
    for sample in payload["error_samples"]:
        print("error:", sample)
    log.seek(0)
    if payload["errors"] and (lines := log.read().strip().splitlines()):
        print("server stderr (last lines):", *lines[-10:], sep="\n  ")
    write_results("graphql_load", payload)


if __name__ == "__main__":
    main()
