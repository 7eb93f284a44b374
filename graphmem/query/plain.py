"""Memory's answers as plain JSON-ready values (models, dataclasses, times, enums), for every shell that
prints or sends them: the command line, the MCP tools."""

from __future__ import annotations

import dataclasses
import datetime as dt
from enum import Enum
from typing import Any

from pydantic import BaseModel

from graphmem.ontology import TimePoint
from graphmem.temporal import format_point

__all__ = ["plain"]


def plain(value: Any) -> Any:
    """``value`` as dicts, lists, strings and numbers; times in UTC ISO form (a TimePoint with its granularity)."""
    if isinstance(value, TimePoint):
        return {"at": value.at.isoformat().replace("+00:00", "Z"), "granularity": value.granularity.value,
                "text": format_point(value)}
    if isinstance(value, BaseModel):
        return {k: plain(getattr(value, k)) for k in type(value).model_fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dt.datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [plain(v) for v in value]
    return value
