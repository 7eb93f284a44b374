"""``graphmem mcp`` driven as an agent's MCP client drives it: spawn it over stdio, initialize, list the
tools, call them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from graphmem import Memory
from graphmem.mcp_server import TOOLS
from graphmem.samples import load_sample


def payload(result):
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("mcp") / "m.kuzu"
    with Memory.open(str(path), embedder="none") as mem:
        load_sample(mem)
    return path


def test_an_mcp_client_lists_and_calls_the_tools(sample_db):
    graphmem = Path(sys.executable).with_name("graphmem")
    params = StdioServerParameters(command=str(graphmem), args=["--db", str(sample_db), "mcp"],
                                   env={**os.environ, "GRAPHMEM_EMBEDDER": "none"})

    async def session() -> dict[str, object]:
        out: dict[str, object] = {}
        async with Client(params) as client:
            out["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
            out["as_of"] = payload(await client.call_tool("as_of", {"when": "Nov 2025", "entity": "Peter",
                                                                    "predicate": "lives_in"}))
            out["recall"] = payload(await client.call_tool("recall", {"query": "Where does Peter live?", "k": 3}))
            hit = next(h for h in out["recall"]["hits"] if "Marrakesh" in h["content"])  # type: ignore[index]
            out["hit"] = hit
            out["timeline"] = payload(await client.call_tool("timeline", {"event_id": hit["event_ids"][0],
                                                                          "before": 1, "after": 1}))
            out["get"] = payload(await client.call_tool("get", {"ids": [hit["event_ids"][0]]}))
            out["entity"] = payload(await client.call_tool("entity", {"name": "peter"}))
            out["opinions"] = payload(await client.call_tool("opinions", {"about": "Kuzu"}))
            out["record"] = payload(await client.call_tool("record_event", {
                "content": "Lena moved to Porto.", "occurred_at": "2026-03-01", "thread": "mcp:s1"}))
            out["again"] = payload(await client.call_tool("record_event", {
                "content": "Lena moved to Porto.", "occurred_at": "2026-03-01", "thread": "mcp:s1"}))
            out["checkpoint"] = payload(await client.call_tool("checkpoint", {
                "session": "s1", "title": "Porto", "content": "Lena's move is recorded."}))
            out["finalize"] = payload(await client.call_tool("finalize_session", {"session": "s1"}))
            out["resume"] = payload(await client.call_tool("resume_pack", {"session": "s1"}))
            out["health"] = payload(await client.call_tool("health", {}))
            out["refused"] = await client.call_tool("as_of", {"when": "the day after never"})
        return out

    out = anyio.run(session)
    assert out["tools"] == sorted(TOOLS)
    assert [(s["object"], s["valid"]["start"]["text"]) for s in out["as_of"]["states"]] == [  # type: ignore[index]
        ("Marrakesh", "2025-11-27")]
    hit = out["hit"]
    assert hit["content"] == "Peter lives in Marrakesh" and hit["refs"][0] == "memory/2025-11-27.md#L12"  # type: ignore[index]
    assert hit_in(out["timeline"]["events"], hit["event_ids"][0])  # type: ignore[index]
    assert out["get"]["events"][0]["source"]["ref"] == "memory/2025-11-27.md#L12"  # type: ignore[index]
    assert out["entity"]["entity"]["name"] == "Peter"  # type: ignore[index]
    assert out["opinions"]["opinions"][0]["holder"] == "Sam"  # type: ignore[index]
    assert out["record"]["status"] == "created" and out["again"] == {**out["record"], "status": "duplicate"}  # type: ignore[index]
    assert out["checkpoint"]["status"] == "created" and "Porto" in out["finalize"]["summary"]  # type: ignore[index]
    assert "Lena" in out["resume"]["markdown"] and out["health"]["ok"] is True  # type: ignore[index]
    refused = out["refused"]
    assert refused.is_error and "field when" in refused.content[0].text  # type: ignore[attr-defined]
    with Memory.open(str(sample_db), embedder="none") as mem:
        assert [s.object for s in mem.as_of("2026-03-02").states(subject="Lena", predicate="lives_in")] == ["Porto"]


def hit_in(events, event_id):
    return any(e["id"] == event_id for e in events)
