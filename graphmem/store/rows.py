"""Conversion between ontology models and flat database rows (naive UTC instants, granularity strings).

Engine-neutral: any adapter that stores the columns of :mod:`graphmem.store.schema` can use these.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from graphmem.ontology import (
    Affect,
    Annotation,
    Entity,
    Event,
    Evidence,
    EvidenceStance,
    Granularity,
    Interval,
    Revision,
    RevisionAction,
    Source,
    State,
    StateStatus,
    Thread,
    TimePoint,
    Visibility,
)
from graphmem.store.port import EventBrief

__all__ = [
    "annotation_from_row",
    "annotation_row",
    "aware",
    "entity_from_row",
    "entity_row",
    "event_from_row",
    "event_row",
    "naive",
    "point",
    "revision_from_row",
    "revision_row",
    "state_from_row",
    "state_row",
    "thread_from_row",
    "thread_row",
    "version_row",
]

Row = Mapping[str, Any]


def naive(value: dt.datetime | None) -> dt.datetime | None:
    """Naive UTC for storage: the engine drops offsets silently, so they never reach it."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).replace(tzinfo=None)


def aware(value: dt.datetime | None) -> dt.datetime | None:
    return None if value is None else value.replace(tzinfo=dt.UTC)


def required(value: dt.datetime | None) -> dt.datetime:
    if value is None:
        raise ValueError("a required timestamp is missing from a stored row")
    return value.replace(tzinfo=dt.UTC)


def point(at: dt.datetime | None, granularity: str | None) -> TimePoint | None:
    """A stored point (naive UTC; validated when it was written, not again)."""
    if at is None:
        return None
    return TimePoint.model_construct(at=at.replace(tzinfo=dt.UTC),
                                     granularity=Granularity(granularity or "instant"))


def _split(p: TimePoint | None) -> tuple[dt.datetime | None, str | None]:
    return (None, None) if p is None else (naive(p.at), p.granularity.value)


def event_row(e: Event) -> dict[str, Any]:
    occurred_at, occurred_g = _split(e.occurred_at)
    end_at, end_g = _split(e.occurred_end)
    return {
        "id": e.id, "recorded_at": naive(e.recorded_at), "occurred_at": occurred_at, "occurred_g": occurred_g,
        "occurred_end": end_at, "occurred_end_g": end_g,
        "source_system": e.source.system, "source_ref": e.source.ref, "source_thread_id": e.source.thread_id,
        "source_session_id": e.source.session_id, "source_message_id": e.source.message_id,
        "source_run_id": e.source.run_id, "agent_id": e.agent_id, "scope": e.scope, "kind": e.kind,
        "thread": e.thread, "content": e.content, "tags": list(e.tags), "privacy": list(e.privacy),
        "entities": list(e.entities), "redactions": list(e.redactions),
        "private": e.visibility is Visibility.PRIVATE, "dedupe_key": e.dedupe_key,
        "content_hash": e.content_hash, "confidence": e.confidence, "supersedes": e.supersedes,
        "ttl_days": e.ttl_days,
        "affect_valence": e.affect.valence if e.affect else None,
        "affect_arousal": e.affect.arousal if e.affect else None,
        "affect_dominance": e.affect.dominance if e.affect else None,
    }


def source_of(r: Row) -> Source:
    return Source.model_construct(
        system=r["source_system"], ref=r["source_ref"], thread_id=r["source_thread_id"],
        session_id=r["source_session_id"], message_id=r["source_message_id"], run_id=r["source_run_id"],
    )


def event_from_row(r: Row) -> Event:
    affect = None
    if r["affect_valence"] is not None:
        affect = Affect(valence=r["affect_valence"], arousal=r["affect_arousal"], dominance=r["affect_dominance"])
    return Event.model_construct(
        id=r["id"], recorded_at=required(r["recorded_at"]), occurred_at=point(r["occurred_at"], r["occurred_g"]),
        occurred_end=point(r["occurred_end"], r["occurred_end_g"]),
        source=source_of(r),
        agent_id=r["agent_id"], scope=r["scope"], kind=r["kind"], thread=r["thread"], content=r["content"],
        tags=tuple(r["tags"] or ()), privacy=tuple(r["privacy"] or ()), entities=tuple(r["entities"] or ()),
        redactions=tuple(r["redactions"] or ()), dedupe_key=r["dedupe_key"], content_hash=r["content_hash"],
        confidence=r["confidence"], supersedes=r["supersedes"], ttl_days=r["ttl_days"], affect=affect,
    )


BRIEF_COLUMNS = ("id", "kind", "scope", "thread", "content", "occurred_at", "occurred_g", "source_system",
                 "source_ref", "source_thread_id", "source_session_id", "source_message_id", "source_run_id")


def event_brief_from_row(r: Row) -> EventBrief:
    return EventBrief(
        id=r["id"], kind=r["kind"], scope=r["scope"], thread=r["thread"], content=r["content"],
        occurred_at=point(r["occurred_at"], r["occurred_g"]),
        source=source_of(r),
    )


def entity_row(e: Entity) -> dict[str, Any]:
    return {"id": e.id, "name": e.name, "type": e.type, "aliases": list(e.aliases), "created_at": naive(e.created_at),
            "merged_into": e.merged_into, "merged_at": naive(e.merged_at) if e.merged_at else None}


def entity_from_row(r: Row) -> Entity:
    return Entity.model_construct(
        id=r["id"], name=r["name"], type=r["type"], aliases=tuple(r["aliases"] or ()),
        created_at=required(r["created_at"]), merged_into=r.get("merged_into"), merged_at=aware(r.get("merged_at")),
    )


def thread_row(t: Thread) -> dict[str, Any]:
    return {"key": t.key, "title": t.title, "created_at": naive(t.created_at)}


def thread_from_row(r: Row) -> Thread:
    return Thread.model_construct(key=r["key"], title=r["title"], created_at=required(r["created_at"]))


def state_row(s: State) -> dict[str, Any]:
    vf, vf_g = _split(s.valid.start)
    vt, vt_g = _split(s.valid.end)
    se, se_g = _split(s.stated_end)
    return {
        "id": s.id, "kind": s.kind, "subject_id": s.subject_id, "predicate": s.predicate, "object_id": s.object_id,
        "object": s.object, "text": s.text, "valid_from": vf, "valid_from_g": vf_g, "valid_to": vt,
        "valid_to_g": vt_g, "stated_end": se, "stated_end_g": se_g, "created_at": naive(s.created_at),
        "recorded_at": naive(s.recorded_at), "retracted_at": naive(s.retracted_at),
        "last_confirmed_at": naive(s.last_confirmed_at), "confidence": s.confidence, "status": s.status.value,
        "scope": s.scope, "private": s.visibility is Visibility.PRIVATE, "holder": s.holder,
        "done": s.status is StateStatus.DONE, "payload": json.dumps(s.payload, sort_keys=True) if s.payload else "",
    }


def version_row(s: State) -> dict[str, Any]:
    """The HAS_STATE edge of one version of ``s``."""
    vf, vf_g = _split(s.valid.start)
    vt, vt_g = _split(s.valid.end)
    return {
        "predicate": s.predicate, "valid_from": vf, "valid_from_g": vf_g, "valid_to": vt, "valid_to_g": vt_g,
        "status": s.status.value, "confidence": s.confidence, "recorded_at": naive(s.recorded_at),
        "replaced_at": naive(s.replaced_at), "retracted_at": naive(s.retracted_at),
    }


# what a version of a state holds on its edge (see version_row) and reads from there, not from the state's
# node (whose values are the current version's)
EDGE_VERSIONED = frozenset(["valid_from", "valid_from_g", "valid_to", "valid_to_g", "status", "confidence",
                            "recorded_at"])


def state_from_row(subject: str, s: Row, h: Row | None) -> State:
    """A state from its node ``s`` and, when reading a version, that version's edge ``h`` (then ``s`` need
    not hold ``EDGE_VERSIONED``)."""
    v = h if h is not None else s
    return State.model_construct(
        id=s["id"], kind=s["kind"], subject_id=s["subject_id"], subject=subject, predicate=s["predicate"],
        object_id=s["object_id"], object=s["object"], text=s["text"],
        valid=Interval.model_construct(
            start=point(v["valid_from"], v["valid_from_g"]), end=point(v["valid_to"], v["valid_to_g"])
        ),
        stated_end=point(s["stated_end"], s["stated_end_g"]),
        recorded_at=required(v["recorded_at"]), replaced_at=aware(h["replaced_at"]) if h is not None else None,
        created_at=required(s["created_at"]), retracted_at=aware(v["retracted_at"]),
        last_confirmed_at=aware(s["last_confirmed_at"]), confidence=v["confidence"],
        status=StateStatus(v["status"]), scope=s["scope"],
        visibility=Visibility.PRIVATE if s["private"] else Visibility.NORMAL, holder=s["holder"],
        payload=json.loads(s["payload"]) if s.get("payload") else {}, evidence=(), throughout=None,
    )


def revision_row(r: Revision) -> dict[str, Any]:
    vf, vf_g = _split(r.valid.start)
    vt, vt_g = _split(r.valid.end)
    return {
        "id": r.id, "state_id": r.state_id, "at": naive(r.at), "action": r.action.value, "reason": r.reason,
        "valid_from": vf, "valid_from_g": vf_g, "valid_to": vt, "valid_to_g": vt_g, "status": r.status.value,
        "confidence": r.confidence, "evidence_ids": list(r.evidence_ids),
    }


def revision_from_row(r: Row) -> Revision:
    return Revision.model_construct(
        id=r["id"], state_id=r["state_id"], at=required(r["at"]), action=RevisionAction(r["action"]),
        reason=r["reason"],
        valid=Interval.model_construct(
            start=point(r["valid_from"], r["valid_from_g"]), end=point(r["valid_to"], r["valid_to_g"])
        ),
        status=StateStatus(r["status"]), confidence=r["confidence"], evidence_ids=tuple(r["evidence_ids"] or ()),
    )


def annotation_row(a: Annotation) -> dict[str, Any]:
    start, start_g = _split(a.about.start if a.about else None)
    end, end_g = _split(a.about.end if a.about else None)
    return {
        "event_id": a.event_id, "recorded_at": naive(a.recorded_at), "about_start": start, "about_start_g": start_g,
        "about_end": end, "about_end_g": end_g, "about_confidence": a.about_confidence, "life_stage": a.life_stage,
        "affect_text": a.affect_text, "affect_labels": list(a.affect_labels),
        "affect_valence": a.affect.valence if a.affect else None,
        "affect_arousal": a.affect.arousal if a.affect else None,
        "affect_dominance": a.affect.dominance if a.affect else None,
        "affect_confidence": a.affect_confidence,
    }


def annotation_from_row(r: Row) -> Annotation:
    start, end = point(r["about_start"], r["about_start_g"]), point(r["about_end"], r["about_end_g"])
    affect = None
    if r["affect_valence"] is not None:
        affect = Affect(valence=r["affect_valence"], arousal=r["affect_arousal"], dominance=r["affect_dominance"])
    return Annotation.model_construct(
        event_id=r["event_id"], recorded_at=required(r["recorded_at"]),
        about=Interval.model_construct(start=start, end=end) if start or end else None,
        about_confidence=r["about_confidence"], life_stage=r["life_stage"], affect_text=r["affect_text"],
        affect_labels=tuple(r["affect_labels"] or ()), affect=affect, affect_confidence=r["affect_confidence"],
    )


def evidence_of(event: Event, stance: EvidenceStance, at: dt.datetime) -> Evidence:
    """Evidence from an EVIDENCE edge (stance, at) and the event it comes from."""
    return Evidence.model_construct(
        event_id=event.id, stance=stance, at=at, content=event.content, occurred_at=event.occurred_at,
        source=event.source,
    )


def state_words(subject: str, predicate: str, obj: str | None, text: str | None) -> str:
    """The words a state is found by: "Peter lives in Marrakesh" plus its own text when that says more."""
    phrase = " ".join(p for p in (subject, predicate.replace("_", " "), obj) if p)
    return phrase if not text or text in phrase else f"{phrase}. {text}"
