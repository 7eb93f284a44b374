import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graphmem.index import lexical
from graphmem.index.lexical import LexicalIndex
from graphmem.index.vocabulary import Vocabulary, term_key

words = st.text(alphabet="abcxyz東京", min_size=1, max_size=4)


@given(st.lists(st.lists(words, max_size=8), max_size=8))
def test_numbers_follow_first_sight_like_a_dict(calls):
    vocabulary, reference = Vocabulary(), {}
    for terms in calls:
        got = vocabulary.numbers(terms).tolist()
        assert got == [reference.setdefault(t, len(reference)) for t in terms]
    assert len(vocabulary) == len(reference)
    for term, number in reference.items():
        assert vocabulary.get(term) == number and term in vocabulary
    assert vocabulary.get("not-a-term") is None
    again = Vocabulary(*vocabulary.saved())
    assert len(again) == len(reference) and all(again.get(t) == n for t, n in reference.items())


def test_a_key_is_the_same_in_every_process():
    assert term_key("peter") == 4662419314249173054  # BLAKE2b, not the per-process hash() of a string


def test_an_index_saved_with_its_terms_as_text_loads_and_answers_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 2)
    docs = [["peter", "move", "marrakesh"], ["ana", "join", "acme"], ["peter", "join"], ["東京", "peter"]]
    index = LexicalIndex()
    for i, terms in enumerate(docs):
        index.add(i, terms)
    index.save(tmp_path)
    with np.load(tmp_path / "lexical.npz") as saved:  # as an earlier version wrote it: the terms as a JSON list
        arrays = {name: saved[name] for name in saved.files if not name.startswith("term_")}
    np.savez(tmp_path / "lexical.npz", **arrays)
    by_number = sorted({t for terms in docs for t in terms}, key=index._base.terms.get)
    (tmp_path / "lexical_terms.json").write_text(json.dumps(by_number), encoding="utf-8")
    loaded = LexicalIndex.load(tmp_path)
    for query in (["peter"], ["join", "acme"], ["東京"], ["nobody"]):
        want, got = index.search(query, k=4), loaded.search(query, k=4)
        assert want[0].tolist() == got[0].tolist() and want[1].tolist() == got[1].tolist()
    loaded.save(tmp_path)
    assert not (tmp_path / "lexical_terms.json").exists()  # saved again in today's form
    assert LexicalIndex.load(tmp_path).search(["marrakesh"], k=1)[0].tolist() == [0]
