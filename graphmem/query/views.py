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
        if object is None:  # (at a point, a subject's own value of one at a time is its value then)
            own_first = self.mutual_one if self.period is None else frozenset()
            found = with_the_other_side(self.store, query, found, self.mutual,
                                        lambda s: self._keeps(s, point), own_first=own_first)
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
                        own_first: frozenset[str] = frozenset()) -> list[State]:
    """``found`` (what ``query`` read of its subject), and the states of a mutual predicate said with that
    subject as their object, told from its side (:func:`from_the_other_side`); one said both ways, once; of
    a predicate of ``own_first``, none beside a state of the subject's own in ``found`` on a timeline of that
    kind (scope and visibility): "Tom is dating Lisa" is whom Tom dates, not Lisa and the Anna who said in
    January she dates Tom. Not of a past transaction time: which entity a state names as its object is kept
    as it is now (a merge moves it), not as it was then."""
    if not query.subject_id or not (mutual if query.predicate is None else query.predicate in mutual) or \
            query.known_at is not None or query.subject_id not in store.objects_of(mutual):
        return found  # (most are no one's spouse: no read then)
    said = {(s.predicate, s.object_id) for s in found}
    held = {(s.predicate, s.scope, s.visibility) for s in found if s.predicate in own_first}
    told = store.states(replace(query, subject_id=None, object_id=query.subject_id))
    return found + [from_the_other_side(s) for s in told
                    if s.predicate in mutual and (s.predicate, s.subject_id) not in said and keep(s)
                    and (s.predicate, s.scope, s.visibility) not in held]


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
