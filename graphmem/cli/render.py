"""Turning memory's answers into readable tables or JSON for the command line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from graphmem.ontology import State, TimePoint
from graphmem.query.pages import object_with_titles
from graphmem.query.plain import plain
from graphmem.temporal import format_point

__all__ = ["state_rows", "table", "to_json"]


def to_json(value: Any) -> str:
    """Stable, indented JSON of any answer (models, dataclasses, lists of them)."""
    return json.dumps(plain(value), indent=2, ensure_ascii=False, sort_keys=False)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table with a header rule; empty input says so."""
    if not rows:
        return "(nothing)"
    cells = [[str(c) for c in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _point(p: TimePoint | None) -> str:
    return format_point(p) if p is not None else "…"


def state_rows(states: Sequence[State], *, with_subject: bool = True) -> tuple[list[str], list[list[object]]]:
    headers = (["subject"] if with_subject else []) + ["predicate", "object", "from", "to", "status", "evidence"]
    rows: list[list[object]] = []
    for s in states:
        refs = ", ".join(
            (e.source.ref or e.event_id) if e.source is not None else e.event_id for e in s.evidence
        )
        flag = "" if s.throughout is None else (" (throughout)" if s.throughout else " (partly)")
        row: list[object] = [s.subject] if with_subject else []
        row += [s.predicate, object_with_titles(s), _point(s.valid.start), _point(s.valid.end),
                s.status.value + flag, refs]
        rows.append(row)
    return headers, rows
