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


def test_removed_documents_are_not_returned_flat_or_graph(monkeypatch, tmp_path):
    for threshold in (10**9, 10):
        monkeypatch.setattr(vectors, "HNSW_FROM", threshold)
        index, data = random_index(40)
        assert index.kind == ("flat" if threshold > 40 else "hnsw")
        index.remove(70)
        assert 70 not in index.search(data[7], k=5)[0].tolist()
        index.save(tmp_path / "v.faiss")
        loaded = VectorIndex.load(tmp_path / "v.faiss", 16)
        assert len(loaded) == 39 and 70 not in loaded.search(data[7], k=5)[0].tolist()


def test_graph_index_finds_what_the_flat_one_finds(monkeypatch):
    monkeypatch.setattr(vectors, "HNSW_FROM", 100)
    graph, data = random_index(300, seed=1)
    monkeypatch.setattr(vectors, "HNSW_FROM", 10**9)
    flat, _ = random_index(300, seed=1)
    assert graph.kind == "hnsw" and flat.kind == "flat"
    agree = [len(set(graph.search(q, k=10)[0]) & set(flat.search(q, k=10)[0])) / 10 for q in data[:30]]
    assert np.mean(agree) >= 0.9


def test_the_graph_keeps_8_bit_codes_and_graphs_saved_before_still_serve(monkeypatch, tmp_path):
    monkeypatch.setattr(vectors, "HNSW_FROM", 100)
    graph, data = random_index(300, dim=128, seed=2)
    graph.save(tmp_path / "codes.faiss")
    faiss = vectors.faiss
    for name, base in (("full", faiss.IndexHNSWFlat(128, 32, faiss.METRIC_INNER_PRODUCT)),
                       ("half", faiss.IndexHNSWSQ(128, faiss.ScalarQuantizer.QT_fp16, 32, faiss.METRIC_INNER_PRODUCT))):
        before = faiss.IndexIDMap2(base)  # what earlier versions saved
        before.add_with_ids(data, np.arange(300, dtype=np.int64) * 10)
        faiss.write_index(before, str(tmp_path / f"{name}.faiss"))
        old = VectorIndex.load(tmp_path / f"{name}.faiss", 128)
        assert old.kind == "hnsw" and old.search(data[7], k=1)[0].tolist() == [70]
        old.remove(70)
        assert 70 not in old.search(data[7], k=5)[0].tolist()
    assert (tmp_path / "codes.faiss").stat().st_size < 0.8 * (tmp_path / "half.faiss").stat().st_size
    docs, scores = graph.search(data[7], k=1)
    assert docs.tolist() == [70] and abs(scores[0] - 1.0) < 0.02  # 8-bit codes: about two decimals


def test_wrong_dimensions_on_load_say_to_reindex(tmp_path):
    index, _ = random_index(5)
    index.save(tmp_path / "v.faiss")
    with pytest.raises(StoreError, match="reindex"):
        VectorIndex.load(tmp_path / "v.faiss", 32)


def test_growing_into_a_graph_lets_searches_run_and_keeps_removals_made_meanwhile(monkeypatch):
    monkeypatch.setattr(vectors, "HNSW_FROM", 50)
    index, data = random_index(40)
    build = vectors._built
    during = {}

    def slow_build(*args, **kwargs):
        during["search"] = index.search(data[7], k=3)[0].tolist()  # would wait forever if the build held the lock
        graph = build(*args, **kwargs)
        index.remove(30)  # a retraction after the graph copied its vectors
        return graph

    monkeypatch.setattr(vectors, "_built", slow_build)
    rng = np.random.default_rng(9)
    more = rng.standard_normal((20, 16)).astype(np.float32)
    index.add(np.arange(140, 160), more / np.linalg.norm(more, axis=1, keepdims=True))
    assert index.kind == "hnsw" and during["search"][0] == 70
    assert 30 not in index.search(data[3], k=5)[0].tolist()
    assert len(index) == 59
