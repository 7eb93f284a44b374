"""What every mutation shares: the user-error shape and the check that evidence is the caller's to cite.

User errors are data, not exceptions: each mutation returns a union of its ``...Success`` and ``...Error``
types, and an error names its stable ``code``, the offending ``field`` and how to fix it. Nothing of a failed
mutation is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.access import Principal
from graphmem.api.context import Context
from graphmem.errors import GraphmemError, InvalidInput, NotFound

__all__ = ["Problem", "UserError", "check_evidence", "context", "problems_of"]


@strawberry.type(description="One problem with one input field")
class Problem:
    field: str
    message: str


@strawberry.interface(description="A mutation that did not happen, and why; nothing of it was written")
class UserError:
    code: str = strawberry.field(description="stable machine code: invalid_input, not_found, forbidden, ...")
    message: str
    field: str | None = strawberry.field(description="the input field at fault, when there is one")
    problems: list[Problem] = strawberry.field(description="every field problem found (validation errors)")


def problems_of(exc: GraphmemError, principal: Principal) -> dict[str, Any]:
    """The keyword arguments of a ``...Error`` type for ``exc``, as ``principal`` may read it."""
    exc = principal.shown(exc)
    found = getattr(exc, "problems", []) if isinstance(exc, InvalidInput) else []
    return dict(code=exc.code, message=exc.message, field=exc.field,
                problems=[Problem(field=p.get("field", ""), message=p.get("message", "")) for p in found])


def context(info: Info[Any, Any]) -> Context:
    return info.context  # type: ignore[no-any-return]


def check_evidence(ctx: Context, ids: Sequence[str], field: str = "evidence") -> None:
    """Evidence must be events the caller can read (private ones included: it is citing them, not reading).
    One it cannot read is reported as missing, with the error a missing one gets: a citation never tells
    whether an event exists where the caller cannot look."""
    allowed = ctx.principal.linkable()
    if allowed is None or not ids:
        return
    found = {e.id: e for e in ctx.memory.get(list(ids))}
    for event_id in ids:
        event = found.get(event_id)
        if event is None or not allowed(event):
            raise NotFound("event", event_id, field=field, hint="cite only recorded events")
