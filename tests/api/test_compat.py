"""The compatibility routes answer through the same memory calls, with the daemon's envelope."""

import pytest

from graphmem.api import AccessPolicy
from tests.api.conftest import sample_memory, serve

PROTOCOL_EVENT = {
    "agent_id": "claude", "run_id": "run_2026_02_02_001", "scope": "global", "kind": "config",
    "dedupe_key": "telegram_bot_token_location", "confidence": "high",
    "content_md": "The bot token lives in ~/bot/.env (from 2026-02-02).",
    "source": {"system": "telegram", "thread_id": "thr_abc123"}, "supersedes": None, "ttl_days": 0,
}


@pytest.fixture
def http():
    memory = sample_memory()
    with serve(memory) as client:
        client.memory = memory
        yield client
    memory.close()


def test_append_records_once_and_replays_as_duplicate(http):
    first = http.post("/v1/memory/append", json=PROTOCOL_EVENT).json()
    assert first["ok"] is True and first["items"][0]["status"] == "created"
    assert set(first["meta"]) == {"count", "latency_ms", "filters", "ranking"}
    again = http.post("/v1/memory/append", json=PROTOCOL_EVENT).json()
    assert again["items"][0] == {**first["items"][0], "status": "duplicate"}
    event = http.memory.get([first["items"][0]["event_id"]])[0]
    assert (event.kind, event.confidence, event.source.run_id) == ("config", 0.9, "run_2026_02_02_001")


@pytest.mark.parametrize("body,field", [
    ({**PROTOCOL_EVENT, "colour": "red"}, "colour"),
    ({**PROTOCOL_EVENT, "content_md": None}, "content_md"),
    ({**PROTOCOL_EVENT, "dedupe_key": "Has Spaces"}, "dedupe_key"),
    ({**PROTOCOL_EVENT, "scope": "team"}, "scope"),
    ({**PROTOCOL_EVENT, "confidence": "certain"}, "confidence"),
    ([1, 2], "body"),
])
def test_bad_appends_name_the_field_and_write_nothing(http, body, field):
    before = http.memory.stats().events
    response = http.post("/v1/memory/append", json=body)
    assert response.status_code == 400
    answer = response.json()
    assert answer["ok"] is False and answer["items"] == [] and answer["error"]["field"] == field
    assert http.memory.stats().events == before


def test_snapshot_answers_pins_recent_stamp_and_a_repeatable_id(http):
    http.post("/v1/memory/append", json=PROTOCOL_EVENT)
    answer = http.get("/v1/memory/snapshot", params={"agent_id": "claude", "scopes": "global",
                                                     "limit_recent": "5"}).json()
    assert answer["ok"] is True
    assert "**telegram_bot_token_location** (config" in answer["pinned_md"]
    assert answer["ruleset_stamp"].startswith("GRAPHMEM_RULESET=v1")
    assert len(answer["recent_events"]) == 5 and answer["scopes"] == ["global"]
    assert [p["key"] for p in answer["items"]] == ["telegram_bot_token_location"]
    http.post("/v1/memory/append", json={**PROTOCOL_EVENT, "content_md": "The token moved to the vault."})
    again = http.get("/v1/memory/snapshot", params={"snapshot_id": answer["snapshot_id"]}).json()
    assert (again["pinned_md"], again["recent_events"]) == (answer["pinned_md"], answer["recent_events"])
    now = http.get("/v1/memory/snapshot", params={"scopes": "global"}).json()
    assert "moved to the vault" in now["pinned_md"]
    bad = http.get("/v1/memory/snapshot", params={"snapshot_id": "snap1-garbage"})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "snapshot_id"


def test_a_snapshot_the_token_cannot_read_is_refused_not_emptied():
    memory = sample_memory()
    policy = AccessPolicy.from_config({"agents": {"bob": {"token": "bob-token-0123456789", "read": ["global"],
                                                          "write": ["global"]}}})
    with serve(memory, policy) as http:
        auth = {"Authorization": "Bearer bob-token-0123456789"}
        refused = http.get("/v1/memory/snapshot", params={"scopes": "global,project:search"}, headers=auth)
        assert refused.status_code == 403
        assert refused.json()["ok"] is False and refused.json()["error"]["field"] == "scopes"
        own = http.get("/v1/memory/snapshot", headers=auth).json()
        assert own["ok"] is True and own["scopes"] == ["agent:bob", "global"]
        pack = http.post("/v1/resume-pack", json={"project": "search"}, headers=auth)
        assert pack.status_code == 403 and pack.json()["error"]["field"] == "project"
    memory.close()


def test_harness_sessions_checkpoint_finalize_and_resume(http):
    base = {"platform": "codex", "project": "Search", "session_id": "s-9", "ts": "2025-11-28T10:00:00Z"}
    http.post("/v1/events/record", json={**base, "event_type": "user_prompt",
                                         "payload": {"prompt": "Make ranking tests pass."}})
    checkpoint = http.post("/v1/checkpoints/record", json={
        "session_id": "s-9", "platform": "codex", "project": "Search", "title": "Ranking fixed",
        "content": "Ranking tests pass after the tie-break change.", "tags": ["ci"]}).json()
    assert checkpoint["ok"] is True and checkpoint["items"][0]["status"] == "created"
    final = http.post("/v1/sessions/finalize", json={"session_id": "s-9"}).json()
    assert final["ok"] is True and final["items"][0]["summary"].startswith("Session codex:s-9: 2 events")
    assert http.post("/v1/sessions/finalize", json={"session_id": "s-9"}).json()["items"][0]["status"] \
        == "duplicate"
    pack = http.post("/v1/resume-pack", json={"project": "Search", "session_id": "s-9",
                                              "token_budget": 400}).json()
    assert pack["ok"] is True and pack["pack"]["tokens"] <= 400
    assert pack["pack"]["session"] == "codex:s-9"
    sections = [i["section"] for i in pack["items"]]
    order = ["pinned", "session", "open_tasks", "recent"]
    assert sections.count("session") == 2 and sections == sorted(sections, key=order.index)
    assert "Ranking fixed" in pack["pack"]["markdown"]
    missing = http.post("/v1/sessions/finalize", json={"session_id": "s-404"})
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "session"
    wrong = http.post("/v1/sessions/finalize", json={"session_id": "s-9", "summary_mode": "llm"})
    assert wrong.status_code == 400 and wrong.json()["error"]["field"] == "summary_mode"


def test_harness_routes_record_then_look_around_then_get(http):
    envelope = {"event_id": "01J0000000000000000000000", "platform": "claude", "project": "Search",
                "session_id": "s-1", "event_type": "checkpoint", "ts": "2025-11-28T10:00:00Z",
                "payload": {"content": "Checkpoint: ranking tests pass."}, "tags": ["ci"], "privacy_tags": [],
                "dedupe_hash": "a" * 64}
    recorded = http.post("/v1/events/record", json={"event": envelope}).json()
    event_id = recorded["items"][0]["event_id"]
    event = http.memory.get([event_id])[0]
    assert (event.scope, event.thread, event.source.session_id) == ("project:search", "claude:s-1", "s-1")
    assert "checkpoint" in event.tags
    around = http.post("/v1/timeline", json={"id": event_id, "before": 1, "after": 1}).json()
    assert around["ok"] and [e["id"] for e in around["items"]][1] == event_id and around["meta"]["count"] == 3
    got = http.post("/v1/observations/get", json={"ids": [event_id, "ev_unknown"]}).json()
    assert [e["id"] for e in got["items"]] == [event_id]
    missing = http.post("/v1/timeline", json={"id": "ev_unknown"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_compat_routes_follow_the_same_access_rules():
    memory = sample_memory()
    policy = AccessPolicy.from_config({"agents": {"bob": {"token": "bob-token-0123456789", "read": ["global"],
                                                          "write": ["global"]}}})
    with serve(memory, policy) as http:
        assert http.post("/v1/memory/append", json=PROTOCOL_EVENT).status_code == 401
        auth = {"Authorization": "Bearer bob-token-0123456789"}
        spoof = http.post("/v1/memory/append", json=PROTOCOL_EVENT, headers=auth)
        assert spoof.status_code == 403 and spoof.json()["error"]["field"] == "agent_id"
        own = http.post("/v1/memory/append", json={**PROTOCOL_EVENT, "agent_id": "bob"}, headers=auth)
        assert own.json()["ok"] is True
        secret = next(e for e in memory.events(limit=50) if e.scope == "project:search")
        hidden = http.post("/v1/observations/get", json={"ids": [secret.id]}, headers=auth).json()
        assert hidden["items"] == []
        # an unknown name suggests names like it: only those of entities the caller can see anything about
        memory.assert_state("Zara Quill", "status", "kept", scope="project:search")
        memory.assert_state("Zara Quint", "status", "kept", scope="global")
        asked = http.post("/v1/search", json={"query": "status", "entities": ["Zara"]}, headers=auth)
        assert asked.status_code == 404, asked.json()
        assert asked.json()["error"]["suggestions"] == ["Zara Quint"]
    with serve(memory) as http:  # (no tokens: the local user sees every scope)
        asked = http.post("/v1/search", json={"query": "status", "entities": ["Zara"]}).json()
        assert asked["error"]["suggestions"] == ["Zara Quill", "Zara Quint"]
    memory.close()
