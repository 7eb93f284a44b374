"""Write plans: what an agent's own model decided an event changes, as structured input graphmem validates.

A plan annotates one event (the time it is about, the entities in it, the affect of the moment), updates
states (upsert / close / mark_done, each with its evidence events and a reason), updates preferences
(upsert_candidate / confirm / revoke) and grows the context graph (threads, links). Field names follow the
write-plan format agents already produce; ``subject`` / ``predicate`` / ``object`` on a state update are
graphmem's optional additions for agents that know them. Times are ISO 8601; without an offset they are
local time. A plan that fails validation is rejected whole: nothing of it is written.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

__all__ = [
    "ContextUpdates",
    "EventAffect",
    "EventAnnotations",
    "LinkUpdate",
    "PlanEntity",
    "PreferenceUpdate",
    "StateUpdate",
    "ThreadUpdate",
    "VAD",
    "WritePlan",
]


def _as_id(value: Any) -> Any:
    """Event ids may arrive as numbers from agents whose own store numbers its events."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


EventId = Annotated[str, BeforeValidator(_as_id), Field(min_length=1, max_length=200)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
Text = Annotated[str, Field(min_length=1, max_length=10_000)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlanEntity(_Strict):
    type: str = "concept"
    name: Annotated[str, Field(min_length=1, max_length=200)]
    confidence: Confidence = 1.0


class EventAnnotations(_Strict):
    about_start_ts: str | None = None
    about_end_ts: str | None = None
    about_year_start: Annotated[int, Field(ge=1, le=9999)] | None = None
    about_year_end: Annotated[int, Field(ge=1, le=9999)] | None = None
    life_stage: Literal["elementary", "middle", "high", "university", "work", "unknown"] | None = None
    about_time_confidence: Confidence | None = None
    entities: list[PlanEntity] = []

    @model_validator(mode="after")
    def _years(self) -> EventAnnotations:
        if self.about_year_start and self.about_year_end and self.about_year_end < self.about_year_start:
            raise ValueError("about_year_end is before about_year_start; swap them")
        return self


class StateUpdate(_Strict):
    kind: Literal["fact", "relation", "task", "summary", "long_mood_state"]
    op: Literal["upsert", "close", "mark_done"]
    state_id: str | None = None
    body_text: str = ""
    entities: list[PlanEntity] = []
    payload: dict[str, Any] = {}
    confidence: Confidence = 1.0
    valid_from_ts: str | None = None
    valid_to_ts: str | None = None
    last_confirmed_at: str | None = None
    evidence_event_ids: Annotated[list[EventId], Field(min_length=1)]
    reason: Text
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None

    @model_validator(mode="after")
    def _target(self) -> StateUpdate:
        if self.op == "upsert" and not self.state_id and not (self.body_text.strip() or self.object):
            raise ValueError("an upsert needs body_text (or object), or the state_id of the state it confirms")
        if self.op != "upsert" and not self.state_id and not (self.body_text.strip() or self.object):
            raise ValueError(f"{self.op} needs the state_id of the state to end (or its body_text)")
        return self


class PreferenceUpdate(_Strict):
    op: Literal["upsert_candidate", "confirm", "revoke"]
    domain: str
    polarity: Literal["like", "dislike"]
    subject: Annotated[str, Field(min_length=1, max_length=200)]
    note: str | None = None
    confidence: Confidence = 1.0
    evidence_event_ids: Annotated[list[EventId], Field(min_length=1)]
    reason: Text
    holder: str = "user"


class VAD(_Strict):
    v: Annotated[float, Field(ge=-1.0, le=1.0)]
    a: Annotated[float, Field(ge=-1.0, le=1.0)]
    d: Annotated[float, Field(ge=-1.0, le=1.0)]


class EventAffect(_Strict):
    moment_affect_text: Annotated[str, Field(max_length=2000)] | None = None
    moment_affect_labels: Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(max_length=6)] = []
    moment_affect_score_vad: VAD | None = None
    moment_affect_confidence: Confidence | None = None


class ThreadUpdate(_Strict):
    thread_key: Annotated[str, Field(min_length=1, max_length=200)]
    confidence: Confidence = 1.0


class LinkUpdate(_Strict):
    to_event_id: EventId
    label: str
    confidence: Confidence = 1.0


class ContextUpdates(_Strict):
    threads: list[ThreadUpdate] = []
    links: list[LinkUpdate] = []


class WritePlan(_Strict):
    """The whole plan for one event; every part is optional."""

    event_annotations: EventAnnotations | None = None
    state_updates: list[StateUpdate] = []
    preference_updates: list[PreferenceUpdate] = []
    event_affect: EventAffect | None = None
    context_updates: ContextUpdates | None = None
