"""graphmem as an MCP tool set (``graphmem mcp``, stdio): each tool is a thin call into :class:`Memory`.

The tools follow the progressive disclosure agents use: ``recall`` (compact hits) -> ``timeline`` (the events
around one) -> ``get`` (whole events); plus the time and entity questions (``as_of``, ``entity``,
``opinions``), writing (``record_event``) and the session calls (``resume_pack``, ``checkpoint``,
``finalize_session``). A refused call answers an MCP tool error naming the field and the fix; nothing is
written by it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from graphmem.errors import GraphmemError
from graphmem.memory import Memory
from graphmem.query.plain import plain

__all__ = ["TOOLS", "build_server"]

F = TypeVar("F", bound=Callable[..., Any])

TOOLS = ("recall", "timeline", "get", "record_event", "as_of", "entity", "opinions", "resume_pack", "checkpoint",
         "finalize_session", "health")

INSTRUCTIONS = (
    "graphmem is a temporal memory. Start a session with resume_pack; ask with recall (then timeline and get "
    "for detail), as_of for what was true at a time, entity for one thing, opinions for beliefs with their "
    "evidence; record what happened with record_event, milestones with checkpoint, and end with "
    "finalize_session."
)


def _answers(fn: F) -> F:
    """Memory's refusals become MCP tool errors that say which field is wrong and how to fix it."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GraphmemError as exc:
            where = f" (field {exc.field})" if exc.field else ""
            raise ToolError(f"{exc.code}{where}: {exc.message}") from None

    return wrapper  # type: ignore[return-value]


def build_server(memory: Memory) -> MCPServer:
    """The MCP server whose tools answer from ``memory``."""
    server: MCPServer = MCPServer("graphmem", instructions=INSTRUCTIONS)

    @server.tool(description="Search memory in words: events and states best first, each with its sources, "
                             "time, entities and score parts. since/until take times or expressions (30d, "
                             "'Nov 2025').")
    @_answers
    def recall(query: str, k: int = 10, since: str | None = None, until: str | None = None,
               entities: list[str] | None = None, kinds: list[str] | None = None,
               include_private: bool = False) -> dict[str, Any]:
        hits = memory.recall(query, k, since=since, until=until, entities=entities, kinds=kinds,
                             include_private=include_private)
        return {"hits": plain(hits)}

    @server.tool(description="The events just before and after one event (in its thread's order).")
    @_answers
    def timeline(event_id: str, before: int = 5, after: int = 5, include_private: bool = False) -> dict[str, Any]:
        return {"events": plain(memory.events_around(event_id, before=before, after=after,
                                                     include_private=include_private))}

    @server.tool(description="Whole events by id.")
    @_answers
    def get(ids: list[str]) -> dict[str, Any]:
        return {"events": plain(memory.get(ids))}

    @server.tool(description="Record one event (idempotent: the same dedupe_key or content returns the first id). "
                             "kind: observation, decision, fact, todo, ...; scope: global, project:<slug> or "
                             "agent:<id>; privacy: private, redact, no_mem ...; tags: free labels, and "
                             "'speaker:user' when the user says the content (\"I\" in it is then the user)")
    @_answers
    def record_event(content: str, occurred_at: str | None = None, kind: str = "observation",
                     agent_id: str = "mcp", scope: str = "global", thread: str | None = None,
                     tags: list[str] | None = None, privacy: list[str] | None = None,
                     dedupe_key: str | None = None, source_ref: str | None = None) -> dict[str, Any]:
        result = memory.record(content, occurred_at=occurred_at, kind=kind, agent_id=agent_id, scope=scope,
                               thread=thread, tags=tags or (), privacy=privacy or (), dedupe_key=dedupe_key,
                               source={"system": "mcp", "ref": source_ref})
        return {"id": result.id, "status": result.status}

    @server.tool(description="What was true at a time ('Nov 2025', '2025-11-27', an ISO instant; a coarse time "
                             "means its end), optionally of one entity and predicate; known_at: as memory knew "
                             "it then.")
    @_answers
    def as_of(when: str, entity: str | None = None, predicate: str | None = None, known_at: str | None = None,
              include_private: bool = False) -> dict[str, Any]:
        at = memory.read_time(when, "when", edge="end")
        known = memory.read_time(known_at, "known_at", edge="end") if known_at else None
        view = memory.known_at(known).as_of(at) if known is not None else memory.as_of(at)
        states = view.states(subject=entity, predicate=predicate, include_private=include_private)
        return {"when": when, "states": plain(states)}

    @server.tool(description="One entity: its canonical name, aliases, current states and recent events.")
    @_answers
    def entity(name: str, include_private: bool = False) -> dict[str, Any]:
        return plain(memory.entity(name, include_private=include_private))  # type: ignore[no-any-return]

    @server.tool(description="Opinions with their confidence, its history and the evidence for and against.")
    @_answers
    def opinions(about: str | None = None, holder: str | None = None, min_confidence: float = 0.0,
                 as_of: str | None = None, include_private: bool = False) -> dict[str, Any]:
        found = memory.opinions(about=about, holder=holder, min_confidence=min_confidence, as_of=as_of,
                                include_private=include_private)
        return {"opinions": [
            {"id": o.id, "statement": o.statement, "holder": o.holder, "confidence": o.confidence,
             "about": list(o.about), "valid": plain(o.state.valid), "history": plain(o.history),
             "evidence": plain(o.state.evidence)}
            for o in found
        ]}

    @server.tool(description="What to read at the start of a session: pinned memory, the session's checkpoints "
                             "and recent events of the project, within a token budget, as Markdown.")
    @_answers
    def resume_pack(project: str | None = None, session: str | None = None, token_budget: int = 1500,
                    include_private: bool = False) -> dict[str, Any]:
        pack = memory.resume_pack(project=project, session=session, token_budget=token_budget,
                                  include_private=include_private)
        return plain(pack)  # type: ignore[no-any-return]

    @server.tool(description="Record a milestone of a session (what was done, decided or learned).")
    @_answers
    def checkpoint(session: str, title: str, content: str, tags: list[str] | None = None,
                   agent_id: str = "mcp") -> dict[str, Any]:
        result = memory.checkpoint(session, title, content, tags=tags or (), agent_id=agent_id)
        return {"id": result.id, "status": result.status}

    @server.tool(description="End a session: record its deterministic summary (replacing an earlier one).")
    @_answers
    def finalize_session(session: str, agent_id: str = "mcp") -> dict[str, Any]:
        result = memory.finalize_session(session, agent_id=agent_id)
        return {"id": result.id, "status": result.status, "summary": result.event.content if result.event else None}

    @server.tool(description="Whether memory is up: its counts and the search index's state.")
    @_answers
    def health() -> dict[str, Any]:
        return {"ok": True, "stats": plain(memory.stats()), "index": plain(memory.index_status())}

    return server
