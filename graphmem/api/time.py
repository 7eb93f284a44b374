"""Time questions: "what was true in Nov 2025" (``asOf``) and "what held during it" (``during``).

The time is read server-side ("Nov 2025", "2025-11-27", an ISO instant, or "last week" relative to
``relativeTo``, now by default) and the period it was read as is echoed in the answer.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.reads import time_states, window_of
from graphmem.api.types import StateNode, TimeWindow

__all__ = ["TimeQuery"]


@strawberry.type(description="An answer to a time question, with the period the question was read as")
class TimeAnswer:
    period: TimeWindow
    known_at: dt.datetime | None = strawberry.field(description="the transaction time asked about, if any")
    states: list[StateNode]


async def _answer(info: Info[Any, Any], text: str, field: str, *, entity: str | None, predicate: str | None,
                  known_at: str | None, relative_to: str | None, include_private: bool) -> TimeAnswer:
    ctx = info.context
    at, during = (text, None) if field == "at" else (None, text)
    answer = await time_states(ctx, at=at, during=during, known_at=known_at, relative_to=relative_to,
                               entity=entity, predicate=predicate, include_private=include_private,
                               fields=("at", "period"))
    assert answer.point is not None
    return TimeAnswer(period=window_of(ctx, text, answer.point, answer.through), known_at=answer.known,
                      states=answer.states)


_AS_OF = ('What was true at a time (the end of it, for a month or a year): any time people write '
          '("2025-11-27", "Nov 2025", "last week", "end of 2025", "H2 2025", "令和7年"), read relative to '
          'relativeTo or now')
_DURING = ('What held at any point of a period (a range, "2019-2021", or a time up to now, "the past 3 '
           'months", too); each state says if it held throughout')


@strawberry.type
class TimeQuery:
    @strawberry.field(description=_AS_OF)
    async def as_of(
        self,
        info: Info[Any, Any],
        at: str,
        entity: str | None = None,
        predicate: str | None = None,
        known_at: str | None = None,
        relative_to: str | None = None,
        include_private: bool = False,
    ) -> TimeAnswer:
        return await _answer(info, at, "at", entity=entity, predicate=predicate, known_at=known_at,
                             relative_to=relative_to, include_private=include_private)

    @strawberry.field(description=_DURING)
    async def during(
        self,
        info: Info[Any, Any],
        period: str,
        entity: str | None = None,
        predicate: str | None = None,
        known_at: str | None = None,
        relative_to: str | None = None,
        include_private: bool = False,
    ) -> TimeAnswer:
        return await _answer(info, period, "period", entity=entity, predicate=predicate, known_at=known_at,
                             relative_to=relative_to, include_private=include_private)
