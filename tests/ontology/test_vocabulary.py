import pytest

from graphmem import OntologyError, UnknownPredicate
from graphmem.ontology import Cardinality, Predicate, load_ontology


def test_core_vocabulary_has_what_the_design_names():
    o = load_ontology()
    assert o.predicate("lives_in").cardinality is Cardinality.ONE
    assert o.predicate("likes").cardinality is Cardinality.MANY
    assert {"fact", "relation", "task", "summary", "preference", "opinion", "mood"} <= set(o.state_kinds)
    assert {"reply_to", "same_topic", "caused_by", "continuation"} <= set(o.link_labels)
    assert {"world", "experience", "opinion", "observation", "decision", "config", "constraint", "workflow",
            "fact", "bug", "todo", "log", "deprecation"} <= set(o.event_kinds)
    assert {"person", "org", "place", "project", "tool", "concept"} == set(o.entity_types)


def test_unknown_predicate_lists_the_known_ones_and_the_fix():
    with pytest.raises(UnknownPredicate) as info:
        load_ontology().predicate("lives_at")
    assert "lives_in" in info.value.message and "ontology" in info.value.message
    assert info.value.code == "unknown_predicate" and info.value.field == "predicate"


def test_a_user_file_is_merged_over_the_core(tmp_path):
    own = tmp_path / "mine.yaml"
    own.write_text("predicates:\n  capital_of: {cardinality: one, object: entity}\n  likes: {cardinality: one}\n")
    o = load_ontology([own])
    assert o.predicate("capital_of").single_valued
    assert o.predicate("likes").cardinality is Cardinality.ONE
    assert o.predicate("lives_in")


def test_a_broken_user_file_says_where(tmp_path):
    own = tmp_path / "bad.yaml"
    own.write_text("predicates:\n  capital_of: {cardinality: sometimes}\n")
    with pytest.raises(OntologyError) as info:
        load_ontology([own])
    assert "capital_of" in info.value.field


def test_with_predicate_refuses_an_unknown_state_kind():
    with pytest.raises(OntologyError):
        load_ontology().with_predicate(Predicate(name="x", cardinality=Cardinality.ONE, kind="vibe"))


def test_a_predicate_added_as_its_own_inverse_says_the_same_of_both_sides():
    o = load_ontology()
    assert {"married_to", "partner_of", "knows", "family_of"} == o.mutual_predicates
    extended = o.with_predicate(Predicate(name="neighbour_of", cardinality=Cardinality.MANY, kind="relation",
                                          object="entity", inverse="neighbour_of"))
    assert "neighbour_of" in extended.mutual_predicates and "neighbour_of" not in o.mutual_predicates
