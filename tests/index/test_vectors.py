import numpy as np
import pytest

from graphmem.errors import StoreError
from graphmem.index import vectors
from graphmem.index.vectors import VectorIndex


def unit(rows):
    rows = np.asarray(rows, np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def random_index(n, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    data = unit(rng.normal(size=(n, dim)))
    index = VectorIndex(dim)
    index.add(np.arange(n) * 10, data)  # document numbers need not be dense
    return index, data


def test_nearest_neighbour_is_the_vector_itself():
    index, data = random_index(50)
    docs, scores = index.search(data[7], k=3)
    assert docs[0] == 70 and abs(scores[0] - 1.0) < 1e-5


def test_allowed_mask_filters_inside_the_search():
    index, data = random_index(50)
    allowed = np.zeros(500, bool)
    allowed[[30, 40]] = True
    docs, _ = index.search(data[7], k=5, allowed=allowed)
    assert sorted(docs.tolist()) == [30, 40]


def test_removed_documents_are_not_returned_flat_or_lists(monkeypatch, tmp_path):
    for threshold in (10**9, 10):
        monkeypatch.setattr(vectors, "LISTS_FROM", threshold)
        index, data = random_index(40)
        assert index.kind == ("flat" if threshold > 40 else "lists")
        index.remove([70, 80])
        assert len(index) == 38 and not {70, 80} & set(index.search(data[7], k=5)[0].tolist())
        index.save(tmp_path / "v.faiss")
        loaded = VectorIndex.load(tmp_path / "v.faiss", 16)
        assert loaded.kind == index.kind
        assert len(loaded) == 38 and not {70, 80} & set(loaded.search(data[7], k=5)[0].tolist())


def test_lists_find_what_the_flat_index_finds(monkeypatch):
    monkeypatch.setattr(vectors, "LISTS_FROM", 2000)
    lists, data = random_index(4000, seed=1)
    monkeypatch.setattr(vectors, "LISTS_FROM", 10**9)
    flat, _ = random_index(4000, seed=1)
    assert lists.kind == "lists" and flat.kind == "flat"
    queries = unit(data[:50] + np.random.default_rng(3).normal(scale=0.3, size=data[:50].shape))
    agree = [len(set(lists.search(q, k=10)[0]) & set(flat.search(q, k=10)[0])) / 10 for q in queries]
    assert np.mean(agree) >= 0.9


def test_a_narrow_filter_probes_every_list_and_finds_its_exact_neighbours(monkeypatch):
    monkeypatch.setattr(vectors, "LISTS_FROM", 2000)
    monkeypatch.setattr(vectors, "PROBES", 1)  # unfiltered, one list: most of the few allowed would be missed
    index, data = random_index(4000, seed=4)
    allowed = np.zeros(40_000, bool)
    allowed[np.arange(0, 40_000, 4000)] = True  # 10 documents of 4,000, all over the space
    docs, _ = index.search(data[0], k=10, allowed=allowed)
    assert sorted(docs.tolist()) == np.arange(0, 40_000, 4000).tolist()


def test_graphs_saved_before_load_as_lists_or_flat(monkeypatch, tmp_path):
    faiss = vectors.faiss
    data = unit(np.random.default_rng(2).normal(size=(300, 128)))
    for name, base in (("full", faiss.IndexHNSWFlat(128, 32, faiss.METRIC_INNER_PRODUCT)),
                       ("half", faiss.IndexHNSWSQ(128, faiss.ScalarQuantizer.QT_fp16, 32, faiss.METRIC_INNER_PRODUCT)),
                       ("codes", faiss.IndexHNSWSQ(128, faiss.ScalarQuantizer.QT_8bit, 32, faiss.METRIC_INNER_PRODUCT))):
        if not base.is_trained:
            base.train(data)
        before = faiss.IndexIDMap2(base) if name == "full" else faiss.IndexIDMap(base)  # what earlier versions saved
        before.add_with_ids(data, np.arange(300, dtype=np.int64) * 10)
        faiss.write_index(before, str(tmp_path / f"{name}.faiss"))
        for threshold, kind in ((100, "lists"), (10**9, "flat")):
            monkeypatch.setattr(vectors, "LISTS_FROM", threshold)
            old = VectorIndex.load(tmp_path / f"{name}.faiss", 128)
            assert old.kind == kind and len(old) == 300
            docs, scores = old.search(data[7], k=1)
            assert docs.tolist() == [70] and abs(scores[0] - 1.0) < 0.02
            old.remove([70])
            assert 70 not in old.search(data[7], k=5)[0].tolist()


def test_lists_keep_8_bit_codes(monkeypatch, tmp_path):
    monkeypatch.setattr(vectors, "LISTS_FROM", 100)
    lists, data = random_index(300, dim=128, seed=2)
    monkeypatch.setattr(vectors, "LISTS_FROM", 10**9)
    flat, _ = random_index(300, dim=128, seed=2)
    lists.save(tmp_path / "lists.faiss")
    flat.save(tmp_path / "flat.faiss")
    assert (tmp_path / "lists.faiss").stat().st_size < 0.4 * (tmp_path / "flat.faiss").stat().st_size
    docs, scores = lists.search(data[7], k=1)
    assert docs.tolist() == [70] and abs(scores[0] - 1.0) < 0.02  # 8-bit codes: about two decimals


def test_wrong_dimensions_on_load_say_to_reindex(tmp_path):
    index, _ = random_index(5)
    index.save(tmp_path / "v.faiss")
    with pytest.raises(StoreError, match="reindex"):
        VectorIndex.load(tmp_path / "v.faiss", 32)


def test_growing_into_lists_lets_searches_run_and_keeps_removals_made_meanwhile(monkeypatch):
    monkeypatch.setattr(vectors, "LISTS_FROM", 50)
    index, data = random_index(40)
    build = vectors._built
    during = {}

    def slow_build(*args, **kwargs):
        during["search"] = index.search(data[7], k=3)[0].tolist()  # would wait forever if the build held the lock
        lists = build(*args, **kwargs)
        index.remove([30])  # a retraction after the lists copied their vectors
        return lists

    monkeypatch.setattr(vectors, "_built", slow_build)
    rng = np.random.default_rng(9)
    more = rng.standard_normal((20, 16)).astype(np.float32)
    index.add(np.arange(140, 160), more / np.linalg.norm(more, axis=1, keepdims=True))
    assert index.kind == "lists" and during["search"][0] == 70
    assert 30 not in index.search(data[3], k=5)[0].tolist()
    assert len(index) == 59
