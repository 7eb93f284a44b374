"""Applying state updates: assert (with confirm), confirm, close, retract, mark_done.

Each function takes the current states of one (subject, predicate) and returns a :class:`Plan`: the new
states, the new versions of states whose validity changed (supersede, split, reopen), the revisions with
their reasons, all at one transaction time. The facade writes a plan in one transaction. The timeline rule
itself is :func:`graphmem.reasoning.timeline.resolve_timeline`.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

from graphmem.errors import InvalidInput
from graphmem.ontology import (
    Interval,
    Predicate,
    Revision,
    RevisionAction,
    State,
    StateStatus,
    TimePoint,
)
from graphmem.reasoning.timeline import Assertion, Resolved, bounded, in_order, order_key, resolve_timeline
from graphmem.temporal import holds_at

_EARLIEST = dt.datetime.min.replace(tzinfo=dt.UTC)
_LATEST = dt.datetime.max.replace(tzinfo=dt.UTC)

__all__ = ["Plan", "held_assertions", "in_timeline_order", "make_id", "plan_assert",
           "plan_close", "plan_confirm", "plan_merge", "plan_retract", "plan_revise"]


def make_id(prefix: str, *parts: object) -> str:
    """A stable id from its parts: the same inputs give the same id."""
    digest = hashlib.sha256("\x1f".join("" if p is None else str(p) for p in parts).encode()).hexdigest()
    return f"{prefix}_{digest[:24]}"


@dataclass
class Plan:
    """What one update changes."""

    new_states: list[State] = field(default_factory=list)
    versions: list[State] = field(default_factory=list)
    retractions: list[State] = field(default_factory=list)
    confirmations: list[tuple[str, dt.datetime]] = field(default_factory=list)
    revisions: list[Revision] = field(default_factory=list)
    supersedes: list[tuple[str, str, dt.datetime]] = field(default_factory=list)
    evidence_targets: list[tuple[str, Sequence[str]]] = field(default_factory=list)  # (state id, event ids)
    contradicting: list[tuple[str, Sequence[str]]] = field(default_factory=list)  # evidence against a state
    results: list[State] = field(default_factory=list)  # the state each request ended on, in request order
    # evidence events come to mention the states' subjects and objects (not for an opinion's evidence: it is
    # about what the opinion is about, not about its holder)
    mention: bool = True

    def revise(
        self, state: State, action: RevisionAction, reason: str, at: dt.datetime, evidence: Sequence[str]
    ) -> None:
        """Record one change of ``state`` (ids stay unique within the plan by their position)."""
        self.revisions.append(
            Revision(
                id=make_id("rv", state.id, at.isoformat(), action.value, len(self.revisions)),
                state_id=state.id, at=at, action=action, reason=reason, valid=state.valid, status=state.status,
                confidence=state.confidence, evidence_ids=tuple(dict.fromkeys(evidence)),
            )
        )

    def confirm(self, state: State, evidence: Sequence[str], reason: str, at: dt.datetime) -> None:
        """``state`` seen to hold again: stamped ``last_confirmed_at``, with its evidence and a revision."""
        self.confirmations.append((state.id, at))
        self.evidence_targets.append((state.id, evidence))
        self.revise(state, RevisionAction.CONFIRM, reason, at, evidence)


def _assertion(s: State, seq: int = 0, *, end_status: StateStatus | None = None) -> Assertion:
    """What the timeline needs of ``s``; a candidate stays a candidate and a revoked state stays revoked."""
    open_status = StateStatus.CANDIDATE if s.status is StateStatus.CANDIDATE else StateStatus.ACTIVE
    if end_status is None:
        end_status = StateStatus.REVOKED if s.status is StateStatus.REVOKED else StateStatus.CLOSED
    return Assertion(s.id, s.valid.start, s.stated_end, s.created_at, done=s.status is StateStatus.DONE, seq=seq,
                     open_status=open_status, end_status=end_status)


def held_assertions(states: Sequence[State]) -> list[Assertion]:
    """What the timeline needs of stored states of one timeline, each in the place it holds there (see
    :func:`_held_order`)."""
    order = _held_order(states)
    return [_assertion(s, order.get(s.id, 0)) for s in states]


def _held_order(states: Sequence[State]) -> dict[str, int]:
    """The place of each stored state among those of its timeline with its start and transaction time
    (written together; the others are left out). The order in which they were resolved is not stored, and
    it decides which one wins. It shows in how they ended: each was bounded by the next one's start, so the
    one that ends first came first, and of two that end at one time the superseded one came first; then
    their ids, which follow the order of the write that made them (see ``memory._StateIds``). By id alone,
    two values of one month written together could swap in a later write, which then ended the first one
    again and left both open."""
    together: dict[tuple[dt.datetime | None, dt.datetime], list[State]] = {}
    for s in states:
        together.setdefault((s.valid.start.at if s.valid.start else None, s.created_at), []).append(s)
    places: dict[str, int] = {}
    for tied in together.values():
        if len(tied) > 1:
            tied.sort(key=lambda s: (s.valid.end.at if s.valid.end else _LATEST,
                                     s.status is not StateStatus.SUPERSEDED, s.id))
            places.update((s.id, at) for at, s in enumerate(tied, start=1))
    return places


def in_timeline_order(states: Iterable[State]) -> list[State]:
    """``states`` as their timelines order them: by subject and predicate, then by start (an open start
    first), then in the order they were stated (the transaction time that made each; of states one write made
    with one start, as that write resolved them, see :func:`_held_order`), the one that won last. Not by the
    time of each one's latest version: a value superseded later would follow the value stated after it."""
    timelines: dict[tuple[str, str], list[State]] = {}
    for s in states:
        timelines.setdefault((s.subject_id, s.predicate), []).append(s)
    out: list[State] = []
    for key in sorted(timelines):
        listed = timelines[key]
        held = _held_order(listed)
        out += sorted(listed, key=lambda s: order_key(s.valid.start, s.created_at, held.get(s.id, 0), s.id))
    return out


def _same_object(a: State, b: State) -> bool:
    if a.object_id or b.object_id:
        return a.object_id == b.object_id
    return a.object.casefold() == b.object.casefold()


def _same_claim(existing: State, new: State, *, witnessed: bool = False) -> bool:
    """``new`` says what ``existing`` says (its value, and its end if it states one: not a ``witnessed``
    one's, the end of a period it was seen in), and ``existing`` stands."""
    if not _same_object(existing, new) or existing.status in (StateStatus.RETRACTED, StateStatus.REVOKED):
        return False
    return witnessed or new.stated_end is None or new.stated_end == existing.stated_end


def _holds_from(existing: State, end: TimePoint | None, new: State) -> bool:
    """``existing``, ending at ``end``, holds where ``new`` starts: a new assertion that restates what already
    holds is a confirmation, not a second state."""
    if new.valid.start is None or existing.valid.start is None:
        return new.valid.start == existing.valid.start
    return holds_at(existing.valid.start, end, new.valid.start)


class _Timeline:
    """One (subject, predicate) timeline while a write adds to it: which state a request restates, as the
    timeline stands with the states the write added before it. A state the write already ended holds no more:
    of "Oslo from March", "Rome from March", "Oslo from March" in one write the third is a new state that ends
    Rome, as it would be written after the two, not a confirmation of the first."""

    def __init__(self, live: Sequence[State], *, single_valued: bool) -> None:
        self.single_valued = single_valued
        self.stored = {s.id for s in live}
        self.keys: list[tuple[dt.datetime, dt.datetime, int, str]] | None = None  # made once a state is added
        self.states: list[State] = []
        self._live = live
        self._held: dict[str, int] | None = None  # (made once a state's place is asked for: a restatement never)

    @property
    def held(self) -> dict[str, int]:
        if self._held is None:
            self._held = _held_order(self._live)
        return self._held

    def key(self, s: State, seqs: dict[str, int]) -> tuple[dt.datetime, dt.datetime, int, str]:
        """Where ``s`` sits in the timeline (``seqs``: the places of the write's new states in it)."""
        return order_key(s.valid.start, s.created_at, seqs.get(s.id) or self.held.get(s.id, 0), s.id)

    def add(self, state: State, seq: int) -> None:
        if not self.single_valued:
            return
        if self.keys is None:
            ordered = sorted(self._live, key=lambda s: self.key(s, {}))
            self.keys, self.states = [self.key(s, {}) for s in ordered], ordered
        key = self.key(state, {state.id: seq})
        at = bisect.bisect_right(self.keys, key)
        self.keys.insert(at, key)
        self.states.insert(at, state)

    def end_of(self, s: State, seqs: dict[str, int]) -> TimePoint | None:
        """Where ``s`` ends as the timeline stands: its stored end until the write added a state (always, on
        a multi-valued predicate: its states never bound one another)."""
        if self.keys is None:
            return s.valid.end if s.id in self.stored else s.stated_end
        at = bisect.bisect_right(self.keys, self.key(s, seqs))
        successor = self.states[at] if at < len(self.states) else None
        return bounded(_assertion(s), None if successor is None else _assertion(successor)).valid_to

    def restated(self, new: State, states: Sequence[State], seqs: dict[str, int], *,
                 witnessed: bool = False) -> State | None:
        """The state ``new`` restates: one with its value that holds at its start (if several, as a timeline
        orders them: the earliest start, first recorded, first to end); ``witnessed``: see plan_assert."""
        found: State | None = None
        best: tuple[dt.datetime, dt.datetime, dt.datetime, str] | None = None
        for s in states:
            if not _same_claim(s, new, witnessed=witnessed):
                continue
            end = self.end_of(s, seqs)
            if not _holds_from(s, end, new):
                continue
            key = (s.valid.start.at if s.valid.start else _EARLIEST, s.created_at,
                   end.at if end else _LATEST, s.id)
            if best is None or key < best:
                found, best = s, key
        return found


def plan_assert(
    current: Sequence[State],
    requests: Sequence[tuple[State, Sequence[str], str]],
    predicate: Predicate,
    now: dt.datetime,
    *,
    witnessed: Collection[str] = (),
) -> Plan:
    """Add states to one (subject, predicate) timeline; ``requests`` are (new state, evidence ids, reason).

    A request that restates a state that already holds at its start confirms that state instead; so does one
    of the ids ``witnessed`` (its interval a period its value was seen to hold in: "worked at Acme in 2019")
    whatever end either states: it does not end what holds on.
    """
    plan = Plan()
    live = [s for s in current if s.status is not StateStatus.RETRACTED]
    added: list[State] = []
    seqs: dict[str, int] = {}
    timeline = _Timeline(live, single_valued=predicate.single_valued)
    for seq, (new, evidence, reason) in enumerate(requests, start=1):
        match = timeline.restated(new, (*live, *added), seqs, witnessed=new.id in witnessed)
        if match is not None:
            plan.confirm(match, evidence, reason, now)
            plan.results.append(match)
            continue
        stamped = new.created_at == now and new.recorded_at == now  # (as the memory makes them: no copy)
        added.append(new if stamped else new.model_copy(update={"created_at": now, "recorded_at": now}))
        plan.evidence_targets.append((new.id, evidence))
        plan.results.append(new)
        seqs[new.id] = seq
        timeline.add(added[-1], seq)
    resolved, changed = _with_added(live, added, seqs, timeline, single_valued=predicate.single_valued)
    final_new = [_resolved(s, resolved[s.id], now) for s in added]
    for s in final_new:
        plan.new_states.append(s)
        reason = next(r for n, _, r in requests if n.id == s.id)
        evidence = next(e for n, e, _ in requests if n.id == s.id)
        plan.revise(s, RevisionAction.ASSERT, reason, now, evidence)
    plan.results = [next((n for n in final_new if n.id == r.id), r) for r in plan.results]
    _diff(changed, resolved, now, plan, successors=final_new)
    return plan


def plan_confirm(state: State, now: dt.datetime, reason: str, evidence: Sequence[str]) -> Plan:
    """Confirm ``state`` itself, whatever its interval: ended or not, it was seen to be so. A state memory no
    longer believes (retracted, or a revoked preference) is refused: confirming it would have to state it anew.
    """
    if state.status in (StateStatus.RETRACTED, StateStatus.REVOKED):
        raise InvalidInput(
            f"state {state.id!r} is {state.status.value}: memory no longer holds it, so it cannot be confirmed; "
            "assert it again (assert_state) to state it anew",
            field="state_id",
        )
    plan = Plan()
    plan.confirm(state, evidence, reason, now)
    plan.results.append(state.model_copy(update={"last_confirmed_at": now}))
    return plan


def _with_added(
    live: Sequence[State], added: Sequence[State], seqs: dict[str, int], timeline: _Timeline, *,
    single_valued: bool,
) -> tuple[dict[str, Resolved], list[State]]:
    """The resolution of each added state and of each live one whose end it can change, with those live ones.

    The live states were resolved as one timeline when it was last written, so adding states changes the end
    of no live state but one an added state now comes right after (on a multi-valued predicate, of none: its
    states never interact). So the states are put in order by their keys alone and only those few become
    the timeline's assertions. Resolving every state again took ~20 ms of a ~36 ms record about a subject
    with ~1,150 states over two predicates.
    """
    if not single_valued:
        return resolve_timeline([_assertion(s, seqs[s.id]) for s in added], single_valued=False), []
    if not added:  # (only restatements: nothing moves)
        return {}, []
    # (the timeline put each added state in its place as it came)
    ordered = timeline.states if timeline.keys is not None else sorted([*live, *added],
                                                                       key=lambda s: timeline.key(s, seqs))
    resolved: dict[str, Resolved] = {}
    changed: list[State] = []
    for i, s in enumerate(ordered):
        successor = ordered[i + 1] if i + 1 < len(ordered) else None
        if s.id in seqs or (successor is not None and successor.id in seqs):
            resolved[s.id] = bounded(_assertion(s, seqs.get(s.id, 0)),
                                     None if successor is None else _assertion(successor, seqs.get(successor.id, 0)))
            if s.id not in seqs:
                changed.append(s)
    return resolved, changed


def plan_close(
    current: Sequence[State],
    state_id: str,
    end: TimePoint,
    predicate: Predicate,
    now: dt.datetime,
    reason: str,
    evidence: Sequence[str],
    *,
    done: bool = False,
    revoke: bool = False,
) -> Plan:
    """End a state at ``end`` (``done`` marks a task done then; ``revoke`` withdraws a preference then).

    Of the timeline, ``current`` need hold only the state and, on a single-valued predicate, those that start
    with it and the first ones after (see temporal.bearing_on): a state's end depends on nothing but its own
    and the start of the one that follows it, so ending it changes no other state."""
    plan = Plan()
    live = [s for s in current if s.status is not StateStatus.RETRACTED]
    target = next((s for s in live if s.id == state_id), None)
    if target is None:
        raise InvalidInput(f"state {state_id!r} is retracted or not in this timeline", field="state_id")
    if target.valid.start is not None and end.at < target.valid.start.at:
        raise InvalidInput(
            f"valid_to {end.at.isoformat()} is before the state's valid_from {target.valid.start.at.isoformat()}; "
            "a state cannot end before it starts",
            field="valid_to",
        )
    ending = StateStatus.REVOKED if revoke else StateStatus.CLOSED
    assertions = in_order(held_assertions(live)) if predicate.single_valued else [_assertion(target)]
    at = next(i for i, a in enumerate(assertions) if a.state_id == state_id)
    ended = replace(assertions[at], end_status=ending, stated_end=end, done=done)
    successor = assertions[at + 1] if predicate.single_valued and at + 1 < len(assertions) else None
    action = RevisionAction.MARK_DONE if done else RevisionAction.REVOKE if revoke else RevisionAction.CLOSE
    _diff([target], {state_id: bounded(ended, successor)}, now, plan,
          forced={state_id: (action, reason, evidence, end)})
    plan.evidence_targets.append((state_id, evidence))
    plan.results = [next((v for v in plan.versions if v.id == state_id), target)]
    return plan


def plan_revise(
    state: State,
    now: dt.datetime,
    action: RevisionAction,
    reason: str,
    evidence: Sequence[str],
    *,
    confidence: float | None = None,
    status: StateStatus | None = None,
    payload: dict[str, object] | None = None,
    contradicts: bool = False,
) -> Plan:
    """A new version of ``state`` with a changed confidence, status or payload; its validity stays.

    The previous version stays readable under ``known_at``, so "how sure were we then" has an answer.
    """
    plan = Plan()
    changes: dict[str, object] = {"recorded_at": now}
    if confidence is not None:
        changes["confidence"] = confidence
    if status is not None:
        changes["status"] = status
    if payload is not None:
        changes["payload"] = payload
    if action is RevisionAction.CONFIRM:
        changes["last_confirmed_at"] = now
        plan.confirmations.append((state.id, now))
    version = state.model_copy(update=changes)
    plan.versions.append(version)
    plan.revise(version, action, reason, now, evidence)
    (plan.contradicting if contradicts else plan.evidence_targets).append((state.id, evidence))
    plan.results = [version]
    return plan


def plan_retract(
    current: Sequence[State], state_id: str, predicate: Predicate, now: dt.datetime, reason: str,
    evidence: Sequence[str],
) -> Plan:
    """Withdraw a state in transaction time; what it had closed reopens. Its history stays readable.

    Of the timeline, ``current`` need hold only the state and, on a single-valued predicate, the one before
    it and the one after (see plan_close): the one before is the only other state whose end it set."""
    plan = Plan()
    live = [s for s in current if s.status is not StateStatus.RETRACTED]
    target = next((s for s in live if s.id == state_id), None)
    if target is None:
        raise InvalidInput(f"state {state_id!r} is already retracted or not in this timeline", field="state_id")
    retracted = target.model_copy(
        update={"status": StateStatus.RETRACTED, "retracted_at": now, "recorded_at": now}
    )
    plan.retractions.append(retracted)
    plan.revise(retracted, RevisionAction.RETRACT, reason, now, evidence)
    plan.evidence_targets.append((state_id, evidence))
    if predicate.single_valued:
        ordered = in_order(held_assertions(live))
        at = next(i for i, a in enumerate(ordered) if a.state_id == state_id)
        if at:
            before = ordered[at - 1]
            after = ordered[at + 1] if at + 1 < len(ordered) else None
            reopened = next(s for s in live if s.id == before.state_id)
            _diff([reopened], {before.state_id: bounded(before, after)}, now, plan)
    plan.results = [retracted]
    return plan


def plan_merge(
    moved: Sequence[State],
    kept: Sequence[State],
    predicate: Predicate | None,
    now: dt.datetime,
    reason: str,
) -> Plan:
    """Two entities found to be one: ``moved`` are the merged entity's states of one predicate (already
    pointing at the kept entity), ``kept`` the kept entity's states of that predicate (``predicate`` None when
    only the object moved: the subject's timeline is unchanged). Each moved state gets a revision saying so;
    on a single-valued predicate the two timelines become one, each value bounded by the next one's start.
    """
    plan = Plan()
    now_moved = [s.model_copy(update={"recorded_at": now}) for s in moved]
    for s in now_moved:
        plan.revise(s, RevisionAction.MERGE, reason, now, ())
    if predicate is None:
        plan.results = now_moved
        return plan
    live = [s for s in (*kept, *now_moved) if s.status is not StateStatus.RETRACTED]
    resolved = resolve_timeline(held_assertions(live), single_valued=predicate.single_valued)
    _diff(live, resolved, now, plan, successors=live)
    bounded = {v.id: v for v in plan.versions}
    plan.results = [bounded.get(s.id, s) for s in now_moved]
    return plan


def _resolved(s: State, r: Resolved, now: dt.datetime) -> State:
    """``s`` as its timeline resolved it (``s`` itself when that changes nothing: a bulk write's states are
    ~1 KB each, and three of each at once were most of the memory it peaked at)."""
    if s.valid.end == r.valid_to and s.status is r.status and s.recorded_at == now:
        return s
    return s.model_copy(
        update={"valid": Interval.model_construct(start=s.valid.start, end=r.valid_to), "status": r.status,
                "recorded_at": now}
    )


def _diff(
    live: Sequence[State],
    resolved: dict[str, Resolved],
    now: dt.datetime,
    plan: Plan,
    *,
    successors: Sequence[State] = (),
    forced: dict[str, tuple[RevisionAction, str, Sequence[str], TimePoint]] | None = None,
) -> None:
    """New versions for the existing states whose end or status changed."""
    forced = forced or {}
    for s in live:
        r = resolved[s.id]
        stated_end = forced[s.id][3] if s.id in forced else s.stated_end
        if r.valid_to == s.valid.end and r.status is s.status and stated_end == s.stated_end:
            continue
        version = _resolved(s, r, now).model_copy(update={"stated_end": stated_end})
        plan.versions.append(version)
        if s.id in forced:
            action, reason, evidence, _ = forced[s.id]
        elif r.status is StateStatus.SUPERSEDED:
            action, reason, evidence = RevisionAction.SUPERSEDE, "a newer value starts here", ()
            cause = next((n.id for n in successors if n.valid.start == r.valid_to), None)
            if cause is not None:
                plan.supersedes.append((cause, s.id, now))
        else:
            action, reason, evidence = RevisionAction.REOPEN, "the state that bounded it is gone", ()
        plan.revise(version, action, reason, now, evidence)
