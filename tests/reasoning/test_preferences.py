import pytest

from graphmem.errors import InvalidInput, OntologyError
from graphmem.ontology import StateStatus


def _prefs(mem, **kw):
    return [(p.predicate, p.object.lower(), p.status.value) for p in mem.preferences(include_revoked=True, **kw)]


def test_a_candidate_is_not_confirmed_until_stated(mem):
    mem.update_preference("upsert_candidate", "sushi", polarity="like", domain="food")
    mem.update_preference("upsert_candidate", "sushi", polarity="like", domain="food")
    assert _prefs(mem) == [("likes", "sushi", "candidate")]
    assert mem.preferences(include_candidates=False) == []
    confirmed = mem.update_preference("confirm", "sushi", polarity="like", domain="food", note="salmon")
    assert confirmed.status is StateStatus.ACTIVE and confirmed.payload == {"domain": "food", "note": "salmon"}
    assert _prefs(mem) == [("likes", "sushi", "active")]
    actions = [r.action.value for r in mem.revisions(confirmed.id)]
    assert actions == ["assert", "confirm", "confirm"]


def test_confirming_one_polarity_revokes_the_other_and_cycles_keep_history(mem):
    ev1 = mem.record(content="I love coriander.", occurred_at="2025-01-10")
    ev2 = mem.record(content="Actually I can't stand coriander any more.", occurred_at="2025-06-01")
    ev3 = mem.record(content="Coriander is great again!", occurred_at="2025-09-01")
    mem.update_preference("confirm", "coriander", polarity="like", domain="food", evidence=[ev1.id])
    mem.update_preference("confirm", "coriander", polarity="dislike", domain="food", evidence=[ev2.id])
    assert _prefs(mem) == [("dislikes", "coriander", "active"), ("likes", "coriander", "revoked")]
    mem.update_preference("confirm", "coriander", polarity="like", domain="food", evidence=[ev3.id])
    assert sorted(_prefs(mem)) == [("dislikes", "coriander", "revoked"), ("likes", "coriander", "active"),
                                   ("likes", "coriander", "revoked")]
    assert [s.object.lower() for s in mem.as_of("2025-07").states(subject="user")] == ["coriander"]
    assert [s.predicate for s in mem.as_of("2025-07").states(subject="user")] == ["dislikes"]
    assert [s.predicate for s in mem.as_of("2025-10").states(subject="user")] == ["likes"]
    assert [s.predicate for s in mem.as_of("2025-03").states(subject="user")] == ["likes"]
    revoked = [p for p in mem.preferences(include_revoked=True) if p.status is StateStatus.REVOKED]
    assert all(r.valid.end is not None for r in revoked)


def test_revoke_closes_and_a_revoke_of_nothing_is_an_error(mem):
    mem.update_preference("confirm", "jazz", polarity="like", domain="topic")
    mem.update_preference("revoke", "jazz", polarity="like", domain="topic", reason="said they are tired of it")
    assert _prefs(mem) == [("likes", "jazz", "revoked")]
    assert mem.preferences() == []
    before = mem.stats()
    with pytest.raises(InvalidInput) as err:
        mem.update_preference("revoke", "jazz", polarity="like", domain="topic")
    assert err.value.field == "subject"
    assert mem.stats() == before


def test_preferences_by_domain_and_bad_input(mem):
    mem.update_preference("confirm", "short answers", polarity="like", domain="style")
    mem.update_preference("confirm", "ramen", polarity="like", domain="food")
    assert [p.object for p in mem.preferences(domain="style")] == ["short answers"]
    with pytest.raises(OntologyError) as domain:
        mem.update_preference("confirm", "x", polarity="like", domain="cars")
    assert domain.value.field == "domain"
    with pytest.raises(InvalidInput) as polarity:
        mem.update_preference("confirm", "x", polarity="love", domain="food")
    assert polarity.value.field == "polarity"
    with pytest.raises(InvalidInput) as op:
        mem.update_preference("maybe", "x", polarity="like", domain="food")
    assert op.value.field == "op"
