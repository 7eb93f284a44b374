"""``promotionCandidates``: the stable facts a maintainer may promote into curated memory."""

from __future__ import annotations

import datetime as dt
from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.context import Context
from graphmem.api.packs import readable_scopes
from graphmem.api.types import StateNode

__all__ = ["MaintenanceQuery"]


@strawberry.type(description="A fact sure and confirmed enough to offer for curated memory")
class PromotionCandidate:
    state: StateNode
    confirmations: int
    last_confirmed: dt.datetime | None


@strawberry.type(description="A fact that passes the numbers but has an open contradiction")
class HeldBackFact:
    state: StateNode
    confirmations: int
    reason: str


@strawberry.type(description="Promotion candidates and the facts held back, by the ontology's promotion rule")
class PromotionReport:
    candidates: list[PromotionCandidate]
    held_back: list[HeldBackFact]


@strawberry.type
class MaintenanceQuery:
    @strawberry.field(description="Facts with confidence >= 0.9, confirmed >= 3 times, no open contradiction "
                                  "(thresholds from the ontology)")
    async def promotion_candidates(self, info: Info[Any, Any], include_private: bool = False) -> PromotionReport:
        ctx: Context = info.context
        scopes = readable_scopes(ctx, include_private)
        offered, held = await ctx.run(ctx.memory.promotion_candidates, include_private=include_private,
                                      scopes=scopes)
        tz = ctx.memory.tz
        return PromotionReport(
            candidates=[PromotionCandidate(state=StateNode.of(c.state, tz, include_private),
                                           confirmations=c.confirmations, last_confirmed=c.last_confirmed)
                        for c in offered],
            held_back=[HeldBackFact(state=StateNode.of(h.state, tz, include_private), confirmations=h.confirmations,
                                    reason=h.reason) for h in held],
        )
