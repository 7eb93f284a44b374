"""The vocabulary: entity types, predicates, state kinds, link labels, event kinds, privacy tags.

The core vocabulary ships as ``ontology/core.yaml`` (inside the wheel as ``graphmem/ontology/data``); a
user's own file is merged over it, and ``Ontology.with_predicate`` adds one at run time. Nothing here does
I/O except :func:`load_ontology`, which reads the files it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graphmem.errors import OntologyError, UnknownPredicate

__all__ = [
    "Cardinality",
    "Ontology",
    "OpinionRule",
    "Predicate",
    "PromotionRule",
    "ResolutionRule",
    "TidyRule",
    "core_ontology_path",
    "load_ontology",
]

_NAME = r"^[a-z][a-z0-9_]{0,63}$"


class Cardinality(str, Enum):
    """``one``: a new value closes the previous one; ``many``: values coexist."""

    ONE = "one"
    MANY = "many"


class Described(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""


class PrivacyTag(Described):
    action: Literal["drop", "mask", "restrict"]


class Predicate(BaseModel):
    """One predicate of the vocabulary."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME)
    cardinality: Cardinality
    kind: str = "fact"
    object: Literal["entity", "literal"] = "entity"
    subject_types: tuple[str, ...] = ()
    object_types: tuple[str, ...] = ()
    inverse: str | None = None
    synonyms: tuple[str, ...] = ()
    description: str = ""

    @property
    def single_valued(self) -> bool:
        return self.cardinality is Cardinality.ONE


class OpinionRule(BaseModel):
    """How evidence moves an opinion's confidence ``c`` (one config for every opinion).

    Support: ``c += step * (1 - c) * w``; contradiction: ``c -= step * c * w``. ``w`` is the evidence event's
    kind weight (``weights``, else ``default_weight``), times ``strong`` for evidence marked strong, capped
    at ``max_weight``. With the defaults one ordinary piece of evidence moves ``c`` by at most 0.2 of the
    distance to 0 or 1, so a large move needs several pieces or a strong one.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: float = Field(default=0.2, gt=0.0, le=1.0)
    default_weight: float = Field(default=0.5, gt=0.0, le=1.0)
    weights: dict[str, float] = {}
    strong: float = Field(default=2.0, ge=1.0)
    max_weight: float = Field(default=2.5, gt=0.0)
    initial: float = Field(default=0.5, ge=0.0, le=1.0)  # an opinion's confidence when none is given

    @field_validator("weights")
    @classmethod
    def _weights(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [k for k, w in value.items() if not 0.0 < w <= 1.0]
        if bad:
            raise ValueError(f"weights must lie in (0, 1]; check {', '.join(sorted(bad))}")
        return value

    def weight(self, event_kind: str, *, strong: bool = False) -> float:
        w = self.weights.get(event_kind, self.default_weight) * (self.strong if strong else 1.0)
        return min(w, self.max_weight)

    def moved(self, confidence: float, supports: bool, weight: float) -> float:
        """The confidence after one piece of evidence of ``weight``, kept inside [0, 1]."""
        move = min(self.step * weight, 1.0)
        new = confidence + move * (1.0 - confidence) if supports else confidence - move * confidence
        return round(min(1.0, max(0.0, new)), 6)


class TidyRule(BaseModel):
    """How far one tidy run goes: at most ``max_closures`` duplicate states closed; ``exclude_kinds`` never
    (moods repeat on purpose: feeling tired on Monday and again on Tuesday are two states)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_closures: int = Field(default=500, ge=1, le=100_000)
    exclude_kinds: tuple[str, ...] = ("mood",)


class PromotionRule(BaseModel):
    """Which facts a person is offered to promote into curated memory: of ``kinds``, confidence at least
    ``min_confidence``, confirmed by at least ``min_confirmations`` pieces of support, no open contradiction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kinds: tuple[str, ...] = ("fact", "relation")
    min_confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    min_confirmations: int = Field(default=3, ge=1)


class ResolutionRule(BaseModel):
    """When two different names are one entity without anyone saying so (see ``ontology/core.yaml``).

    Names are compared by their skeleton: the name key (case, accents, spaces, '@'), punctuation ignored and a
    trailing legal suffix of ``org_suffixes`` dropped; similarity is 1 - edit distance / the longer length.
    A new name joins an existing entity by itself only when both are of one type in ``auto_types``, both
    skeletons have at least ``min_length`` characters, their similarity is at least ``auto_join`` and no
    other entity comes that close. Pairs at least ``suggest`` similar, and a person whose whole name is
    another person's first name, are only listed for a person to merge.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    auto_types: tuple[str, ...] = ("org", "place", "project", "tool")
    auto_join: float = Field(default=0.88, gt=0.5, le=1.0)
    suggest: float = Field(default=0.8, gt=0.5, le=1.0)
    min_length: int = Field(default=6, ge=1)
    org_suffixes: tuple[str, ...] = ("inc", "ltd", "llc", "gmbh", "corp", "corporation", "co", "plc", "ag")


class Ontology(BaseModel):
    """The whole vocabulary; immutable, extended by building a new one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = 1
    entity_types: dict[str, Described]
    state_kinds: dict[str, Described]
    predicates: dict[str, Predicate]
    link_labels: dict[str, Described]
    event_kinds: dict[str, Described]
    privacy_tags: dict[str, PrivacyTag]
    opinions: OpinionRule = OpinionRule()
    tidy: TidyRule = TidyRule()
    promotion: PromotionRule = PromotionRule()
    resolution: ResolutionRule = ResolutionRule()
    preference_domains: dict[str, Described] = {}

    @field_validator("predicates", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {k: {"name": k, **(v or {})} for k, v in value.items()}
        return value

    def predicate(self, name: str, *, field: str = "predicate") -> Predicate:
        """The predicate called ``name``; a clear error listing the known ones if there is none."""
        try:
            return self.predicates[name]
        except KeyError:
            raise UnknownPredicate(name, allowed=self.predicates, field=field) from None

    @cached_property
    def mutual_predicates(self) -> frozenset[str]:
        """Predicates that say the same of both sides: their own inverse (married_to, knows). (Read with every
        state read: kept once made, the vocabulary being immutable.)"""
        return frozenset(name for name, p in self.predicates.items() if p.inverse == name)

    @cached_property
    def mutual_one(self) -> frozenset[str]:
        """Of the mutual predicates, those of one value at a time (married_to, partner_of)."""
        return frozenset(name for name in self.mutual_predicates if self.predicates[name].single_valued)

    def check_kind(self, kind: str, *, field: str = "kind") -> str:
        if kind not in self.event_kinds:
            raise OntologyError(
                f"unknown event kind {kind!r}; known: {', '.join(sorted(self.event_kinds))}; "
                "add it under event_kinds in your ontology file",
                field=field,
            )
        return kind

    def check_entity_type(self, type_: str, *, field: str = "type") -> str:
        if type_ not in self.entity_types:
            raise OntologyError(
                f"unknown entity type {type_!r}; known: {', '.join(sorted(self.entity_types))}",
                field=field,
            )
        return type_

    def check_link_label(self, label: str, *, field: str = "label") -> str:
        if label not in self.link_labels:
            raise OntologyError(
                f"unknown link label {label!r}; known: {', '.join(sorted(self.link_labels))}", field=field
            )
        return label

    def check_preference_domain(self, domain: str, *, field: str = "domain") -> str:
        if domain not in self.preference_domains:
            raise OntologyError(
                f"unknown preference domain {domain!r}; known: {', '.join(sorted(self.preference_domains))}; "
                "add it under preference_domains in your ontology file",
                field=field,
            )
        return domain

    def privacy_action(self, tag: str) -> str | None:
        found = self.privacy_tags.get(tag)
        return None if found is None else found.action

    def with_predicate(self, predicate: Predicate) -> Ontology:
        """A copy with ``predicate`` added (or replaced)."""
        if predicate.kind not in self.state_kinds:
            raise OntologyError(
                f"unknown state kind {predicate.kind!r} for predicate {predicate.name!r}; "
                f"known: {', '.join(sorted(self.state_kinds))}",
                field="kind",
            )
        extended = self.model_copy(update={"predicates": {**self.predicates, predicate.name: predicate}})
        for made in ("mutual_predicates", "mutual_one"):  # (a copy keeps what was made of the old predicates)
            extended.__dict__.pop(made, None)
        return extended


def core_ontology_path() -> Path:
    """Where the shipped core vocabulary is: inside the wheel, else the source checkout's ``ontology/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "data" / "core.yaml", here.parents[1] / "ontology" / "core.yaml"):
        if candidate.is_file():
            return candidate
    raise OntologyError("the core vocabulary core.yaml is missing from this installation; reinstall graphmem")


def load_ontology(extra: Iterable[str | Path] = ()) -> Ontology:
    """The core vocabulary with each file in ``extra`` merged over it, section by section."""
    merged: dict[str, Any] = {}
    for path in (core_ontology_path(), *map(Path, extra)):
        for section, entries in _read(path).items():
            if isinstance(entries, Mapping):
                merged.setdefault(section, {}).update(entries)
            else:
                merged[section] = entries
    try:
        return Ontology.model_validate(merged)
    except ValidationError as exc:
        problems = [{"field": ".".join(map(str, e["loc"])), "message": e["msg"]} for e in exc.errors()]
        first = problems[0]
        raise OntologyError(
            f"ontology is invalid at {first['field']}: {first['message']}", field=first["field"], problems=problems
        ) from None


def read_yaml(text: str) -> Any:
    """``yaml.safe_load`` with libyaml's parser when PyYAML was built with it (the vocabulary and extraction
    rules load ~10x faster: a third of building the extraction pipeline)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader


def _read(path: Path) -> dict[str, Any]:
    try:
        data = read_yaml(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OntologyError(f"cannot read ontology file {str(path)!r}: {exc.strerror}", field="ontology") from exc
    except yaml.YAMLError as exc:
        raise OntologyError(f"ontology file {str(path)!r} is not valid YAML: {exc}", field="ontology") from exc
    if not isinstance(data, dict):
        raise OntologyError(f"ontology file {str(path)!r} must be a mapping of sections", field="ontology")
    return data
