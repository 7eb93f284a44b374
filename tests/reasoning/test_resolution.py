"""The resolution rule: which different names join by themselves, and which are only offered for a merge."""

import datetime as dt

import pytest

from graphmem.ontology import Entity, ResolutionRule
from graphmem.reasoning import NameBlocks, merge_candidates
from graphmem.reasoning.resolution import similarity, skeleton

RULE = ResolutionRule()
T = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def entity(name, type_, *, id_=None, aliases=(), at=T):
    return Entity(id=id_ or name.lower().replace(" ", "-"), name=name, type=type_, aliases=aliases, created_at=at)


@pytest.fixture
def blocks():
    return NameBlocks(RULE, [
        entity("Marrakesh", "place"), entity("Globex Inc", "org"), entity("Project Apollo", "project"),
        entity("Peter Smith", "person"), entity("Austria", "place"), entity("Iran", "place"),
        entity("Initech", "org"), entity("Initrode", "org", aliases=("Initrode Ltd",)),
    ])


@pytest.mark.parametrize("name,type_,expected", [
    ("Marrakech", "place", "marrakesh"),  # one letter off a long name
    ("MARRAKESH", "place", "marrakesh"),  # (the alias table catches this first; the rule agrees)
    ("Globex", "org", "globex-inc"),  # the legal suffix dropped
    ("Globex, Inc.", "org", "globex-inc"),
    ("Project Apolo", "project", "project-apollo"),
    ("Initrode Ltd.", "org", "initrode"),  # through an alias
])
def test_near_names_of_one_type_join(blocks, name, type_, expected):
    assert blocks.join(name, type_) == expected


@pytest.mark.parametrize("name,type_", [
    ("Peter Smyth", "person"),  # people never join by themselves
    ("Marrakech", "org"),  # another type
    ("Marrakech", None),  # no type: a bare mention
    ("Australia", "place"),  # two letters off: another country
    ("Iraq", "place"),  # short names: one letter is a different name
    ("Initek", "org"),  # close to Initech, but below the threshold
    ("Globex Labs", "org"),
])
def test_other_names_stay_apart(blocks, name, type_):
    assert blocks.join(name, type_) is None


def test_names_that_differ_in_a_number_never_join():
    blocks = NameBlocks(RULE, [entity("company 12", "org"), entity("Apollo 11", "project"),
                               entity("Building 7", "place")])
    assert blocks.join("company 13", "org") is None  # 0.9 alike, but another company
    assert blocks.join("Apollo 13", "project") is None
    assert blocks.join("Building 8", "place") is None
    assert blocks.join("Apolo 11", "project") == "apollo-11"  # a typo beside the same number still joins
    assert blocks.join("company 12 Inc", "org") == "company-12"
    pairs = merge_candidates([entity("company 12", "org"), entity("company 13", "org")], RULE)
    assert pairs == []


def test_a_bulk_write_keeps_numbered_names_apart():
    from graphmem import Memory, StateInput

    with Memory.in_memory(extract=False, embedder="none") as mem:
        mem.assert_states([StateInput(subject=f"person {i}", predicate="works_at", object=f"company {10 + i}",
                                      valid_from="2021") for i in range(5)])
        assert [mem.as_of("2022").states(subject=f"person {i}")[0].object for i in range(5)] == [
            f"company {10 + i}" for i in range(5)]


def test_two_equally_close_entities_join_neither():
    blocks = NameBlocks(RULE, [entity("Acme", "org"), entity("ACME Ltd", "org", id_="acme-ltd")])
    assert blocks.join("Acme Inc", "org") is None
    assert blocks.join("Acme", "person") is None


def test_thresholds_come_from_the_rule():
    strict = NameBlocks(ResolutionRule(auto_join=0.95), [entity("Marrakesh", "place")])
    assert strict.join("Marrakech", "place") is None
    nobody = NameBlocks(ResolutionRule(auto_types=()), [entity("Marrakesh", "place")])
    assert nobody.join("Marrakesh", "place") is None
    assert skeleton("Zoë Ltd", RULE.org_suffixes) == "zoe" and similarity("abc", "abc") == 1.0


def test_merge_candidates_list_people_by_first_name_and_near_names():
    people = [entity("Peter", "person", at=T), entity("Peter Smith", "person", at=T + dt.timedelta(days=1)),
              entity("Petra", "person"), entity("Jonathan", "person"), entity("Jonathon", "person"),
              entity("Caroline", "person"), entity("Carolyn", "person"), entity("Mel", "person"),
              entity("Melanie", "person"), entity("Al", "person"), entity("Mel", "place", id_="mel-place"),
              entity("Peter", "place", id_="peter-place"), entity("Austria", "place"), entity("Australia", "place")]
    found = {(c.keep.id, c.merge.id): c for c in merge_candidates(people, RULE)}
    # Caroline / Carolyn (0.75) and Austria / Australia (0.78) are below `suggest`; Petra is not a first name,
    # "Al" too short to be one's short form, a place no person's
    assert set(found) == {("peter-smith", "peter"), ("jonathan", "jonathon"), ("melanie", "mel")}
    assert "first name" in found[("peter-smith", "peter")].reason
    assert "short form" in found[("melanie", "mel")].reason
    assert found[("jonathan", "jonathon")].similarity == 0.875
