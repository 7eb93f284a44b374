"""Compatibility routes: plain HTTP+JSON for agents already configured against older memory protocols.

GraphQL is the primary API; these routes map the shared-memory protocol (``POST /v1/memory/append``) and a
harness daemon's routes (``/v1/events/record``, ``/v1/timeline``, ``/v1/observations/get``, ``/v1/search``,
``/v1/checkpoints/record``, ``/v1/sessions/finalize``, ``/v1/resume-pack``) and the shared-memory snapshot
(``GET /v1/memory/snapshot``, whose answer also carries ``snapshot_id``, ``pinned_md``, ``recent_events`` and
``ruleset_stamp`` at the top level, as that protocol reads them) onto the same
:class:`~graphmem.Memory` calls and access rules, with that daemon's response envelope::

    {"ok": true, "source": "core", "items": [...], "meta": {"count": 1, "latency_ms": 2.1,
                                                            "filters": {...}, "ranking": "none"}}

A failed call answers ``ok: false`` with an ``error`` naming its code, field and fix, and an HTTP status
(400 bad input, 401/403 access, 404 unknown id, 413 too large): never an empty
answer that could be mistaken for "memory holds nothing".
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from graphmem.api.access import Principal
from graphmem.api.context import Context
from graphmem.api.mutations.finalize_session import finalize_checked
from graphmem.api.packs import read_resume_pack, read_snapshot
from graphmem.query.packs import pack_scopes
from graphmem.api.recall import recall_hits
from graphmem.api.reads import events_around, get_events
from graphmem.errors import Forbidden, GraphmemError, InvalidInput, NotFound, UnknownField
from graphmem.memory import Memory, RecordResult
from graphmem.ontology import Event, slugify

__all__ = ["compat_routes", "event_json", "events_json"]

_STATUS = {Forbidden: 403, NotFound: 404}
_APPEND_FIELDS = {"agent_id", "run_id", "scope", "kind", "dedupe_key", "confidence", "content_md", "source",
                  "supersedes", "ttl_days", "tags", "privacy", "occurred_at"}
_ENVELOPE_FIELDS = {"event_id", "platform", "project", "session_id", "event_type", "ts", "payload", "tags",
                    "privacy_tags", "dedupe_hash"}

Items = list[dict[str, Any]]
# a handler answers its items, or its items and fields for the top level of the answer
Handler = Callable[[Context, dict[str, Any]], Items | tuple[Items, dict[str, Any]]]


def event_json(e: Event, shown: Collection[str]) -> dict[str, Any]:
    """An event as the compatibility routes return it; the event it replaces is named when in ``shown``."""
    return {
        "id": e.id, "kind": e.kind, "scope": e.scope, "agent_id": e.agent_id, "content": e.content,
        "occurred_at": e.occurred_at.label(), "recorded_at": e.recorded_at.isoformat(), "thread": e.thread,
        "tags": list(e.tags), "privacy": list(e.privacy), "dedupe_key": e.dedupe_key, "confidence": e.confidence,
        "supersedes": e.supersedes if e.supersedes in shown else None,
        "source": e.source.model_dump(exclude_none=True),
    }


def events_json(ctx: Context, events: Sequence[Event], include_private: bool) -> list[dict[str, Any]]:
    """``events`` as the routes return them: each names the event it replaces only when the caller may see
    that one too (read with ``include_private``), as GraphQL's ``Event.supersedes`` does."""
    shown = ctx.seen(sorted({e.supersedes for e in events if e.supersedes}), include_private)
    return [event_json(e, shown) for e in events]


def _result_json(r: RecordResult) -> dict[str, Any]:
    return {"event_id": r.id, "status": r.status, "redactions": list(r.redactions)}


def _object(body: Any, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidInput("the request body must be a JSON object", field="body")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise UnknownField(unknown[0], allowed)
    return body


def _append(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The shared-memory protocol's ``memory_event``: content_md, dedupe_key, confidence high/med/low ..."""
    b = _object(body, _APPEND_FIELDS)
    if not isinstance(b.get("content_md"), str):
        raise InvalidInput("content_md is required: the memory as short Markdown", field="content_md")
    source = b.get("source") or {}
    if not isinstance(source, dict):
        raise InvalidInput("source must be an object like {\"system\": \"cli\"}", field="source")
    scope = b.get("scope", "global")
    privacy = b.get("privacy") or ()
    ctx.principal.check_record(scope if isinstance(scope, str) else "",
                               privacy if isinstance(privacy, list) else (), read=ctx.memory.extract,
                               read_field="privacy")
    result = ctx.memory.record(
        content=b["content_md"], occurred_at=b.get("occurred_at"),
        source={**source, **({"run_id": b["run_id"]} if b.get("run_id") else {})},
        agent_id=ctx.principal.writer_id(b.get("agent_id"), "agent_id"), scope=scope,
        kind=b.get("kind", "observation"), dedupe_key=b.get("dedupe_key"), confidence=b.get("confidence", 1.0),
        supersedes=b.get("supersedes"), ttl_days=b.get("ttl_days") or None, tags=b.get("tags") or (),
        privacy=b.get("privacy") or (), may_link=ctx.principal.linkable(),
    )
    return [_result_json(result)]


def _record(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
    """A harness event envelope: platform, project, session_id, event_type, ts, payload, privacy_tags."""
    b = _object(body.get("event", body), _ENVELOPE_FIELDS)
    payload = b.get("payload") or {}
    if not isinstance(payload, dict):
        raise InvalidInput("payload must be an object", field="payload")
    content = payload.get("content") or payload.get("prompt") or payload.get("summary")
    if not isinstance(content, str):
        content = json.dumps(payload, ensure_ascii=False, sort_keys=True) if payload else None
    if not content:
        raise InvalidInput("payload carries no content; send payload.content", field="payload.content")
    project = b.get("project")
    scope = f"project:{slugify(project)}" if isinstance(project, str) and project.strip() else "global"
    privacy = b.get("privacy_tags") or ()
    ctx.principal.check_record(scope, privacy if isinstance(privacy, list) else (), read=ctx.memory.extract,
                               field="project", read_field="privacy_tags")
    platform, session = b.get("platform") or "agent", b.get("session_id")
    dedupe = b.get("dedupe_hash")
    result = ctx.memory.record(
        content=content, occurred_at=b.get("ts"), scope=scope,
        kind="checkpoint" if b.get("event_type") == "checkpoint" else "observation",
        source={"system": str(platform), "session_id": session, "ref": b.get("event_id")},
        agent_id=ctx.principal.writer_id(None) if not ctx.principal.is_local else slugify(str(platform)),
        thread=f"{platform}:{session}" if session else None,
        tags=[*(b.get("tags") or ()), *([b["event_type"]] if b.get("event_type") else [])],
        privacy=b.get("privacy_tags") or (), dedupe_key=dedupe[:64].lower() if isinstance(dedupe, str) else None,
    )
    return [_result_json(result)]


def _flag(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false", field=name)
    return value


def _count(body: Mapping[str, Any], name: str, default: int) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{name} must be a whole number", field=name)
    return value


def _timeline(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
    if not isinstance(body.get("id"), str):
        raise InvalidInput("id is required: the event to look around", field="id")
    private = _flag(body, "include_private")
    return events_json(ctx, events_around(ctx, body["id"], _count(body, "before", 5), _count(body, "after", 5),
                                          private), private)


def _strings(body: Mapping[str, Any], name: str, what: str = "strings") -> list[str] | None:
    value = body.get(name)
    if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
        raise InvalidInput(f"{name} must be a list of {what}", field=name)
    return value


def _observations(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
    ids = _strings(body, "ids", "event ids")
    if ids is None:
        raise InvalidInput("ids must be a list of event ids", field="ids")
    private = _flag(body, "include_private")
    found = events_json(ctx, get_events(ctx, ids, private), private)
    if body.get("compact", True) is not False:
        return [{k: v for k, v in e.items() if v not in (None, [], {})} for e in found]
    return found


_SEARCH_FIELDS = {"query", "limit", "since", "until", "entities", "kinds", "types", "scopes", "include_private",
                  "preset", "relative_to"}


def _search(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
    body = _object(body, _SEARCH_FIELDS)
    if not isinstance(body.get("query"), str):
        raise InvalidInput("query is required: what to search for, in words", field="query")
    lists = {name: _strings(body, name) for name in ("entities", "kinds", "types", "scopes")}
    hits = recall_hits(
        ctx, body["query"], _count(body, "limit", 10), _flag(body, "include_private"), since=body.get("since"),
        until=body.get("until"), preset=body.get("preset", "default"), relative_to=body.get("relative_to"),
        **lists,
    )
    return [{
        "id": h.id, "type": h.type, "kind": h.kind, "score": h.score, "parts": h.parts,
        "time": h.time.at.isoformat().replace("+00:00", "Z") if h.time else None, "content": h.content,
        "entities": list(h.entities), "scope": h.scope, "source": h.source.model_dump() if h.source else None,
        "refs": list(h.refs), "event_ids": list(h.event_ids),
    } for h in hits]


def _text(body: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} is required: a non-empty string", field=name)
    return value


def _number(body: Mapping[str, Any], name: str, default: int) -> int:
    """A whole number from a JSON body or a query string."""
    value = body.get(name, default)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return _count({name: value}, name, default)


def _switch(body: Mapping[str, Any], name: str) -> bool:
    """true/false from a JSON body or a query string."""
    value = body.get(name, False)
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    return _flag({name: value}, name)


_SNAPSHOT_FIELDS = {"agent_id", "scopes", "limit_recent", "include_private", "snapshot_id"}


def _snapshot(ctx: Context, body: dict[str, Any]) -> tuple[Items, dict[str, Any]]:
    """``GET /v1/memory/snapshot?agent_id=..&scopes=global,project:x&limit_recent=50``"""
    b = _object(body, _SNAPSHOT_FIELDS)
    if b.get("agent_id") is not None:
        ctx.principal.writer_id(b["agent_id"], "agent_id")  # a token reads as its own agent only
    scopes = b.get("scopes")
    if isinstance(scopes, str):
        scopes = [s.strip() for s in scopes.split(",") if s.strip()]
    elif scopes is not None:
        scopes = _strings(b, "scopes", "scopes")
    if ctx.principal.is_local and scopes is None and b.get("agent_id"):
        scopes = pack_scopes(None, b["agent_id"])
    snap = read_snapshot(ctx, scopes, _number(b, "limit_recent", 50), _switch(b, "include_private"),
                         _text(b, "snapshot_id"))
    private = snap.request.include_private
    pinned = events_json(ctx, [p.event for p in snap.pins], private)
    pins = [{"scope": p.scope, "key": p.key, "event": e, "replaced": list(p.replaced)}
            for p, e in zip(snap.pins, pinned, strict=True)]
    top = {"snapshot_id": snap.id, "pinned_md": snap.pinned_md, "ruleset_stamp": snap.ruleset_stamp,
           "recent_events": events_json(ctx, snap.recent, private), "scopes": list(snap.request.scopes),
           "known_at": snap.request.known_at.isoformat()}
    return pins, top


_RESUME_FIELDS = {"project", "session_id", "limit", "include_private", "token_budget"}


def _resume_pack(ctx: Context, body: dict[str, Any]) -> tuple[Items, dict[str, Any]]:
    b = _object(body, _RESUME_FIELDS)
    pack = read_resume_pack(ctx, _text(b, "project"), _text(b, "session_id"), _number(b, "token_budget", 1500),
                            _number(b, "limit", 20), _switch(b, "include_private"))
    items = [{"section": i.section, "text": i.text, "tokens": i.tokens, "event_id": i.event_id,
              "state_id": i.state_id} for i in pack.items]
    return items, {"pack": {"markdown": pack.markdown, "tokens": pack.tokens, "token_budget": pack.token_budget,
                            "dropped": pack.dropped, "session": pack.session, "snapshot_id": pack.snapshot_id}}


_CHECKPOINT_FIELDS = {"session_id", "title", "content", "tags", "privacy_tags", "project", "platform"}


def _checkpoint(ctx: Context, body: dict[str, Any]) -> Items:
    b = _object(body, _CHECKPOINT_FIELDS)
    session = _text(b, "session_id", required=True)
    assert session is not None
    if b.get("platform") is not None:
        session = f"{_text(b, 'platform')}:{session}"
    project = _text(b, "project")
    scope = f"project:{slugify(project)}" if project else "global"
    ctx.principal.check_record(scope, _strings(b, "privacy_tags") or (), read=ctx.memory.extract,
                               field="project", read_field="privacy_tags")
    result = ctx.memory.checkpoint(
        session, b.get("title", ""), b.get("content", ""), tags=_strings(b, "tags") or (),
        privacy=_strings(b, "privacy_tags") or (), scope=scope, agent_id=ctx.principal.writer_id(None),
        source={"system": str(b.get("platform") or "agent"), "session_id": b["session_id"]},
    )
    return [_result_json(result)]


def _finalize(ctx: Context, body: dict[str, Any]) -> Items:
    b = _object(body, {"session_id", "summary_mode", "platform"})
    session = _text(b, "session_id", required=True)
    assert session is not None
    if b.get("platform") is not None:
        session = f"{_text(b, 'platform')}:{session}"
    if b.get("summary_mode", "standard") != "standard":
        raise InvalidInput("summary_mode must be 'standard' (the one deterministic summary)", field="summary_mode")
    result = finalize_checked(ctx, session, "session_id")
    summary = ctx.memory.get([result.id])[0] if result.id else None
    return [{**_result_json(result), "summary": summary.content if summary else None}]


def compat_routes(memory: Memory, executor: Executor) -> list[Route]:
    def route(path: str, handler: Handler, method: str = "POST", ranking: str = "none") -> Route:
        async def endpoint(request: Request) -> Response:
            return await _answer(request, memory, executor, handler, ranking)

        return Route(path, endpoint, methods=[method])

    return [
        route("/v1/memory/append", _append),
        route("/v1/memory/snapshot", _snapshot, "GET", ranking="pins: latest per dedupe_key; recent: newest first"),
        route("/v1/events/record", _record),
        route("/v1/timeline", _timeline),
        route("/v1/observations/get", _observations),
        route("/v1/search", _search, ranking="hybrid: lexical + vector + thread + entity + subject + time + recency"),
        route("/v1/checkpoints/record", _checkpoint),
        route("/v1/sessions/finalize", _finalize),
        route("/v1/resume-pack", _resume_pack, ranking="pinned > session > open tasks > recent, within budget"),
    ]


async def _answer(request: Request, memory: Memory, executor: Executor, handler: Handler,
                  ranking: str = "none") -> Response:
    started = time.perf_counter()
    principal: Principal = request.scope["graphmem.principal"]
    try:
        body: Any = dict(request.query_params) if request.method == "GET" else await _body(request)
        ctx = Context(memory=memory, principal=principal, executor=executor)
        answer = await ctx.run(handler, ctx, body)
    except GraphmemError as exc:
        status = next((s for t, s in _STATUS.items() if isinstance(exc, t)), 400)
        error = principal.shown(exc).to_dict()
        return JSONResponse({"ok": False, "source": "core", "error": error, "items": [],
                             "meta": _meta(0, started, {}, ranking)}, status_code=status)
    filters = {k: v for k, v in body.items() if k in _FILTERS} if isinstance(body, dict) else {}
    items, top = answer if isinstance(answer, tuple) else (answer, {})
    return JSONResponse({"ok": True, "source": "core", **top, "items": items,
                         "meta": _meta(len(items), started, filters, ranking)})


_FILTERS = ("scopes", "include_private", "before", "after", "since", "until", "entities", "kinds", "types",
            "preset")


async def _body(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"the request body is not JSON: {exc}", field="body") from None


def _meta(count: int, started: float, filters: dict[str, Any], ranking: str) -> dict[str, Any]:
    return {"count": count, "latency_ms": round((time.perf_counter() - started) * 1000, 2), "filters": filters,
            "ranking": ranking}
