"""The memory's data: events, entities, threads, states, evidence, revisions, and the inputs that make them.

Models validate and normalise (UTC instants, slugs, ranges) and do no I/O; the store persists them.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable
from enum import Enum
from functools import lru_cache
from typing import Annotated, Any

from pydantic import ConfigDict, Field, field_validator

from graphmem.ontology.record import Record
from graphmem.ontology.time import Interval, TimePoint

__all__ = [
    "AGENT_ID_PATTERN",
    "DEDUPE_KEY_PATTERN",
    "MAX_CONTENT_CHARS",
    "SPEAKER_TAG",
    "Affect",
    "Annotation",
    "Entity",
    "Event",
    "EventDraft",
    "Evidence",
    "EvidenceStance",
    "Revision",
    "RevisionAction",
    "Source",
    "State",
    "StateStatus",
    "Thread",
    "Visibility",
    "check_scope",
    "confidence_value",
    "name_key",
    "slugify",
]

MAX_CONTENT_CHARS = 100_000
DEDUPE_KEY_PATTERN = r"^[a-z0-9_:-]{1,64}$"
AGENT_ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
_SCOPE = re.compile(r"^(global|project:[a-z0-9][a-z0-9_.-]{0,63}|agent:[a-z0-9][a-z0-9_.-]{0,63})$")
_CONFIDENCE_WORDS = {"high": 0.9, "med": 0.6, "medium": 0.6, "low": 0.3}


@lru_cache(maxsize=65_536)  # a write asks for the same names several times (resolution, index, subjects)
def name_key(name: str) -> str:
    """The key entity resolution compares names by: case-, accent-, space- and '@'-insensitive.

    >>> name_key("  @Zoë  Smith ")
    'zoe smith'
    """
    if name.isascii():  # nothing to decompose, and casefold is lower (the common case, 5x faster)
        return " ".join(name.strip().lstrip("@").lower().split())
    decomposed = unicodedata.normalize("NFKD", name.strip().lstrip("@"))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


def slugify(name: str) -> str:
    """A readable, stable id part: ``New York City`` -> ``new-york-city``; non-Latin letters are kept."""
    key = name_key(name)
    slug = re.sub(r"[^\w]+", "-", key).strip("-_")
    return slug[:80] or "entity"


def check_scope(scope: str) -> str:
    if not _SCOPE.match(scope):
        raise ValueError(
            "scope must be 'global', 'project:<slug>' or 'agent:<id>' (lowercase letters, digits, '_', '-', '.')"
        )
    return scope


def confidence_value(value: Any) -> float:
    """A confidence in [0, 1]; the protocol words high/med/low map to 0.9/0.6/0.3."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _CONFIDENCE_WORDS:
            return _CONFIDENCE_WORDS[word]
        try:
            value = float(word)
        except ValueError:
            raise ValueError("confidence must be a number in [0, 1] or one of high, med, low") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("confidence must be a number in [0, 1] or one of high, med, low")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError("confidence must lie in [0, 1]")
    return float(value)


Confidence = Annotated[float, Field(ge=0.0, le=1.0)]


class Visibility(str, Enum):
    """Who may read an item besides its scope's readers: ``private`` items need include_private."""

    NORMAL = "normal"
    PRIVATE = "private"

    @classmethod
    def of(cls, privacy: Iterable[str]) -> Visibility:
        """The visibility of an item with these privacy tags (``private`` or ``sensitive``: private)."""
        return cls.PRIVATE if not _PRIVATE_TAGS.isdisjoint(privacy) else cls.NORMAL


_PRIVATE_TAGS = frozenset(["private", "sensitive"])


class Source(Record):
    """Where an event came from: a system, a reference (``memory/2025-11-27.md#L12``, ``D1:3``) and ids."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str = Field(default="api", min_length=1, max_length=64)
    ref: str | None = Field(default=None, max_length=1000)
    thread_id: str | None = Field(default=None, max_length=200)
    session_id: str | None = Field(default=None, max_length=200)
    message_id: str | None = Field(default=None, max_length=200)
    run_id: str | None = Field(default=None, max_length=200)


class Affect(Record):
    """Valence, arousal, dominance, each in [-1, 1]."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    valence: float = Field(ge=-1.0, le=1.0)
    arousal: float = Field(ge=-1.0, le=1.0)
    dominance: float = Field(ge=-1.0, le=1.0)


SPEAKER_TAG = "speaker:"  # a tag naming who says an event's content ("speaker:user")


class EventDraft(Record):
    """What a writer sends to record an event, before graphmem assigns ids and transaction time.

    Times here are already parsed (the facade reads strings with the memory's timezone).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    occurred_at: TimePoint
    occurred_end: TimePoint | None = None
    source: Source = Source()
    agent_id: str = Field(default="unknown", pattern=AGENT_ID_PATTERN)
    scope: str = "global"
    kind: str = "observation"
    thread: str | None = Field(default=None, max_length=200)
    tags: tuple[str, ...] = ()
    privacy: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    dedupe_key: str | None = Field(default=None, pattern=DEDUPE_KEY_PATTERN)
    confidence: Confidence = 1.0
    supersedes: str | None = None
    ttl_days: int | None = Field(default=None, ge=0)
    affect: Affect | None = None

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: str) -> str:
        return check_scope(value)

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        return confidence_value(value)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content must not be blank")
        return value

    @field_validator("tags", "privacy", "entities")
    @classmethod
    def _clean_list(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        cleaned = tuple(dict.fromkeys(v.strip() for v in value if v.strip()))
        if any(len(v) > 200 for v in cleaned):
            raise ValueError("each item must be at most 200 characters")
        return cleaned

    @field_validator("tags")
    @classmethod
    def _one_speaker(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        speakers = [t for t in value if t.startswith(SPEAKER_TAG)]
        if len(speakers) > 1 or any(not t.removeprefix(SPEAKER_TAG).strip() for t in speakers):
            raise ValueError(f"at most one {SPEAKER_TAG}<name> tag, with a name: {SPEAKER_TAG}user")
        return value

    @property
    def speaker(self) -> str | None:
        """Who says the content (its ``speaker:<name>`` tag): "I" in its lines that no "Name:" opens."""
        said = (t.removeprefix(SPEAKER_TAG).strip() for t in self.tags if t.startswith(SPEAKER_TAG))
        return next(said, None)


class Event(EventDraft):
    """An immutable record of something observed or said, as memory holds it."""

    id: str
    recorded_at: dt.datetime
    content_hash: str
    redactions: tuple[str, ...] = ()

    @property
    def visibility(self) -> Visibility:
        return Visibility.of(self.privacy)


class Entity(Record):
    """A person, org, place, project, tool or concept: one node per real thing."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    type: str = "concept"
    aliases: tuple[str, ...] = ()
    created_at: dt.datetime
    merged_into: str | None = None  # set when this node was found to be another one; its names moved there
    merged_at: dt.datetime | None = None


class Thread(Record):
    """A conversation, session or topic that events belong to."""

    model_config = ConfigDict(frozen=True)

    key: str
    title: str | None = None
    created_at: dt.datetime


class EvidenceStance(str, Enum):
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


class StateStatus(str, Enum):
    """``active``: open-ended; ``closed``: ended explicitly; ``superseded``: ended by its successor;
    ``candidate``: proposed but not confirmed (a preference guessed, not stated); ``revoked``: a preference
    withdrawn or overruled by the opposite one."""

    ACTIVE = "active"
    CANDIDATE = "candidate"
    CLOSED = "closed"
    SUPERSEDED = "superseded"
    DONE = "done"
    REVOKED = "revoked"
    RETRACTED = "retracted"


class Evidence(Record):
    """An event that supports or contradicts a state, with where that event came from."""

    model_config = ConfigDict(frozen=True)

    event_id: str
    stance: EvidenceStance = EvidenceStance.SUPPORTS
    at: dt.datetime
    content: str | None = None
    occurred_at: TimePoint | None = None
    source: Source | None = None


class State(Record):
    """Something that holds over ``[valid_from, valid_to)``, as memory knew it at ``recorded_at``.

    One logical state (``id``) has one or more *versions* over transaction time: each change of its validity
    or status is a new version (``recorded_at``) that replaces the previous one (``replaced_at``).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    subject_id: str
    subject: str
    predicate: str
    object_id: str | None = None
    object: str
    text: str
    valid: Interval
    stated_end: TimePoint | None = None
    recorded_at: dt.datetime
    replaced_at: dt.datetime | None = None
    created_at: dt.datetime
    retracted_at: dt.datetime | None = None
    last_confirmed_at: dt.datetime | None = None
    confidence: Confidence = 1.0
    status: StateStatus = StateStatus.ACTIVE
    scope: str = "global"
    visibility: Visibility = Visibility.NORMAL
    holder: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)  # details by kind: a preference's domain and note
    evidence: tuple[Evidence, ...] = ()
    throughout: bool | None = None

    @property
    def valid_from(self) -> TimePoint | None:
        return self.valid.start

    @property
    def valid_to(self) -> TimePoint | None:
        return self.valid.end


class RevisionAction(str, Enum):
    ASSERT = "assert"
    CONFIRM = "confirm"
    CLOSE = "close"
    SUPERSEDE = "supersede"
    REOPEN = "reopen"
    RETRACT = "retract"
    MARK_DONE = "mark_done"
    REWEIGH = "reweigh"  # an opinion's confidence moved with new evidence
    DISPUTE = "dispute"  # evidence against a fact; open until the fact is confirmed again
    REVOKE = "revoke"
    MERGE = "merge"  # the state's subject or object was merged into another entity


class Revision(Record):
    """One change of a state: when memory made it, what changed, why, and on what evidence."""

    model_config = ConfigDict(frozen=True)

    id: str
    state_id: str
    at: dt.datetime
    action: RevisionAction
    reason: str
    valid: Interval
    status: StateStatus
    confidence: float
    evidence_ids: tuple[str, ...] = ()


class Annotation(Record):
    """What a write plan adds to an event without changing it: the time it is about and the moment's affect.

    ``about`` is the period the event talks about ("when I was at university"), which may lie far from when
    it was written; the latest annotation of an event replaces the earlier one.
    """

    model_config = ConfigDict(frozen=True)

    event_id: str
    recorded_at: dt.datetime
    about: Interval | None = None
    about_confidence: float | None = None
    life_stage: str | None = None
    affect_text: str | None = None
    affect_labels: tuple[str, ...] = ()
    affect: Affect | None = None
    affect_confidence: float | None = None
