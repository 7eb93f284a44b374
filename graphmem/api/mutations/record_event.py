"""``recordEvent``: append one event; a replay (same dedupe_key, or same content) returns the first id."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from graphmem.api.access import Principal
from graphmem.api.mutations._common import UserError, context, problems_of
from graphmem.api.types import EventNode
from graphmem.errors import GraphmemError
from graphmem.memory import RecordResult

__all__ = ["AffectInput", "LinkInput", "RecordEventInput", "RecordEventMutation", "SourceInput",
           "record_fields", "success_of"]


@strawberry.input(description="Where the event came from")
class SourceInput:
    system: str = "api"
    ref: str | None = strawberry.field(default=None, description="file#line, message id, dialog id ...")
    thread_id: str | None = None
    session_id: str | None = None
    message_id: str | None = None
    run_id: str | None = None


@strawberry.input(description="Valence, arousal and dominance, each in [-1, 1]")
class AffectInput:
    valence: float
    arousal: float
    dominance: float


@strawberry.input(description="Links from the new event to recorded ones")
class LinkInput:
    label: str = strawberry.field(description="reply_to, same_topic, caused_by or continuation")
    to: list[strawberry.ID]


@strawberry.input(description="One event to record")
class RecordEventInput:
    content: str
    occurred_at: str | None = strawberry.field(default=None, description="when it happened (default: now)")
    occurred_end: str | None = None
    source: SourceInput | None = None
    agent_id: str | None = strawberry.field(default=None, description="defaults to the token's agent")
    scope: str = "global"
    kind: str = "observation"
    thread: str | None = None
    tags: list[str] = strawberry.field(default_factory=list, description=(
        "free labels; `speaker:<name>` (one at most) says who says the content: \"I\" in its lines that no "
        "\"Name:\" opens (`speaker:user`: \"I moved to Porto\" is where the user lives)"))
    privacy: list[str] = strawberry.field(default_factory=list, description="no_mem, block, redact, private ...")
    entities: list[str] = strawberry.field(default_factory=list)
    dedupe_key: str | None = None
    confidence: float = 1.0
    supersedes: strawberry.ID | None = None
    ttl_days: int | None = None
    affect: AffectInput | None = None
    links: list[LinkInput] = strawberry.field(default_factory=list)
    extract: bool | None = strawberry.field(default=None, description="read entities and states from the text")


@strawberry.type(description="The event was recorded, was a replay, or was dropped by its privacy tags")
class RecordEventSuccess:
    status: str = strawberry.field(description="created, duplicate or dropped")
    id: strawberry.ID | None
    event: EventNode | None
    redactions: list[str]
    extracted_entities: list[str] = strawberry.field(description="entities read from the text")
    extracted_states: int = strawberry.field(description="states read from the text and applied")


@strawberry.type
class RecordEventError(UserError):
    pass


RecordEventResult = Annotated[RecordEventSuccess | RecordEventError, strawberry.union("RecordEventResult")]


def record_fields(item: RecordEventInput, principal: Principal, field: str = "input", *,
                  extracts: bool) -> dict[str, Any]:
    """``Memory.record`` keyword arguments for one input, after the caller's scope and identity checks
    (``extracts``: whether memory reads an event's text unless it says otherwise)."""
    principal.check_record(item.scope, item.privacy, read=extracts if item.extract is None else item.extract,
                           field=f"{field}.scope", read_field=f"{field}.extract")
    links: dict[str, list[str]] = {}
    for link in item.links:
        links.setdefault(link.label, []).extend(str(t) for t in link.to)
    return dict(
        content=item.content, occurred_at=item.occurred_at, occurred_end=item.occurred_end,
        source=vars(item.source) if item.source else None,
        agent_id=principal.writer_id(item.agent_id, f"{field}.agentId"), scope=item.scope, kind=item.kind,
        thread=item.thread, tags=item.tags, privacy=item.privacy, entities=item.entities,
        dedupe_key=item.dedupe_key, confidence=item.confidence,
        supersedes=str(item.supersedes) if item.supersedes else None, ttl_days=item.ttl_days,
        affect=vars(item.affect) if item.affect else None, links=links or None, extract=item.extract,
    )


def success_of(result: RecordResult, tz: Any) -> RecordEventSuccess:
    extraction = result.extraction
    return RecordEventSuccess(
        status=result.status, id=strawberry.ID(result.id) if result.id else None,
        event=EventNode.of(result.event, tz, True) if result.event else None, redactions=list(result.redactions),
        extracted_entities=sorted({m.name for m in extraction.entities}) if extraction else [],
        extracted_states=len(extraction.statements) if extraction else 0,
    )


@strawberry.type
class RecordEventMutation:
    @strawberry.mutation(description="Record one event (idempotent by dedupeKey, else by content)")
    async def record_event(self, info: Info[Any, Any], input: RecordEventInput) -> RecordEventResult:
        ctx = context(info)
        try:
            fields = record_fields(input, ctx.principal, extracts=ctx.memory.extract)
            result = await ctx.run(ctx.memory.record, **fields, may_link=ctx.principal.linkable())
        except GraphmemError as exc:
            return RecordEventError(**problems_of(exc, ctx.principal))
        return success_of(result, ctx.memory.tz)
