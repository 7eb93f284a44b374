"""A Markdown workspace as the source of truth: graphmem reads it, never writes into it.

The workspace is the one people and agents already keep::

    memory.md                 long-term notes
    memory/2026-02-02.md      daily logs, optionally with ``## Retain`` sections
    bank/...                  pages (the ones ``graphmem reflect`` wrote are skipped: memory made them)

Every list item and paragraph becomes one event whose source is ``path#Lnn`` (a daily log's dated by its file
name, other pages by their front matter's ``date:`` / ``updated:``, else the day they were last modified); Retain bullets go through :meth:`Memory.retain`
(their kinds, @entities and opinions). Reading is incremental: a file whose bytes did not change is not read,
and in a changed file only notes whose text is new are recorded, so an edit above a note does not record it
twice. Notes that disappeared from a page are reported as ``stale`` (memory keeps what it was told). Deleting
the database and reading the workspace again gives the same answers.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import GraphmemError, InvalidInput
from graphmem.extraction import front_matter, parse_notes, parse_retain
from graphmem.memory import Memory
from graphmem.query.pages import MARKER
from graphmem.store import SourceCursor

__all__ = ["WorkspaceReport", "ingest_workspace", "workspace_files"]

_DAILY = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
_SKIPPED_DIRS = {".git", ".graphmem", "node_modules", ".venv", "__pycache__"}


@dataclass
class WorkspaceReport:
    """What one pass over a workspace did."""

    root: str
    files: int = 0  # Markdown files found
    read: list[str] = field(default_factory=list)  # files read because they were new or changed
    unchanged: int = 0
    generated: list[str] = field(default_factory=list)  # bank pages reflect wrote, not read
    created: int = 0  # events recorded
    held: int = 0  # notes memory already held
    opinions: int = 0
    stale: dict[str, list[str]] = field(default_factory=dict)  # path -> event ids of notes no longer there
    missing: list[str] = field(default_factory=list)  # files read before that are gone
    errors: dict[str, str] = field(default_factory=dict)  # path -> what is wrong (that file wrote nothing)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def workspace_files(root: Path) -> Iterator[Path]:
    """The workspace's Markdown files, sorted: ``memory.md``, ``memory/**``, ``bank/**``, then any others."""
    found = sorted(
        p for p in root.rglob("*.md")
        if p.is_file() and not any(part in _SKIPPED_DIRS for part in p.relative_to(root).parts[:-1])
    )
    order = {"memory.md": 0, "memory": 1, "bank": 2}
    yield from sorted(found, key=lambda p: (order.get(p.relative_to(root).parts[0], 3), p.relative_to(root)))


def ingest_workspace(
    memory: Memory,
    root: str | Path,
    *,
    agent_id: str = "markdown",
    scope: str = "global",
    holder: str = "self",
    thread: str | None = None,
) -> WorkspaceReport:
    """Read what is new in the workspace at ``root`` into ``memory`` (see the module's description)."""
    base = Path(root).expanduser().resolve()
    if not base.is_dir():
        raise InvalidInput(f"workspace {str(root)!r} is not a directory; pass the folder holding memory.md",
                           field="root")
    report = WorkspaceReport(root=str(base))
    prefix = f"workspace:{base}:"
    known = {c.key[len(prefix):]: c for c in memory.cursors(prefix)}
    seen: set[str] = set()
    for path in workspace_files(base):
        rel = path.relative_to(base).as_posix()
        seen.add(rel)
        report.files += 1
        raw = path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        cursor = known.get(rel)
        if cursor is not None and cursor.digest == digest:
            report.unchanged += 1
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            report.errors[rel] = f"not UTF-8 text (byte {exc.start}); save it as UTF-8"
            continue
        if text.lstrip().startswith(MARKER):
            report.generated.append(rel)
            continue
        try:
            notes = _read_file(memory, rel, text, path, cursor, report, agent_id=agent_id, scope=scope,
                               holder=holder, thread=thread)
        except GraphmemError as exc:
            report.errors[rel] = exc.message
            continue
        report.read.append(rel)
        memory.save_cursors([SourceCursor(key=prefix + rel, digest=digest, offset=len(raw),
                                          line=text.count("\n"), updated_at=memory.now(),
                                          detail=json.dumps({"notes": notes}, sort_keys=True))])
    report.missing = sorted(set(known) - seen)
    return report


def _read_file(
    memory: Memory, rel: str, text: str, path: Path, cursor: SourceCursor | None, report: WorkspaceReport, *,
    agent_id: str, scope: str, holder: str, thread: str | None,
) -> dict[str, str]:
    """Record the new notes of one file; returns its notes now held (text digest -> event id)."""
    before: dict[str, str] = json.loads(cursor.detail).get("notes", {}) if cursor else {}
    daily = _DAILY.match(path.name) if rel.startswith("memory/") else None
    day = daily.group(1) if daily else _page_day(text, path)
    retained = parse_retain(text)  # a malformed bullet raises here, before anything of the file is written
    notes = parse_notes(text, privacy_tags=memory.ontology.privacy_tags)
    held: dict[str, str] = {}
    new_lines: dict[int, str] = {}
    for item in retained:
        key = _digest("retain", item.kind, item.text, str(item.confidence))
        if key in before:
            held[key] = before[key]
        else:
            new_lines[item.line] = key
    records: list[dict[str, Any]] = []
    record_keys: list[str] = []
    for note in notes:
        key = _digest("note", note.text)
        if key in before:
            held[key] = before[key]
            continue
        privacy = [t for t in note.tags if t in memory.ontology.privacy_tags]
        if note.private and "private" not in privacy:
            privacy.append("private")
        records.append(dict(
            content=note.text, occurred_at=day, kind="observation" if daily else "fact", entities=note.mentions,
            tags=[t for t in note.tags if t not in privacy], privacy=privacy, agent_id=agent_id, scope=scope,
            thread=thread, source={"system": "markdown", "ref": f"{rel}#L{note.line}"},
        ))
        record_keys.append(key)
    memory.held(records)  # checks every note before anything of the file is written
    report.held += len(held)
    if new_lines:
        result = memory.retain(text, path=rel, day=day, agent_id=agent_id, holder=holder, scope=scope,
                               thread=thread, lines=set(new_lines))
        for line, outcome in zip(sorted(new_lines), result.results, strict=True):
            _count(report, outcome.status)
            if outcome.id is not None:
                held[new_lines[line]] = outcome.id
        report.opinions += len(result.opinion_ids)
    for key, outcome in zip(record_keys, memory.record_many(records) if records else [], strict=True):
        _count(report, outcome.status)
        if outcome.id is not None:
            held[key] = outcome.id
    gone = sorted(event_id for key, event_id in before.items() if key not in held)
    if gone:
        report.stale[rel] = gone
    return held


def _page_day(text: str, path: Path) -> str:
    """The day a page's notes are dated: its front matter's ``date:`` or ``updated:``, else the day it was last
    modified."""
    fields = front_matter(text)[0]
    day = fields.get("date") or fields.get("updated")
    return day or dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).date().isoformat()


def _count(report: WorkspaceReport, status: str) -> None:
    if status == "created":
        report.created += 1
    else:
        report.held += 1


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]
