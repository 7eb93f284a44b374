"""Markdown pages generated from the graph: one page per entity, and one page of every opinion.

Pages are deterministic: the same memory renders the same bytes. Nothing on a page depends on the clock;
"current" means what memory holds as open-ended and active, not what holds on the day the page was made.
Evidence links point at the events' sources (``memory/2025-11-27.md#L3`` becomes a link relative to the
page); a source that is not a file names its reference, and an event without one its id.

Every page starts with :data:`MARKER`, so a job that rewrites pages can tell them from a person's own notes.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.ontology import UTC, Entity, Event, Evidence, EvidenceStance, Granularity, Source, State, TimePoint
from graphmem.ontology import Visibility
from graphmem.query.opinions import ConfidenceChange, Opinion
from graphmem.query.packs import shorten

__all__ = ["MARKER", "PageData", "object_with_titles", "page_slug", "render_entity_page",
           "render_opinions_page"]

MARKER = "<!-- graphmem reflect: generated from memory; edits here are overwritten -->"
_LINE = 200  # characters of an event's content on a page


@dataclass(frozen=True)
class PageData:
    """What an entity page shows: its states (evidence attached; each timeline in its order, see
    ``reasoning.in_timeline_order``), states that point at it, the opinions about it or held by it, and its
    recent events (newest first)."""

    entity: Entity
    states: Sequence[State]
    incoming: Sequence[State]
    opinions: Sequence[Opinion]
    events: Sequence[Event]
    inverse: dict[str, str]  # predicate -> its inverse name, for the states that point at the entity


def page_slug(name: str) -> str:
    """A file name for an entity's page: its name with spaces as '-', other punctuation dropped.

    >>> page_slug("Acme Inc."), page_slug("Zoë  O'Neil"), page_slug("東京")
    ('Acme-Inc', 'Zoë-ONeil', '東京')
    """
    text = unicodedata.normalize("NFC", name).strip()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[\s_]+", "-", text).strip("-.") or "entity"


def _when(point: TimePoint | None, tz: dt.tzinfo) -> str:
    if point is None:
        return "…"
    if point.granularity is Granularity.INSTANT:
        return point.at.astimezone(tz).strftime("%Y-%m-%d %H:%M")
    return point.label(tz)


def _words(predicate: str) -> str:
    return predicate.replace("_", " ")


def _ref(source: Source | None, event_id: str, up: str) -> str:
    """A link to where an event came from, relative to a page ``up`` levels below the workspace."""
    ref = source.ref if source is not None else None
    if not ref:
        return f"`{event_id}`"
    path = ref.split("#", 1)[0]
    if path.endswith(".md") and not path.startswith(("/", "http:", "https:")) and ".." not in path.split("/"):
        return f"[{ref}]({up}{ref})"
    return f"`{ref}`"


def _evidence_refs(evidence: Sequence[Evidence], up: str) -> str:
    refs = [_ref(e.source, e.event_id, up) for e in sorted(evidence, key=lambda e: (e.at, e.event_id))]
    return " · " + ", ".join(dict.fromkeys(refs)) if refs else ""


def _scope(s: State) -> str:
    """Where a state was stated, when not in ``global``, and whether it is private: each scope keeps a
    timeline of its public states and one of its private ones, so a page may show a value of each."""
    private = " · private" if s.visibility is Visibility.PRIVATE else ""
    return ("" if s.scope == "global" else f" · in {s.scope}") + private


def _titled(s: State, key: str, form: str = " ({})") -> str:
    """What the words said one side of a tie is (``title``: the subject, ``object_title``: the object), as
    a page writes it beside that side's name: "Anna (sister) family of Peter", "owns Max (dog)"."""
    word = s.payload.get(key)
    return form.format(word) if isinstance(word, str) and word else ""


def object_with_titles(s: State) -> str:
    """A state's object with the titles its words gave the tie, read from the subject's side: "Ned (pup)",
    "Peter · as sister" (Anna's state: she is Peter's sister)."""
    return s.object + _titled(s, "object_title") + _titled(s, "title", " · as {}")


def _state_line(s: State, tz: dt.tzinfo, up: str) -> str:
    span = f"since {_when(s.valid_from, tz)}" if s.valid_to is None else \
        f"{_when(s.valid_from, tz)} → {_when(s.valid_to, tz)}"
    extra = f" · {s.status.value}" if s.status.value != "active" else ""
    return (f"- **{_words(s.predicate)}** {object_with_titles(s)} · {span}{extra}{_scope(s)}"
            f"{_evidence_refs(s.evidence, up)}")


def _timeline_line(s: State, tz: dt.tzinfo) -> str:
    return (f"- {_when(s.valid_from, tz)} → {_when(s.valid_to, tz)} · {_words(s.predicate)} {s.object} · "
            f"{s.status.value}{_scope(s)}")


def _event_line(e: Event, tz: dt.tzinfo, up: str) -> str:
    return f"- {_when(e.occurred_at, tz)} [{e.kind}] {shorten(e.content, _LINE)} ({_ref(e.source, e.id, up)})"


def _change_line(change: ConfidenceChange, evidence: dict[str, Evidence], tz: dt.tzinfo, up: str) -> str:
    day = change.happened_at.astimezone(tz).date().isoformat()
    if change.before is None:
        return f"  - {day} formed at {change.after:.2f} ({change.reason})"
    stance = {EvidenceStance.SUPPORTS: "for", EvidenceStance.CONTRADICTS: "against"}.get(
        change.stance, change.action) if change.stance else change.action
    line = f"  - {day} {stance}: {change.before:.2f} → {change.after:.2f}"
    found = evidence.get(change.event_id or "")
    if found is not None:
        line += f" · {shorten(found.content or '', 120)} ({_ref(found.source, found.event_id, up)})"
    elif change.event_id:
        line += f" · `{change.event_id}`"
    return line


def _opinion_block(o: Opinion, tz: dt.tzinfo, up: str, *, with_holder: bool) -> list[str]:
    who = f"{o.holder}: " if with_holder else ""
    head = (f"- {who}\"{o.statement}\" — confidence **{o.confidence:.2f}** · {len(o.supporting)} for, "
            f"{len(o.contradicting)} against")
    if o.about:
        head += " · about " + ", ".join(sorted(o.about))
    evidence = {e.event_id: e for e in o.state.evidence}
    return [head, *(_change_line(c, evidence, tz, up) for c in o.history)]


def _section(title: str, lines: list[str], empty: str) -> list[str]:
    return ["", f"## {title}", *(lines or [f"_{empty}_"])]


def render_entity_page(data: PageData, tz: dt.tzinfo = UTC) -> str:
    """An entity's Markdown page (``bank/entities/<Slug>.md``): who or what, current states with their
    since-dates and evidence, the timeline, states pointing at it, opinions about it or held by it with
    confidence and evidence links, and recent events with their sources."""
    up = "../../"
    e = data.entity
    aliases = sorted({a for a in e.aliases if a != e.name})
    facts = [s for s in data.states if s.kind != "opinion"]
    # by start, then predicate; values of one start stay in the order they were stated (``states`` is)
    order = sorted(facts, key=lambda s: (s.valid_from.at if s.valid_from else dt.datetime.min.replace(tzinfo=UTC),
                                         s.predicate))
    current = [s for s in order if s.valid_to is None and s.status.value in ("active", "candidate")]
    incoming = sorted(
        (s for s in data.incoming if s.kind != "opinion"),
        key=lambda s: (s.valid_from.at if s.valid_from else dt.datetime.min.replace(tzinfo=UTC), s.subject, s.id),
    )
    lines = [MARKER, f"# {e.name}", "", f"{e.type} · id `{e.id}`" + (f" · also: {', '.join(aliases)}" if aliases
                                                                     else "")]
    lines += _section("Current", [_state_line(s, tz, up) for s in current], "Nothing current.")
    lines += _section("Timeline", [_timeline_line(s, tz) for s in order], "No states.")
    if incoming:
        lines += _section("Related", [
            f"- {s.subject}{_titled(s, 'title')} **{_words(s.predicate)}** {e.name}"
            f"{_titled(s, 'object_title')} · "
            f"{_when(s.valid_from, tz)} → {_when(s.valid_to, tz)}"
            + (f" ({_words(data.inverse[s.predicate])} {s.subject})" if s.predicate in data.inverse else "")
            for s in incoming], "")
    opinions = sorted(data.opinions, key=lambda o: (o.holder, o.statement, o.id))
    lines += _section("Opinions", [line for o in opinions for line in _opinion_block(o, tz, up, with_holder=True)],
                      "No opinions.")
    lines += _section("Recent events", [_event_line(ev, tz, up) for ev in data.events], "No events.")
    return "\n".join(lines) + "\n"


def render_opinions_page(opinions: Sequence[Opinion], tz: dt.tzinfo = UTC) -> str:
    """Every opinion (``bank/opinions.md``), grouped by holder: confidence, evidence counts, what it is about
    and how the confidence moved, with links to the evidence."""
    lines = [MARKER, "# Opinions"]
    holders = sorted({o.holder for o in opinions})
    for holder in holders:
        mine = sorted((o for o in opinions if o.holder == holder), key=lambda o: (o.statement, o.id))
        lines += ["", f"## {holder}", *(line for o in mine for line in _opinion_block(o, tz, "../",
                                                                                      with_holder=False))]
    if not holders:
        lines += ["", "_No opinions._"]
    return "\n".join(lines) + "\n"
