"""Compatibility routes: plain HTTP+JSON for agents already configured against older memory protocols.

GraphQL is the primary API; these routes map the shared-memory protocol (``POST /v1/memory/append``) and a
harness daemon's routes (``/v1/events/record``, ``/v1/timeline``, ``/v1/observations/get``) onto the same
:class:`~graphmem.Memory` calls and access rules, with that daemon's response envelope::

    {"ok": true, "source": "core", "items": [...], "meta": {"count": 1, "latency_ms": 2.1,
                                                            "filters": {...}, "ranking": "none"}}

A failed call answers ``ok: false`` with an ``error`` naming its code, field and fix, and an HTTP status
(400 bad input, 401/403 access, 404 unknown id, 413 too large, 501 not in this version): never an empty
answer that could be mistaken for "memory holds nothing".
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Executor
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from graphmem.api.access import Principal
from graphmem.api.context import Context
from graphmem.api.recall import recall_hits
from graphmem.api.reads import events_around, get_events
from graphmem.errors import Forbidden, GraphmemError, InvalidInput, NotFound
from graphmem.memory import Memory, RecordResult
from graphmem.ontology import Event, slugify

__all__ = ["compat_routes", "event_json"]

_STATUS = {Forbidden: 403, NotFound: 404}
_APPEND_FIELDS = {"agent_id", "run_id", "scope", "kind", "dedupe_key", "confidence", "content_md", "source",
                  "supersedes", "ttl_days", "tags", "privacy", "occurred_at"}
_ENVELOPE_FIELDS = {"event_id", "platform", "project", "session_id", "event_type", "ts", "payload", "tags",
                    "privacy_tags", "dedupe_hash"}

Handler = Callable[[Context, dict[str, Any]], list[dict[str, Any]]]


def event_json(e: Event) -> dict[str, Any]:
    """An event as the compatibility routes return it."""
    return {
        "id": e.id, "kind": e.kind, "scope": e.scope, "agent_id": e.agent_id, "content": e.content,
        "occurred_at": e.occurred_at.label(), "recorded_at": e.recorded_at.isoformat(), "thread": e.thread,
        "tags": list(e.tags), "privacy": list(e.privacy), "dedupe_key": e.dedupe_key, "confidence": e.confidence,
        "supersedes": e.supersedes, "source": e.source.model_dump(exclude_none=True),
    }


def _result_json(r: RecordResult) -> dict[str, Any]:
    return {"event_id": r.id, "status": r.status, "redactions": list(r.redactions)}


def _object(body: Any, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidInput("the request body must be a JSON object", field="body")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise InvalidInput(f"unknown field {unknown[0]!r}; known: {', '.join(sorted(allowed))}", field=unknown[0])
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
    ctx.principal.check_write(scope if isinstance(scope, str) else "", "scope")
    result = ctx.memory.record(
        content=b["content_md"], occurred_at=b.get("occurred_at"),
        source={**source, **({"run_id": b["run_id"]} if b.get("run_id") else {})},
        agent_id=ctx.principal.writer_id(b.get("agent_id"), "agent_id"), scope=scope,
        kind=b.get("kind", "observation"), dedupe_key=b.get("dedupe_key"), confidence=b.get("confidence", 1.0),
        supersedes=b.get("supersedes"), ttl_days=b.get("ttl_days") or None, tags=b.get("tags") or (),
        privacy=b.get("privacy") or (),
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
    ctx.principal.check_write(scope, "project")
    platform, session = b.get("platform") or "agent", b.get("session_id")
    dedupe = b.get("dedupe_hash")
    result = ctx.memory.record(
        content=content, occurred_at=b.get("ts"), scope=scope, kind="observation",
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
    found = events_around(ctx, body["id"], _count(body, "before", 5), _count(body, "after", 5),
                          _flag(body, "include_private"))
    return [event_json(e) for e in found]


def _strings(body: Mapping[str, Any], name: str, what: str = "strings") -> list[str] | None:
    value = body.get(name)
    if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
        raise InvalidInput(f"{name} must be a list of {what}", field=name)
    return value


def _observations(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
    ids = _strings(body, "ids", "event ids")
    if ids is None:
        raise InvalidInput("ids must be a list of event ids", field="ids")
    found = get_events(ctx, ids, _flag(body, "include_private"))
    if body.get("compact", True) is not False:
        return [{k: v for k, v in event_json(e).items() if v not in (None, [], {})} for e in found]
    return [event_json(e) for e in found]


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


def compat_routes(memory: Memory, executor: Executor) -> list[Route]:
    def route(path: str, handler: Handler, method: str = "POST", ranking: str = "none") -> Route:
        async def endpoint(request: Request) -> Response:
            return await _answer(request, memory, executor, handler, ranking)

        return Route(path, endpoint, methods=[method])

    return [
        route("/v1/memory/append", _append),
        route("/v1/events/record", _record),
        route("/v1/timeline", _timeline),
        route("/v1/observations/get", _observations),
        route("/v1/search", _search, ranking="hybrid: lexical + vector + thread + entity + time + recency"),
        *(route(path, _not_yet(what), method) for path, what, method in _LATER),
    ]


_LATER = (
    ("/v1/memory/snapshot", "snapshots (pinned memory + recent events)", "GET"),
    ("/v1/resume-pack", "resume packs", "POST"),
)


def _not_yet(what: str) -> Handler:
    def handler(ctx: Context, body: dict[str, Any]) -> list[dict[str, Any]]:
        raise _NotImplemented(f"{what} are not available in this version of graphmem; nothing was read, so do "
                              "not treat this as an empty memory. Use GraphQL `events` meanwhile")

    return handler


class _NotImplemented(GraphmemError):
    code = "not_implemented"


async def _answer(request: Request, memory: Memory, executor: Executor, handler: Handler,
                  ranking: str = "none") -> Response:
    started = time.perf_counter()
    principal: Principal = request.scope["graphmem.principal"]
    try:
        body: Any = dict(request.query_params) if request.method == "GET" else await _body(request)
        ctx = Context(memory=memory, principal=principal, executor=executor)
        items = await ctx.run(handler, ctx, body)
    except GraphmemError as exc:
        status = 501 if isinstance(exc, _NotImplemented) else next(
            (s for t, s in _STATUS.items() if isinstance(exc, t)), 400)
        return JSONResponse({"ok": False, "source": "core", "error": exc.to_dict(), "items": [],
                             "meta": _meta(0, started, {}, ranking)}, status_code=status)
    filters = {k: v for k, v in body.items() if k in _FILTERS} if isinstance(body, dict) else {}
    return JSONResponse({"ok": True, "source": "core", "items": items,
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
