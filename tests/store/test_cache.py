"""The store's caches answer exactly what a fresh read of the database answers, whatever was written since."""

import threading
from collections.abc import Iterable

import pytest

from graphmem import Memory
from graphmem.store.cache import ByIdCache, KnownIds
from graphmem.store.port import StateQuery


def _cached_equals_fresh(mem: Memory) -> int:
    store = mem.store
    ids = list(store._states._items)
    assert ids, "nothing was cached"
    store._settle()  # the engine holds every acknowledged write: what it reads now is the truth
    fresh = store._read_states(ids)
    assert store.states_by_id(ids) == [fresh[i] for i in ids]
    entity_ids = list(store._entities._items)
    fresh_entities = store._read_entities(entity_ids)
    assert store.entities(entity_ids) == [fresh_entities[i] for i in entity_ids]
    subjects = list(store._subjects._items)
    assert subjects, "no subject's states were cached"
    fresh_subjects = store._read_subjects(subjects)

    def in_order(versions: Iterable) -> list:
        return sorted(((v.row, v.state) for v in versions), key=lambda v: (v[0]["s_id"], v[0]["h_recorded_at"]))

    for subject, cached in zip(subjects, store._subjects.get_many(subjects, pytest.fail), strict=True):
        assert in_order(cached.versions()) == in_order(fresh_subjects[subject].versions()), subject
        # and each predicate's and timeline's current versions, kept in order as writes changed them (and by
        # object), are those read, in the order read
        fresh = fresh_subjects[subject]
        for predicate in {v.row["h_predicate"] for v in fresh.versions()}:
            assert [v.row for v in cached.current(predicate)] == [v.row for v in fresh.current(predicate)]
        for timeline in _timelines(fresh):
            assert [v.row for v in cached.timeline(*timeline)] == [v.row for v in fresh.timeline(*timeline)]
            assert ({k: [v.row for v in vs] for k, vs in cached.by_object(*timeline).items()}
                    == {k: [v.row for v in vs] for k, vs in fresh.by_object(*timeline).items()}), timeline
    return len(ids)


def _timelines(rows) -> set[tuple[str, str, bool]]:
    return {(v.row["h_predicate"], v.row["s_scope"], bool(v.row["s_private"])) for v in rows.versions()}


def _read_every_subject(mem: Memory) -> None:
    """Cache every entity's state rows, so the writes that follow must keep them exact or drop them."""
    ids = [e.id for e in mem.store.entities_of_types(None)]
    mem.store.states(StateQuery(subject_ids=ids, all_versions=True))
    for cached in mem.store._subjects.get_many(ids, pytest.fail):  # (each timeline's current versions too)
        for predicate in {v.row["h_predicate"] for v in cached.versions()}:
            cached.current(predicate)
        for timeline in _timelines(cached):
            cached.by_object(*timeline)  # (and its timeline's, in order)


def test_cached_states_follow_every_kind_of_write():
    with Memory.in_memory(extract=False, embedder="none") as mem:
        ev = mem.record(content="Kuzu was fast today; Peter moved.", occurred_at="2025-02-01", entities=["Kuzu"])
        op = mem.hold_opinion("Kuzu is fast", holder="Sam", about=["Kuzu"], confidence=0.5, valid_from="2025-01-01")
        paris = mem.assert_state(subject="Peter", predicate="lives_in", object="Paris", valid_from="2024-01-01",
                                 evidence=[ev.id])
        job = mem.assert_state(subject="Peter", predicate="works_at", object="Acme", valid_from="2023")
        likes = mem.assert_state(subject="Peter", predicate="likes", object="tea", valid_from="2023")
        mem.store.states_by_id([op.id, paris.id, job.id, likes.id])  # all cached from here on
        _read_every_subject(mem)

        mem.weigh_opinion(op.id, ev.id)
        mem.weigh_opinion(op.id, ev.id, stance="contradicts", strong=True)
        assert mem.store.states_by_id([op.id])[0].confidence == mem.opinion(op.id).confidence
        _cached_equals_fresh(mem)

        _read_every_subject(mem)
        mem.assert_state(subject="Peter", predicate="lives_in", object="Lisbon", valid_from="2025-01-01")
        assert mem.store.states_by_id([paris.id])[0].valid_to is not None  # bounded by Lisbon
        mem.close_state(job.id, valid_to="2025-03", reason="left")
        mem.retract_state(likes.id, reason="misheard")
        _cached_equals_fresh(mem)

        _read_every_subject(mem)  # saying the same again confirms it: nothing but its last confirmation changes
        def lisbon_confirmed() -> object:
            return mem.as_of("2025-06").states(subject="Peter", predicate="lives_in")[0].last_confirmed_at

        before = lisbon_confirmed()
        mem.assert_state(subject="Peter", predicate="lives_in", object="Lisbon", valid_from="2025-01-01")
        assert lisbon_confirmed() not in (None, before)
        _cached_equals_fresh(mem)

        pref = mem.update_preference("upsert_candidate", "green tea", polarity="like", domain="food",
                                     evidence=[ev.id])
        mem.store.states_by_id([pref.id])
        _read_every_subject(mem)
        mem.update_preference("confirm", "green tea", polarity="like", domain="food", evidence=[ev.id])
        _cached_equals_fresh(mem)

        _read_every_subject(mem)
        mem.add_alias("Peter", "Pete")
        mem.store.states_by_id([op.id, paris.id, job.id, likes.id, pref.id])
        _cached_equals_fresh(mem)


def test_a_merge_leaves_no_state_cached_under_the_merged_entity():
    with Memory.in_memory(extract=False, embedder="none") as mem:
        a = mem.assert_state(subject="Pete", predicate="lives_in", object="Paris", valid_from="2024")
        mem.assert_state(subject="Peter", predicate="works_at", object="Acme", valid_from="2024")
        assert mem.store.states_by_id([a.id])[0].subject == "Pete"
        _read_every_subject(mem)
        mem.merge_entities("Peter", "Pete", reason="the same person")
        assert mem.store.states_by_id([a.id])[0].subject == "Peter"
        assert [s.subject for s in mem.as_of("2025").states(subject="Peter")] == ["Peter", "Peter"]
        _cached_equals_fresh(mem)


def test_a_read_that_overlaps_a_write_does_not_cache_the_old_value():
    cache: ByIdCache[str] = ByIdCache(10)
    loading, written = threading.Event(), threading.Event()

    def slow_load(keys: list[str]) -> dict[str, str]:
        loading.set()
        written.wait(5)
        return {k: "old" for k in keys}  # read before the write committed

    reader = threading.Thread(target=lambda: cache.get_many(["s"], slow_load))
    reader.start()
    loading.wait(5)
    cache.update(put=[("s", "new")])
    written.set()
    reader.join(5)
    assert cache.get_many(["s"], lambda keys: pytest.fail("the new value was cached")) == ["new"]

    cache.update(drop=["s"])
    assert cache.get_many(["s"], lambda keys: {"s": "reread"}) == ["reread"]
    assert cache.get_many(["s"], lambda keys: pytest.fail("a quiet read is cached")) == ["reread"]


def test_evidence_is_found_whether_written_before_or_after_the_first_read(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False, embedder="none") as mem:
        first = mem.record(content="Peter moved to Paris.", occurred_at="2024-01-02")
        paris = mem.assert_state(subject="Peter", predicate="lives_in", object="Paris", valid_from="2024-01-01",
                                 evidence=[first.id])
        plain = mem.assert_state(subject="Peter", predicate="works_at", object="Acme", valid_from="2023")
        assert [e.event_id for e in mem.store.evidence([paris.id, plain.id])[paris.id]] == [first.id]
        second = mem.record(content="Peter is at Acme.", occurred_at="2024-02-01")
        mem.confirm_state(plain.id, evidence=[second.id])
        assert [e.event_id for e in mem.store.evidence([plain.id])[plain.id]] == [second.id]
    with Memory.open(path, extract=False, embedder="none") as mem:
        found = mem.store.evidence([paris.id, plain.id])
        assert [e.event_id for e in found[paris.id]] == [first.id]
        assert [e.event_id for e in found[plain.id]] == [second.id]


def test_a_read_of_many_subjects_is_answered_but_not_kept(monkeypatch):
    from graphmem.store import kuzu_store

    monkeypatch.setattr(kuzu_store, "SUBJECT_CACHE_READ", 2)
    mem = Memory.in_memory(extract=False)
    for name in ("Ann", "Bo", "Cy"):
        mem.assert_state(subject=name, predicate="lives_in", object="Lisbon", valid_from="2025-01-01")
    mem.store._subjects.clear()
    ids = [mem.resolve_entity(n) for n in ("Ann", "Bo", "Cy")]
    found = mem.store.states(StateQuery(subject_ids=ids))
    assert sorted(s.subject for s in found) == ["Ann", "Bo", "Cy"]
    assert not mem.store._subjects._items  # a bulk write's read: its rows would push out what small reads use
    mem.store.states(StateQuery(subject_ids=ids[:2]))
    assert sorted(mem.store._subjects._items) == sorted(ids[:2])
    mem.close()


def test_a_bulk_import_keeps_its_events_and_new_entities_out_of_the_caches_and_reads_them_whole(monkeypatch):
    from graphmem.store import kuzu_store

    monkeypatch.setattr(kuzu_store, "LARGE_WRITE_ROWS", 4)
    with Memory.in_memory(extract=False, embedder="none") as mem:
        small = mem.record(content="Ann met Bo.", occurred_at="2025-01-01", entities=["Ann", "Bo"])
        assert small.id in mem.store._events._items
        ann = mem.resolve_entity("Ann")
        assert ann in mem.store._entities._items
        bulk = mem.record_many([{"content": f"note {i}", "occurred_at": "2025-01-02", "entities": [f"P{i}", "Ann"]}
                                for i in range(6)])
        ids = [r.id for r in bulk]
        assert not set(ids) & set(mem.store._events._items)  # (read back seldom: small writes' stay)
        made = [mem.resolve_entity(f"P{i}") for i in range(6)]
        assert small.id in mem.store._events._items and ann in mem.store._entities._items
        assert [e.content for e in mem.store.events(ids)] == [f"note {i}" for i in range(6)]
        assert [e.name for e in mem.store.entities(made)] == [f"P{i}" for i in range(6)]


def test_known_ids_say_maybe_for_every_stored_id_alone_or_many_at_once() -> None:
    """A few ids are looked up one by one, many as arrays: both find every stored id, sorted or recent."""
    stored = [f"ev_{i}" for i in range(3_000)]
    known = KnownIds(stored[:2_000])
    known.add(stored[2_000:])
    asked = ["ev_5", "nope", "ev_2500", "ev_2999", "ev_0", "missing"]
    for size in (1, 3, len(asked), 4 * len(asked)):
        ids = (asked * 4)[:size]
        assert [i for i in known.maybe(ids) if i.startswith("ev_")] == [i for i in ids if i.startswith("ev_")]
    assert KnownIds([]).maybe(["ev_1"]) == [] and KnownIds([]).maybe(stored[:20]) == []


def test_a_write_copies_only_the_cached_states_of_the_predicates_it_touches():
    """A subject with a long history: a write about one of its predicates leaves the others' cached states as
    they were (the same objects), and each reader keeps the rows it took."""
    with Memory.in_memory(extract=False, embedder="none") as mem:
        for i in range(30):
            mem.assert_state(subject="Peter", predicate="likes", object=f"topic {i}", valid_from="2020")
        home = mem.assert_state(subject="Peter", predicate="lives_in", object="Paris", valid_from="2021")
        peter = mem.resolve_entity("Peter")
        mem.store.states(StateQuery(subject_id=peter))  # cached from here on
        before = mem.store._subjects.get_many([peter], pytest.fail)[0]
        held = sorted(v.row["s_id"] for v in before.versions())
        mem.assert_state(subject="Peter", predicate="lives_in", object="Lisbon", valid_from="2024")
        mem.confirm_state(home.id)
        after = mem.store._subjects.get_many([peter], pytest.fail)[0]
        assert after is not before and after._by_predicate["likes"] is before._by_predicate["likes"]
        assert sorted(v.row["s_id"] for v in before.versions()) == held  # the old rows, unchanged
        assert len(list(after.versions("lives_in"))) == 3  # Paris (its first version, closed), Paris bounded, Lisbon
        assert len(list(after.versions("likes"))) == 30
        mem.store.states_by_id([home.id])
        _cached_equals_fresh(mem)


def test_a_new_like_reads_only_the_likes_with_its_object_and_still_confirms_a_restated_one():
    """A multi-valued predicate's states never bound one another: a write of one reads only those with its
    object (a person's thousands of likes are not read for each new one)."""
    with Memory.in_memory(extract=False, embedder="none") as mem:
        for thing in ("tea", "Coffee", "chess"):
            mem.assert_state(subject="Peter", predicate="likes", object=thing, valid_from="2020")
        peter, coffee = mem.resolve_entity("Peter"), mem.resolve_entity("Coffee")
        asked, read = [], mem.store.timelines

        def timelines(queries):
            found = read(queries)
            asked.extend((q.object_keys, [s.object for s in states]) for q, states in zip(queries, found))
            return found

        mem.store.timelines = timelines  # type: ignore[method-assign]
        again = mem.assert_state(subject="Peter", predicate="likes", object="coffee", valid_from="2024")
        new = mem.assert_state(subject="Peter", predicate="likes", object="jazz", valid_from="2024")
        assert asked == [({coffee}, ["Coffee"]), ({mem.resolve_entity("jazz")}, [])]
        likes = mem.store.states(StateQuery(subject_id=peter, predicate="likes"))
        assert sorted(s.object for s in likes) == ["Coffee", "chess", "jazz", "tea"]
        held = next(s for s in likes if s.object_id == coffee)
        assert again.id == held.id and held.last_confirmed_at is not None  # restated: confirmed, not added
        assert new.object == "jazz"


def test_a_close_reads_the_states_with_its_object_and_the_part_around_the_one_it_ends():
    """"Peter left Globex" about someone with a long history of jobs reads the jobs at Globex, then those
    around the one it ends, not all of them; it ends that one and changes no other. A retraction reads the
    part around the state it withdraws."""
    from graphmem import StateInput

    with Memory.in_memory(extract=False, embedder="none") as mem:
        for year in range(1990, 2020):
            mem.assert_state(subject="Peter", predicate="works_at", object=f"Firm {year}",
                             valid_from=str(year))
        mem.assert_state(subject="Peter", predicate="works_at", object="Globex", valid_from="2020-03")
        mem.assert_state(subject="Peter", predicate="works_at", object="Initech", valid_from="2022-06")
        globex = mem.resolve_entity("Globex")
        asked, read = [], mem.store.timelines

        def timelines(queries):
            found = read(queries)
            asked.extend((q.object_keys, q.near is not None, sorted(s.object for s in states))
                         for q, states in zip(queries, found))
            return found

        mem.store.timelines = timelines  # type: ignore[method-assign]
        before = {s.id: s for s in mem.timeline("Peter", "works_at")}
        [ended] = mem.assert_states([StateInput(subject="Peter", predicate="works_at", object="Globex",
                                                valid_to="2021-01", action="close")])
        assert asked[0] == ({globex}, False, ["Globex"])
        assert asked[1][1] and len(asked[1][2]) < 10 and "Globex" in asked[1][2]
        assert ended.valid.end is not None and ended.valid.end.at.year == 2021
        after = {s.id: s for s in mem.timeline("Peter", "works_at")}
        assert {i for i in after if after[i] != before[i]} == {ended.id}
        # a retraction reads the part around the state too: the one before it reopens up to the one after
        firm = next(s for s in after.values() if s.object == "Firm 2005")
        asked.clear()
        mem.retract_state(firm.id, reason="wrong")
        assert len(asked) == 1 and asked[0][1] and len(asked[0][2]) < 10
        reopened = next(s for s in mem.timeline("Peter", "works_at") if s.object == "Firm 2004")
        assert reopened.valid.end is not None and reopened.valid.end.at.year == 2006


def test_a_subjects_states_come_in_order_of_start_whatever_order_they_were_written_in():
    """A write places new states in a timeline by searching this order (see ``temporal.bearing_on``)."""
    import random

    from graphmem import StateInput

    with Memory.in_memory(extract=False, embedder="none") as mem:
        starts = [None, *(f"{year}-{month:02d}" for year in (2019, 2021, 2020) for month in (5, 1, 9))]
        random.Random(5).shuffle(starts)
        for i, start in enumerate(starts):
            mem.assert_states([StateInput(subject="Ann", predicate="lives_in", object=f"Town {i}", valid_from=start),
                               StateInput(subject="Bob", predicate="likes", object=f"Tea {i}", valid_from=start)])
            for query in (StateQuery(subject_id=mem.resolve_entity("Ann"), predicate="lives_in"),
                          StateQuery(subject_ids=[mem.resolve_entity("Ann"), mem.resolve_entity("Bob")])):
                found = [s.valid.start.at if s.valid.start else None for s in mem.store.states(query)]
                opened = [at for at in found if at is None]
                assert found == opened + sorted(at for at in found if at is not None)


def test_a_timeline_read_gives_one_scope_and_visibility_and_the_part_asked_for():
    from graphmem import StateInput, TimePoint
    from graphmem.store import TimelineQuery

    with Memory.in_memory(extract=False, embedder="none") as mem:
        for year, city in ((2019, "Oslo"), (2017, "Rome"), (2021, "Lima")):
            mem.assert_state(subject="Peter", predicate="lives_in", object=city, valid_from=str(year))
        mem.assert_states([StateInput(subject="Peter", predicate="lives_in", object="Kyiv", valid_from="2020",
                                      scope="agent:bob"),
                           StateInput(subject="Peter", predicate="lives_in", object="Riga", valid_from="2020",
                                      private=True)])
        for thing in ("tea", "coffee", "chess"):
            mem.assert_state(subject="Peter", predicate="likes", object=thing, valid_from="2020")
        peter = mem.resolve_entity("Peter")

        def read(*queries: TimelineQuery) -> list[list[str]]:
            return [[s.object for s in found] for found in mem.store.timelines(queries)]

        for _ in range(2):  # read afresh, then from the cached rows
            assert read(TimelineQuery(peter, "lives_in", "global", False),
                        TimelineQuery(peter, "lives_in", "agent:bob", False),
                        TimelineQuery(peter, "lives_in", "global", True),
                        TimelineQuery(peter, "likes", "global", False, object_keys={"coffee", "jazz"}),
                        TimelineQuery(peter, "works_at", "global", False)) == [
                ["Rome", "Oslo", "Lima"], ["Kyiv"], ["Riga"], ["coffee"], []]
        late = TimePoint.model_validate({"at": "2030-01-01T00:00:00Z", "granularity": "year"})
        assert read(TimelineQuery(peter, "lives_in", "global", False, near=[late])) == [["Oslo", "Lima"]]
        mem.store._subjects.clear()
        assert read(TimelineQuery(peter, "lives_in", "global", False, near=[late])) == [["Oslo", "Lima"]]
