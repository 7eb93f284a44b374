"""``graphmem serve`` as a real process: it owns the database, shuts down without losing acknowledged writes."""

import concurrent.futures
import datetime as dt
import random
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from graphmem import Memory

pytestmark = pytest.mark.slow

CLI = [sys.executable, "-c", "from graphmem.cli.main import main; main()"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db, *args):
    port = free_port()
    proc = subprocess.Popen([*CLI, "--db", str(db), "serve", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc, f"http://127.0.0.1:{port}"
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("server did not start in 60 s")


RECORD = "mutation($i: RecordEventInput!) { recordEvent(input: $i) { ... on RecordEventSuccess { id status } } }"


def test_server_owns_the_database_and_loses_no_acknowledged_write(tmp_path):
    db = tmp_path / "memory.kuzu"
    proc, url = start(db, "--host", "0.0.0.0")
    try:
        # a second process gets a clear error that says where to send its requests
        other = subprocess.run([*CLI, "--db", str(db), "stats"], capture_output=True, text=True, timeout=120)
        assert other.returncode == 2
        assert "graphmem serve" in other.stderr and "store_locked" in other.stderr

        def write(i):
            try:
                r = httpx.post(f"{url}/graphql", json={"query": RECORD, "variables": {
                    "i": {"content": f"event {i}", "occurredAt": "2025-11-27", "extract": False}}}, timeout=60)
                return r.json()["data"]["recordEvent"]["id"]
            except (httpx.TransportError, KeyError, ValueError):
                return None  # not acknowledged: the server was already stopping

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            futures = [pool.submit(write, i) for i in range(200)]
            while sum(f.done() for f in futures) < 20:
                time.sleep(0.01)
            proc.send_signal(signal.SIGTERM)  # stop while writes are in flight
            acknowledged = [f.result() for f in futures if f.result()]
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    assert "no tokens configured: serving on 127.0.0.1 only" in stderr
    # uvicorn re-raises the signal after its graceful shutdown, so the exit status is the signal's
    assert proc.returncode in (0, -signal.SIGTERM), stderr
    assert "stopped: in-flight requests finished, database closed" in stderr
    assert len(acknowledged) >= 20
    with Memory.open(db) as memory:
        stored = {e.id for e in memory.events(limit=1000)}
    assert set(acknowledged) <= stored


def test_deployment_entry_and_example_tokens_file(tmp_path, monkeypatch):
    import runpy
    from pathlib import Path

    from starlette.testclient import TestClient

    from graphmem.api import AccessPolicy

    root = Path(__file__).resolve().parents[2]
    example = AccessPolicy.from_file(root / "server" / "tokens.example.yaml")
    assert example.agents == ["claude", "codex", "overseer"]
    monkeypatch.setenv("GRAPHMEM_DB", str(tmp_path / "memory.kuzu"))
    monkeypatch.setenv("GRAPHMEM_TOKENS", str(root / "server" / "tokens.example.yaml"))
    app = runpy.run_path(str(root / "server" / "app.py"))["app"]
    with TestClient(app) as http:
        assert http.get("/health").json()["auth"] is True
        assert http.post("/graphql", json={"query": "{ stats { events } }"}).status_code == 401


def test_idle_connections_outlive_the_clients_and_answers_say_how_long_they_took(tmp_path):
    proc, url = start(tmp_path / "memory.kuzu")
    try:
        host, port = url.removeprefix("http://").split(":")
        request = f"GET /health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
        with socket.create_connection((host, int(port)), timeout=10) as conn:
            conn.sendall(request)
            first = _response_head(conn)
            time.sleep(6)  # longer than an http client keeps an idle connection (httpx: 5 s)
            conn.sendall(request)  # the server has not closed it: no request may land on a closing connection
            second = _response_head(conn)
        for head in (first, second):
            assert head[0] == "HTTP/1.1 200 OK"
            timing = next(line for line in head if line.lower().startswith("server-timing:"))
            assert float(timing.split("dur=")[1]) >= 0
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _response_head(conn):
    """One whole HTTP response read from ``conn``; its status line and headers."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    length = int(next(line.split(":")[1] for line in lines if line.lower().startswith("content-length:")))
    while len(body) < length:
        body += conn.recv(65536)
    return lines


def test_the_server_backs_its_database_up_when_asked_to(tmp_path):
    db, backups = tmp_path / "memory.kuzu", tmp_path / "backups"
    proc, url = start(db, "--backup-dir", str(backups))
    try:
        r = httpx.post(f"{url}/graphql", json={"query": RECORD, "variables": {
            "i": {"content": "kept in the first backup?", "occurredAt": "2025-11-27", "extract": False}}}, timeout=60)
        assert r.json()["data"]["recordEvent"]["id"]
        deadline = time.monotonic() + 60
        while not list(backups.glob("memory-*.kuzu")) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    copies = list(backups.glob("memory-*.kuzu"))
    assert len(copies) == 1, proc.stderr.read()
    with Memory.open(copies[0]) as copy:  # the copy opens as a memory (the event may have come after it)
        assert copy.stats().events in (0, 1)


def test_agents_writing_and_asking_at_once_find_what_they_wrote_and_timelines_stay_whole(tmp_path):
    ask = 'query($q: String!) { recall(query: $q, k: 1, preset: "lexical") { hits { id } } }'
    people, orgs = ["Peter", "Priya", "Kenji", "Lena"], ["Acme Inc", "Globex", "Initech", "Umbrella Labs"]
    db = tmp_path / "memory.kuzu"
    proc, url = start(db)

    def agent(w):
        r, acked, lost = random.Random(w), [], []
        with httpx.Client(timeout=60) as http:
            for i in range(40):  # many values of one month for a few people: written together, they tie
                month = r.choice(["March", "May"])
                said = f"{r.choice(people)} joined {r.choice(orgs)} in {month}. tag{w}x{i}"
                sent = {"i": {"content": said, "occurredAt": "2025-11-27", "agentId": f"agent{w}"}}
                got = http.post(f"{url}/graphql", json={"query": RECORD, "variables": sent}).json()
                acked.append(got["data"]["recordEvent"]["id"])
                if i % 4 == 0:  # asked at once, by its own word: what was just written comes first
                    hits = http.post(f"{url}/graphql", json={"query": ask, "variables": {"q": f"tag{w}x{i}"}})
                    if [h["id"] for h in hits.json()["data"]["recall"]["hits"]] != acked[-1:]:
                        lost.append(i)
        return acked, lost

    try:
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            done = list(pool.map(agent, range(6)))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert [lost for _, lost in done] == [[]] * 6
    with Memory.open(db) as memory:
        acked = [i for ids, _ in done for i in ids]
        assert {e.id for e in memory.get(acked)} == set(acked)
        for person in people:
            timeline = memory.timeline(person, "works_at")
            assert timeline
            open_ended = dt.datetime.max.replace(tzinfo=dt.UTC)
            spans = sorted((s.valid.start.at, s.valid.end.at if s.valid.end else open_ended)
                           for s in timeline)
            # one value at a time: each ends by the next one's start
            assert all(end <= after for (_, end), (after, _) in zip(spans, spans[1:], strict=False)), person
