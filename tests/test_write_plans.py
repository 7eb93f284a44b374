"""Write plans: an agent's structured updates for one event, validated whole and applied in one transaction."""

import pytest

from graphmem.errors import InvalidInput, NotFound
from graphmem.ontology import Granularity, StateStatus


@pytest.fixture
def event(mem):
    return mem.record(content="Had ramen with Mika after the Acme offsite; I really love ramen.",
                      occurred_at="2026-01-10T14:06:59", agent_id="aiko")


def _update(event_id, **kw):
    return {"kind": "fact", "op": "upsert", "evidence_event_ids": [event_id], "reason": "said so", **kw}


def test_a_full_plan_applies_every_part(mem, event):
    earlier = mem.record(content="Planned the offsite.", occurred_at="2026-01-09")
    result = mem.apply_write_plan(event.id, {
        "event_annotations": {"about_year_start": 2019, "about_year_end": 2021, "life_stage": "university",
                              "about_time_confidence": 0.7, "entities": [{"type": "person", "name": "Mika"}]},
        "state_updates": [
            _update(event.id, body_text="Mika works at Acme", subject="Mika", predicate="works_at", object="Acme",
                    entities=[{"type": "person", "name": "Mika"}], payload={"source": "dinner"}),
            _update(event.id, kind="task", body_text="send Mika the photos"),
            _update(event.id, kind="long_mood_state", body_text="content and rested"),
        ],
        "preference_updates": [{"op": "confirm", "domain": "food", "polarity": "like", "subject": "ramen",
                                "evidence_event_ids": [event.id], "reason": "said they love ramen"}],
        "event_affect": {"moment_affect_text": "warm", "moment_affect_labels": ["joy"],
                         "moment_affect_score_vad": {"v": 0.7, "a": 0.2, "d": 0.3}, "moment_affect_confidence": 0.8},
        "context_updates": {"threads": [{"thread_key": "dinners", "confidence": 0.6}],
                            "links": [{"to_event_id": earlier.id, "label": "continuation"}]},
    })
    works, todo, mood = result.states
    assert (works.subject, works.predicate, works.object, works.payload) == ("Mika", "works_at", "Acme",
                                                                              {"source": "dinner"})
    assert works.valid.start.at.isoformat() == "2026-01-10T14:06:59+00:00"
    assert (todo.subject, todo.predicate, todo.object) == ("aiko", "todo", "send Mika the photos")
    assert (mood.predicate, mood.kind) == ("feels", "mood")
    assert [(p.predicate, p.object, p.status) for p in result.preferences] == [("likes", "ramen", StateStatus.ACTIVE)]
    assert result.threads == ["dinners"] and result.links == [("continuation", earlier.id)]
    annotation = mem.annotation(event.id)
    assert annotation.about.start.granularity is Granularity.YEAR
    assert (annotation.about.start.at.year, annotation.about.end.at.year) == (2019, 2022)
    assert annotation.life_stage == "university" and annotation.affect.valence == 0.7
    assert [e.id for e in mem.events(thread="dinners")] == [event.id]
    assert "mika" in mem.store.mentions([event.id])[event.id]
    assert mem.store.about([works.id])[works.id] == ["mika"]
    assert [s.object for s in mem.as_of("2026-02").states(subject="Mika")] == ["Acme"]


def test_close_and_mark_done_by_text_or_by_id(mem, event):
    first = mem.apply_write_plan(event.id, {"state_updates": [_update(event.id, kind="task", body_text="book a table"),
                                                              _update(event.id, body_text="Mika is in Osaka")]})
    task, fact = first.states
    later = mem.record(content="Booked it; Mika left Osaka.", occurred_at="2026-01-12", agent_id="aiko")
    done = mem.apply_write_plan(later.id, {"state_updates": [
        {"kind": "task", "op": "mark_done", "body_text": "book a table", "evidence_event_ids": [later.id],
         "reason": "booked"},
        {"kind": "fact", "op": "close", "state_id": fact.id, "valid_to_ts": "2026-01-11",
         "evidence_event_ids": [later.id], "reason": "left"},
    ]})
    assert [s.status for s in done.states] == [StateStatus.DONE, StateStatus.CLOSED]
    assert done.states[0].id == task.id and done.states[0].valid.end.at.date().isoformat() == "2026-01-12"
    assert done.states[1].valid.end.at.date().isoformat() == "2026-01-11"
    assert [r.action.value for r in mem.revisions(task.id)] == ["assert", "mark_done"]


def test_a_malformed_plan_is_rejected_whole_naming_every_bad_field(mem, event):
    before = mem.stats()
    with pytest.raises(InvalidInput) as err:
        mem.apply_write_plan(event.id, {
            "state_updates": [_update(event.id, body_text="ok"),
                              {"kind": "fact", "op": "upsert", "body_text": "x", "evidence_event_ids": [], "reason": ""},
                              {"kind": "wish", "op": "upsert", "body_text": "x", "evidence_event_ids": [1],
                               "reason": "r"}],
            "event_affect": {"moment_affect_score_vad": {"v": 2, "a": 0, "d": 0}},
            "surprise": True,
        })
    fields = {p["field"] for p in err.value.problems}
    assert {"state_updates.1.evidence_event_ids", "state_updates.1.reason", "state_updates.2.kind",
            "event_affect.moment_affect_score_vad.v", "surprise"} <= fields
    assert "nothing written" in str(err.value)
    assert mem.stats() == before


def test_a_plan_naming_unknown_things_is_rejected_whole(mem, event):
    before = mem.stats()
    with pytest.raises(InvalidInput) as err:
        mem.apply_write_plan(event.id, {
            "state_updates": [_update(event.id, body_text="fine"),
                              _update("ev_missing", body_text="y", valid_from_ts="not a time"),
                              {"kind": "fact", "op": "close", "state_id": "st_missing",
                               "evidence_event_ids": [event.id], "reason": "r"},
                              _update(event.id, body_text="z", predicate="no_such_predicate")],
            "preference_updates": [{"op": "confirm", "domain": "cars", "polarity": "like", "subject": "x",
                                    "evidence_event_ids": [event.id], "reason": "r"}],
            "context_updates": {"links": [{"to_event_id": event.id, "label": "rhymes_with"}]},
            "event_annotations": {"entities": [{"type": "spaceship", "name": "Enterprise"}]},
        })
    fields = {p["field"] for p in err.value.problems}
    assert fields == {"state_updates.1.valid_from_ts", "state_updates.1.evidence_event_ids",
                      "state_updates.2.state_id", "state_updates.3.predicate", "preference_updates.0.domain",
                      "context_updates.links.0.label", "event_annotations.entities.0.type"}
    assert mem.stats() == before
    with pytest.raises(NotFound):
        mem.apply_write_plan("ev_missing", {})


def test_a_plan_changes_only_states_of_its_events_scope_and_privacy(mem, event):
    """A plan, like a write of states, never changes another timeline: a state it names by id in another
    scope, or of the other privacy, is refused naming the field, and nothing is written."""
    project = mem.assert_state("Aiko", "works_at", "Acme", valid_from="2025", scope="project:hermes")
    hidden = mem.assert_state("Aiko", "lives_in", "Kyoto", valid_from="2025", private=True)
    public = mem.assert_state("Aiko", "lives_in", "Osaka", valid_from="2025")
    note = mem.record(content="Aiko moved.", occurred_at="2026-01-11", privacy=["private"])
    before = mem.stats()
    for at, state, op in ((event, project, "close"), (event, hidden, "mark_done"), (note, public, "upsert")):
        with pytest.raises(InvalidInput) as err:
            mem.apply_write_plan(at.id, {"state_updates": [{"kind": "fact", "op": op, "state_id": state.id,
                                                            "evidence_event_ids": [at.id], "reason": "r"}]})
        assert err.value.field == "state_updates.0.state_id"
        assert "a plan changes only states" in err.value.message
        assert mem.stats() == before and mem.state(state.id).valid.end is None
    closed = mem.apply_write_plan(note.id, {"state_updates": [  # its own scope and privacy: applied
        {"kind": "fact", "op": "close", "state_id": hidden.id, "evidence_event_ids": [note.id],
         "reason": "r"}]})
    assert closed.states[0].valid.end is not None


def test_a_plan_marks_only_a_task_done(mem, event):
    fact = mem.assert_state("Aiko", "lives_in", "Osaka", valid_from="2025")
    before = mem.stats()
    with pytest.raises(InvalidInput, match="mark_done marks a task done; the state is a fact") as err:
        mem.apply_write_plan(event.id, {"state_updates": [{"kind": "fact", "op": "mark_done",
                                                           "state_id": fact.id, "evidence_event_ids": [event.id],
                                                           "reason": "r"}]})
    assert err.value.field == "state_updates.0.op"
    assert mem.stats() == before and mem.state(fact.id).valid.end is None


def test_a_failure_while_applying_writes_nothing(mem, event):
    before = mem.stats()
    with pytest.raises(InvalidInput) as err:  # the first update is fine; the close finds nothing to close
        mem.apply_write_plan(event.id, {"state_updates": [
            _update(event.id, body_text="a fact"),
            {"kind": "task", "op": "close", "body_text": "never planned", "evidence_event_ids": [event.id],
             "reason": "r"},
        ]})
    assert err.value.field == "state_updates.1.state_id"
    assert mem.stats() == before
