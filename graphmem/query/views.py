"""Time views over states: ``as_of``, ``during`` and ``known_at``, combinable.

The store pre-filters by loose instant bounds; the exact granularity-aware predicates of
:mod:`graphmem.temporal` decide. Evidence (with each event's source) is attached in one batched read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from graphmem.errors import InvalidInput
from graphmem.ontology import Granularity, State, TimePoint
from graphmem.store import GraphStore, StateQuery
from graphmem.temporal import holds_at, holds_during, holds_throughout, period_end, truncate

__all__ = ["TimeView", "attach_evidence"]

EntityResolver = Callable[[str, str], str]  # (name or id, field) -> entity id


@dataclass(frozen=True)
class TimeView:
    """A question about time, built up by chaining: ``mem.known_at(t1).as_of(t2).states(subject="Peter")``.

    With neither ``at`` nor ``period`` the view asks what is true now (by the memory's clock), or, under
    ``known_at(t)``, what memory believed at ``t`` was true at ``t``.
    """

    store: GraphStore
    resolve_entity: EntityResolver
    # (time, field) -> the point asked about: a period's last ("last summer": August); and the period's first
    # and last for during ("the past 3 months": three months back, and now)
    read_time: Callable[[object, str], TimePoint]
    read_period: Callable[[object, str], tuple[TimePoint, TimePoint | None]]
    clock: Callable[[], dt.datetime]
    tz: dt.tzinfo
    at: TimePoint | None = None
    period: TimePoint | None = None
    known: dt.datetime | None = None
    through: TimePoint | None = None  # the last period of a question that spans several ("June to August")
    # predicates that say the same of both sides (an inverse of their own: married_to): the states of a
    # subject hold those said with it as their object too ("Anna is Peter's wife" is Peter's married_to Anna)
    mutual: frozenset[str] = frozenset()
    mutual_one: frozenset[str] = frozenset()  # ... of those, the ones of one value at a time (partner_of)

    def as_of(self, when: object) -> TimeView:
        """What was true at ``when`` (the end of it, for a coarse period; "last week" relative to now)."""
        return replace(self, at=self.read_time(when, "as_of"), period=None, through=None)

    def during(self, period: object, through: object = None) -> TimeView:
        """What held at any point of ``period`` (or of ``period`` through ``through``: "2025-06" through
        "2025-08"; a range, "2019-2021", or a time up to now, "the past 3 months", alike); each state says
        whether it held throughout."""
        first, last = self.read_period(period, "during")
        if through is not None:
            last = self.read_time(through, "through")
        if last is not None and period_end(last, self.tz) <= first.at:
            raise InvalidInput(f"through {last.label(self.tz)} ends before during {first.label(self.tz)} "
                               "begins; give a later through", field="through")
        return replace(self, period=first, through=last, at=None)

    def known_at(self, when: object) -> TimeView:
        """Restrict to what memory held at transaction time ``when``."""
        point = self.read_time(when, "known_at")
        # a coarse transaction time means the end of that period
        instant = point.at if point.granularity is Granularity.INSTANT else period_end(point, self.tz)
        if point.granularity is not Granularity.INSTANT:
            instant -= dt.timedelta(microseconds=1)
        return replace(self, known=instant)

    def states(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        *,
        object: str | None = None,
        include_private: bool = False,
        scopes: Sequence[str] | None = None,
        evidence: bool = True,
    ) -> list[State]:
        """The states this view sees, ordered by subject, predicate and start."""
        point = self.period or self.at or TimePoint(at=self.known or self.clock())
        starts_before = period_end(self.through or point, self.tz)
        ends_after = truncate(point.at, Granularity.YEAR, self.tz)
        query = StateQuery(
            subject_id=self.resolve_entity(subject, "subject") if subject else None,
            predicate=predicate,
            object_id=self.resolve_entity(object, "object") if object else None,
            known_at=self.known,
            starts_before=starts_before,
            ends_after=ends_after,
            include_private=include_private,
            scopes=scopes,
        )
        found = [s for s in self.store.states(query) if self._keeps(s, point)]
        if object is None:  # (at a point, a tie of one at a time holds while the last begun of both's)
            one_at_a_time = self.mutual_one if self.period is None else frozenset()
            found = with_the_other_side(self.store, query, found, self.mutual,
                                        lambda s: self._keeps(s, point), one_at_a_time=one_at_a_time)
        if self.period is not None:
            found = [
                s.model_copy(update={"throughout": holds_throughout(
                    s.valid.start, s.valid.end, point, self.tz, self.through)})
                for s in found
            ]
        found.sort(key=lambda s: (s.subject, s.predicate, s.valid.start.at if s.valid.start else _MIN, s.id))
        if not evidence:
            return found
        return attach_evidence(self.store, found, scopes=scopes, include_private=include_private)

    def _keeps(self, s: State, point: TimePoint) -> bool:
        if self.period is not None:
            return holds_during(s.valid.start, s.valid.end, point, self.tz, self.through)
        return holds_at(s.valid.start, s.valid.end, point, self.tz)


_MIN = dt.datetime.min.replace(tzinfo=dt.UTC)


def with_the_other_side(store: GraphStore, query: StateQuery, found: list[State], mutual: frozenset[str],
                        keep: Callable[[State], bool] = lambda s: True, *,
                        one_at_a_time: frozenset[str] = frozenset()) -> list[State]:
    """``found`` (what ``query`` read of its subject), and the states of a mutual predicate said with that
    subject as their object, told from its side (:func:`from_the_other_side`); one said both ways, once. Of a
    predicate of ``one_at_a_time`` (asked at a point), a tie holds only while it is the last begun of those
    either of the two then has, on a timeline of that kind (scope and visibility): after "Anna is dating
    Tom" (January) and "Tom is dating Lisa" (June), as of August Tom dates Lisa, and Anna no one. Not of a
    past transaction time: which entity a state names as its object is kept as it is now (a merge moves it),
    not as it was then."""
    subject = query.subject_id
    if not subject or not (mutual if query.predicate is None else query.predicate in mutual) or \
            query.known_at is not None:
        return found
    told_too = subject in store.objects_of(mutual)
    if not told_too and not any(s.predicate in one_at_a_time and s.object_id for s in found):
        return found  # (most are no one's spouse: no read then)
    said = {(s.predicate, s.object_id) for s in found}
    told = [from_the_other_side(s) for s in
            (store.states(replace(query, subject_id=None, object_id=subject)) if told_too else [])
            if s.predicate in mutual and keep(s)]
    out = found + [s for s in told if (s.predicate, s.object_id) not in said]
    return _last_begun_ties(store, query, out, found + told, keep, one_at_a_time) if one_at_a_time else out


def _last_begun_ties(store: GraphStore, query: StateQuery, found: list[State], every: list[State],
                     keep: Callable[[State], bool], one_at_a_time: frozenset[str]) -> list[State]:
    """``found`` (a subject's states, told ones too, at a point) without the ties of ``one_at_a_time`` that
    are not the last begun of their subject's then (``every`` one, a tie said from both sides twice), or of
    their object's (read here), of their kind. A tie said from both sides is one: it began when the later
    said of the two did."""
    ties = [s for s in found if s.predicate in one_at_a_time and s.object_id]
    if not ties:
        return found
    kept = {s.id for s in ties if s.object_id in _last_partners(every, s)}
    for s in [s for s in ties if s.id in kept]:
        assert s.object_id is not None
        theirs = replace(query, subject_id=s.object_id, object_id=None, predicate=s.predicate)
        own = [t for t in store.states(theirs) if keep(t)]
        told = [from_the_other_side(t) for t in store.states(replace(theirs, subject_id=None,
                                                                       object_id=s.object_id)) if keep(t)]
        if s.subject_id not in _last_partners(own + told, s):
            kept.discard(s.id)
    return [s for s in found if s.predicate not in one_at_a_time or not s.object_id or s.id in kept]


def _last_partners(ties: list[State], like: State) -> set[str | None]:
    """Whom the last begun of ``ties`` of ``like``'s kind (predicate, scope, visibility) tie their subject
    to: all those that began last, when several did."""
    began: dict[str | None, dt.datetime] = {}
    for t in ties:
        if _kind(t) == _kind(like):
            began[t.object_id] = max(began.get(t.object_id, _MIN), _began(t))
    last = max(began.values(), default=_MIN)
    return {partner for partner, at in began.items() if at == last}


def _kind(s: State) -> tuple[str, str, object]:
    return s.predicate, s.scope, s.visibility


def _began(s: State) -> dt.datetime:
    return s.valid.start.at if s.valid.start else _MIN


def from_the_other_side(s: State) -> State:
    """A state of a mutual predicate (married_to) told of its object: "Anna married_to Peter" as Peter's
    married_to Anna, the same state (its id, time and evidence); what each is to the other changes sides."""
    payload = {k: v for k, v in s.payload.items() if k not in ("title", "object_title")}
    payload |= {"object_title": s.payload["title"]} if "title" in s.payload else {}
    payload |= {"title": s.payload["object_title"]} if "object_title" in s.payload else {}
    assert s.object_id is not None
    return s.model_copy(update={"subject_id": s.object_id, "subject": s.object, "object_id": s.subject_id,
                                "object": s.subject, "payload": payload})


def attach_evidence(store: GraphStore, states: list[State], *, scopes: Sequence[str] | None = None,
                    include_private: bool = True) -> list[State]:
    """The same states with their evidence events (content, time, source) filled in: those of the read's view
    (``scopes``, ``include_private``; see ``GraphStore.evidence``)."""
    if not states:
        return states
    by_state = store.evidence([s.id for s in states], scopes=scopes, include_private=include_private)
    return [s.model_copy(update={"evidence": tuple(by_state.get(s.id, ()))}) for s in states]
