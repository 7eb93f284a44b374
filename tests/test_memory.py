"""The Memory facade against the real embedded database."""

import datetime as dt

import pytest

from graphmem import (
    InvalidInput,
    InvalidInterval,
    MalformedTime,
    Memory,
    NotFound,
    PrivacyRefused,
    StateInput,
    StateStatus,
    StoreError,
    UnknownPredicate,
)
from graphmem import memory as memory_module
from graphmem.ontology import Visibility


def objects(states):
    return [s.object for s in states]


def test_the_issue_walkthrough(mem):
    ev = mem.record(content="Peter moved to Marrakesh.", occurred_at="2025-11-27", source={"system": "cli"},
                    agent_id="claude", scope="global")
    mem.assert_state(subject="Peter", predicate="lives_in", object="Marrakesh", valid_from="2025-11-27",
                     evidence=[ev.id])
    [state] = mem.as_of("2025-11-30").states(subject="Peter")
    assert (state.predicate, state.object) == ("lives_in", "Marrakesh")
    assert state.evidence[0].event_id == ev.id and state.evidence[0].source.system == "cli"
    assert mem.as_of("2025-11-26").states(subject="Peter") == []
    [during] = mem.during("Nov 2025").states(subject="Peter")
    assert during.throughout is False
    assert objects(mem.timeline(subject="Peter", predicate="lives_in")) == ["Marrakesh"]
    view = mem.entity("peter")
    assert view.entity.name == "Peter" and objects(view.states) == ["Marrakesh"]
    assert [e.id for e in view.recent_events] == [ev.id]


def test_supersede_closes_the_previous_value_and_keeps_it(mem):
    mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    mem.assert_state("Peter", "lives_in", "Marrakesh", valid_from="2025-11-27")
    berlin, marrakesh = mem.timeline("Peter", "lives_in")
    assert berlin.status is StateStatus.SUPERSEDED and berlin.valid_to == marrakesh.valid_from
    assert objects(mem.as_of("2025-11-26").states("Peter")) == ["Berlin"]
    assert objects(mem.as_of("Nov 2025").states("Peter")) == ["Marrakesh"]
    assert objects(mem.as_of("2019").states("Peter")) == []


def test_quarters_are_a_granularity_of_states_questions_and_text(mem):
    mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    mem.assert_state("Peter", "lives_in", "Porto", valid_from="2025-Q3")  # known only to the quarter
    assert [str(s.valid_from) for s in mem.timeline("Peter", "lives_in")] == ["2020", "2025-Q3"]
    assert objects(mem.as_of("2025-07-02").states("Peter")) == ["Porto"]  # compared as quarters
    assert objects(mem.as_of("2025-06").states("Peter")) == ["Berlin"]
    assert objects(mem.as_of("Q2 2025").states("Peter")) == ["Berlin"]  # the end of the quarter
    assert [(s.object, s.throughout) for s in mem.during("2025-Q3").states("Peter")] == [("Porto", True)]
    assert objects(mem.as_of(mem.read_time("last quarter", relative_to="2025-11-27")).states("Peter")) == ["Porto"]
    # a season: as of it, by its end (its last month); during it, its first month through its last
    summer = mem.read_time("last summer", "asOf", relative_to="2025-11-27", edge="end")
    assert str(summer) == "2025-08" and objects(mem.as_of(summer).states("Peter")) == ["Porto"]
    first, last = mem.read_period("last summer", relative_to="2025-11-27")
    assert (str(first), str(last)) == ("2025-06", "2025-08")
    assert [(s.object, s.throughout) for s in mem.during(first, through=last).states("Peter")] == [
        ("Berlin", False), ("Porto", False)]
    with pytest.raises(InvalidInput) as raised:  # (one point of it: which one is for the caller to say)
        mem.read_time("last summer", "during", relative_to="2025-11-27")
    assert raised.value.field == "during" and "(2025-06 to 2025-08)" in str(raised.value)
    # a weekend alike, in days: its Saturday through its Sunday
    saturday, sunday = mem.read_period("last weekend", relative_to="2025-11-27")
    assert (str(saturday), str(sunday)) == ("2025-11-22", "2025-11-23")
    with pytest.raises(InvalidInput, match=r"several days \(2025-11-22 to 2025-11-23\)"):
        mem.read_time("last weekend", "asOf", relative_to="2025-11-27")
    with pytest.raises(InvalidInput) as raised:
        mem.during("2025-08", through="2025-06")
    assert raised.value.field == "through"
    # text: the quarter dates the statement, at the quarter's granularity
    mem.record(content="Anna joined Globex in Q3 2024.", occurred_at="2025-11-27")
    [job] = mem.as_of("2024-08").states("Anna")
    assert (job.object, str(job.valid_from)) == ("Globex", "2024-Q3")
    assert mem.as_of("2024-06").states("Anna") == []


def test_a_period_up_to_now_is_read_as_a_range_for_during_and_refused_as_one_point():
    """"the past 3 months", "since March": during them is from their start through now, a window opens at
    their start; as of them there is no one time to answer, and the error says what to ask instead."""
    mem = Memory.in_memory(extract=False)
    first, last = mem.read_period("the past 3 months", relative_to="2025-12-10")
    assert (str(first), str(last)) == ("2025-09", "2025-12")
    first, last = mem.read_period("since March", relative_to="2025-12-10")
    assert (str(first), str(last)) == ("2025-03", "2025-12")
    assert [str(p) for p in mem.read_period("the 1990s", relative_to="2025-12-10")] == ["1990", "1999"]
    opens = mem.read_time("the past 3 months", "since", relative_to="2025-12-10", edge="start")
    assert str(opens) == "2025-09"
    assert str(mem.read_time("2019-2021", "since", edge="start")) == "2019"  # (a range's first period)
    with pytest.raises(InvalidInput) as raised:
        mem.read_time("the past year", "asOf", relative_to="2025-12-10", edge="end")
    assert raised.value.field == "asOf" and "runs from 2024 up to now" in str(raised.value)
    assert "during" in str(raised.value)
    with pytest.raises(InvalidInput, match="'before March 2025' runs up to 2025-03 from no start"):
        mem.read_time("before March 2025", "asOf", relative_to="2025-12-10", edge="end")


def test_the_python_views_read_a_time_as_people_write_it(clock):
    """An analyst writes ``mem.as_of("last week")`` or ``mem.during("2019-2021")`` as the command line and
    GraphQL read them: relative to now (the memory's clock, 2026-01-01 here), ranges and times up to now
    too."""
    mem = Memory.in_memory(clock=clock, extract=False)
    mem.assert_state(subject="Peter", predicate="lives_in", object="Rome", valid_from="2019")
    mem.assert_state(subject="Peter", predicate="lives_in", object="Oslo", valid_from="2025-10")
    assert [s.object for s in mem.as_of("last week").states("Peter")] == ["Oslo"]
    assert [s.object for s in mem.as_of("end of 2024").states("Peter")] == ["Rome"]
    assert [s.object for s in mem.as_of("H1 2025").states("Peter")] == ["Rome"]
    assert [(s.object, s.throughout) for s in mem.during("2019-2021").states("Peter")] == [("Rome", True)]
    assert [(s.object, s.throughout) for s in mem.during("the past 3 months").states("Peter")] == [
        ("Oslo", True)]  # (2025-10 through 2026-01)
    assert [(s.object, s.throughout) for s in mem.during("the past 4 months").states("Peter")] == [
        ("Rome", False), ("Oslo", False)]
    assert [s.object for s in mem.known_at("2026-01-01").as_of("2025-11").states("Peter")] == ["Oslo"]
    mem.assert_state(subject="Peter", predicate="believes", object="the launch will slip",
                     valid_from="2025-12")
    assert [o.statement for o in mem.opinions(as_of="last week")] == ["the launch will slip"]
    mem.record(content="Kickoff.", occurred_at="2025-12-29")
    assert [e.content for e in mem.events(since="last week")] == ["Kickoff."]
    assert mem.events(since="2026-01", until="2026-01") == []
    assert mem.opinions(as_of="end of 2024") == []
    with pytest.raises(MalformedTime) as raised:
        mem.as_of("someday")
    assert raised.value.field == "as_of"


@pytest.mark.parametrize(("text", "reason"), [
    ("2025-13-01", "month must be in 1..12"), ("2025-02-30", "day is out of range"), ("2025-W60", "week"),
    ("10:75 pm on 2025-11-27", "minute must be in 0..59"),
])
def test_a_date_with_a_part_out_of_range_is_refused_not_read_another_way(text, reason):
    """A date a person would read as a typo is an error naming it, not another date ("2025-13-01" is no 13 Jan
    2025 to an as-of question), whether a time or a period is asked for."""
    mem = Memory.in_memory(extract=False)
    for read in (mem.read_time, mem.read_period):
        with pytest.raises(MalformedTime) as raised:
            read(text, "when", relative_to="2025-11-27")
        assert raised.value.field == "when" and reason in str(raised.value) and raised.value.out_of_range
    assert str(mem.read_time("13/01/2025", "when")) == "2025-01-13"  # a day, written day first: read


def test_a_timeline_lists_the_values_of_one_start_in_the_order_they_were_stated(tmp_path):
    """Each move "last week" said again in a later record supersedes the one before from the same start: the
    timeline lists them as they were said, the one that holds last (a value superseded later is not listed
    after the value that superseded it), in memory, over GraphQL and on the entity's page."""
    from graphmem.api import AccessPolicy, create_app
    from starlette.testclient import TestClient

    with Memory.open(tmp_path / "m.kuzu", embedder="none") as mem:
        said = ["Berlin", "Lisbon", "Berlin", "Porto", "Berlin"]
        for i, place in enumerate(said):
            mem.record(content=f"Peter Novak moved to {place} last week. #{i}", occurred_at="2025-11-27")
        timeline = mem.timeline("Peter Novak", "lives_in")
        assert objects(timeline) == said
        assert [s.status for s in timeline] == [StateStatus.SUPERSEDED] * 4 + [StateStatus.ACTIVE]
        with TestClient(create_app(mem, access=AccessPolicy.open())) as http:
            body = http.post("/graphql", json={"query": '{ entity(id: "peter-novak") { timeline(predicate: '
                                                        '"lives_in") { object status } } }'}).json()
        assert [s["object"] for s in body["data"]["entity"]["timeline"]] == said, body
        page = mem.entity_page("Peter Novak")
        listed = page.split("## Timeline")[1].split("\n## ")[0]
        assert [line.split(" · ")[1].removeprefix("lives in ") for line in listed.strip().splitlines()] == said


def test_a_write_that_states_a_value_and_its_end_ends_it_as_two_writes_would(tmp_path):
    """"Joined Acme in March. Left Acme in May." in one record, or in one batch of records, ends the job in May,
    as two records one after another do; two leavings of one job in one write are applied (the database once
    refused such a write after it was acknowledged: two of its revisions had one id), the later one winning."""
    def jobs(mem: Memory) -> list[tuple[str, object, str]]:
        mem.store.settle()
        return [(s.object, s.valid.end and s.valid.end.at.date(), s.status.value)
                for s in mem.timeline("Peter Novak", "works_at")]

    ended = [("Acme Inc", dt.date(2025, 5, 1), "closed")]
    writes = {
        "one record": [["Peter Novak joined Acme Inc in March. Peter Novak left Acme Inc in May."]],
        "one batch": [["Peter Novak joined Acme Inc in March.", "Peter Novak left Acme Inc in May."]],
        "one after another": [["Peter Novak joined Acme Inc in March."], ["Peter Novak left Acme Inc in May."]],
        "left twice in one batch": [["Peter Novak joined Acme Inc in March."],
                                    ["Peter Novak left Acme Inc in May. #1", "Peter Novak left Acme Inc in May. #2"]],
    }
    for name, batches in writes.items():
        with Memory.open(tmp_path / f"{name}.kuzu", embedder="none") as mem:
            for texts in batches:
                mem.record_many([{"content": t, "occurred_at": "2025-11-27"} for t in texts])
            assert jobs(mem) == ended, name
    later = {}
    for name, batches in {"one batch": [["Peter Novak left Acme Inc in May.", "Peter Novak left Acme Inc in April."]],
                          "one after another": [["Peter Novak left Acme Inc in May."],
                                                ["Peter Novak left Acme Inc in April."]]}.items():
        with Memory.open(tmp_path / f"twice {name}.kuzu", embedder="none") as mem:
            mem.record(content="Peter Novak joined Acme Inc in March.", occurred_at="2025-11-27")
            for texts in batches:
                mem.record_many([{"content": t, "occurred_at": "2025-11-27"} for t in texts])
            later[name] = jobs(mem)
    assert later["one batch"] == later["one after another"] == [("Acme Inc", dt.date(2025, 4, 1), "closed")]


def test_a_close_said_with_its_time_states_what_held_until_then_though_memory_did_not_know_it(tmp_path):
    """"Peter graduated from MIT in 2019" about someone memory knew nothing of: he studied there until 2019,
    since before anything recorded, so "where did Peter study in 2018" has its answer; "left Globex in 2019"
    beside a later job is the job before it; "moved out of Rome in 2015" a home until then. Said again it adds
    nothing; "left Berlin" (a trip as much as a home) and a close with no time state nothing."""
    with Memory.open(tmp_path / "held.kuzu", embedder="none") as mem:
        for text in ("Peter graduated from MIT in 2019.", "Peter joined Acme in 2020.",
                     "Peter left Globex in 2019.", "Peter left Globex in 2019. (again)",
                     "Peter left Berlin in 2019.", "Anna left Initech.", "Peter moved out of Rome in 2015."):
            mem.record(content=text, occurred_at="2025-11-27")
        mem.store.settle()
        spans = {p: [(s.object, s.valid.start, s.valid.end and s.valid.end.at.year, s.status.value)
                     for s in mem.timeline("Peter", p)] for p in ("studies_at", "works_at", "lives_in")}
        assert spans == {"studies_at": [("MIT", None, 2019, "closed")],
                         "works_at": [("Globex", None, 2019, "closed"),
                                      ("Acme", spans["works_at"][1][1], None, "active")],
                         "lives_in": [("Rome", None, 2015, "closed")]}
        assert mem.timeline("Anna", "works_at") == []
        assert [s.object for s in mem.as_of("2018").states(subject="Peter")] == ["MIT", "Globex"]


def test_a_job_ended_without_its_firm_named_ends_whatever_job_held_then(tmp_path):
    """"I lost my job last month" ends the job memory knows of, whatever its firm; about someone memory knows
    no job of, it states nothing. A bulk close may leave its object out the same way (``unnamed``), only for a
    single-valued predicate; otherwise it is refused, naming the field, and nothing of the write lands."""
    with Memory.open(tmp_path / "unnamed.kuzu", embedder="none") as mem:
        mem.record(content="Jon: I joined Globex in 2019.", occurred_at="2023-01-05")
        mem.record(content="Jon: I lost my job last month.", occurred_at="2023-06-10")
        mem.record(content="Ann: I got laid off yesterday.", occurred_at="2023-06-10")
        mem.record(content="佐藤さんは2020年にAcme Incに入社した。", occurred_at="2021-01-10")
        mem.record(content="佐藤さんは3月に会社を辞めた。", occurred_at="2023-06-10")
        mem.record_many([{"content": "Kim joined Hooli.", "occurred_at": "2020-01-01", "extract": False,
                          "states": [{"subject": "Kim", "predicate": "works_at", "object": "Hooli"}]},
                         {"content": "Kim was let go.", "occurred_at": "2024-02-01", "extract": False,
                          "states": [{"subject": "Kim", "predicate": "works_at", "action": "close",
                                      "unnamed": True, "valid_to": "2024-02-01"}]}])
        mem.store.settle()
        spans = {who: [(s.object, s.valid.end and s.valid.end.label()) for s in mem.timeline(who, "works_at")]
                 for who in ("Jon", "Ann", "Kim", "佐藤")}
        assert spans == {"Jon": [("Globex", "2023-05")], "Ann": [], "Kim": [("Hooli", "2024-02-01")],
                         "佐藤": [("Acme Inc", "2023-03")]}
        events = mem.stats().events
        for state, field in (({"predicate": "likes", "action": "close"}, "unnamed"),
                             ({"predicate": "works_at"}, "unnamed")):
            with pytest.raises(InvalidInput) as caught:
                mem.record_many([{"content": f"refused {field} {state}", "extract": False,
                                  "states": [{"subject": "Kim", "unnamed": True, **state}]}])
            assert caught.value.field.endswith(field)
        assert mem.stats().events == events


def test_a_last_day_at_a_job_ends_it_with_that_day_and_a_first_day_starts_it(tmp_path):
    """"My last day at Globex is Friday" (said on a Thursday): the job held through Friday, whether memory
    knew of it or not; "Tomorrow is my first day at Hooli": the next one, from tomorrow."""
    with Memory.open(tmp_path / "days.kuzu", embedder="none") as mem:
        mem.record(content="Peter joined Globex in 2019.", occurred_at="2025-11-01")
        for text in ("Peter's last day at Globex is Friday.", "Anna: My last day at Initech was Monday.",
                     "Anna: Tomorrow is my first day at Hooli!"):
            mem.record(content=text, occurred_at="2025-11-27")
        mem.store.settle()
        spans = {who: [(s.object, s.valid.start and s.valid.start.at.date().isoformat(),
                        s.valid.end and s.valid.end.at.date().isoformat())
                       for s in mem.timeline(who, "works_at")] for who in ("Peter", "Anna")}
        assert spans == {"Peter": [("Globex", "2019-01-01", "2025-11-29")],
                         "Anna": [("Initech", None, "2025-11-25"), ("Hooli", "2025-11-28", None)]}
        assert [s.object for s in mem.as_of("2025-11-28").states(subject="Peter")] == ["Globex"]
        assert mem.as_of("2025-11-29").states(subject="Peter") == []


def test_late_arriving_older_fact_is_split_into_the_timeline(mem):
    mem.assert_state("Ana", "works_at", "Acme", valid_from="2010")
    mem.assert_state("Ana", "works_at", "Globex", valid_from="2020")
    mem.assert_state("Ana", "works_at", "Initech", valid_from="2015")
    assert [(s.object, str(s.valid_to.at.year) if s.valid_to else None)
            for s in mem.timeline("Ana", "works_at")] == [("Acme", "2015"), ("Initech", "2020"), ("Globex", None)]


def test_other_subjects_and_predicates_are_never_touched(mem):
    mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    mem.assert_state("Peter", "works_at", "Acme", valid_from="2020")
    mem.assert_state("Zoe", "lives_in", "Paris", valid_from="2021")
    mem.assert_state("Peter", "lives_in", "Rome", valid_from="2022")
    assert mem.timeline("Peter", "works_at")[0].status is StateStatus.ACTIVE
    assert mem.timeline("Zoe", "lives_in")[0].status is StateStatus.ACTIVE


def test_a_write_in_one_scope_never_ends_confirms_or_retracts_a_state_of_another(mem):
    """A timeline is one subject's predicate in one scope: an agent's or a project's statement does not end
    what another scope holds (its readers may not see why, and the writer may not write there)."""
    porto = mem.assert_state("Peter", "lives_in", "Porto", valid_from="2025-06-01")
    berlin = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2025-09-01", scope="agent:bob", private=True)
    lisbon = mem.assert_state("Peter", "lives_in", "Lisbon", valid_from="2025-10-01", scope="project:apollo")
    assert [s.status for s in (mem.state(porto.id), mem.state(berlin.id))] == [StateStatus.ACTIVE] * 2
    assert objects(mem.as_of("2025-11").states("Peter", scopes=["global"])) == ["Porto"]
    assert sorted(objects(mem.as_of("2025-11").states("Peter", include_private=True))) == ["Berlin", "Lisbon", "Porto"]
    madrid = mem.assert_state("Peter", "lives_in", "Madrid", valid_from="2025-11-01", scope="project:apollo")
    assert mem.state(lisbon.id).valid.end == madrid.valid.start  # within a scope, one value supersedes another
    assert mem.state(porto.id).valid.end is None and mem.state(berlin.id).valid.end is None
    mem.assert_state("Peter", "lives_in", "Porto", valid_from="2025-06-01", scope="project:apollo")  # not a restate
    assert mem.state(porto.id).last_confirmed_at is None
    mem.retract_state(madrid.id, reason="wrong person")
    assert mem.state(lisbon.id).valid.end is None  # the retraction reopens its own scope's state only
    assert objects(mem.as_of("2025-12").states("Peter", scopes=["global"])) == ["Porto"]
    mem.assert_state("Pete", "lives_in", "Oslo", valid_from="2025-12-01", scope="project:hermes")
    mem.merge_entities("Peter", "Pete")  # two timelines become one within a scope only
    assert mem.state(porto.id).valid.end is None
    assert sorted(objects(mem.as_of("2026").states("Peter", include_private=True))) == [
        "Berlin", "Lisbon", "Oslo", "Porto"]
    page = mem.entity_page("Peter", include_private=True)  # a page of several scopes says whose each value is
    assert "**lives in** Porto · since 2025-06-01\n" in page
    assert "**lives in** Oslo · since 2025-12-01 · in project:hermes\n" in page


def test_a_private_write_never_ends_or_confirms_a_public_state_nor_a_public_one_a_private(mem):
    """Within a scope, public and private states are timelines of their own: a private note does not end the
    value public readers see (they could not see why), and a public statement of a value held privately is a
    public state, not a confirmation of the private one (which its answer would have shown)."""
    porto = mem.assert_state("Peter", "lives_in", "Porto", valid_from="2025-06-01")
    lisbon = mem.assert_state("Peter", "lives_in", "Lisbon", valid_from="2025-09-01", private=True)
    assert mem.state(porto.id).valid.end is None
    assert objects(mem.as_of("2025-11").states("Peter")) == ["Porto"]
    assert sorted(objects(mem.as_of("2025-11").states("Peter", include_private=True))) == ["Lisbon", "Porto"]
    restated = mem.assert_state("Peter", "lives_in", "Lisbon", valid_from="2025-10-01")
    assert restated.id != lisbon.id and restated.visibility is Visibility.NORMAL
    assert mem.state(lisbon.id).last_confirmed_at is None and mem.state(lisbon.id).valid.end is None
    assert mem.state(porto.id).valid.end == restated.valid.start  # the public timeline moves on its own
    madrid = mem.assert_state("Peter", "lives_in", "Madrid", valid_from="2025-11-01", private=True)
    assert mem.state(lisbon.id).valid.end == madrid.valid.start and mem.state(restated.id).valid.end is None
    mem.close_state(madrid.id, valid_to="2025-12-01")
    mem.retract_state(madrid.id, reason="wrong person")  # reopens the private value it had ended, only
    assert mem.state(lisbon.id).valid.end is None and mem.state(restated.id).valid.end is None
    held = mem.hold_opinion("Peter should stay", about=["Peter"], confidence=0.8, private=True)
    public = mem.hold_opinion("Peter should stay", about=["Peter"], confidence=0.4)
    assert public.id != held.id and mem.opinion(held.id).confidence == 0.8
    page = mem.entity_page("Peter", include_private=True)  # a page says which values are private
    assert "**lives in** Lisbon · since 2025-10-01\n" in page
    assert "**lives in** Lisbon · since 2025-09-01 · private\n" in page


def test_multi_valued_predicates_coexist(mem):
    mem.assert_state("Peter", "likes", "tea", valid_from="2020")
    mem.assert_state("Peter", "likes", "coffee", valid_from="2021")
    assert sorted(objects(mem.as_of("2022").states("Peter", "likes"))) == ["coffee", "tea"]


def test_restating_what_holds_confirms_instead_of_duplicating(mem):
    first = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    again = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2023-05-01")
    assert again.id == first.id
    assert len(mem.timeline("Peter", "lives_in")) == 1
    assert mem.state(first.id).last_confirmed_at is not None
    assert [r.action.value for r in mem.revisions(first.id)] == ["assert", "confirm"]


def test_confirming_a_state_stamps_that_state_whatever_its_interval(tmp_path):
    """On disk, where writes are journalled and applied behind the call: a confirmation once planned a state
    it could not match (closed at its own start) as new, under the id it already had; the database refused
    that write after the call had returned, and every later call failed."""
    with Memory.open(tmp_path / "m.kuzu", extract=False, embedder="none") as mem:
        never = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
        mem.close_state(never.id, valid_to="2020")  # [2020, 2020): it never held
        ended = mem.assert_state("Ana", "works_at", "Acme", valid_from="2019", valid_to="2021")
        ev = mem.record(content="Ana's old Acme badge turned up.")
        for state in (never, ended):
            confirmed = mem.confirm_state(state.id, evidence=[ev.id])
            assert confirmed.id == state.id and confirmed.last_confirmed_at is not None
        assert len(mem.timeline("Peter", "lives_in")) == 1
        assert [r.action.value for r in mem.revisions(ended.id)] == ["assert", "confirm"]
    with Memory.open(tmp_path / "m.kuzu", extract=False, embedder="none") as mem:
        assert all(mem.state(s.id).last_confirmed_at is not None for s in (never, ended))
        assert [e.event_id for e in mem.state(ended.id).evidence] == [ev.id]


def test_a_retracted_state_cannot_be_confirmed_and_nothing_is_written(tmp_path):
    with Memory.open(tmp_path / "m.kuzu", extract=False, embedder="none") as mem:
        wrong = mem.assert_state("Peter", "lives_in", "Madrid", valid_from="2024")
        mem.retract_state(wrong.id, reason="it was a typo")
        with pytest.raises(InvalidInput, match="retracted.*assert it again") as refused:
            mem.confirm_state(wrong.id)
        assert refused.value.field == "state_id"
        assert [r.action.value for r in mem.revisions(wrong.id)] == ["assert", "retract"]
        assert mem.state(wrong.id).last_confirmed_at is None
        assert mem.assert_state("Peter", "lives_in", "Lisbon", valid_from="2025").object == "Lisbon"


def test_disjoint_intervals_of_the_same_value_are_not_merged(mem):
    s = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2010", valid_to="2012")
    mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2015")
    assert len(mem.timeline("Peter", "lives_in")) == 2
    assert mem.state(s.id).status is StateStatus.CLOSED


def test_a_period_a_value_was_seen_in_confirms_what_holds_with_it_and_ends_nothing(mem):
    joined = mem.record(content="I joined Globex in 2016. I moved to Berlin in 2015.",
                        occurred_at="2020-01-01", tags=["speaker:Kim"])
    said = mem.record(content="I worked at Globex in 2018. I lived in Berlin in 2018.",
                      occurred_at="2025-06-01", tags=["speaker:Kim"])
    for predicate, value, since in (("works_at", "Globex", "2016"), ("lives_in", "Berlin", "2015")):
        [held] = mem.timeline("Kim", predicate)
        assert (held.object, held.valid.start.label(), held.valid.end) == (value, since, None)
        assert {e.event_id for e in held.evidence} == {joined.id, said.id}
    assert sorted(s.object for s in mem.as_of("2025").states("Kim")) == ["Berlin", "Globex"]
    # of a value nothing holds then: that period, all memory knows of it
    seen = mem.assert_state("Kim", "works_at", "Initech", valid_from="2012", valid_to="2013", witnessed=True)
    assert (seen.valid.start.label(), seen.valid.end.label()) == ("2012", "2013")
    with pytest.raises(InvalidInput, match="witnessed: only an assert with valid_from and valid_to") as no:
        mem.assert_state("Kim", "works_at", "Umbrella", valid_from="2012", witnessed=True)
    assert no.value.field == "witnessed" and len(mem.timeline("Kim", "works_at")) == 2


def test_explicit_close_and_mark_done(mem):
    s = mem.assert_state("Peter", "works_at", "Acme", valid_from="2020")
    closed = mem.close_state(s.id, valid_to="2025-03", reason="left Acme in March")
    assert closed.status is StateStatus.CLOSED and str(closed.valid_to.at.date()) == "2025-03-01"
    assert objects(mem.as_of("Feb 2025").states("Peter")) == ["Acme"]
    assert mem.as_of("2025-03-15").states("Peter") == []
    task = mem.assert_state("Peter", "todo", "write the report", valid_from="2025-01-02")
    done = mem.mark_done(task.id, at="2025-01-05")
    assert done.status is StateStatus.DONE
    assert [r.reason for r in mem.revisions(s.id)] == ["asserted", "left Acme in March"]
    lives = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    with pytest.raises(InvalidInput, match="not a task: only a task is marked done; close it") as refused:
        mem.mark_done(lives.id, at="2025-01-05")
    assert refused.value.field == "state_id"
    assert mem.state(lives.id).status is StateStatus.ACTIVE and len(mem.revisions(lives.id)) == 1


def test_a_task_written_in_text_is_open_until_ticked_off(mem):
    mem.record(content="TODO: renew the passport by Friday\n- [ ] call Bob", occurred_at="2025-11-27",
               tags=["speaker:Sam"])
    open_ = {s.object: s for s in mem.as_of("2025-11-27T12:00Z").states("Sam", predicate="todo")}
    assert sorted(open_) == ["call Bob", "renew the passport"]
    assert open_["renew the passport"].payload == {"due": "2025-11-28"}
    assert "- [ ] renew the passport (due 2025-11-28; since 2025-11-27)" in mem.resume_pack().markdown
    done = mem.record(content="- [x] renew the passport", occurred_at="2025-11-28", tags=["speaker:Sam"])
    [task] = [s for s in mem.timeline("Sam", "todo") if s.object == "renew the passport"]
    assert task.status is StateStatus.DONE and str(task.valid_to.at.date()) == "2025-11-28"
    assert [r.action.value for r in mem.revisions(task.id)] == ["assert", "mark_done"]
    assert done.id in {e.event_id for e in mem.state(task.id).evidence}
    assert objects(mem.as_of("2025-11-29").states("Sam", predicate="todo")) == ["call Bob"]
    tasks = mem.resume_pack(token_budget=400).markdown.split("## Open tasks\n")[1].split("\n\n")[0]
    assert tasks == "- [ ] call Bob (since 2025-11-27)"


def test_a_task_is_done_when_who_has_it_says_so_in_the_past_even_after_a_restart(tmp_path, monkeypatch):
    monkeypatch.setattr(memory_module, "OPEN_TASKS_KNOWN", 1)  # (the open task: the done one takes no place)
    path = str(tmp_path / "m.kuzu")
    with Memory.open(path) as mem:
        mem.record(content="Kim: I need to call the dentist.", occurred_at="2025-11-20")
        mem.record(content="Kim: TODO: renew my passport", occurred_at="2025-11-21")  # (listed after it)
        mem.record(content="Sam: I called the dentist.", occurred_at="2025-11-21")  # (not Sam's task)
        done = mem.record(content="Kim: Yeah, I finally called the dentist!", occurred_at="2025-11-22")
        tasks = {s.object: s for s in mem.timeline("Kim", "todo")}
        assert tasks["call the dentist"].status is StateStatus.DONE
        assert str(tasks["call the dentist"].valid_to.at.date()) == "2025-11-22"
        assert done.id in {e.event_id for e in mem.state(tasks["call the dentist"].id).evidence}
        assert tasks["renew my passport"].status is StateStatus.ACTIVE
    with Memory.open(path) as mem:  # (a new pipeline is told of the open tasks memory holds)
        mem.record(content="Kim: I renewed my passport this morning.", occurred_at="2025-11-23")
        assert {s.status for s in mem.timeline("Kim", "todo")} == {StateStatus.DONE}


def test_a_task_no_one_is_said_to_have_is_its_projects_in_its_scope(mem):
    mem.record(content="TODO: rotate the staging credentials", occurred_at="2025-11-27",
               scope="project:search")
    mem.record(content="TODO: water the plants", occurred_at="2025-11-27")  # (whose? the event keeps it)
    [task] = mem.as_of("2025-11-28").states("search", predicate="todo")
    assert (task.object, task.scope) == ("rotate the staging credentials", "project:search")
    assert mem.entity("search").entity.type == "project"
    pack = mem.resume_pack(project="search").markdown
    assert "- [ ] rotate the staging credentials (since 2025-11-27)" in pack
    assert "water the plants" not in {s.object for s in mem.as_of("2025-11-28").states("search")}


def test_done_marks_only_a_task_done(mem):
    task = mem.assert_state("Peter", "todo", "book the venue for the offsite", valid_from="2025-11-01")
    [done] = mem.assert_states([StateInput("Peter", "todo", "book the venue", valid_to="2025-11-20",
                                           action="done")])
    assert done.id == task.id and done.status is StateStatus.DONE
    mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    with pytest.raises(InvalidInput, match="close it instead") as refused:
        mem.assert_states([StateInput("Peter", "lives_in", "Berlin", valid_to="2025", action="done")])
    assert refused.value.field == "action"
    with pytest.raises(InvalidInput, match="not one of assert, close, done"):
        mem.record_many([{"content": "x", "occurred_at": "2025-11-27", "states": [
            {"subject": "Peter", "predicate": "todo", "object": "y", "action": "finish"}]}])
    assert mem.stats().events == 0


def test_retract_keeps_history_and_reopens_what_it_closed(mem, clock):
    berlin = mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    wrong = mem.assert_state("Peter", "lives_in", "Madrid", valid_from="2024")
    believed_madrid = clock.last
    mem.retract_state(wrong.id, reason="it was a typo")
    assert objects(mem.as_of("2025").states("Peter")) == ["Berlin"]
    assert mem.state(berlin.id).status is StateStatus.ACTIVE
    # transaction time: before the retraction memory believed Madrid
    assert objects(mem.known_at(believed_madrid).as_of("2025").states("Peter")) == ["Madrid"]
    history = mem.timeline("Peter", "lives_in", include_retracted=True)
    assert {s.object: s.status for s in history}["Madrid"] is StateStatus.RETRACTED
    assert [r.action.value for r in mem.revisions(berlin.id)] == ["assert", "supersede", "reopen"]


def test_known_at_sees_each_version_as_it_was(mem, clock):
    mem.assert_state("Peter", "lives_in", "Berlin", valid_from="2020")
    before = clock.last
    mem.assert_state("Peter", "lives_in", "Marrakesh", valid_from="2025-11-27")
    [then] = mem.known_at(before).as_of("2025-12-01").states("Peter")
    assert then.object == "Berlin" and then.valid_to is None
    [now] = mem.as_of("2025-12-01").states("Peter")
    assert now.object == "Marrakesh"
    assert mem.known_at(before - dt.timedelta(seconds=1)).as_of("2025-12-01").states() == []


def test_open_start_is_bounded_by_a_successor(mem):
    mem.assert_state("Peter", "lives_in", "Lyon")
    mem.assert_state("Peter", "lives_in", "Oslo", valid_from="2024")
    assert objects(mem.as_of("1990").states("Peter")) == ["Lyon"]
    assert objects(mem.as_of("2024-06").states("Peter")) == ["Oslo"]


def test_a_speaker_tag_says_who_i_is_in_what_an_event_says(mem):
    """``speaker:<name>``: "I" in the event's lines that no name opens; at most one, with a name, else the
    event is refused naming tags and nothing is written."""
    ev = mem.record(content="I moved to Lisbon last week.", occurred_at="2025-11-27", tags=["speaker:user"])
    assert mem.get([ev.id])[0].speaker == "user"
    [lives] = mem.as_of("2025-11-30").states("user")
    assert (lives.predicate, lives.object, lives.valid_from.label()) == ("lives_in", "Lisbon", "2025-W47")
    for tags in (["speaker:user", "speaker:kim"], ["speaker: "]):
        with pytest.raises(InvalidInput) as raised:
            mem.record(content="I moved to Porto.", occurred_at="2025-11-28", tags=tags)
        assert raised.value.field == "tags" and "speaker:user" in str(raised.value)
    assert mem.stats().events == 1


def test_japanese_text_grows_the_graph_as_english_does(mem):
    """A move said in Japanese supersedes the one before, a title is kept with its tie, the user's message
    speaks for the user, and what someone thinks is their opinion."""
    mem.record(content="田中さんは2023年から東京に住んでいる。", occurred_at="2025-11-27")
    mem.record(content="田中さんの妻の花子さんは先週大阪に引っ越した。", occurred_at="2025-11-27")
    mem.record(content="先月Globexを辞めた。今はHooliで働いています。", occurred_at="2025-11-27", tags=["speaker:user"])
    mem.record(content="田中さんは日本経済は回復すると思っている。", occurred_at="2025-11-27")
    assert [(s.object, s.valid_from.label()) for s in mem.timeline("田中", "lives_in")] == [("東京", "2023")]
    assert [(s.object, s.valid_from.label()) for s in mem.timeline("花子", "lives_in")] == [("大阪", "2025-W47")]
    [wife] = [s for s in mem.as_of("2025-11-28").states("花子") if s.predicate == "married_to"]
    assert (wife.object, wife.payload) == ("田中", {"title": "妻"})
    assert [(s.object, s.status) for s in mem.timeline("user", "works_at")] == [("Hooli", StateStatus.ACTIVE)]
    [claim] = [s for s in mem.as_of("2025-11-28").states("田中") if s.predicate == "believes"]
    assert claim.object == "日本経済は回復する"


@pytest.mark.parametrize("dropped", ["Anna no longer thinks the launch will slip.",
                                     "Anna doesn't think the launch will slip to March anymore."])
def test_an_opinion_given_up_in_other_words_ends(mem, dropped):
    """An opinion's claim is rarely said twice in the same words: one given up ends the one held whose words
    hold its own (or are held in them), the very words first; another opinion stays."""
    mem.record(content="Anna thinks the launch will slip to March.", occurred_at="2025-09-01")
    mem.record(content="Anna thinks the budget is too small.", occurred_at="2025-09-02")
    mem.record(content=dropped, occurred_at="2025-11-01")
    assert sorted((s.object, s.status, str(s.valid_to)) for s in mem.timeline("Anna", "believes")) == [
        ("the budget is too small", StateStatus.ACTIVE, "None"),
        ("the launch will slip to March", StateStatus.CLOSED, "2025-11-01")]


def test_recording_is_idempotent_and_append_only(mem):
    a = mem.record(content="Standup moved to 10:00.", occurred_at="2025-11-27T09:00Z", agent_id="claude")
    b = mem.record(content="Standup moved to 10:00.", occurred_at="2025-11-27T09:00Z", agent_id="claude")
    assert (a.status, b.status, a.id) == ("created", "duplicate", b.id)
    assert mem.stats().events == 1
    # same dedupe_key, new content: last write wins as a new event; the old one stays
    c = mem.record(content="Deploy freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze")
    d = mem.record(content="Deploy freeze on Fridays and Mondays.", kind="decision", dedupe_key="deploy-freeze")
    e = mem.record(content="Deploy freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze")
    assert c.id != d.id and e.status == "duplicate" and mem.stats().events == 3


def test_a_note_of_the_other_visibility_with_a_stored_ones_key_and_text_is_no_replay_of_it(mem):
    """A public note with a private one's dedupe key and text (or the other way round) is stored apart, and its
    own replays are duplicates of it: a writer who may not read private items neither loses the note nor
    learns of the private one by a 'duplicate' naming it. Also within one write, and for held()."""
    note = dict(content="Rotate the deploy key on Fridays.", kind="decision", dedupe_key="deploy-key")
    private = mem.record(**note, privacy=["private"])
    public = mem.record(**note)
    assert (private.status, public.status) == ("created", "created") and public.id != private.id
    assert mem.record(**note).id == public.id and mem.record(**note).status == "duplicate"
    assert mem.record(**note, privacy=["private"]).id == private.id
    assert [e.id for e in mem.events()] == [public.id]  # the public reader sees the public note
    assert mem.held([note, {**note, "privacy": ["private"]}]) == [True, True]
    both = mem.record_many([{**note, "dedupe_key": "k2"}, {**note, "dedupe_key": "k2", "privacy": ["private"]}])
    assert [r.status for r in both] == ["created", "created"] and both[0].id != both[1].id
    assert mem.stats().events == 4


def test_supersedes_links_to_the_replaced_event(mem):
    old = mem.record(content="Bot token lives in ~/.env", kind="config", dedupe_key="bot-token-location")
    new = mem.record(content="Bot token lives in the vault", kind="config", dedupe_key="bot-token-location",
                     supersedes=old.id)
    assert mem.get([new.id])[0].supersedes == old.id
    with pytest.raises(NotFound) as info:
        mem.record(content="x", supersedes="ev_nope")
    assert info.value.field == "supersedes"


@pytest.mark.parametrize(
    ("call", "error", "field"),
    [
        (lambda m: m.assert_state("Peter", "lives_at", "Paris"), UnknownPredicate, "predicate"),
        (lambda m: m.assert_state("Peter", "lives_in", "Paris", valid_from="someday"), MalformedTime, "valid_from"),
        (lambda m: m.assert_state("Peter", "lives_in", "Paris", valid_from="2025", valid_to="2024"),
         InvalidInterval, "valid_to"),
        (lambda m: m.assert_state("", "lives_in", "Paris"), InvalidInput, "subject"),
        (lambda m: m.assert_state("Peter", "lives_in", " "), InvalidInput, "object"),
        (lambda m: m.assert_state("Peter", "lives_in", "Paris", evidence=["ev_missing"]), NotFound, "evidence"),
        (lambda m: m.assert_state("Peter", "lives_in", "Paris", confidence=1.5), InvalidInput, "confidence"),
        (lambda m: m.record(content="x" * 100_001), InvalidInput, "content"),
        (lambda m: m.record(content="   "), InvalidInput, "content"),
        (lambda m: m.record(content="x", scope="team"), InvalidInput, "scope"),
        (lambda m: m.record(content="x", kind="gossip"), InvalidInput, "kind"),
        (lambda m: m.record(content="x", dedupe_key="Has Spaces"), InvalidInput, "dedupe_key"),
        (lambda m: m.record(content="x", occurred_at="2025-02-30"), MalformedTime, "occurred_at"),
        (lambda m: m.record(content="x", privacy=["secret-ish"]), InvalidInput, "privacy"),
        (lambda m: m.record(content="x", agent_id="Claude Bot"), InvalidInput, "agent_id"),
        (lambda m: m.record(content="x", links={"replies": "ev_1"}), InvalidInput, "links"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(mem, call, error, field):
    before = mem.stats()
    with pytest.raises(error) as info:
        call(mem)
    assert info.value.field == field, info.value.message
    assert info.value.message
    after = mem.stats()
    assert (after.events, after.entities, after.states, after.revisions) == (
        before.events, before.entities, before.states, before.revisions)


@pytest.mark.parametrize(("content", "said"), [
    ("", "content: must not be empty"),
    ("x" * 100_001,
     "content: holds more than 100,000 characters; shorten it, or split it into several events"),
])
def test_empty_or_oversize_content_is_refused_saying_how_to_mend_it(mem, content, said):
    with pytest.raises(InvalidInput) as info:
        mem.record(content=content)
    assert (info.value.field, info.value.message) == ("content", said)


@pytest.mark.parametrize(("item", "said"), [
    ({"text": "Peter moved to Oslo."}, "unknown field 'text' (did you mean 'content'?); allowed: affect,"),
    ({"content": "x", "occured_at": "2025-11-27"},
     "unknown field 'occured_at' (did you mean 'occurred_at'?)"),
    ({"content": "x", "timestamp": "2025-11-27"}, "unknown field 'timestamp' (did you mean 'occurred_at'?)"),
    ({"content": "x", "zzz": 1}, "unknown field 'zzz'; allowed: affect,"),
    ({"content": "x", "states": [{"subject": "Peter", "predicate": "lives_in", "object": "Oslo",
                                  "since": "2025"}]},
     "unknown field 'since' in states (did you mean 'valid_from'?)"),
])
def test_an_unknown_field_is_named_with_the_one_it_likely_meant(mem, item, said):
    """A typo's nearest field, or the one another system's word stands for ("text", "timestamp")."""
    with pytest.raises(InvalidInput) as info:
        mem.record_many([item])
    assert said in info.value.message
    assert mem.stats().events == 0


def test_a_bad_item_in_a_batch_writes_nothing_of_the_batch(mem):
    with pytest.raises(InvalidInput) as info:
        mem.record_many([{"content": "fine"}, {"content": "also fine", "scope": "nope"}])
    assert info.value.field == "[1].scope"
    assert mem.stats().events == 0



def test_a_bulk_write_pauses_the_garbage_collector_only_while_it_runs(mem, monkeypatch):
    import gc

    from graphmem import memory

    seen = []
    write = mem.store.write
    monkeypatch.setattr(mem.store, "write", lambda batch: seen.append(gc.isenabled()) or write(batch))
    items = [{"content": f"note {i}"} for i in range(memory.BULK_GC_PAUSE + 1)]
    mem.record_many(items[1:])
    mem.record_many(items[:1])
    assert seen == [False, True] and gc.isenabled()  # paused for the batch, not for one item
    assert mem.stats().events == len(items)
    with pytest.raises(InvalidInput):
        mem.record_many([*items, {"content": "x", "scope": "nope"}])
    assert gc.isenabled()  # a failed batch resumes it too
    gc.disable()
    try:
        mem.record_many([{"content": f"more {i}"} for i in range(memory.BULK_GC_PAUSE)])
        assert not gc.isenabled()  # a collector paused by its owner stays paused
    finally:
        gc.enable()


def test_times_read_once_are_kept_but_bounded_and_a_bad_time_always_names_its_field(mem, monkeypatch):
    from graphmem import memory

    monkeypatch.setattr(memory, "TIMES_READ_KEPT", 2)
    texts = ["2025-11-27", "Nov 2025", "2024", "2025-11-27"]
    assert [str(mem.parse_time(t)) for t in texts] == ["2025-11-27", "2025-11", "2024", "2025-11-27"]
    assert len(mem._times_read) <= 2
    for times in ({"occurred_at": "soonish"}, {"occurred_at": "2025-11-27", "occurred_end": "soonish"}):
        with pytest.raises(MalformedTime) as info:
            mem.record(content="x", **times)
        assert info.value.field == list(times)[-1]

def test_states_attached_to_events_use_the_event_as_evidence(mem):
    [r] = mem.record_many([{
        "content": "Aiko joined Globex.", "occurred_at": "2025-12-01", "source": {"system": "log", "ref": "a.md#L2"},
        "states": [{"subject": "Aiko", "predicate": "works_at", "object": "Globex", "valid_from": "2025-12"}],
    }])
    [s] = mem.as_of("2026").states("Aiko")
    assert s.evidence[0].event_id == r.id and s.evidence[0].source.ref == "a.md#L2"


def test_a_batch_restating_one_fact_many_times_keeps_all_its_evidence(mem):
    # more evidence and revisions in one write than go row by row (they go in bulk) beside a few new states
    from graphmem.store.kuzu_store import COPY_THRESHOLD

    n = COPY_THRESHOLD + 10
    items = [{"content": f"Aiko works at Globex (note {i}).", "occurred_at": f"2025-12-01T{i // 60:02d}:{i % 60:02d}:00Z",
              "states": [{"subject": "Aiko", "predicate": "works_at", "object": "Globex", "valid_from": "2025-12"},
                         {"subject": f"Lab {i % 3}", "predicate": "located_in", "object": "Osaka"}]}
             for i in range(n)]
    recorded = mem.record_many(items)
    [s] = mem.as_of("2026").states("Aiko")
    assert sorted(e.event_id for e in s.evidence) == sorted(r.id for r in recorded)
    assert sorted(r.action.value for r in mem.revisions(s.id)) == ["assert"] + ["confirm"] * (n - 1)
    assert s.last_confirmed_at == max(r.at for r in mem.revisions(s.id))
    assert {x.subject for x in mem.as_of("2026").states(predicate="located_in")} == {"Lab 0", "Lab 1", "Lab 2"}


def test_privacy_guard(mem):
    dropped = mem.record(content="do not keep this", privacy=["no_mem"])
    assert dropped.status == "dropped" and dropped.id is None and mem.stats().events == 0
    with pytest.raises(PrivacyRefused) as info:
        mem.record(content="the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123")
    assert info.value.field == "content" and "redact" in info.value.message
    masked = mem.record(content="key sk-proj-abcdefghijklmnopqrstuvwxyz0123", privacy=["redact"])
    assert "sk-proj" not in mem.get([masked.id])[0].content and masked.redactions == ("api_key",)
    pii = mem.record(content="mail peter@example.com about it")
    assert mem.get([pii.id])[0].content == "mail [REDACTED:email] about it"


def test_private_items_are_excluded_unless_asked(mem):
    ev = mem.record(content="Aiko is interviewing elsewhere.", privacy=["private"], entities=["Aiko"])
    mem.assert_state("Aiko", "status", "interviewing", valid_from="2025-11", private=True, evidence=[ev.id])
    assert mem.as_of("2026").states("Aiko") == []
    assert objects(mem.as_of("2026").states("Aiko", include_private=True)) == ["interviewing"]
    assert mem.entity("Aiko").recent_events == []
    assert len(mem.entity("Aiko", include_private=True).recent_events) == 1


def test_a_memory_that_fails_to_open_lets_its_database_go(tmp_path, monkeypatch):
    """A failure while a memory opens (its search index catching up) is raised, and the database is closed:
    opened again, it opens; nothing is left to close at exit."""
    path = tmp_path / "m.kuzu"
    with Memory.open(path, extract=False, embedder="none") as mem:
        mem.record(content="Peter moved to Lisbon.", occurred_at="2025-11-27")

    def failing(self: Memory) -> None:
        raise StoreError("the page cache is full")

    with monkeypatch.context() as patched:
        patched.setattr(Memory, "_catch_up", failing)
        with pytest.raises(StoreError, match="page cache"):
            Memory.open(path, extract=False, embedder="none")
    assert not memory_module._OPEN
    with Memory.open(path, extract=False, embedder="none") as mem:
        assert mem.stats().events == 1


def test_define_predicate_persists_across_reopen(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path) as mem:
        mem.define_predicate("capital_of", cardinality="one")
        mem.assert_state("Bonn", "capital_of", "West Germany", valid_from="1949", valid_to="1990")
    with Memory.open(path) as mem:
        assert mem.ontology.predicate("capital_of").single_valued
        assert objects(mem.as_of("1970").states("Bonn")) == ["West Germany"]


def test_aliases_resolve_to_one_entity(mem):
    mem.assert_state("New York City", "located_in", "USA")
    mem.add_alias("New York City", "NYC")
    assert mem.entity("nyc").entity.name == "New York City"
    assert mem.resolve_entity("@New York City") == mem.resolve_entity("NYC")
    mem.assert_state("Zoë", "lives_in", "NYC", valid_from="2024")
    [s] = mem.as_of("2025").states("zoe")
    assert s.object == "New York City"
    with pytest.raises(NotFound):
        mem.entity("Gotham")


def test_a_name_said_to_be_another_name_of_someone_is_their_alias(mem):
    mem.record(content="Peter Smith, also known as Pete, joined Acme.", occurred_at="2025-11-01")
    mem.record(content="Pete moved to Lisbon last week.", occurred_at="2025-11-27")
    page = mem.entity("Pete")
    assert (page.entity.name, page.entity.aliases) == ("Peter Smith", ("Pete",))
    assert {(s.predicate, s.object) for s in mem.as_of("2025-11-30").states("Peter Smith")} == {
        ("works_at", "Acme"), ("lives_in", "Lisbon")}
    # a name another entity holds stays that one's: two entities become one only by a merge
    mem.record(content="Anna Lee moved to Porto.", occurred_at="2025-11-01")
    mem.record(content="Robert Lee, also known as Anna Lee, joined Globex.", occurred_at="2025-11-02")
    assert mem.resolve_entity("Anna Lee") == "anna-lee"
    assert mem.entity("Robert Lee").entity.aliases == ()
    mem.record(content="Call me Sam.", occurred_at="2025-11-03", tags=["speaker:user"])
    assert mem.resolve_entity("Sam") == mem.resolve_entity("user")
    # entities are shared: a private note, or one of another scope, gives no other name to all readers
    mem.record(content="Kim Park, also known as Kimmy, joined Acme.", privacy=["private"])
    mem.record(content="Lee Wong, also known as Leo, joined Acme.", scope="project:apollo")
    assert mem.entity("Kim Park").entity.aliases == mem.entity("Lee Wong").entity.aliases == ()


def test_a_past_state_said_with_its_period_holds_over_it(mem):
    mem.record(content="Peter moved to Paris in 2012.", occurred_at="2012-06-01")
    mem.record(content="Peter lived in Paris until 2019.", occurred_at="2025-11-01")  # (ends what is held)
    mem.record(content="Peter lived in Berlin from 2019 to 2023.", occurred_at="2025-11-02")
    mem.record(content="Peter worked at Acme between 2015 and 2018.", occurred_at="2025-11-03")
    mem.record(content="Peter worked at Globex.", occurred_at="2025-11-04")  # (when: not said)
    assert [(s.object, str(s.valid_from), str(s.valid_to)) for s in mem.timeline("Peter", "lives_in")] == [
        ("Paris", "2012", "2019"), ("Berlin", "2019", "2024")]
    assert {s.object for s in mem.as_of("2017").states("Peter")} == {"Paris", "Acme"}
    assert {s.object for s in mem.as_of("2021").states("Peter")} == {"Berlin"}
    assert mem.as_of("2025-11-30").states("Peter") == []


def test_the_user_of_an_agents_notes_is_who_says_the_users_messages(mem):
    mem.record(content="The user moved to Denver last month.", occurred_at="2025-11-27", agent_id="claude")
    mem.record(content="I love hiking.", occurred_at="2025-11-28", tags=["speaker:user"])
    mem.record(content="Drop the user table before the migration.", occurred_at="2025-11-28")
    assert {(s.predicate, s.object) for s in mem.as_of("2025-11-30").states("user")} == {
        ("lives_in", "Denver"), ("likes", "hiking")}
    assert mem.stats().entities == 3  # (user, Denver, hiking)


def test_timezone_is_applied_to_naive_input():
    with Memory.in_memory(timezone="Asia/Tokyo") as mem:
        ev = mem.record(content="x", occurred_at="2025-11-27T09:00")
        assert mem.get([ev.id])[0].occurred_at.at == dt.datetime(2025, 11, 27, 0, 0, tzinfo=dt.UTC)
    with pytest.raises(InvalidInput) as info:
        Memory.in_memory(timezone="Mars/Olympus")
    assert info.value.field == "timezone"


def test_two_open_starts_the_later_replaces_the_earlier(mem):
    first = mem.assert_state("Ann", "lives_in", "Oslo")
    mem.assert_state("Ann", "lives_in", "Rome")
    assert objects(mem.as_of("2000").states("Ann")) == ["Rome"]
    assert mem.state(first.id).status is StateStatus.SUPERSEDED


def test_events_without_a_time_are_idempotent_too(mem):
    a = mem.record(content="no time given")
    b = mem.record(content="no time given")
    assert b.status == "duplicate" and a.id == b.id


def test_an_entity_first_seen_untyped_takes_the_type_a_predicate_gives_it():
    mem = Memory.in_memory(extract=False)
    mem.record(content="Sam said hi.", entities=["Sam", "Acme"], occurred_at="2025-10-01")
    assert mem.entity("Sam").entity.type == "concept"
    mem.assert_state(subject="Sam", predicate="works_at", object="Acme", valid_from="2025-10-01")
    assert (mem.entity("Sam").entity.type, mem.entity("Acme").entity.type) == ("person", "org")
    mem.assert_state(subject="Sam", predicate="lives_in", object="Acme", valid_from="2025-10-01")
    assert mem.entity("Acme").entity.type == "org"  # a typed entity keeps its type


def test_a_name_guessed_to_be_a_person_takes_the_type_a_stated_predicate_gives_it():
    mem = Memory.in_memory(embedder="none")
    mem.record(content="Tom met Initech people at the fair.", occurred_at="2025-11-02")
    assert mem.entity("Initech").entity.type == "person"  # a capitalised word, no better clue yet
    mem.assert_state(subject="Aiko", predicate="works_at", object="Initech", valid_from="2025-12")
    assert mem.entity("Initech").entity.type == "org"
    mem.assert_state(subject="Tom", predicate="lives_in", object="Lisbon", valid_from="2025")
    mem.assert_state(subject="Mia", predicate="works_at", object="Tom", valid_from="2025")
    assert mem.entity("Tom").entity.type == "person"  # something is said of Tom as a person: he stays one


def test_after_a_few_writes_every_name_and_thread_key_is_known_without_a_lookup(tmp_path, monkeypatch):
    from graphmem import memory as memory_module

    monkeypatch.setattr(memory_module, "READ_KEYS_AFTER", 3)
    with Memory.open(tmp_path / "m.kuzu", extract=False) as mem:
        mem.record_many([{"content": f"note {i}", "entities": [f"Person {i}"], "thread": f"t{i}"}
                         for i in range(50)])
        for i in range(3):
            mem.record(content=f"more {i}", entities=["Person 0"], thread="t0")
        monkeypatch.setattr(mem.store, "entity_ids_for_keys", lambda keys: pytest.fail(f"looked up {keys}"))
        monkeypatch.setattr(mem.store, "known_thread_keys", lambda keys: pytest.fail(f"looked up {keys}"))
        ev = mem.record(content="last", entities=["Person 42"], thread="t17")
        monkeypatch.undo()
        assert mem.entity("Person 42").recent_events[0].id == ev.id
        assert mem.thread("t17") is not None


def test_a_bulk_write_of_states_reads_the_stored_entities_it_retypes_at_once(tmp_path, monkeypatch):
    with Memory.open(tmp_path / "m.kuzu", extract=False) as mem:
        mem.record_many([{"content": f"note {i}", "entities": [f"person {i}", "Acme"]} for i in range(300)])
        mem.assert_states([StateInput(subject="Ann", predicate="likes", object="tea")])  # (a write between)
        reads: list[int] = []
        entities = mem.store.entities
        monkeypatch.setattr(mem.store, "entities", lambda ids: reads.append(len(ids)) or entities(ids))
        moves = [StateInput(subject=f"person {i}", predicate="lives_in", object=f"city {i % 3}",
                            valid_from="2024") for i in range(300)]
        mem.assert_states([*moves, StateInput(subject="person 7", predicate="works_at", object="Acme",
                                              valid_from="2025")])
        monkeypatch.undo()
        assert len(reads) <= 3 and sum(reads) >= 301, reads
        assert mem.entity("person 299").entity.type == "person" and mem.entity("Acme").entity.type == "org"
        assert [s.object for s in mem.as_of("2025").states(subject="person 7")] == ["city 1", "Acme"]


def test_a_bulk_write_hands_the_memory_it_freed_back_to_the_system(monkeypatch):
    from graphmem import allocator, memory

    released: list[bool] = []
    monkeypatch.setattr(allocator, "release", lambda: released.append(True))
    with Memory.in_memory(extract=False, embedder="none") as mem:
        mem.record_many([{"content": f"note {i}", "occurred_at": "2025-11-27"} for i in range(10)])
        assert released == []  # a small write: not worth a pass over the allocator
        mem.record_many([{"content": f"note {i}", "occurred_at": "2025-11-27"} for i in range(memory.BULK_RELEASE)])
        assert released == [True]


def test_a_bulk_write_holding_stored_events_reports_them_as_duplicates_and_writes_the_rest():
    with Memory.in_memory(extract=False, embedder="none") as mem:
        first = mem.record_many([{"content": f"note {i}", "occurred_at": "2025-11-27"} for i in range(10)])
        # large enough that the events go by COPY, which refuses the batch when one is stored already
        again = mem.record_many([{"content": f"note {i}", "occurred_at": "2025-11-27"} for i in range(1000)])
        assert [r.status for r in again[:10]] == ["duplicate"] * 10
        assert [r.id for r in again[:10]] == [r.id for r in first]
        assert {r.status for r in again[10:]} == {"created"}
        assert mem.stats().events == 1000


def test_reindexes_called_at_once_each_return_and_the_index_holds_every_event(tmp_path):
    """A reindex waits for the vectors of the index it built; another reindex closed that index meanwhile, and
    the wait never returned (three at once hung the process)."""
    import threading

    with Memory.open(tmp_path / "m.kuzu", extract=False) as mem:
        mem.record_many([{"content": f"note {i} about the launch", "occurred_at": "2025-11-27"}
                         for i in range(3_000)])
        statuses: list = []
        threads = [threading.Thread(target=lambda: statuses.append(mem.reindex()), daemon=True)
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
        assert len(statuses) == 3
        status = mem.index_status()  # the last rebuild waited for every vector of its index
        assert (status.documents, status.vectors, status.lag) == (3_000, 3_000, 0)


def test_a_tie_both_have_is_read_from_either_side(mem):
    """A mutual predicate (its own inverse: married_to, partner_of, knows, family_of) says the same of both:
    "Anna married_to Peter" is Peter's married_to Anna too, in his states as of a time, during one and in his
    timeline, with what she is to him; said both ways, it is one; a predicate of one side is not read so."""
    mem.assert_states([StateInput(subject="Anna", predicate="married_to", object="Peter",
                                  valid_from="2019-06", payload={"title": "wife"})])
    mem.assert_state(subject="Anna", predicate="lives_in", object="Lisbon", valid_from="2020")
    [tie] = mem.as_of("2025-01").states(subject="Peter")
    assert (tie.subject, tie.predicate, tie.object, tie.payload) == ("Peter", "married_to", "Anna",
                                                                     {"object_title": "wife"})
    assert tie.id == mem.as_of("2025-01").states(subject="Anna", predicate="married_to")[0].id
    assert mem.as_of("2018").states(subject="Peter") == []
    assert [s.object for s in mem.during("2019").states(subject="Peter", predicate="married_to")] == ["Anna"]
    assert [(s.subject, s.object) for s in mem.timeline("Peter")] == [("Peter", "Anna")]
    assert mem.as_of("2025-01").states(subject="Peter", predicate="lives_in") == []
    mem.assert_state(subject="Peter", predicate="married_to", object="Anna", valid_from="2019-06")
    now = mem.as_of("2025-01")
    assert [(s.subject, s.object) for s in now.states(subject="Peter")] == [("Peter", "Anna")]
    assert [(s.subject, s.object) for s in now.states(subject="Anna", predicate="married_to")] == [
        ("Anna", "Peter")]


def test_a_tie_of_one_at_a_time_holds_while_it_is_the_last_begun_of_both(mem):
    """"Anna is dating Tom" (her state), then "Tom is dating Lisa" (his): as of later, Tom dates Lisa and
    Anna no one; what held over a period, and his timeline, still show Anna too; a tie of many (knows) shows
    all. The later begun wins from either side, and a tie said from both sides began when the later said."""
    mem.assert_state(subject="Anna", predicate="partner_of", object="Tom", valid_from="2025-01")
    mem.assert_state(subject="Tom", predicate="partner_of", object="Lisa", valid_from="2025-06")
    mem.assert_state(subject="Kim", predicate="knows", object="Tom", valid_from="2025-01")
    mem.assert_state(subject="Tom", predicate="knows", object="Bo", valid_from="2025-06")

    def dates(who: str, when: str = "2025-08") -> list[str]:
        return [s.object for s in mem.as_of(when).states(subject=who, predicate="partner_of")]

    assert (dates("Tom"), dates("Anna"), dates("Lisa")) == (["Lisa"], [], ["Tom"])
    later = mem.as_of("2025-08")
    assert sorted(s.object for s in later.states(subject="Tom", predicate="knows")) == ["Bo", "Kim"]
    assert [s.predicate for s in later.states(subject="Anna")] == []
    march = [dates(who, "2025-03") for who in ("Tom", "Anna", "Lisa")]
    assert march == [["Anna"], ["Tom"], []]
    assert sorted(s.object for s in mem.during("2025").states(subject="Tom", predicate="partner_of")) == [
        "Anna", "Lisa"]
    assert [s.object for s in mem.during("2025").states(subject="Anna", predicate="partner_of")] == ["Tom"]
    assert [s.object for s in mem.timeline("Tom", "partner_of")] == ["Anna", "Lisa"]
    # one's own said first yields to a later one told of the other: Bo dates Eva
    mem.assert_state(subject="Kim", predicate="partner_of", object="Bo", valid_from="2020")
    mem.assert_state(subject="Eva", predicate="partner_of", object="Bo", valid_from="2025-02")
    assert (dates("Bo"), dates("Kim"), dates("Eva")) == (["Eva"], [], ["Bo"])
    # said from both sides: from the later of the two (Max's, March), after Leo's (February)
    mem.assert_state(subject="Ida", predicate="partner_of", object="Max", valid_from="2024-01")
    mem.assert_state(subject="Leo", predicate="partner_of", object="Ida", valid_from="2025-02")
    mem.assert_state(subject="Max", predicate="partner_of", object="Ida", valid_from="2025-03")
    assert (dates("Ida"), dates("Max"), dates("Leo")) == (["Max"], ["Ida"], [])
    assert (dates("Ida", "2025-02-15"), dates("Leo", "2025-02-15")) == (["Leo"], ["Ida"])


def test_a_tie_both_have_is_ended_from_either_side(mem):
    """A close of a mutual tie ends it as memory holds it, from either side: "Tom broke up with Anna in May"
    ends Anna's "dating Tom"; said again, it ends nothing more (no tie of Tom's that held until May)."""
    mem.record(content="Anna is dating Tom.", occurred_at="2025-01-10")
    mem.record(content="Tom broke up with Anna in May.", occurred_at="2025-06-10")
    mem.record(content="Tom broke up with Anna in May, as I said.", occurred_at="2025-06-12")
    for who in ("Anna", "Tom"):
        assert mem.as_of("2025-08").states(subject=who, predicate="partner_of") == []
        [tie] = mem.timeline(who, "partner_of")
        assert (str(tie.valid.start.at.date()), str(tie.valid.end.at.date())) == ("2025-01-10", "2025-05-01")
    assert mem.as_of("2025-04").states(subject="Tom")[0].object == "Anna"
    [closed] = mem.assert_states([StateInput(subject="Anna", predicate="partner_of", object="Tom",
                                             valid_from="2025-06-01")])
    [ended] = mem.assert_states([StateInput(subject="Tom", predicate="partner_of", object="Anna",
                                            valid_to="2025-07-01", action="close")])
    assert ended.id == closed.id and ended.valid.end.at.month == 7


def test_an_unnamed_close_ends_a_tie_held_from_the_other_side(mem):
    """"I got divorced last year" ends the marriage memory holds as "Tom married Maria"; a private note's
    close does not end a public tie."""
    mem.record(content="Tom married Maria in 2019.", occurred_at="2020-01-10")
    mem.record(content="Maria: I got divorced last year.", occurred_at="2025-06-10", privacy=["private"])
    assert [s.object for s in mem.as_of("2025-07").states(subject="Maria")] == ["Tom"]
    mem.record(content="Maria: I got divorced last year.", occurred_at="2025-06-10")
    for who in ("Maria", "Tom"):
        [tie] = mem.timeline(who, "married_to")
        assert (tie.valid.start.at.year, tie.valid.end.at.year) == (2019, 2024)


def test_marrying_ends_dating(mem):
    """A marriage said to hold from a time ends the two's dating then, whichever side said it; a title
    ("my husband Tom") ends nothing (since when, unsaid)."""
    mem.record(content="Maria: My boyfriend Tom and I moved to Lisbon.", occurred_at="2024-01-10")
    mem.record(content="Maria: My husband Tom cooked dinner.", occurred_at="2025-05-10")
    dating = mem.as_of("2025-05-11").states(subject="Tom", predicate="partner_of")
    assert [s.object for s in dating] == ["Maria"]
    mem.record(content="Maria: Tom and I got married in June!", occurred_at="2025-07-10")
    for who, other in (("Maria", "Tom"), ("Tom", "Maria")):
        now = mem.as_of("2025-08")
        assert [s.object for s in now.states(subject=who, predicate="married_to")] == [other]
        assert now.states(subject=who, predicate="partner_of") == []
        before = mem.as_of("2025-05-31").states(subject=who, predicate="partner_of")
        assert [s.object for s in before] == [other]
    mem.record(content="Kim and Leo got married in 2019.", occurred_at="2025-07-10")  # (no dating to end)
    assert mem.timeline("Kim", "partner_of") == []


def test_a_former_title_ends_the_tie_by_then(mem):
    """"My ex-husband Tom" says the marriage is over by the line's time (since when, unsaid): it ends then,
    from whichever side memory holds it; with none held, nothing is written."""
    mem.record(content="Maria: My husband Tom cooked dinner.", occurred_at="2024-02-10")
    mem.record(content="Maria: My ex-husband Tom moved to Rome.", occurred_at="2025-09-01")
    [tie] = mem.timeline("Tom", "married_to")
    assert (str(tie.valid.start.at.date()), str(tie.valid.end.at.date())) == ("2024-02-10", "2025-09-01")
    assert [s.predicate for s in mem.as_of("2025-10").states(subject="Tom")] == ["lives_in"]
    mem.record(content="Kim: My ex-girlfriend Jo called.", occurred_at="2025-09-01")
    assert mem.timeline("Jo", "partner_of") == [] and mem.timeline("Kim", "partner_of") == []


def test_words_that_fit_a_marriage_and_a_dating_end_the_tie_memory_holds(mem):
    """"Tom and I split up" ends a dating or a marriage, whichever memory holds between the two, from either
    side, and states no other held before it; with none held, a dating held until then; "my ex Tom" ends
    either by the line's time, and nothing when none is held; "Bo dumped me", said by Eva, ends hers."""
    mem.record(content="Maria: I'm dating Tom.", occurred_at="2024-05-01")
    mem.record(content="Leo married Anna in 2020.", occurred_at="2020-06-01")
    mem.record(content="Maria: Tom and I split up last month.", occurred_at="2025-03-12")
    mem.record(content="Anna: Leo and I split up last month.", occurred_at="2025-03-12")
    mem.record(content="Lisa: Max and I split up last month.", occurred_at="2025-03-12")
    for who, ended in (("Maria", "partner_of"), ("Anna", "married_to"), ("Lisa", "partner_of")):
        [tie] = mem.timeline(who)
        assert (tie.predicate, str(tie.valid.end.at.date())) == (ended, "2025-02-01")
    mem.record(content="Maria: Tom and I got back together in June.", occurred_at="2025-07-01")
    again = [(str(s.valid.start.at.date()), s.valid.end) for s in mem.timeline("Maria")]
    assert again[1:] == [("2025-06-01", None)]  # (a dating of its own, after the gap)
    mem.record(content="Kim: My husband Jon cooked.", occurred_at="2024-01-10")
    mem.record(content="Ola: I'm dating Ben.", occurred_at="2024-01-10")
    for who in ("Kim", "Ola"):
        ex = "Jon" if who == "Kim" else "Ben"
        mem.record(content=f"{who}: My ex {ex} called.", occurred_at="2025-09-01")
        [tie] = mem.timeline(who)
        assert str(tie.valid.end.at.date()) == "2025-09-01"
    mem.record(content="Eva: My ex Bo called.", occurred_at="2025-09-01")
    assert mem.timeline("Eva") == []
    mem.record(content="Eva: Bo married me in 2020.", occurred_at="2025-09-02")  # ("me": who says the line)
    mem.record(content="Eva: Bo dumped me in May.", occurred_at="2025-09-02")
    [tie] = mem.timeline("Eva")
    said = (tie.predicate, tie.object, tie.valid.start.at.year, tie.valid.end.at.month)
    assert said == ("married_to", "Bo", 2020, 5)


def test_the_objects_of_mutual_ties_are_known_after_each_write_merge_and_reopen(tmp_path):
    """What tells a read whether an entity is the object of a mutual tie may name more than hold one, never
    fewer: ties written after it was read, an entity merged into another, a memory opened again."""
    path = str(tmp_path / "m.kuzu")
    with Memory.open(path, extract=False, embedder="none") as mem:
        mutual = mem.ontology.mutual_predicates
        assert mem.store.objects_of(mutual) == set()
        mem.assert_state(subject="Anna", predicate="married_to", object="Peter", valid_from="2019")
        mem.assert_state(subject="Anna", predicate="lives_in", object="Lisbon", valid_from="2019")
        assert mem.store.objects_of(mutual) == {mem.resolve_entity("Peter")}
        mem.assert_state(subject="Kim", predicate="knows", object="Pete", valid_from="2020")
        mem.merge_entities("Peter", "Pete")
        assert mem.resolve_entity("Peter") in mem.store.objects_of(mutual)
        assert {s.object for s in mem.timeline("Peter")} == {"Anna", "Kim"}
    with Memory.open(path, extract=False, embedder="none") as mem:
        assert {s.object for s in mem.as_of("2021").states(subject="Peter")} == {"Anna", "Kim"}
        assert mem.as_of("2021").states(subject="Lisbon") == []
