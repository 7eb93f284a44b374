"""Recall: which events and states answer a question in words, ranked by several signals at once.

The score of a document is a weighted sum of parts, each in [0, 1] before weighting:

- ``lexical``: its BM25 score over the best BM25 score of the query, squared (``lexical_power``);
- ``vector``: its cosine similarity, scaled so the best candidate is 1 and the weakest kept candidate (or
  ``min_similarity``, if higher: below it texts are unrelated) 0, to the power 1.5 (``vector_power``).
  The powers make a middling match count for much less than a strong one, so the other signals decide
  among middling matches: a document at half the best BM25 score gets a quarter;
- ``graph``: the match of its neighbours in the same thread (the turn before and after a matching turn
  often holds the answer: "what did you do yesterday?" / "I went to a support group"), weighted by distance
  (up to four turns away);
- ``entity``: 1 when it mentions an entity the query names;
- ``subject``: 1 when it is *about* an entity the query names: an event that entity was declared with (the
  speaker of a turn, the author of a note), a state of that subject. Asked "what does Melanie do to
  destress?", Melanie's own turns count more than Caroline's "Thanks, Melanie!";
- ``time``: 1 when it happened inside a time the query names ("in May 2023"; a time open at one end counts as
  the period next to its bound: "the weekend before 4 October" as the week before it), or a state held
  then ("Where did Peter live in 2019?": the home taken in 2018 and left in 2021);
- ``current``: when the query asks in the present and names no time ("Where does Peter live?"), 1 for a
  state that holds at its ``now``: the home he has, not the one he left. Among the other parts' candidates;
- ``dated``: when the query asks when ("When did ...", "What year ...", "いつ"), 1 when it says when: an event
  that names the period it is about ("I went ... yesterday"), a state with a known start. Only candidates
  matched by the other parts get it: saying when is no match by itself;
- ``title``: when the query asks for a book, a film, a song, a game, a band or a name ("What books has Tim
  read?", "What are the names of Andrew's dogs?"), 1 when its text names a title or a name: a quoted phrase,
  capitalised words run together inside a sentence, what follows "called" or "named"
  (:func:`graphmem.index.text.names_a_title`). Like ``dated`` and ``place``, among the other parts'
  candidates only;
- ``place``: when the query asks where or for places ("Where has Maria made friends?", "Which countries has
  Tim been to?", "どこ"), 1 when it mentions a place (an entity of type place): "I went to a place in London
  a few years ago" answers the second, though it shares no word with it (among the other parts' candidates);
- ``recency``: 0.5 ** (age / half-life), age measured from the query's ``now``;
- ``words``: how closely its words match the query's, word by word (each query word's best cosine with one of
  its words, by the embedder's word vectors, averaged), scaled so the best of the ``words_pool`` documents
  ranked highest by the other parts is 1 and the weakest 0. Asked "what activities does Deborah pursue?",
  "gardening" and "running" are near "activities" as words, while in a whole turn's averaged vector they
  are drowned by the rest of it. Read last, for those few documents only. The index keeps each
  document's words beside its vector (set by the same background step: a document not yet embedded has none).

Weights live in :data:`PRESETS` and nowhere else. They were chosen on LoCoMo (``bench/locomo.py`` prints
the effect of each preset beside plain BM25 and plain dense retrieval).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from graphmem.arrays import sorted_union
from graphmem.errors import InvalidInput
from graphmem.index import SearchIndex
from graphmem.ontology import Event, Source, State, TimePoint
from graphmem.store import EventBrief, GraphStore

__all__ = ["PRESETS", "Preset", "Ranked", "RecallFilters", "RecallHit", "asks_now", "asks_title",
           "asks_where", "evidence_refs", "hydrate", "preset_named", "rank"]


@dataclass(frozen=True)
class Preset:
    lexical: float = 1.0
    vector: float = 0.4  # (LoCoMo recall@25 with the words part: 0.891 with 0.3 or 0.5, 0.893 with 0.4)
    # neighbour weight at distance 1, 2, ... in a thread (LoCoMo recall@25: 0.866 with (0.5, 0.2), 0.873 with
    # four steps; the powers below then took it to 0.884)
    graph: tuple[float, ...] = (0.5, 0.3, 0.18, 0.108)
    entity: float = 0.1
    subject: float = 0.5  # (LoCoMo recall@25: 0.884 with 0.4, 0.887 with 0.5; adversarial 0.899 -> 0.881)
    time: float = 1.0
    dated: float = 0.4  # a question that asks when: raises the hits that say when (LoCoMo: 0.3-0.5 best)
    place: float = 0.2  # a question that asks where (LoCoMo recall@25 0.893 -> 0.896 with 0.2 or 0.3)
    title: float = 0.5  # a question that asks for titles or names (LoCoMo recall@25 0.897 -> 0.901; 0.3 less)
    current: float = 0.1  # a question in the present: raises the states that hold now
    recency: float = 0.05
    half_life_days: float = 7.0
    candidates: int = 100  # documents taken from each index before fusing (LoCoMo: 200 gave the same recall@25)
    min_similarity: float = 0.2  # cosine below which a vector match counts for nothing (unrelated text: ~0.05)
    # the lexical and vector parts are raised to these powers (LoCoMo: 1 and 1 gave recall@25 0.873 with the
    # graph above, 2 and 1.5 0.884; lexical 1.5 0.879, 3 0.873; vector 0.7 0.878)
    lexical_power: float = 2.0
    vector_power: float = 1.5
    # the word-by-word match of the best documents (LoCoMo recall@25 0.887 -> 0.890-0.893 with 0.4-0.6,
    # recall@10 0.806 -> 0.821; a pool of 300 gave the same as 200, 100 less)
    words: float = 0.5
    words_pool: int = 200


PRESETS: dict[str, Preset] = {
    "default": Preset(),
    "lexical": Preset(vector=0.0, words=0.0),
    "semantic": Preset(lexical=0.0, vector=1.0),
    "plain_bm25": Preset(vector=0.0, graph=(), entity=0.0, subject=0.0, time=0.0, dated=0.0, place=0.0,
                         title=0.0, current=0.0, recency=0.0, words=0.0),
    "plain_dense": Preset(lexical=0.0, vector=1.0, graph=(), entity=0.0, subject=0.0, time=0.0, dated=0.0,
                          place=0.0, title=0.0, current=0.0, recency=0.0, words=0.0),
    "recent": Preset(recency=0.5),
}


_ASKS_WHERE = re.compile(
    r"(?i)\bwhere\b|\b(?:which|what)\s+(?:\w+\s+)?"
    r"(?:city|cities|country|countries|places?|locations?|states?|areas?|regions?|towns?)\b"
    r"|\bbeen\s+to\b|\btravel+(?:s|ed|ing)?\b|\bvisit(?:s|ed|ing)?\b"
    r"|どこ|場所|どの(?:国|都市|町|地域)"
)


_ASKS_TITLE = re.compile(
    r"(?i)\b(?:books?|novels?|authors?|movies?|films?|songs?|albums?|bands?|shows?|series|games?|titles?|"
    r"names?|named|called)\b|(?:どんな|どの|何の)本|映画|曲|ゲーム|名前"
)


def asks_title(text: str) -> bool:
    """Whether ``text`` asks for titles or names: its answer is a memory that names a book, a film, a pet.

    >>> asks_title("What books has Tim read?"), asks_title("What are the names of Andrew's dogs?")
    (True, True)
    >>> asks_title("Where does Caroline work?"), asks_title("日本ではどんな映画を見た？")
    (False, True)
    """
    return _ASKS_TITLE.search(text) is not None


# a question in the present ("Where does Peter live?", "Who is Anna married to now?"), not about the past
_ASKS_NOW = re.compile(r"(?i)\b(?:does|do|is|are|am|currently|now|nowadays)\b")
_ASKS_THEN = re.compile(r"(?i)\b(?:did|was|were|had|used\s+to|ago|before|previously|formerly|last|first)\b")


def asks_now(text: str) -> bool:
    """Whether ``text`` asks what holds now: in the present tense, of nothing past.

    >>> asks_now("Where does Peter live?"), asks_now("Who is Anna married to?")
    (True, True)
    >>> asks_now("Where did Peter live?"), asks_now("What was the first book Tim read?")
    (False, False)
    """
    return _ASKS_NOW.search(text) is not None and _ASKS_THEN.search(text) is None


def asks_where(text: str) -> bool:
    """Whether ``text`` asks where, or for places: its answer is a memory that names a place.

    >>> asks_where("Which geographical locations has Tim been to?"), asks_where("Where does Caroline work?")
    (True, True)
    >>> asks_where("When did Caroline move?"), asks_where("Carolineはどこに住んでいる？")
    (False, True)
    """
    return _ASKS_WHERE.search(text) is not None


def preset_named(name: str) -> Preset:
    found = PRESETS.get(name)
    if found is None:
        raise InvalidInput(f"unknown preset {name!r}; known: {', '.join(PRESETS)}", field="preset")
    return found


@dataclass(frozen=True)
class RecallFilters:
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    entities: tuple[str, ...] | None = None  # only documents mentioning one of these entity ids
    kinds: tuple[str, ...] | None = None
    types: tuple[str, ...] | None = None  # "event", "state"
    scopes: tuple[str, ...] | None = None
    include_private: bool = False


@dataclass(frozen=True)
class Ranked:
    id: str
    type: str
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    entities: tuple[str, ...] = ()  # ids of the entities it mentions


def rank(
    index: SearchIndex, text: str, k: int, *, filters: RecallFilters = RecallFilters(),
    preset: Preset = PRESETS["default"], now: dt.datetime, named_entities: tuple[str, ...] = (),
    named_times: tuple[tuple[dt.datetime | None, dt.datetime | None], ...] = (), asks_when: bool = False,
    places: tuple[str, ...] = (), asks_title: bool = False, asks_now: bool = False,
) -> list[Ranked]:
    """The ``k`` best documents for ``text`` that pass ``filters``, best first, with their score parts;
    ``asks_when``: the question asks when something happened; ``places``: the question asks where, and these
    are the ids of the place entities; ``asks_title``: the question asks for titles or names."""
    allowed = index.allowed(
        scopes=filters.scopes, include_private=filters.include_private, kinds=filters.kinds,
        types=filters.types, since=filters.since, until=filters.until, entities=filters.entities,
    )
    n = len(allowed)
    if n == 0 or not allowed.any():
        return []
    pool = max(preset.candidates, 4 * k)
    # Each part is a full-length array, but only the candidates' places are ever read or written: at a
    # million documents a pass over every one costs about a millisecond, a few hundred places nothing.
    parts: dict[str, np.ndarray] = {}
    found: list[np.ndarray] = []
    if preset.lexical:
        docs, scores = index.search_words(text, pool, allowed)
        parts["lexical"] = _spread(n, docs, (scores / scores[0]) ** preset.lexical_power if len(scores) else scores)
        found.append(docs)
        if preset.vector or preset.words:  # what was just written is scored on its vector too, as the rest is
            index.wait_for(docs)
    if preset.vector:
        docs, sims = index.search_vectors(text, pool, allowed)
        if len(sims) and sims[0] > preset.min_similarity:
            floor = max(float(sims[-1]) if len(sims) > 1 else 0.0, preset.min_similarity)
            span = max(float(sims[0]) - floor, 1e-6)
            parts["vector"] = _spread(n, docs, np.clip((sims - floor) / span, 0.0, 1.0) ** preset.vector_power)
            found.append(docs)
    touched = sorted_union(*found) if found else np.zeros(0, np.int64)
    touched = touched[touched < n]
    base = np.zeros(n, np.float32)
    if "lexical" in parts:
        base[touched] += preset.lexical * parts["lexical"][touched]
    if "vector" in parts:
        base[touched] += preset.vector * parts["vector"][touched]
    matched = touched[base[touched] > 0]
    if not len(matched) and not named_entities and not named_times:
        return []
    candidates = matched
    total: np.ndarray = base
    if preset.graph:
        graph = np.zeros(n, np.float32)
        strongest = matched[np.argsort(-base[matched], kind="stable")[:pool]]
        source, reached, distance = index.neighbours(strongest, len(preset.graph))
        keep = reached < n
        keep[keep] = allowed[reached[keep]]
        source, reached, distance = source[keep], reached[keep], distance[keep]
        weights = np.array(preset.graph, np.float32)[distance - 1] * base[strongest[source]]
        np.add.at(graph, reached, weights)  # in order, as one += per neighbour would
        parts["graph"] = graph
        candidates = sorted_union(matched, reached)
        total = _sum_at(n, candidates, base, graph)
    # the named signals: 1 for each document flagged, and every flagged document is a candidate
    flagged: tuple[tuple[str, float, Callable[[], np.ndarray]], ...] = (
        ("entity", preset.entity if named_entities else 0.0, lambda: index.mentioning(named_entities, n)),
        ("subject", preset.subject if named_entities else 0.0, lambda: index.about(named_entities, n)),
        ("time", preset.time if named_times else 0.0, lambda: _within_any(index, named_times, n)),
    )
    for name, weight, flags in flagged:
        if weight:
            hit = flags() & allowed
            parts[name] = hit.astype(np.float32)
            total = total + weight * parts[name]
            candidates = sorted_union(candidates, np.flatnonzero(hit))
    if not len(candidates):
        return []
    # what the question asks for, among the candidates only: saying when, naming a place or a title is no match
    # by itself (for a place or a title LoCoMo gave the same recall either way, and it bounds the work)
    asked: tuple[tuple[str, float, Callable[[], np.ndarray]], ...] = (
        ("place", preset.place if places else 0.0, lambda: index.mentioning(places, n)[candidates]),
        ("title", preset.title if asks_title else 0.0, lambda: index.titled(candidates)),
        ("dated", preset.dated if asks_when else 0.0, lambda: index.dated(candidates)),
        ("current", preset.current if asks_now and not named_times else 0.0,
         lambda: index.holding(now, candidates)),
    )
    for name, weight, flags in asked:
        if weight:
            values = np.zeros(n, np.float32)
            values[candidates] = flags()
            parts[name] = values
            total = _sum_at(n, candidates, total, values, weight)
    if preset.recency:
        ages = (now.timestamp() - index.times(candidates)) / 86_400.0
        recency = np.zeros(n, np.float32)
        recency[candidates] = np.where(np.isnan(ages), 0.0, 0.5 ** (np.maximum(ages, 0) / preset.half_life_days))
        parts["recency"] = recency
        total = _sum_at(n, candidates, total, recency, preset.recency)
    order = candidates[np.lexsort((candidates, -total[candidates]))]
    if preset.words:
        best = order[:preset.words_pool]
        match = index.word_match(text, best)
        if match is not None:
            words = np.zeros(n, np.float32)
            words[best] = (match - match.min()) / max(float(match.max() - match.min()), 1e-6)
            parts["words"] = words
            # the part only raises these few, each at least as high as any other before it: only they move
            total = total.copy()
            total[best] += preset.words * words[best]
            order = np.concatenate([best[np.lexsort((best, -total[best]))], order[len(best):]])
    order = order[:k]
    types = index.types(order)
    return [
        Ranked(id=index.ids[doc], type=type_, score=round(float(total[doc]), 6),
               parts={name: round(float(values[doc]), 6) for name, values in parts.items()},
               entities=index.entities_of(int(doc)))
        for doc, type_ in zip(order, types, strict=True)
    ]


def _within_any(index: SearchIndex, times: tuple[tuple[dt.datetime | None, dt.datetime | None], ...],
                n: int) -> np.ndarray:
    inside = np.zeros(n, bool)
    for start, end in times:
        inside |= index.within(start, end, n, held=True)  # (a state that held then: begun before too)
    return inside


def _sum_at(n: int, at: np.ndarray, a: np.ndarray, b: np.ndarray, weight: float = 1.0) -> np.ndarray:
    """``a + weight * b`` at the places ``at`` (zero elsewhere)."""
    out = np.zeros(n, np.float32)
    out[at] = a[at] + weight * b[at]
    return out


def _spread(n: int, docs: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(n, np.float32)
    out[docs[docs < n]] = values[docs < n]
    return out


@dataclass(frozen=True)
class RecallHit:
    """One answer of :meth:`Memory.recall`: compact, with where it came from and why it ranked.

    ``event_ids`` are the event itself, or for a state the events that are its evidence; ``refs`` are their
    source references (``D1:3``, ``memory/2025-11-27.md#L12``); pass either to ``Memory.get``.
    """

    id: str
    type: str  # "event" or "state"
    kind: str
    score: float
    parts: dict[str, float]
    time: TimePoint | None
    content: str
    entities: tuple[str, ...]
    scope: str
    source: Source | None
    refs: tuple[str, ...]
    event_ids: tuple[str, ...]
    thread: str | None = None
    state: State | None = None


def evidence_refs(events: Iterable[EventBrief | Event]) -> tuple[str, ...]:
    """A state hit's refs: the source refs of the events that are its evidence."""
    return tuple(e.source.ref for e in events if e.source.ref)


def hydrate(store: GraphStore, ranked: list[Ranked]) -> list[RecallHit]:
    """Turn ranked documents into hits with their content, entities and sources (a bounded number of reads)."""
    state_ids = [r.id for r in ranked if r.type == "state"]
    states = {s.id: s for s in store.states_by_id(state_ids)} if state_ids else {}
    links = store.evidence_links(state_ids) if state_ids else {}
    evidence_ids = [e for r in ranked if r.type == "state" for e, _, _ in links.get(r.id, [])]
    event_ids = [r.id for r in ranked if r.type == "event"]
    events = {e.id: e for e in store.event_briefs(list(dict.fromkeys(event_ids + evidence_ids)))}
    mentions = {r.id: r.entities for r in ranked}
    entity_ids = {e for found in mentions.values() for e in found}
    names = {e.id: e.name for e in store.entities(sorted(entity_ids))} if entity_ids else {}
    out: list[RecallHit] = []
    for r in ranked:
        if r.type == "event":
            event = events.get(r.id)
            if event is None:
                continue
            out.append(RecallHit(
                id=r.id, type="event", kind=event.kind, score=r.score, parts=r.parts, time=event.occurred_at,
                content=event.content, entities=tuple(names[e] for e in mentions.get(r.id, []) if e in names),
                scope=event.scope, source=event.source, refs=(event.source.ref,) if event.source.ref else (),
                event_ids=(event.id,), thread=event.thread,
            ))
        else:
            state = states.get(r.id)
            if state is None:
                continue
            backing = [events[e] for e, _, _ in links.get(r.id, []) if e in events]
            out.append(RecallHit(
                id=r.id, type="state", kind=state.kind, score=r.score, parts=r.parts, time=state.valid_from,
                content=state.text, entities=tuple(n for n in (state.subject, state.object) if n),
                scope=state.scope, source=None, refs=evidence_refs(backing),
                event_ids=tuple(e.id for e in backing), state=state,
            ))
    return out
