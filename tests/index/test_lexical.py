import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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



def test_skipping_common_terms_gives_exactly_the_full_answer(monkeypatch):
    """Rare terms found first, common terms only looked up, a narrow filter applied first: the same
    documents and the same scores as scoring every posting, with filters, removals, the tail and
    out-of-order numbers."""
    rng = np.random.default_rng(3)
    vocabulary = [f"w{i}" for i in range(300)]
    weights = 1 / np.arange(1, 301)
    weights /= weights.sum()
    numbers = np.arange(3000)
    rng.shuffle(numbers[2000:])  # the last thousand arrive out of order (a view: shuffled in place)
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 1000)
    index = LexicalIndex()
    for doc in numbers.tolist():
        index.add(doc, list(rng.choice(vocabulary, size=int(rng.integers(3, 30)), p=weights)))
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 10**9)
    for doc in rng.choice(3000, 50, replace=False):
        index.remove(int(doc))
    for doc in range(3000, 3100):  # in the tail
        index.add(doc, list(rng.choice(vocabulary, size=int(rng.integers(3, 30)), p=weights)))
    answered = []
    pruned = LexicalIndex._pruned
    monkeypatch.setattr(LexicalIndex, "_pruned", staticmethod(
        lambda *args: answered.append(found := pruned(*args)) or found))
    filtered_first = []
    among = lexical._scored_among
    monkeypatch.setattr(lexical, "_scored_among", lambda *args: filtered_first.append(1) or among(*args))
    for trial in range(300):
        terms = list(rng.choice(vocabulary, size=int(rng.integers(1, 5)), p=weights))
        allowed = rng.random(3100) < (0.8, 0.02, 1.0)[trial % 3] if trial % 4 else None  # 0.02: filter first
        k = int(rng.choice([1, 10, 50]))
        monkeypatch.setattr(lexical, "PRUNE_FROM", 200)
        monkeypatch.setattr(lexical, "SELECTIVE", 1 / 32)
        docs, scores = index.search(terms, k, allowed)
        monkeypatch.setattr(lexical, "PRUNE_FROM", 10**12)
        monkeypatch.setattr(lexical, "SELECTIVE", 0)
        full_docs, full_scores = index.search(terms, k, allowed)
        assert docs.tolist() == full_docs.tolist(), terms
        assert scores.tolist() == full_scores.tolist()
    assert sum(found is not None for found in answered) > 60  # the skipping path answered, not the fallback
    assert len(filtered_first) > 50


def test_ties_at_the_cut_keep_the_lower_numbers():
    index = build([["x"] if doc % 7 else ["y"] for doc in range(1000)])  # every "x" document scores the same
    assert index.search(["x"], k=3)[0].tolist() == [1, 2, 3]


def test_documents_added_out_of_order_are_in_order_after_merges(monkeypatch):
    """Concurrent writers may add higher numbers first: each merge puts every term's postings back in
    ascending order (searches bisect them), and answers equal an index that never merged."""
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 7)
    order = [5, 3, 9, 0, 14, 2, 11, 1, 8, 13, 4, 12, 6, 10, 7, 19, 17, 15, 18, 16]
    words = {doc: [f"w{doc % 3}", "common", f"own{doc}"] + ["common"] * (doc % 4) for doc in order}
    merged = lexical.LexicalIndex()
    for doc in order:
        merged.add(doc, words[doc])
    with merged._lock:
        merged._merge()
    for segment in merged._base.segments:
        for t in range(len(segment.terms)):
            docs = segment.docs[segment.offsets[t]:segment.offsets[t + 1]]
            assert (np.diff(docs) > 0).all()
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 10**9)
    plain = build([words[doc] for doc in range(20)])
    for query in (["common"], ["w1"], ["own13"], ["w2", "own4"]):
        a, sa = merged.search(query, k=20)
        b, sb = plain.search(query, k=20)
        assert a.tolist() == b.tolist() and np.allclose(sa, sb)
    allowed = np.zeros(20, bool)
    allowed[[2, 13, 17]] = True
    assert sorted(merged.search(["common"], k=20, allowed=allowed)[0].tolist()) == [2, 13, 17]


def test_a_base_held_before_a_merge_still_answers_after_it(monkeypatch):
    """The vocabulary is shared between bases: one a reader took before a merge sees nothing of the terms
    the merge added, and still finds what it held."""
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 2)
    index = build([["alpha", "beta"], ["alpha", "gamma"]])
    held = index._base
    index.add(2, ["delta", "alpha"])
    index.add(3, ["epsilon"])
    assert index._base is not held and "delta" in held.terms
    assert held.postings("delta")[0].tolist() == [] and held.postings("epsilon")[0].tolist() == []
    assert held.postings("alpha")[0].tolist() == [0, 1]
    assert index._base.postings("alpha")[0].tolist() == [0, 1, 2]


def test_saving_an_index_with_no_tail_keeps_its_base(tmp_path):
    index = build([["peter", "move"], ["ana", "join"]])
    with index._lock:
        index._merge()
    base = index._base
    index.save(tmp_path)
    assert index._base is base  # nothing to fold in: no copy of the postings


def test_counts_are_kept_in_16_bits_and_score_as_before(monkeypatch):
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 2)
    index = build([["a", "b", "b"], ["b", "c"], ["c"] * 3])  # two merged into the base, one in the tail
    assert index._base.segments[0].freqs.dtype == np.uint16
    docs, scores = index.search(["b", "c"], k=3)
    n, average = 3, 8 / 3

    def weight(tf, df, length):
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        return idf * tf * (lexical.K1 + 1) / (tf + lexical.K1 * (1 - lexical.B + lexical.B * length / average))

    expected = {0: weight(2, 2, 3), 1: weight(1, 2, 2) + weight(1, 2, 2), 2: weight(3, 2, 3)}
    assert {d: round(float(s), 5) for d, s in zip(docs.tolist(), scores, strict=True)} == {
        d: round(float(s), 5) for d, s in expected.items()
    }


def test_a_count_past_the_cap_is_counted_as_the_cap(monkeypatch):
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 1)
    index = build([["x"] * (lexical.COUNT_MAX + 10), ["x"] * lexical.COUNT_MAX])
    assert index._base.segments[0].freqs.tolist() == [lexical.COUNT_MAX, lexical.COUNT_MAX]
    docs, scores = index.search(["x"], k=2)
    assert sorted(docs.tolist()) == [0, 1] and (scores > 0).all()


def test_an_index_saved_with_float_counts_loads_and_answers_the_same(tmp_path):
    index = build([["peter", "move", "marrakesh"], ["peter", "peter", "join"], ["ana"]])
    _save_as_one_block(index, tmp_path, np.float32)  # as an earlier version wrote it: counts as float32
    loaded = LexicalIndex.load(tmp_path)
    assert loaded._base.segments[0].freqs.dtype == np.uint16
    for query in (["peter"], ["marrakesh", "join"], ["ana", "peter"]):
        want, got = index.search(query, k=3), loaded.search(query, k=3)
        assert want[0].tolist() == got[0].tolist() and want[1].tolist() == got[1].tolist()


def _save_as_one_block(index, directory, counts=np.uint16):
    """Save ``index`` as versions before segments did: one block of postings over every term number."""
    index.save(directory)
    (segment,) = index._base.segments
    with np.load(directory / "lexical.npz") as saved:
        arrays = {name: saved[name] for name in saved.files if not name.startswith("s")}
    per_term = np.zeros(len(index._base.terms), np.int64)
    per_term[segment.terms] = np.diff(segment.offsets)
    arrays |= {"offsets": np.concatenate(([0], np.cumsum(per_term))), "docs": segment.docs,
               "freqs": segment.freqs.astype(counts)}
    np.savez(directory / "lexical.npz", **arrays)


def test_an_index_saved_as_one_block_loads_and_answers_the_same(tmp_path):
    index = build([["peter", "move", "marrakesh"], ["peter", "peter", "join"], ["ana"], ["join", "ana"]])
    _save_as_one_block(index, tmp_path)
    loaded = LexicalIndex.load(tmp_path)
    for query in (["peter"], ["marrakesh", "join"], ["ana", "peter"], ["nobody"]):
        want, got = index.search(query, k=4), loaded.search(query, k=4)
        assert want[0].tolist() == got[0].tolist() and want[1].tolist() == got[1].tolist()


def test_merges_fill_segments_up_to_their_size_and_answer_as_one_block(monkeypatch, tmp_path):
    """A merge folds the tail into the last segment until it would pass SEGMENT_POSTINGS, then starts a new
    one; with documents added out of order, and common terms pruned, every answer is that of an index that
    never merged (to the last bits of float32: a document's terms are summed rarest first in a base, in query
    order in the tail), and a saved and loaded index gives the same floats."""
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 5)
    monkeypatch.setattr(lexical, "SEGMENT_POSTINGS", 40)
    monkeypatch.setattr(lexical, "PRUNE_FROM", 10)
    rng = np.random.default_rng(3)
    order = rng.permutation(60).tolist()
    words = {d: ["common", f"w{d % 7}", f"v{d % 3}", f"own{d}"] + ["common"] * (d % 3) for d in order}
    merged = lexical.LexicalIndex()
    for d in order:
        merged.add(d, words[d])
    sizes = [len(segment.docs) for segment in merged._base.segments]
    assert len(sizes) > 1 and max(sizes) <= 40
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 10**9)
    plain = build([words[d] for d in range(60)])
    merged.remove(17)
    plain.remove(17)
    merged.save(tmp_path)
    loaded = LexicalIndex.load(tmp_path)
    allowed = np.zeros(60, bool)
    allowed[[2, 17, 31, 44]] = True
    for query in (["common"], ["w3"], ["own13"], ["w2", "own4"], ["common", "v1", "w5"]):
        want, got, again = (i.search(query, k=10) for i in (plain, merged, loaded))
        assert got[0].tolist() == want[0].tolist() and np.allclose(got[1], want[1], rtol=1e-6)
        assert again[0].tolist() == got[0].tolist() and again[1].tolist() == got[1].tolist()
        narrow, got = plain.search(query, k=10, allowed=allowed), merged.search(query, k=10, allowed=allowed)
        assert got[0].tolist() == narrow[0].tolist() and np.allclose(got[1], narrow[1], rtol=1e-6)


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=12), max_size=80),
       cuts=st.lists(st.integers(0, 80), max_size=6))
def test_adding_documents_in_batches_gives_the_index_one_by_one_gives(docs, cuts):
    """Batches large and small (empty documents, repeated terms, counts past the cap, a tail merged midway):
    the same arrays, to the bit, as adding each document alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lexical, "MANY_FROM", 4)
        patch.setattr(lexical, "COUNT_MAX", 3)
        patch.setattr(lexical, "TAIL_LIMIT", 30)
        alone, batched = build(docs), LexicalIndex()
        bounds = sorted({0, len(docs), *(c for c in cuts if c <= len(docs))})
        for lo, hi in itertools.pairwise(bounds):
            batched.add_many(lo, docs[lo:hi])
        batched.add_many(0, docs[:5])  # documents added before are skipped
        one, many = alone.snapshot(), batched.snapshot()
        assert one.keys() == many.keys()
        for name in one:
            assert np.array_equal(one[name], many[name]), name
        assert len(alone) == len(batched)


def test_a_last_save_keeps_the_tail_apart_and_the_next_merges_fill_that_segment(monkeypatch, tmp_path):
    """A closing memory's save puts the tail in a segment of its own (the last segment is not made anew);
    the tails merged after it, in this index or the one loaded from the save, fill that one, and every answer
    is the unmerged index's."""
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 5)
    monkeypatch.setattr(lexical, "SEGMENT_POSTINGS", 10**6)
    words = {d: ["common", f"w{d % 7}", f"own{d}"] for d in range(40)}
    index, folded = LexicalIndex(), LexicalIndex()
    for d in range(22):  # 4 merges into one segment, 2 documents in the tail
        index.add(d, words[d])
        folded.add(d, words[d])
    first = index._base.segments[0]
    folded.snapshot()
    assert len(folded._base.segments) == 1  # (an ordinary save folds it in)
    index.snapshot(apart=True)
    assert len(index._base.segments) == 2 and index._base.segments[0] is first
    assert len(index._base.segments[1].docs) == 2 * 3
    index.save(tmp_path / "last")
    loaded = LexicalIndex.load(tmp_path / "last")
    for grown in (index, loaded):
        for d in range(22, 40):
            grown.add(d, words[d])
        grown.snapshot()
        assert [len(s.docs) for s in grown._base.segments] == [20 * 3, 20 * 3]
    monkeypatch.setattr(lexical, "TAIL_LIMIT", 10**9)
    plain = build([words[d] for d in range(40)])
    for query in (["common"], ["w3"], ["own21"], ["own30", "w2"]):
        want = plain.search(query, k=10)
        for grown in (index, loaded):
            got = grown.search(query, k=10)
            assert got[0].tolist() == want[0].tolist() and np.allclose(got[1], want[1], rtol=1e-6)
