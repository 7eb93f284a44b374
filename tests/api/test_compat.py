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


def test_a_read_that_cannot_be_answered_says_so(http):
    response = http.get("/v1/memory/snapshot", params={"agent_id": "claude", "scopes": "global"})
    assert response.status_code == 501
    answer = response.json()
    assert answer["ok"] is False and answer["error"]["code"] == "not_implemented"
    assert "not treat this as an empty memory" in answer["error"]["message"]


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
    memory.close()
