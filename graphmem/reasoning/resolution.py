"""Entity resolution beyond exact names: skeletons, similarity, the conservative join and merge candidates.

Exact names (case, accents, spaces, '@') and aliases always resolve to one entity; that happens in the store's
alias table. This module decides the rest, by the ontology's :class:`~graphmem.ontology.ResolutionRule`:

- a new name *joins* an existing entity by itself only when both are of one type the rule allows (orgs,
  places, projects, tools), their skeletons are equal or nearly so (a typo, "Marrakech" / "Marrakesh") with
  the same numbers ("Apollo 11" is not "Apollo 13", "company 12" not "company 13"), and no other entity is as
  close;
- people never join by themselves: "Peter" and "Peter Smith" are listed as a *merge candidate*, for someone
  who knows to call ``merge_entities``.

The only home of rapidfuzz.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from graphmem.ontology import Entity, ResolutionRule, name_key

__all__ = ["MergeCandidate", "NameBlocks", "merge_candidates", "names_like", "same_numbers", "similarity",
           "skeleton"]

_WORDS = re.compile(r"\w+")
_NUMBERS = re.compile(r"\d+")
_SHORTEST_NICKNAME = 3
_OPENS_IT = 0.85  # how alike a name is to a word that opens one of its words ("pete" of "peter smith")
_BLOCK = 3  # skeletons are compared within blocks of the same first letters: a typo there is not caught


def skeleton(name: str, suffixes: Iterable[str] = ()) -> str:
    """The name key without punctuation and without trailing legal suffixes.

    >>> skeleton("ACME, Inc.", ["inc", "ltd"])
    'acme'
    >>> skeleton("Zoë-Marie  O'Neil")
    'zoe marie o neil'
    """
    drop = set(suffixes)
    words = _WORDS.findall(name_key(name))
    while len(words) > 1 and words[-1] in drop:
        words.pop()
    return " ".join(words)


def similarity(a: str, b: str) -> float:
    """1 - edit distance / the longer length: 1.0 for equal skeletons.

    >>> round(similarity("marrakesh", "marrakech"), 3)
    0.889
    """
    return 1.0 if a == b else float(Levenshtein.normalized_similarity(a, b))


def same_numbers(a: str, b: str) -> bool:
    """Numbers name things apart: two names that differ in one never join, however alike the rest.

    >>> same_numbers("apollo 11", "appollo 11"), same_numbers("apollo 11", "apollo 13")
    (True, False)
    """
    return _NUMBERS.findall(a) == _NUMBERS.findall(b)


@dataclass(frozen=True)
class _Named:
    entity_id: str
    name: str
    type: str
    skeleton: str


class NameBlocks:
    """Names of entities that may be joined by a new name, blocked by the first letters of their skeleton."""

    def __init__(self, rule: ResolutionRule, entities: Iterable[Entity] = ()) -> None:
        self.rule = rule
        self._blocks: dict[str, list[_Named]] = {}
        self._known: set[tuple[str, str]] = set()
        for e in entities:
            self.add(e)

    def add(self, entity: Entity, names: Sequence[str] | None = None) -> None:
        """Know ``entity`` by its name and aliases (or by ``names``) if its type may join."""
        if entity.type not in self.rule.auto_types or entity.merged_into:
            return
        for name in names if names is not None else (entity.name, *entity.aliases):
            sk = skeleton(name, self.rule.org_suffixes)
            if sk and (entity.id, sk) not in self._known:  # an entity updated again adds nothing twice
                self._known.add((entity.id, sk))
                self._blocks.setdefault(sk[:_BLOCK], []).append(_Named(entity.id, name, entity.type, sk))

    def join(self, name: str, type_: str | None) -> str | None:
        """The one entity a new ``name`` of ``type_`` is, by the rule; None when none or several qualify."""
        if type_ not in self.rule.auto_types:
            return None
        sk = skeleton(name, self.rule.org_suffixes)
        if not sk:
            return None
        same_type = [n for n in self._blocks.get(sk[:_BLOCK], ()) if n.type == type_]
        equal = {n.entity_id for n in same_type if n.skeleton == sk}
        if equal:
            return equal.pop() if len(equal) == 1 else None
        if len(sk) < self.rule.min_length:
            return None
        near = process.extract(sk, [n.skeleton for n in same_type], scorer=Levenshtein.normalized_similarity,
                               score_cutoff=self.rule.auto_join, limit=None)
        found = {same_type[i].entity_id for _, _, i in near
                 if len(same_type[i].skeleton) >= self.rule.min_length and same_numbers(sk, same_type[i].skeleton)}
        return found.pop() if len(found) == 1 else None


@dataclass(frozen=True)
class MergeCandidate:
    """Two entities that may be one: ``keep`` (the fuller name) and ``merge``, how alike, and why listed."""

    keep: Entity
    merge: Entity
    similarity: float
    reason: str


def names_like(key: str, keys: Sequence[str], limit: int, near: float = 0.75) -> list[str]:
    """Of ``keys`` (name keys), those like ``key`` (one a caller asked for and memory does not hold), the
    likest first: near-equal ones (a typo: "petr" of "peter", similarity >= ``near``) and ones a word of which
    opens with it ("pete", "smith" of "peter smith"; three letters at least); the nearer, then the shorter.

    >>> names_like("pete", ["peter", "peter smith", "anna", "petra"], 3)
    ['peter', 'peter smith']
    >>> names_like("marakesh", ["marrakesh", "madrid"], 3)
    ['marrakesh']
    >>> names_like("smith", ["peter smith", "smithers", "anna"], 3)
    ['smithers', 'peter smith']
    """
    scores: dict[str, float] = {k: score for k, score, _ in process.extract(
        key, keys, scorer=Levenshtein.normalized_similarity, score_cutoff=near, limit=limit * 4)}
    if len(key) >= _SHORTEST_NICKNAME:
        word = f" {key}"
        for k in keys:
            if k.startswith(key) or word in k:
                scores[k] = max(scores.get(k, 0.0), _OPENS_IT)
    scores.pop(key, None)
    return sorted(scores, key=lambda k: (-scores[k], len(k), k))[:limit]


def _short_for(short: str, name: str) -> bool:
    """Whether the one-word skeleton ``short`` is a short form of the first name in ``name``: "mel" of
    "melanie", "chris" of "christopher smith" (at least three letters)."""
    first = name.split()[0]
    return " " not in short and len(short) >= _SHORTEST_NICKNAME and len(first) > len(short) and \
        first.startswith(short)


def merge_candidates(entities: Sequence[Entity], rule: ResolutionRule, limit: int = 100) -> list[MergeCandidate]:
    """Pairs of entities of one type that may be one thing, most alike first: near-equal skeletons (at least
    ``rule.suggest`` similar), and a person whose whole name is another person's first name or a short form of
    it ("Mel", "Melanie")."""
    blocks: dict[str, list[tuple[str, Entity]]] = {}
    for e in entities:
        if e.merged_into:
            continue
        sk = skeleton(e.name, rule.org_suffixes)
        if sk:
            blocks.setdefault(sk[:_BLOCK], []).append((sk, e))
    found: dict[tuple[str, str], MergeCandidate] = {}
    for block in blocks.values():
        for i, (a_sk, a) in enumerate(block):
            for b_sk, b in block[i + 1:]:
                if a.type != b.type:
                    continue
                score = similarity(a_sk, b_sk)
                if score >= rule.suggest and same_numbers(a_sk, b_sk):
                    reason = "the same name but for punctuation or a legal suffix" if score == 1.0 else \
                        f"names {score:.2f} alike"
                elif a.type == "person" and (a_sk.split()[0] == b_sk or b_sk.split()[0] == a_sk) \
                        and a_sk != b_sk:
                    reason = "one is named by the other's first name: the same person only with evidence"
                elif a.type == "person" and (_short_for(a_sk, b_sk) or _short_for(b_sk, a_sk)):
                    reason = ("one is named by a short form of the other's first name (Mel, Melanie): "
                              "the same person only with evidence")
                else:
                    continue
                keep, merge = (a, b) if (len(a.name), b.created_at) >= (len(b.name), a.created_at) else (b, a)
                found[(keep.id, merge.id)] = MergeCandidate(keep, merge, round(score, 3), reason)
    ordered = sorted(found.values(), key=lambda c: (-c.similarity, c.keep.id, c.merge.id))
    return ordered[:limit]
