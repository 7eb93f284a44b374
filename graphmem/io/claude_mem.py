"""Import a claude-mem SQLite database: observations and session summaries become events, sessions threads.

claude-mem's schema changed across versions, so columns are found by inspecting each table, not assumed:

- the session key: ``sdk_session_id``, ``memory_session_id``, ``session_id``, ``content_session_id`` or
  ``claude_session_id`` (the first present); the thread is ``claude-mem:<key>``;
- the time: ``created_at_epoch`` (milliseconds, or seconds when small), else ``created_at`` (ISO text); a row
  without either takes its session's start (``sdk_sessions.started_at_epoch`` / ``started_at``);
- an observation's content: ``title``, ``subtitle``, ``narrative``, ``text``, ``facts`` and ``concepts`` that
  are present and non-empty, in that order; its ``type`` sets the event kind (decision -> decision, bugfix ->
  bug, anything else -> observation) and is kept as a tag;
- a summary's content: ``request``, ``investigated``, ``learned``, ``completed``, ``next_steps``, ``notes``;
- ``project`` gives the scope ``project:<slug>`` (else the session's project, else ``global``).

Every event's source is ``claude-mem`` with ``ref`` ``observations:<id>`` or ``session_summaries:<id>``.
Importing again writes nothing new (event ids are deterministic). ``verify`` reads every row again and
reports the rows memory does not hold.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.memory import Memory
from graphmem.ontology import slugify

__all__ = ["ImportReport", "import_claude_mem"]

BATCH = 500
_SESSION_KEYS = ("sdk_session_id", "memory_session_id", "session_id", "content_session_id", "claude_session_id")
_OBSERVATION_TEXT = ("title", "subtitle", "narrative", "text", "facts", "concepts")
_SUMMARY_TEXT = ("request", "investigated", "learned", "completed", "next_steps", "notes")
_KINDS = {"decision": "decision", "bugfix": "bug", "bug": "bug"}


@dataclass
class ImportReport:
    """Rows read per table and what became of them."""

    rows: dict[str, int] = field(default_factory=dict)
    created: int = 0
    duplicate: int = 0
    dropped: int = 0  # privacy tags dropped them
    skipped: int = 0  # rows with no text
    missing: list[str] = field(default_factory=list)  # refs memory does not hold (verify)
    notes: list[str] = field(default_factory=list)  # columns or tables not found


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})")]


def _time(row: Mapping[str, Any], epoch: str, text: str) -> str | None:
    value = row.get(epoch)
    if isinstance(value, int | float) and value > 0:
        seconds = value / 1000 if value > 10**11 else value
        return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat()
    raw = row.get(text)
    return raw.strip() if isinstance(raw, str) and raw.strip() else None


def _text(row: Mapping[str, Any], names: tuple[str, ...], labelled: bool) -> str:
    parts = []
    for name in names:
        value = row.get(name)
        if isinstance(value, str) and value.strip():
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):  # facts / concepts kept as JSON arrays
                try:
                    value = "; ".join(str(v) for v in json.loads(value))
                except ValueError:
                    pass
            parts.append(f"{name.replace('_', ' ').capitalize()}: {value}" if labelled else value)
    return "\n".join(parts)


def _rows(db: sqlite3.Connection, table: str) -> Iterator[dict[str, Any]]:
    cursor = db.execute(f"SELECT * FROM {table} ORDER BY rowid")
    names = [d[0] for d in cursor.description]
    for values in cursor:
        yield dict(zip(names, values, strict=True))


def _items(db: sqlite3.Connection, report: ImportReport) -> Iterator[dict[str, Any]]:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"observations", "session_summaries"} & tables:
        raise InvalidInput("this SQLite file has neither an observations nor a session_summaries table; is it a "
                           "claude-mem database (~/.claude-mem/claude-mem.db)?", field="path")
    sessions: dict[str, dict[str, Any]] = {}
    if "sdk_sessions" in tables:
        cols = _columns(db, "sdk_sessions")
        keys = [k for k in _SESSION_KEYS if k in cols]
        for row in _rows(db, "sdk_sessions"):
            report.rows["sdk_sessions"] = report.rows.get("sdk_sessions", 0) + 1
            for k in keys:
                if row.get(k):
                    sessions[str(row[k])] = row
    else:
        report.notes.append("no sdk_sessions table: sessions give no project or start time")
    for table, names, labelled in (("observations", _OBSERVATION_TEXT, False),
                                   ("session_summaries", _SUMMARY_TEXT, True)):
        if table not in tables:
            report.notes.append(f"no {table} table")
            continue
        cols = _columns(db, table)
        key = next((k for k in _SESSION_KEYS if k in cols), None)
        if key is None:
            report.notes.append(f"{table} has no session column; its rows get no thread")
        for row in _rows(db, table):
            report.rows[table] = report.rows.get(table, 0) + 1
            content = _text(row, names, labelled)
            if not content:
                report.skipped += 1
                continue
            session = str(row[key]) if key and row.get(key) else None
            meta = sessions.get(session or "", {})
            project = row.get("project") or meta.get("project")
            kind_of = str(row.get("type") or "")
            yield {
                "content": content,
                "occurred_at": _time(row, "created_at_epoch", "created_at")
                or _time(meta, "started_at_epoch", "started_at"),
                "kind": "summary" if table == "session_summaries" else _KINDS.get(kind_of, "observation"),
                "scope": f"project:{slugify(project)}" if project else "global",
                "thread": f"claude-mem:{session}" if session else None,
                "agent_id": "claude-mem",
                "tags": [t for t in ("claude-mem", kind_of) if t],
                "source": {"system": "claude-mem", "ref": f"{table}:{row.get('id', '?')}", "session_id": session},
            }


def _batches(items: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def import_claude_mem(memory: Memory, path: str | Path, *, verify: bool = False) -> ImportReport:
    """Read a claude-mem database (opened read-only) into ``memory``; with ``verify``, write nothing and
    list the rows memory does not hold."""
    source = Path(path)
    if not source.is_file():
        raise InvalidInput(f"{source} is not a file; pass the claude-mem database (claude-mem.db)", field="path")
    try:
        db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1")
    except sqlite3.DatabaseError as exc:
        raise InvalidInput(f"{source} is not a readable SQLite database ({exc})", field="path") from None
    report = ImportReport()
    try:
        for batch in _batches(_items(db, report)):
            if verify:
                for item, held in zip(batch, memory.held(batch), strict=True):
                    if held is False:
                        report.missing.append(item["source"]["ref"])
                continue
            for result in memory.record_many(batch):
                if result.status == "created":
                    report.created += 1
                elif result.status == "duplicate":
                    report.duplicate += 1
                else:
                    report.dropped += 1
    finally:
        db.close()
    return report
