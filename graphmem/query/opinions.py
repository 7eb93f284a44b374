"""Opinions as readers see them: the statement, who holds it, what it is about, its confidence and why.

The confidence history is read from the opinion's revisions: each step names the evidence event, its stance,
when the evidence happened and the confidence before and after. ``confidence_at(t)`` answers "how sure were
we on 1 Dec": the confidence after the last step whose evidence had happened by then (steps are taken in the
order evidence arrived).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.ontology import Evidence, EvidenceStance, RevisionAction, State
from graphmem.store import GraphStore, in_view

__all__ = ["ConfidenceChange", "Opinion", "build_opinions"]


@dataclass(frozen=True)
class ConfidenceChange:
    """One step of an opinion's confidence."""

    recorded_at: dt.datetime  # when memory made the change
    happened_at: dt.datetime  # when its evidence happened (the formation time for the first step)
    before: float | None  # None for the opinion's formation
    after: float
    action: str  # assert (formed), reweigh, confirm, close, retract
    reason: str
    event_id: str | None = None
    stance: EvidenceStance | None = None


@dataclass(frozen=True)
class Opinion:
    """An opinion with what it is about and the history of how sure memory was of it."""

    state: State
    about: tuple[str, ...]  # entity names
    about_ids: tuple[str, ...]
    history: tuple[ConfidenceChange, ...]

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def statement(self) -> str:
        return self.state.object

    @property
    def holder(self) -> str:
        return self.state.holder or self.state.subject

    @property
    def confidence(self) -> float:
        return self.state.confidence

    @property
    def supporting(self) -> tuple[Evidence, ...]:
        return tuple(e for e in self.state.evidence if e.stance is EvidenceStance.SUPPORTS)

    @property
    def contradicting(self) -> tuple[Evidence, ...]:
        return tuple(e for e in self.state.evidence if e.stance is EvidenceStance.CONTRADICTS)

    def confidence_at(self, when: dt.datetime) -> float | None:
        """The confidence once the evidence that had happened by ``when`` was weighed; None before it formed."""
        value: float | None = None
        for change in self.history:
            if change.happened_at <= when:
                value = change.after
        return value


def build_opinions(store: GraphStore, states: Sequence[State], *, scopes: Sequence[str] | None = None,
                   include_private: bool = True) -> list[Opinion]:
    """Opinions for opinion ``states`` (evidence already attached), with about-entities and history: a
    bounded number of store reads however many opinions there are. A step's event is named only when it is
    in the read's view (``scopes``, ``include_private``); the step and its confidence are there either way."""
    if not states:
        return []
    ids = [s.id for s in states]
    about = store.about(ids)
    names = {e.id: e.name for e in store.entities(list({e for found in about.values() for e in found}))}
    links = store.evidence_links(ids)
    event_ids = list({e for found in links.values() for e, _, _ in found})
    events = store.events(event_ids)
    happened = {e.id: e.occurred_at.at for e in events}
    hidden = {e.id for e in events if not in_view(e, scopes, include_private)}
    revisions = store.revisions_of(ids)
    out = []
    for state in states:
        stances = {e: stance for e, stance, _ in links.get(state.id, ())}
        history: list[ConfidenceChange] = []
        for revision in revisions[state.id]:
            if revision.action not in (RevisionAction.ASSERT, RevisionAction.REWEIGH) and history and \
                    revision.confidence == history[-1].after:
                continue  # a change of validity or status, not of confidence
            cited = revision.evidence_ids[0] if revision.evidence_ids else None
            event = None if cited in hidden else cited
            formed = state.valid.start.at if state.valid.start else revision.at
            history.append(ConfidenceChange(
                recorded_at=revision.at,
                happened_at=happened.get(cited, formed) if cited and history else formed,  # hidden or not
                before=history[-1].after if history else None, after=revision.confidence,
                action=revision.action.value, reason=revision.reason, event_id=event,
                stance=stances.get(event) if event else None,
            ))
        entity_ids = tuple(about.get(state.id, ()))
        out.append(Opinion(state=state, about=tuple(names.get(e, e) for e in entity_ids), about_ids=entity_ids,
                           history=tuple(history)))
    return out
