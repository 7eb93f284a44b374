"""Property: after any sequence of assert / close / retract / backfill, alone or several asserts in one write,
the as-of, during and known-at answers of the real database equal a brute-force reference computed from the
same operations (a write of several is as its asserts one after another at one transaction time).

The reference replays the operations with a deliberately naive O(n^2) model: a single-valued state ends at
the earliest later start of any other live assertion (or its stated end), a tie at the same start goes to
the one recorded later, and known_at(t) is a replay of only the operations recorded up to t.
"""

import datetime as dt
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import Granularity, Memory, StateInput, TimePoint
from graphmem.temporal import holds_at, holds_during, holds_throughout

from .conftest import FakeClock, knows

BASE = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
SUBJECTS = ["ann", "bob"]
PREDICATES = {"lives_in": True, "likes": False}  # name -> single-valued
OBJECTS = ["oslo", "rome", "lima"]


NEVER_DAY = (dt.datetime(1, 1, 1, tzinfo=dt.UTC) - BASE).days  # an end before any time: holds nowhere


def day(n):
    return TimePoint(at=BASE + dt.timedelta(days=n), granularity=Granularity.DAY)


@dataclass
class RefAssertion:
    ref: int
    subject: str
    predicate: str
    obj: str
    start: int | None
    end: int | None
    created: int
    retracted: bool = False
    seq: int = 0  # its place in a batch written at once (the later wins a tie at one start)


@dataclass
class Reference:
    items: list[RefAssertion] = field(default_factory=list)

    def live(self, subject, predicate):
        return [a for a in self.items if a.subject == subject and a.predicate == predicate and not a.retracted]

    def interval(self, a):
        """(start, end) of ``a`` in days; None = open."""
        if not PREDICATES[a.predicate]:
            return a.start, a.end
        key = -(10**9) if a.start is None else a.start
        others = [b for b in self.live(a.subject, a.predicate) if b is not a]
        if any(((-(10**9) if b.start is None else b.start) == key) and (b.created, b.seq) > (a.created, a.seq)
               for b in others):
            return a.start, (a.start if a.start is not None else NEVER_DAY)
        later = [b.start for b in others if b.start is not None and b.start > key]
        ends = [x for x in [a.end, min(later) if later else None] if x is not None]
        return a.start, (min(ends) if ends else None)

    def holds(self, a, point):
        start, end = self.interval(a)
        return holds_at(day(start) if start is not None else None, day(end) if end is not None else None, point)

    def apply(self, op, tick, seq=0):
        kind = op[0]
        if kind == "batch":  # one write: each as if asserted alone, in order, at one transaction time
            return [self.apply(one, tick, seq) for seq, one in enumerate(op[1])]
        if kind == "assert":
            _, subject, predicate, obj, start, end = op
            restated = [  # the value holds where this one starts: it is confirmed (if several: the earliest
                # start, first recorded, first to end)
                a for a in self.live(subject, predicate)
                if a.obj == obj and (end is None or a.end == end) and (a.start is None) == (start is None)
                and (start is None or self.holds(a, day(start)))]
            if restated:
                def order(a):
                    ends = self.interval(a)[1]
                    first = -(10**9) if a.start is None else a.start
                    return first, a.created, 10**9 if ends is None else ends
                return min(restated, key=order).ref
            ref = len(self.items)
            self.items.append(RefAssertion(ref, subject, predicate, obj, start, end, tick, seq=seq))
            return ref
        _, ref, value = op
        target = self.items[ref]
        if kind == "close":
            target.end = value
        else:
            target.retracted = True
        return ref

    def answer(self, subject, point=None, period=None):
        out = set()
        for a in self.items:
            if a.retracted or a.subject != subject:
                continue
            start, end = self.interval(a)
            vf = day(start) if start is not None else None
            vt = day(end) if end is not None else None
            if period is not None:
                if holds_during(vf, vt, period):
                    out.add((a.predicate, a.obj, start, end, holds_throughout(vf, vt, period)))
            elif holds_at(vf, vt, point):
                out.add((a.predicate, a.obj, start, end, None))
        return out


def days_of(point):
    return None if point is None else (point.at - BASE).days


def observed(states):
    return {(s.predicate, s.object, days_of(s.valid.start), days_of(s.valid.end), s.throughout) for s in states}


op_assert = st.tuples(
    st.just("assert"), st.sampled_from(SUBJECTS), st.sampled_from(list(PREDICATES)), st.sampled_from(OBJECTS),
    st.one_of(st.none(), st.integers(0, 40)), st.one_of(st.none(), st.integers(1, 20)),
)
op_change = st.tuples(st.sampled_from(["close", "retract"]), st.integers(0, 50), st.integers(1, 30))
# several asserts in one write (as agents' records share one): few starts, so that they tie and restate
op_batch = st.tuples(st.just("batch"), st.lists(st.tuples(
    st.just("assert"), st.sampled_from(SUBJECTS), st.sampled_from(list(PREDICATES)), st.sampled_from(OBJECTS),
    st.one_of(st.none(), st.sampled_from([3, 5, 9])), st.one_of(st.none(), st.integers(1, 20)),
), min_size=2, max_size=5))
queries = st.lists(
    st.one_of(
        st.integers(-5, 70).map(day),
        st.sampled_from(["2020-01", "2020-02", "2020", "2019"]),
    ),
    min_size=3, max_size=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(st.one_of(op_assert, op_assert, op_change, op_batch), min_size=1, max_size=14),
       points=queries)
def test_answers_equal_a_brute_force_reference(ops, points):
    clock = FakeClock()
    with Memory.in_memory(clock=clock) as mem:
        ref_to_id: dict[int, str] = {}
        history: list[tuple[dt.datetime, Reference]] = []
        reference = Reference()
        applied: list[tuple] = []
        for op in ops:
            op = _concrete(op, reference)
            if op is None:
                continue
            applied.append(op)
            state = _apply(mem, op, ref_to_id)
            tick = clock.last
            ref = reference.apply(op, tick)
            if op[0] == "assert":
                assert ref_to_id.setdefault(ref, state.id) == state.id, "confirm decisions differ"
            elif op[0] == "batch":
                for one, s in zip(ref, state, strict=True):
                    assert ref_to_id.setdefault(one, s.id) == s.id, "confirm decisions differ"
            history.append((tick, _replay(applied)))
        for raw in points:
            point = mem.parse_time(raw) if isinstance(raw, str) else raw
            for subject in SUBJECTS:
                if not knows(mem, subject):
                    continue
                assert observed(mem.as_of(point).states(subject)) == reference.answer(subject, point=point)
                assert observed(mem.during(point).states(subject)) == reference.answer(subject, period=point)
                for tick, past in history:
                    got = mem.known_at(tick).as_of(point).states(subject)
                    assert observed(got) == past.answer(subject, point=point)


def _concrete(op, reference):
    """Turn a drawn operation into a valid one against the current reference (or skip it)."""
    if op[0] == "batch":
        return ("batch", [_concrete(one, reference) for one in op[1]])
    if op[0] == "assert":
        _, subject, predicate, obj, start, length = op
        end = None if length is None or start is None or length > 15 else start + length
        return ("assert", subject, predicate, obj, start, end)
    live = [a for a in reference.items if not a.retracted]
    if not live:
        return None
    target = live[op[1] % len(live)]
    if op[0] == "close":
        return ("close", target.ref, (target.start or 0) + op[2])
    return ("retract", target.ref, None)


def _apply(mem, op, ref_to_id):
    if op[0] == "batch":
        return mem.assert_states([
            StateInput(subject=subject, predicate=predicate, object=obj,
                       valid_from=day(start) if start is not None else None,
                       valid_to=day(end) if end is not None else None)
            for _, subject, predicate, obj, start, end in op[1]])
    if op[0] == "assert":
        _, subject, predicate, obj, start, end = op
        return mem.assert_state(subject, predicate, obj, valid_from=day(start) if start is not None else None,
                                valid_to=day(end) if end is not None else None)
    state_id = ref_to_id[op[1]]
    if op[0] == "close":
        return mem.close_state(state_id, valid_to=day(op[2]))
    return mem.retract_state(state_id, reason="wrong")


def _replay(applied):
    ref = Reference()
    for tick, op in enumerate(applied):
        ref.apply(op, tick)
    return ref
