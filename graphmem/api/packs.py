"""``snapshot`` and ``resumePack``: what an agent reads at the start of a run.

A caller reads only scopes its token may read: asking for another scope is refused (``forbidden``), never
answered with a quietly smaller snapshot that an agent could mistake for the whole memory.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import strawberry
from strawberry.types import Info

from graphmem.api.context import Context
from graphmem.api.types import EventNode
from graphmem.errors import Forbidden
from graphmem.query.packs import Pin, ResumePack, Snapshot, SnapshotRequest, pack_scopes

__all__ = ["PackQuery", "read_resume_pack", "read_snapshot", "readable_scopes"]


def _check_reads(ctx: Context, scopes: Sequence[str], include_private: bool, field: str) -> None:
    principal = ctx.principal
    for scope in scopes:
        principal.check_read(scope, "memory", field)
        if include_private and principal.private is not None and scope not in principal.private:
            raise Forbidden(f"agent {principal.agent_id!r} may not read private items of scope {scope!r}; "
                            "leave includePrivate out", field="include_private")


def readable_scopes(ctx: Context, include_private: bool) -> list[str] | None:
    """Every scope the caller reads (``None``: all), for reads that take one scope list; asking for private
    items is refused unless the caller may read them in each of those scopes."""
    principal = ctx.principal
    scopes = sorted(principal.read) if principal.read is not None else None
    if include_private and principal.private is not None and (scopes is None or set(scopes) - principal.private):
        raise Forbidden(f"agent {principal.agent_id!r} may read private items only in "
                        f"{', '.join(sorted(principal.private)) or 'no scope'}; leave includePrivate out",
                        field="include_private")
    return scopes


def read_snapshot(ctx: Context, scopes: Sequence[str] | None, limit_recent: int, include_private: bool,
                  snapshot_id: str | None) -> Snapshot:
    """The caller's snapshot (a new one, or the one ``snapshot_id`` names), after its read checks."""
    agent = ctx.principal.agent_id
    if snapshot_id is not None:
        request = SnapshotRequest.from_id(snapshot_id)
        _check_reads(ctx, request.scopes, request.include_private, "snapshot_id")
        return ctx.memory.snapshot(snapshot_id=snapshot_id)
    wanted = list(scopes) if scopes is not None else pack_scopes(None, agent)
    _check_reads(ctx, wanted, include_private, "scopes")
    return ctx.memory.snapshot(agent_id=agent, scopes=wanted, limit_recent=limit_recent,
                               include_private=include_private)


def read_resume_pack(ctx: Context, project: str | None, session: str | None, token_budget: int,
                     limit_recent: int, include_private: bool) -> ResumePack:
    agent = ctx.principal.agent_id
    _check_reads(ctx, pack_scopes(project, agent), include_private, "project")
    return ctx.memory.resume_pack(project, session=session, token_budget=token_budget, limit_recent=limit_recent,
                                  include_private=include_private, agent_id=agent)


@strawberry.type(name="Pin", description="The event in force for one dedupe key in one scope")
class PinNode:
    scope: str
    key: str
    event: EventNode
    replaced: list[strawberry.ID] = strawberry.field(description="older events of the key with other content")

    @classmethod
    def of(cls, pin: Pin, tz: dt.tzinfo, include_private: bool) -> PinNode:
        return cls(scope=pin.scope, key=pin.key, event=EventNode.of(pin.event, tz, include_private),
                   replaced=[strawberry.ID(i) for i in pin.replaced])


@strawberry.type(name="Snapshot", description="Pinned memory and recent events at one transaction time")
class SnapshotNode:
    id: strawberry.ID = strawberry.field(description="read the same snapshot again with snapshot(snapshotId:)")
    pinned_md: str = strawberry.field(description="the pins as short Markdown, grouped by scope")
    pins: list[PinNode]
    recent_events: list[EventNode]
    ruleset_stamp: str
    scopes: list[str]
    known_at: dt.datetime = strawberry.field(description="the transaction time memory is read at")

    @classmethod
    def of(cls, snap: Snapshot, tz: dt.tzinfo) -> SnapshotNode:
        private = snap.request.include_private
        return cls(id=strawberry.ID(snap.id), pinned_md=snap.pinned_md,
                   pins=[PinNode.of(p, tz, private) for p in snap.pins],
                   recent_events=[EventNode.of(e, tz, private) for e in snap.recent],
                   ruleset_stamp=snap.ruleset_stamp,
                   scopes=list(snap.request.scopes), known_at=snap.request.known_at)


@strawberry.type(description="One line of a resume pack")
class ResumeItem:
    section: str = strawberry.field(description="pinned, session, open_tasks or recent")
    text: str
    tokens: int
    event_id: strawberry.ID | None
    state_id: strawberry.ID | None


@strawberry.type(name="ResumePack", description="What to read to continue, within a token budget")
class ResumePackNode:
    markdown: str
    tokens: int = strawberry.field(description="approximate tokens of the Markdown (CJK 1/char, else 1/4 chars)")
    token_budget: int
    dropped: int = strawberry.field(description="lines that did not fit the budget")
    sections: list[str]
    items: list[ResumeItem]
    session: str | None
    snapshot_id: strawberry.ID

    @classmethod
    def of(cls, pack: ResumePack) -> ResumePackNode:
        return cls(
            markdown=pack.markdown, tokens=pack.tokens, token_budget=pack.token_budget, dropped=pack.dropped,
            sections=list(pack.sections), session=pack.session, snapshot_id=strawberry.ID(pack.snapshot_id),
            items=[ResumeItem(section=i.section, text=i.text, tokens=i.tokens,
                              event_id=strawberry.ID(i.event_id) if i.event_id else None,
                              state_id=strawberry.ID(i.state_id) if i.state_id else None) for i in pack.items],
        )


@strawberry.type
class PackQuery:
    @strawberry.field(description="Pinned memory (latest event per dedupe key) + recent events + ruleset stamp")
    async def snapshot(self, info: Info[Any, Any], scopes: list[str] | None = None, limit_recent: int = 50,
                       include_private: bool = False, snapshot_id: strawberry.ID | None = None) -> SnapshotNode:
        ctx: Context = info.context
        snap = await ctx.run(read_snapshot, ctx, scopes, limit_recent, include_private,
                             str(snapshot_id) if snapshot_id is not None else None)
        return SnapshotNode.of(snap, ctx.memory.tz)

    @strawberry.field(description="What an agent needs to continue a project or session, within a token budget")
    async def resume_pack(self, info: Info[Any, Any], project: str | None = None, session: str | None = None,
                          token_budget: int = 1500, limit_recent: int = 20,
                          include_private: bool = False) -> ResumePackNode:
        ctx: Context = info.context
        pack = await ctx.run(read_resume_pack, ctx, project, session, token_budget, limit_recent, include_private)
        return ResumePackNode.of(pack)
