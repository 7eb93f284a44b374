"""Agent session transcripts (JSONL, one JSON object per line) tailed into memory with stored offsets.

Three line shapes are understood:

- a coding agent's rollout log (``{"timestamp", "type", "payload"}``): ``session_meta`` names the session and
  its working directory (the project), ``response_item`` messages of the user and the assistant and the
  assistant's tool calls become events; reasoning, tool output and the ``event_msg`` echoes of messages are
  skipped;
- a chat export (``{"role", "content", "timestamp"?, "id"?, "session_id"?}``): one event per message;
- graphmem's own event lines (``{"content", "occurred_at", ...}``, as ``graphmem ingest`` reads).

Each file's cursor (byte offset, lines read, the session it names) is stored in memory after the events it
covers, so a restart resumes where the last run stopped; replayed lines find their events already held (ids
are derived from the file and line), so nothing is recorded twice. A last line without its newline is still
being written: it is left for the next run. A complete line that is not JSON is reported with its line
number and passed over.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import GraphmemError, InvalidInput
from graphmem.memory import Memory
from graphmem.ontology import SPEAKER_TAG, slugify
from graphmem.store import SourceCursor

__all__ = ["TailReport", "line_event", "session_files", "tail_sessions"]

BATCH_LINES = 2000  # lines recorded per transaction; the cursor moves after each batch
_HEAD_BYTES = 4096  # a file whose first bytes changed was replaced: read it again from the start
_WRAPPERS = re.compile(r"^\s*<(environment_context|user_instructions|permissions instructions)>", re.IGNORECASE)
_CONTENT_LIMIT = 8000  # characters of one message kept as an event


@dataclass
class TailReport:
    """What one pass over session files did."""

    files: int = 0
    lines: int = 0  # complete lines read this pass
    created: int = 0
    held: int = 0  # lines whose event memory already held (a replay after a crash)
    skipped: int = 0  # lines with nothing to remember (reasoning, tool output, metadata)
    waiting: list[str] = field(default_factory=list)  # files whose last line is still being written
    restarted: list[str] = field(default_factory=list)  # files replaced since the last pass, read from the top
    errors: list[dict[str, object]] = field(default_factory=list)  # {path, line, message}

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def session_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """The ``.jsonl`` files named, or found under the folders named, sorted."""
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        elif path.is_file():
            yield path
        else:
            raise InvalidInput(f"{str(raw)!r} is neither a file nor a folder", field="paths")


@dataclass
class _Context:
    """What earlier lines of a file said that later ones need."""

    session: str | None = None
    project: str | None = None


def line_event(obj: object, *, ref: str, context: _Context, agent_id: str | None, scope: str | None,
               default_session: str) -> dict[str, Any] | None:
    """The event one transcript line records (``None``: nothing to remember), updating ``context``."""
    if not isinstance(obj, Mapping):
        raise InvalidInput("a transcript line must be a JSON object", field="line")
    if "payload" in obj and "type" in obj:
        return _rollout_event(obj, ref=ref, context=context, agent_id=agent_id, scope=scope,
                              default_session=default_session)
    if "role" in obj:
        text = _text(obj.get("content"))
        if not text or obj.get("role") in ("system", "developer", "tool"):
            return None
        session = str(obj.get("session_id") or obj.get("conversation_id") or context.session or default_session)
        return _event(text, role=str(obj["role"]), at=_time(obj), ref=ref, session=session, system="chat",
                      message_id=obj.get("id"), agent_id=agent_id or "chat", scope=scope or "global")
    if "content" in obj:
        return {"source": {"system": "jsonl", "ref": ref}, **obj}
    return None


def _rollout_event(obj: Mapping[str, Any], *, ref: str, context: _Context, agent_id: str | None,
                   scope: str | None, default_session: str) -> dict[str, Any] | None:
    payload = obj.get("payload") or {}
    if not isinstance(payload, Mapping):
        return None
    kind = obj.get("type")
    if kind == "session_meta":
        context.session = str(payload.get("id") or context.session or default_session)
        cwd = payload.get("cwd")
        context.project = slugify(Path(str(cwd)).name) if cwd else context.project
        return None
    if kind != "response_item":
        return None  # event_msg echoes the messages; turn_context and the rest carry no new content
    session = context.session or default_session
    where = scope or (f"project:{context.project}" if context.project else "global")
    if payload.get("type") == "message":
        role = str(payload.get("role") or "")
        text = _text(payload.get("content"))
        if role not in ("user", "assistant") or not text or _WRAPPERS.match(text):
            return None
        return _event(text, role=role, at=obj.get("timestamp"), ref=ref, session=session, system="codex",
                      message_id=payload.get("id"), agent_id=agent_id or "codex", scope=where)
    if payload.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
        name = payload.get("name") or payload.get("type")
        arguments = payload.get("arguments") or payload.get("input") or payload.get("action") or ""
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, sort_keys=True)
        return {**_event(f"{name}({arguments[:500]})", role="tool_use", at=obj.get("timestamp"), ref=ref,
                         session=session, system="codex", message_id=payload.get("call_id"),
                         agent_id=agent_id or "codex", scope=where), "kind": "log", "extract": False}
    return None


def _event(text: str, *, role: str, at: object, ref: str, session: str, system: str, message_id: object,
           agent_id: str, scope: str) -> dict[str, Any]:
    return {
        "content": text[:_CONTENT_LIMIT], "occurred_at": at or None, "kind": "observation",
        "tags": [role, *([f"{SPEAKER_TAG}user"] if role == "user" else [])],  # ("I": the user; Event.speaker)
        "thread": f"{system}:{session}", "agent_id": agent_id, "scope": scope,
        "source": {"system": system, "ref": ref, "session_id": session,
                   "message_id": str(message_id) if message_id else None},
    }


def _text(content: object) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
        return "\n".join(p.strip() for p in parts if p and p.strip())
    return ""


def _time(obj: Mapping[str, Any]) -> object:
    for key in ("timestamp", "created_at", "time", "date"):
        if obj.get(key):
            return obj[key]
    return None


def tail_sessions(
    memory: Memory,
    paths: Iterable[str | Path],
    *,
    agent_id: str | None = None,
    scope: str | None = None,
) -> TailReport:
    """Read what was appended to each session file since the last pass (see the module's description)."""
    report = TailReport()
    for path in session_files(paths):
        report.files += 1
        _tail_file(memory, path.resolve(), report, agent_id=agent_id, scope=scope)
    return report


def _tail_file(memory: Memory, path: Path, report: TailReport, *, agent_id: str | None, scope: str | None) -> None:
    key = f"sessions:{path}"
    cursor = next((c for c in memory.cursors(key) if c.key == key), None)
    offset, line_no, detail = 0, 0, {}
    if cursor is not None:
        if path.stat().st_size < cursor.offset or _head(path, cursor.offset) != cursor.digest:
            report.restarted.append(str(path))  # truncated or replaced: what was read is no longer there
        else:
            offset, line_no, detail = cursor.offset, cursor.line, json.loads(cursor.detail)
    with path.open("rb") as handle:
        handle.seek(offset)
        data = handle.read()
    context = _Context(session=detail.get("session"), project=detail.get("project"))
    end = data.rfind(b"\n") + 1
    if end < len(data):
        report.waiting.append(str(path))
    complete = data[:end]
    default_session = path.stem
    pending: list[dict[str, Any]] = []
    consumed = offset
    for raw in complete.splitlines(keepends=True):
        line_no += 1
        consumed += len(raw)
        report.lines += 1
        text = raw.decode("utf-8", errors="replace").strip()
        item = None
        if text:
            try:
                item = line_event(json.loads(text), ref=f"{path.name}#L{line_no}", context=context,
                                  agent_id=agent_id, scope=scope, default_session=default_session)
            except (json.JSONDecodeError, GraphmemError) as exc:
                message = exc.message if isinstance(exc, GraphmemError) else f"not JSON: {exc.msg}"
                report.errors.append({"path": str(path), "line": line_no, "message": message})
        if item is not None:
            pending.append(item)
        elif text:
            report.skipped += 1
        if len(pending) >= BATCH_LINES:
            _flush(memory, pending, report, path)
            _save(memory, key, path, consumed, line_no, context)
    _flush(memory, pending, report, path)
    if consumed != offset or cursor is None:
        _save(memory, key, path, consumed, line_no, context)


def _flush(memory: Memory, pending: list[dict[str, Any]], report: TailReport, path: Path) -> None:
    if not pending:
        return
    try:
        results = memory.record_many(pending)
    except GraphmemError:  # a line memory refuses: record the others one by one and report that one
        results = []
        for item in pending:
            try:
                results.append(memory.record_many([item])[0])
            except GraphmemError as exc:
                ref = str(item.get("source", {}).get("ref", ""))
                report.errors.append({"path": str(path), "line": int(ref.rpartition("#L")[2] or 0),
                                      "message": f"{exc.field}: {exc.message}" if exc.field else exc.message})
    for result in results:
        if result.status == "created":
            report.created += 1
        else:
            report.held += 1
    pending.clear()


def _head(path: Path, offset: int) -> str:
    """Digest of the file's first bytes up to ``offset`` (at most 4 KiB): tells an appended file from a new one."""
    with path.open("rb") as handle:
        return hashlib.sha256(handle.read(min(offset, _HEAD_BYTES))).hexdigest()


def _save(memory: Memory, key: str, path: Path, offset: int, line: int, context: _Context) -> None:
    detail = json.dumps({"session": context.session, "project": context.project}, sort_keys=True)
    memory.save_cursors([SourceCursor(key=key, digest=_head(path, offset), offset=offset, line=line,
                                      updated_at=memory.now(), detail=detail)])
