import numpy as np

from graphmem.index import lexical
from graphmem.index.lexical import LexicalIndex


def build(docs):
    index = LexicalIndex()
    for i, words in enumerate(docs):
        index.add(i, words)
    return index


def test_bm25_prefers_rarer_terms_and_shorter_documents():
    index = build([["peter", "move", "marrakesh"], ["peter", "join", "acme"], ["peter"] + ["filler"] * 20])
    docs, scores = index.search(["peter", "marrakesh"], k=3)
    assert docs[0] == 0  # holds the rare term
    assert list(docs).index(1) < list(docs).index(2)  # same match, shorter document
    assert all(scores[:-1] >= scores[1:])


def test_scores_match_the_formula():
    index = build([["a", "b"], ["b", "c", "c"]])
    docs, scores = index.search(["c"], k=2)
    n, df, tf, length, average = 2, 1, 2, 3, 2.5
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    expected = idf * tf * (lexical.K1 + 1) / (tf + lexical.K1 * (1 - lexical.B + lexical.B * length / average))
    assert docs.tolist() == [1]
    assert abs(float(scores[0]) - expected) < 1e-5


def test_allowed_mask_and_removal_hide_documents():
    index = build([["x"], ["x"], ["x"]])
    docs, _ = index.search(["x"], k=5, allowed=np.array([True, False, True]))
    assert sorted(docs.tolist()) == [0, 2]
    index.remove(0)
    docs, _ = index.search(["x"], k=5)
    assert sorted(docs.tolist()) == [1, 2]


def test_merging_the_tail_keeps_every_posting(monkeypatch):
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 3)
    words = [[f"w{i % 4}", "common"] for i in range(10)]
    merged = build(words)
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 10**9)
    unmerged = build(words)
    for term in ("w1", "common"):
        a, sa = merged.search([term], k=10)
        b, sb = unmerged.search([term], k=10)
        assert a.tolist() == b.tolist() and np.allclose(sa, sb)


def test_save_and_load_answer_the_same(tmp_path):
    index = build([["peter", "move"], ["ana", "join"], ["peter", "join"]])
    index.remove(1)
    index.save(tmp_path)
    loaded = LexicalIndex.load(tmp_path)
    loaded.add(3, ["ana", "peter"])
    assert len(loaded) == 3
    for query in (["peter"], ["ana"], ["join"]):
        docs, _ = loaded.search(query, k=5)
        assert 1 not in docs.tolist()
    assert 3 in loaded.search(["ana"], k=5)[0].tolist()


def test_adding_a_document_twice_counts_it_once():
    index = build([["a"]])
    index.add(0, ["a", "b"])
    assert len(index) == 1
    assert index.search(["b"], k=5)[0].tolist() == []
