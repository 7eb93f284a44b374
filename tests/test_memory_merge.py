"""Merging two entities found to be one: states, objects, mentions, opinions, names and the index move;
nothing is deleted and what memory held before stays readable with known_at."""

import shutil

import pytest

from graphmem import InvalidInput, Memory, NotFound, StateStatus


def objects(states):
    return sorted(s.object for s in states)


@pytest.fixture
def two_petes(clock):
    mem = Memory.in_memory(clock=clock, extract=False, embedder="none")
    paris = mem.record(content="Peter Smith lives in Paris.", occurred_at="2023-01-05", entities=["Peter Smith"])
    lisbon = mem.record(content="Pete moved to Lisbon.", occurred_at="2024-03-01", entities=["Pete"])
    mem.assert_state("Peter Smith", "lives_in", "Paris", valid_from="2023-01", evidence=[paris.id])
    mem.assert_state("Pete", "lives_in", "Lisbon", valid_from="2024-03-01", evidence=[lisbon.id])
    mem.assert_state("Pete", "works_at", "Acme", valid_from="2022")
    mem.assert_state("Ana", "knows", "Pete", valid_from="2020")
    mem.hold_opinion("Pete is a careful engineer", about=["Pete"], confidence=0.6)
    yield mem, paris, lisbon
    mem.close()


def test_merge_joins_timelines_and_keeps_history(two_petes):
    mem, paris, lisbon = two_petes
    before = mem.now()
    result = mem.merge_entities("Peter Smith", "Pete", reason="same person, Ana confirmed it")
    assert result.entity.id == "peter-smith" and "Pete" in result.entity.aliases
    assert result.merged.merged_into == "peter-smith"
    assert len(result.moved_states) == 3  # lives_in Lisbon, works_at Acme (subject), Ana knows (object)

    # one timeline: Lisbon from March 2024 bounds Paris
    assert objects(mem.as_of("2023-06").states("Peter Smith", predicate="lives_in")) == ["Paris"]
    # (and Ana, who knows Pete: a mutual tie is told from either side)
    assert objects(mem.as_of("2024-06").states("Peter Smith")) == ["Acme", "Ana", "Lisbon"]
    [paris_state] = [s for s in mem.timeline(subject="Peter Smith", predicate="lives_in") if s.object == "Paris"]
    assert paris_state.status is StateStatus.SUPERSEDED and paris_state.id in result.bounded_states
    assert paris_state.valid.end.at.date().isoformat() == "2024-03-01"

    # the old name and the old id both lead to the kept entity
    assert mem.resolve_entity("Pete") == mem.resolve_entity("pete") == "peter-smith"
    view = mem.entity("Pete")
    assert view.entity.name == "Peter Smith"
    assert {e.id for e in view.recent_events} == {paris.id, lisbon.id}
    [knows] = mem.as_of("2025").states("Ana", predicate="knows")
    assert (knows.object_id, knows.object) == ("peter-smith", "Peter Smith")
    [opinion] = mem.opinions(about="Peter Smith")
    assert opinion.about_ids == ("peter-smith",)

    # every moved state says why, and evidence stays attached
    [moved_lisbon] = [s for s in mem.as_of("2024-06").states("Peter Smith") if s.object == "Lisbon"]
    assert moved_lisbon.evidence[0].event_id == lisbon.id
    merge = [r for r in mem.revisions(moved_lisbon.id) if r.action.value == "merge"]
    assert merge and "Pete (pete) merged into Peter Smith (peter-smith)" in merge[0].reason

    # what memory held before the merge: Peter Smith still lived in Paris then, Pete's states were Pete's
    assert objects(mem.known_at(before).as_of("2024-06").states("Peter Smith")) == ["Paris"]


def test_merged_entity_is_not_listed_and_recall_filters_follow(two_petes):
    mem, _, lisbon = two_petes
    mem.merge_entities("Peter Smith", "Pete")
    hits = mem.recall("Lisbon", entities=["Peter Smith"], k=10)
    assert lisbon.id in {h.id for h in hits}
    assert "pete" not in mem.store.entity_ids(100)
    # a later write naming Pete lands on Peter Smith
    mem.assert_state("Pete", "role", "CTO", valid_from="2025")
    assert "CTO" in objects(mem.as_of("2025-06").states("Peter Smith"))


def test_merge_survives_reopen_and_index_catch_up(tmp_path, clock):
    path = tmp_path / "m.kuzu"
    index = tmp_path / "m.kuzu.index"
    with Memory.open(path, clock=clock, extract=False, embedder="none") as mem:
        ev = mem.record(content="Pete moved to Lisbon.", occurred_at="2024-03-01", entities=["Pete"])
        mem.assert_state("Peter Smith", "lives_in", "Paris", valid_from="2023")
        mem.index.save()
        shutil.copytree(index, tmp_path / "before")
        mem.merge_entities("Peter Smith", "Pete")
    # the process died before saving its index again: the saved one predates the merge and must replay it
    shutil.rmtree(index)
    shutil.copytree(tmp_path / "before", index)
    with Memory.open(path, clock=clock, extract=False, embedder="none") as mem:
        assert mem.resolve_entity("Pete") == "peter-smith"
        assert ev.id in {h.id for h in mem.recall("Lisbon", entities=["Peter Smith"], k=5)}


def test_merge_chains_and_refusals(two_petes):
    mem, *_ = two_petes
    mem.assert_state("P. Smith", "role", "engineer", valid_from="2021")
    mem.merge_entities("Pete", "P. Smith")  # P. Smith into Pete ...
    mem.merge_entities("Peter Smith", "Pete")  # ... and Pete into Peter Smith: P. Smith follows
    assert mem.resolve_entity("p-smith") == "peter-smith"
    assert mem.store.entities(["p-smith"])[0].merged_into == "peter-smith"
    with pytest.raises(InvalidInput) as same:
        mem.merge_entities("Peter Smith", "Pete")
    assert same.value.field == "merge"
    with pytest.raises(NotFound) as unknown:
        mem.merge_entities("Peter Smith", "Nobody")
    assert unknown.value.field == "merge"
    with pytest.raises(InvalidInput) as why:
        mem.merge_entities("Peter Smith", "Ana", reason=" ")
    assert why.value.field == "reason"
    assert mem.resolve_entity("Ana") == "ana"  # a refused merge wrote nothing


def test_a_near_name_of_a_place_or_org_joins_by_itself_a_person_never(clock):
    with Memory.in_memory(clock=clock, embedder="none") as mem:
        mem.record(content="Peter moved to Marrakesh.", occurred_at="2025-11-27")
        mem.record(content="Ana works at Globex Inc.", occurred_at="2025-11-27")
        mem.record(content="Sam moved to Marrakech in December.", occurred_at="2025-12-27")
        mem.record(content="Bo joined Globex.", occurred_at="2025-12-28")
        mem.record(content="Peter Smith met Peter today.", occurred_at="2025-12-28")
        lives = {s.subject: s.object_id for s in mem.as_of("2026-01-05").states(predicate="lives_in")}
        assert lives == {"Peter": "marrakesh", "Sam": "marrakesh"}
        assert "Marrakech" in mem.entity("Marrakesh").aliases  # the variant is kept as a name
        works = {s.subject: s.object_id for s in mem.as_of("2026-01-05").states(predicate="works_at")}
        assert works == {"Ana": "globex-inc", "Bo": "globex-inc"}
        # a known "Peter" does not cut "Peter Smith" in two, and the two stay two people ...
        people = {e.id for e in mem.store.entities_of_types(["person"])}
        assert {"peter", "peter-smith"} <= people and "smith" not in people
        # ... offered to someone who knows, with the reason
        [candidate] = [c for c in mem.merge_candidates() if c.merge.id == "peter"]
        assert candidate.keep.id == "peter-smith" and "first name" in candidate.reason


def test_a_join_inside_one_batch_and_after_reopen(tmp_path, clock):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, clock=clock, embedder="none") as mem:
        mem.record_many([{"content": "Kim moved to Kraków.", "occurred_at": "2025-01-02"},
                         {"content": "Lee moved to Krakow.", "occurred_at": "2025-01-03"},
                         {"content": "Max moved to Valparaíso.", "occurred_at": "2025-01-04"},
                         {"content": "Noa moved to Valparaizo.", "occurred_at": "2025-01-04"}])
        places = {s.object_id for s in mem.as_of("2025-02").states(predicate="lives_in")}
        assert places == {"krakow", "valparaiso"}  # accents are the name key; the typo joins within the batch
    with Memory.open(path, clock=clock, embedder="none") as mem:
        mem.record(content="Ola moved to Valparaisso.", occurred_at="2025-01-05")
        mem.record(content="Uma moved to Krakowo.", occurred_at="2025-01-05")  # 6 letters, 1 off: too close to call
        places = {s.subject: s.object_id for s in mem.as_of("2025-02").states(predicate="lives_in")}
        assert places["Ola"] == "valparaiso" and places["Uma"] == "krakowo"


def test_a_name_memory_does_not_hold_suggests_the_names_like_it(two_petes):
    """"did you mean": near-equal names and names a word of which opens with it, the likest first; a merged
    entity is suggested as the one it was merged into, once; no suggestion for a name like none."""
    mem, _, _ = two_petes
    mem.record(content="Petra joined Globex.", occurred_at="2025-01-01", entities=["Petra", "Globex"])
    with pytest.raises(NotFound) as raised:
        mem.entity("Smith")
    assert [name for _, name in raised.value.suggestions] == ["Peter Smith"]
    assert "did you mean 'Peter Smith'?" in str(raised.value) and raised.value.field == "entity"
    assert [e.name for e in mem.entities_like("Pet")] == ["Pete", "Petra", "Peter Smith"]
    mem.merge_entities("Peter Smith", "Pete", reason="one person")
    assert [e.name for e in mem.entities_like("Pet")] == ["Peter Smith", "Petra"]
    assert [e.name for e in mem.entities_like("Globx")] == ["Globex"]
    assert mem.entities_like("Zebediah") == []
    with pytest.raises(NotFound) as raised:
        mem.as_of("2025-02").states(subject="Zebediah")
    assert raised.value.suggestions == () and raised.value.to_dict().get("suggestions") is None
