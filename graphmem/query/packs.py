"""What an agent reads at the start of a run: pinned memory, snapshots and resume packs.

**Pins** are the short curated layer over the event log: for every ``(scope, dedupe_key)`` the latest event
(by when it happened, then by when it was written) that no other event supersedes. ``pinned_md`` renders
them as one short Markdown line each, grouped by scope.

A **snapshot** is pins + the most recent events + a ruleset stamp, as memory held them at one transaction
time. Its id encodes that time and the request (agent, scopes, how many recent events, private or not), so
reading the id again returns the same events and pins: the event log is append-only, and a later write is
recorded after that time. (Content the janitor masks later stays masked.)

A **resume pack** is what an agent needs to continue a project or session within a token budget: pins,
the session's summary and checkpoints, open tasks, then recent events, each section in that priority. Tokens
are counted by :func:`approx_tokens`.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graphmem.errors import InvalidInput
from graphmem.ontology import Event, State, check_scope, slugify

__all__ = [
    "RULESET_VERSION",
    "Pin",
    "ResumeItem",
    "ResumePack",
    "Snapshot",
    "SnapshotRequest",
    "approx_tokens",
    "event_line",
    "fit_to_budget",
    "pack_scopes",
    "pinned_md",
    "pins_of",
    "ruleset_stamp",
    "session_summary",
    "shorten",
    "task_line",
]

RULESET_VERSION = 1  # the pin and snapshot rules; bump when they change what a snapshot holds
MAX_PIN_LINES = 60  # pinned_md stays short: the rest are in Snapshot.pins
LINE_CHARS = 200  # one pin or event line at most this many characters of content

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")


def approx_tokens(text: str) -> int:
    """Tokens a typical LLM tokenizer spends on ``text``, approximately and on the safe side.

    One token per CJK character (kana, kanji, hangul, full-width forms) and one per four other characters,
    rounded up. English prose runs at about four characters a token in common tokenizers; Japanese at about
    one character a token, so a budget holds for both.

    >>> approx_tokens("Deploys freeze on Fridays."), approx_tokens("先週")
    (7, 2)
    """
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def pack_scopes(project: str | None, agent_id: str | None) -> list[str]:
    """The scopes a resume pack reads: global, the project's (a name or ``project:<slug>``), the agent's own."""
    scopes = ["global"]
    if project is not None:
        scopes.append(project if project.startswith("project:") else f"project:{slugify(project)}")
    if agent_id is not None:
        scopes.append(f"agent:{agent_id}")
    return scopes


def ruleset_stamp(ontology_version: int, ontology_digest: str) -> str:
    """Which rules produced a snapshot: graphmem's pin rules and the ontology in force."""
    return f"GRAPHMEM_RULESET=v{RULESET_VERSION};ontology=v{ontology_version}+{ontology_digest[:12]}"


def shorten(text: str, limit: int = LINE_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _day(when: dt.datetime) -> str:
    return when.date().isoformat()


def event_line(event: Event) -> str:
    """One Markdown list line for an event: day, kind, content (shortened) and its source reference."""
    ref = f" ({event.source.ref})" if event.source.ref else ""
    return f"- {_day(event.occurred_at.at)} [{event.kind}] {shorten(event.content)}{ref}"


@dataclass(frozen=True)
class Pin:
    """The event in force for one ``dedupe_key`` in one scope, and the older events it replaced."""

    scope: str
    key: str
    event: Event
    replaced: tuple[str, ...] = ()  # older event ids with the same key and different content, newest first

    def line(self) -> str:
        return f"- **{self.key}** ({self.event.kind}, {_day(self.event.occurred_at.at)}): {shorten(self.event.content)}"


def _newest_first(events: Iterable[Event]) -> list[Event]:
    return sorted(events, key=lambda e: (e.occurred_at.at, e.recorded_at, e.id), reverse=True)


def pins_of(events: Iterable[Event], superseded: set[str]) -> list[Pin]:
    """The latest event per (scope, dedupe_key), superseded events ignored; sorted by scope, then key."""
    groups: dict[tuple[str, str], list[Event]] = {}
    for e in events:
        if e.dedupe_key and e.id not in superseded:
            groups.setdefault((e.scope, e.dedupe_key), []).append(e)
    out: list[Pin] = []
    for (scope, key), found in sorted(groups.items()):
        latest, *older = _newest_first(found)
        replaced = tuple(e.id for e in older if e.content_hash != latest.content_hash)
        out.append(Pin(scope=scope, key=key, event=latest, replaced=replaced))
    return out


def pinned_md(pins: Sequence[Pin]) -> str:
    """Pins as short Markdown: a heading per scope, one line per pin; empty when nothing is pinned."""
    lines: list[str] = []
    scope = None
    for pin in pins[:MAX_PIN_LINES]:
        if pin.scope != scope:
            scope = pin.scope
            lines.append(f"## {scope}")
        lines.append(pin.line())
    if len(pins) > MAX_PIN_LINES:
        lines.append(f"- … and {len(pins) - MAX_PIN_LINES} more pins (the snapshot's pins list has them all)")
    return "\n".join(lines)


@dataclass(frozen=True)
class SnapshotRequest:
    """What a snapshot was asked for, and the transaction time it reads memory at. Its id encodes all."""

    scopes: tuple[str, ...]
    limit_recent: int
    include_private: bool
    known_at: dt.datetime
    agent_id: str | None = None

    @property
    def id(self) -> str:
        body = {"a": self.agent_id, "s": list(self.scopes), "n": self.limit_recent, "p": self.include_private,
                "t": self.known_at.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")}
        raw = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        return "snap1-" + base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def from_id(cls, snapshot_id: str) -> SnapshotRequest:
        """The request a snapshot id was made from; a malformed id is an error naming ``snapshot_id``."""
        problem = "it is not an id this memory made; pass an id a snapshot returned, or leave it out"
        if not isinstance(snapshot_id, str) or not snapshot_id.startswith("snap1-"):
            raise InvalidInput(f"snapshot_id {snapshot_id!r} is malformed: {problem}", field="snapshot_id")
        try:
            raw = snapshot_id.removeprefix("snap1-")
            body = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
            known_at = dt.datetime.strptime(body["t"], "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=dt.UTC)
            scopes = tuple(check_scope(s) for s in body["s"])
            limit, private, agent = body["n"], body["p"], body["a"]
            if not isinstance(limit, int) or not isinstance(private, bool) or not isinstance(agent, str | None):
                raise ValueError("bad field")
        except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"snapshot_id {snapshot_id!r} is malformed ({exc}): {problem}",
                               field="snapshot_id") from None
        return cls(scopes=scopes, limit_recent=limit, include_private=private, known_at=known_at, agent_id=agent)


@dataclass(frozen=True)
class Snapshot:
    """Pinned memory and recent events of some scopes as memory held them at ``request.known_at``."""

    request: SnapshotRequest
    pins: tuple[Pin, ...]
    recent: tuple[Event, ...]
    ruleset_stamp: str

    @property
    def id(self) -> str:
        return self.request.id

    @property
    def pinned_md(self) -> str:
        return pinned_md(self.pins)


@dataclass(frozen=True)
class ResumeItem:
    section: str  # pinned, session, open_tasks, recent
    text: str  # one Markdown list line
    tokens: int
    event_id: str | None = None
    state_id: str | None = None


@dataclass(frozen=True)
class ResumePack:
    """What to read to continue, within ``token_budget``; ``dropped`` items did not fit."""

    project: str | None
    session: str | None
    token_budget: int
    items: tuple[ResumeItem, ...]
    markdown: str
    tokens: int
    dropped: int
    snapshot_id: str
    sections: tuple[str, ...] = field(default=())


_TITLES = {"pinned": "Pinned", "session": "Session", "open_tasks": "Open tasks", "recent": "Recent"}


def task_line(state: State) -> str:
    """An open task as a box to tick, with when it is due (its payload's ``due``) and since when it is
    open."""
    due = (state.payload or {}).get("due")
    said = [f"due {due}" if isinstance(due, str) else "",
            f"since {_day(state.valid_from.at)}" if state.valid_from else ""]
    when = "; ".join(filter(None, said))
    return f"- [ ] {shorten(state.object or state.text or state.predicate)}{f' ({when})' if when else ''}"


def fit_to_budget(
    sections: Sequence[tuple[str, Sequence[tuple[str, str | None, str | None]]]],
    budget: int,
    *,
    heading: str,
) -> tuple[list[ResumeItem], str, int, int]:
    """Greedy in priority order: every (text, event id, state id) line that still fits is kept.

    Returns the items kept, the Markdown (heading, a ``##`` title per non-empty section, the lines), its
    tokens, and how many lines did not fit. A line that does not fit is skipped; a shorter later one may.
    """
    used = approx_tokens(heading)
    kept: list[ResumeItem] = []
    dropped = 0
    blocks: list[str] = [heading]
    for section, lines in sections:
        title = f"\n## {_TITLES.get(section, section)}"
        title_cost = approx_tokens(title) + 1
        body: list[str] = []
        for text, event_id, state_id in lines:
            cost = approx_tokens(text) + 1  # the line break
            extra = cost + (0 if body else title_cost)
            if used + extra > budget:
                dropped += 1
                continue
            used += extra
            body.append(text)
            kept.append(ResumeItem(section, text, cost, event_id, state_id))
        if body:
            blocks.append(title)
            blocks.extend(body)
    markdown = "\n".join(blocks) + "\n"
    return kept, markdown, approx_tokens(markdown), dropped


_NOTABLE = ("decision", "config", "constraint", "workflow", "bug", "todo", "deprecation", "fact")


def session_summary(key: str, events: Sequence[Event]) -> str:
    """A deterministic Markdown summary of a session's events (oldest first): span, counts by kind,
    checkpoints, decisions and other notable kinds, and the last word. Earlier summaries are not counted.
    """
    body = [e for e in events if e.kind != "summary"]
    if not body:
        raise InvalidInput(f"session {key!r} has no events to summarise; record some first", field="session")
    first, last = body[0].occurred_at.at, body[-1].occurred_at.at
    counts: dict[str, int] = {}
    for e in body:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    lines = [f"Session {key}: {len(body)} events from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC "
             f"({kinds})."]
    checkpoints = [e for e in body if e.kind == "checkpoint"]
    if checkpoints:
        lines.append("\nCheckpoints:")
        lines.extend(f"- {_day(e.occurred_at.at)} {shorten(e.content.splitlines()[0], 120)}" for e in checkpoints)
    notable = [e for e in body if e.kind in _NOTABLE]
    if notable:
        lines.append("\nDecisions and notes:")
        lines.extend(f"- [{e.kind}] {shorten(e.content, 160)}" for e in notable)
    lines.append(f"\nLast: {shorten(body[-1].content, 240)}")
    return "\n".join(lines)
