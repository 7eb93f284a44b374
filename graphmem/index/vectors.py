"""Nearest neighbours by cosine similarity (inner product of unit vectors): the only home of faiss.

Small indexes are exact (a flat scan); past ``HNSW_FROM`` vectors the index is rebuilt as an HNSW graph,
which answers in well under a millisecond at a million vectors but cannot delete: removed documents are
remembered and skipped (the next rebuild drops them). The graph keeps each vector as 8-bit codes (one byte a
dimension, its range learnt from the vectors it is built from): ~550 bytes a vector with its links and id,
against ~850 at half precision and ~1,350 at full (measured at 200k 256-d vectors). Against an exact scan
(27k texts of the shared datasets, 1,986 LoCoMo questions, ``HNSW_SEARCH`` 128), 8-bit codes find 0.968 of
the top 10 and 0.948 of the top 100, half precision 0.978 and 0.951: recall takes 100 candidates, where the
two are alike. Searches run concurrently; adds wait for them.
"""

from __future__ import annotations

import threading
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

import faiss as _faiss
import numpy as np
from numpy.typing import NDArray

from graphmem.errors import StoreError

__all__ = ["VectorIndex"]

faiss: Any = _faiss  # its bundled stubs lack the SWIG classes' attributes and keyword arguments

HNSW_FROM = 50_000  # vectors from which the graph index pays for its build time (a flat search of
# 100k 256-d vectors for 100 neighbours: ~10 ms; the graph: under 1 ms)
HNSW_NEIGHBOURS = 32
HNSW_BUILD_SEARCH = 40
# candidates kept while searching: of the exact top 10 (31k sentences of the shared datasets, 1,986 LoCoMo
# questions) 64 find 0.952 in 0.24 ms, 128 find 0.978 in 0.44 ms, 256 find 0.990 in 0.81 ms
HNSW_SEARCH = 128
CODE_SAMPLE = 100_000  # vectors the 8-bit codes' ranges are learnt from


class _ReadWriteLock:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False

    def read(self) -> _Held:
        return _Held(self, write=False)

    def write(self) -> _Held:
        return _Held(self, write=True)


class _Held:
    def __init__(self, lock: _ReadWriteLock, *, write: bool) -> None:
        self.lock, self.write_mode = lock, write

    def __enter__(self) -> None:
        c = self.lock._cond
        with c:
            if self.write_mode:
                c.wait_for(lambda: not self.lock._writing and self.lock._readers == 0)
                self.lock._writing = True
            else:
                c.wait_for(lambda: not self.lock._writing)
                self.lock._readers += 1

    def __exit__(self, *exc: object) -> None:
        c = self.lock._cond
        with c:
            if self.write_mode:
                self.lock._writing = False
            else:
                self.lock._readers -= 1
            c.notify_all()


class VectorIndex:
    """Unit vectors keyed by document number.

    >>> index = VectorIndex(2)
    >>> index.add(np.array([7, 9]), np.array([[1.0, 0.0], [0.0, 1.0]], np.float32))
    >>> index.search(np.array([0.9, 0.1], np.float32), k=1)[0].tolist()
    [7]
    """

    def __init__(self, dim: int, index: Any = None) -> None:
        self.dim = dim
        self._index = index if index is not None else faiss.IndexIDMap(faiss.IndexFlatIP(dim))
        self._removed: set[int] = set()
        self._lock = _ReadWriteLock()
        self._adding = threading.Lock()  # one adder at a time (growing the index takes a while)

    def __len__(self) -> int:
        return int(self._index.ntotal) - len(self._removed)

    @property
    def kind(self) -> str:
        return "hnsw" if self._is_graph() else "flat"

    def _is_graph(self) -> bool:
        return isinstance(faiss.downcast_index(self._index.index), faiss.IndexHNSW)  # (whatever its codes)

    def add(self, docs: NDArray[np.int64], vectors: NDArray[np.float32]) -> None:
        vectors = np.ascontiguousarray(vectors, np.float32)
        with self._adding:
            with self._lock.write():
                self._index.add_with_ids(vectors, np.asarray(docs, np.int64))
                grow = not self._is_graph() and self._index.ntotal >= HNSW_FROM
            if grow:
                self._grow()

    def _grow(self) -> None:
        """Replace the flat index by a graph one. The graph is built from a copy while searches go on in the
        flat index (the build takes seconds to minutes); documents removed meanwhile become tombstones."""
        with self._lock.read():  # a removal edits the flat index in place: copy it whole first
            ids, vectors = _contents(self._index, self.dim)
        graph = _built(ids, vectors, self.dim, graph=True)
        with self._lock.write():
            self._removed |= set(ids.tolist()) - set(faiss.vector_to_array(self._index.id_map).tolist())
            self._index = graph

    def remove(self, doc: int) -> None:
        with self._lock.write():
            if self._is_graph():
                self._removed.add(doc)
            else:
                self._index.remove_ids(np.array([doc], np.int64))

    def search(
        self, vector: NDArray[np.float32], k: int, allowed: NDArray[np.bool_] | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """The ``k`` nearest documents (best first) and their cosine similarity."""
        query = np.ascontiguousarray(vector.reshape(1, -1), np.float32)
        with self._lock.read():
            if self._index.ntotal == 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32)
            params = None
            if allowed is not None or self._removed:
                if allowed is None:
                    ids = faiss.vector_to_array(self._index.id_map)
                    keep = np.ones(int(ids.max()) + 1 if len(ids) else 1, bool)
                else:
                    keep = allowed.copy()
                if self._removed:
                    gone = np.fromiter(self._removed, np.int64)
                    keep[gone[gone < len(keep)]] = False
                bitmap = np.packbits(keep, bitorder="little")
                selector = faiss.IDSelectorBitmap(len(keep), faiss.swig_ptr(bitmap))
                if self._is_graph():
                    params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(HNSW_SEARCH, k))
                else:
                    params = faiss.SearchParameters(sel=selector)
                scores, ids = self._index.search(query, k, params=params)
                del bitmap  # the selector points into it until the search returns
            else:
                if self._is_graph():
                    params = faiss.SearchParametersHNSW(efSearch=max(HNSW_SEARCH, k))
                scores, ids = self._index.search(query, k, params=params)
        found = ids[0] >= 0
        return ids[0][found].astype(np.int64), scores[0][found].astype(np.float32)

    def save(self, path: Path) -> None:
        with self._lock.read():
            index = self._index
            if self._removed:
                index = _rebuilt(index, self.dim, graph=self._is_graph(), without=self._removed)
            faiss.write_index(index, str(path))

    @classmethod
    def load(cls, path: Path, dim: int) -> VectorIndex:
        try:
            index = faiss.read_index(str(path))
        except RuntimeError as exc:
            raise StoreError(f"cannot read the vector index {path}: {exc}; run `graphmem reindex`") from exc
        if index.d != dim:
            raise StoreError(f"the vector index {path} holds {index.d}-d vectors, the embedder makes {dim}-d; "
                             "run `graphmem reindex`")
        return cls(dim, index)


def _rebuilt(index: Any, dim: int, *, graph: bool, without: AbstractSet[int] = frozenset()) -> Any:
    """A copy of ``index`` (an id map) as a flat or graph index, leaving out ``without``."""
    ids, vectors = _contents(index, dim)
    if without:
        keep = ~np.isin(ids, np.fromiter(without, np.int64))
        ids, vectors = ids[keep], vectors[keep]
    return _built(ids, vectors, dim, graph=graph)


def _contents(index: Any, dim: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The ids and vectors an id-map index holds."""
    ids = faiss.vector_to_array(index.id_map).astype(np.int64)
    inner = faiss.downcast_index(index.index)
    vectors = inner.reconstruct_n(0, index.ntotal) if index.ntotal else np.zeros((0, dim), np.float32)
    return ids, vectors


def _built(ids: NDArray[np.int64], vectors: NDArray[np.float32], dim: int, *, graph: bool) -> Any:
    """A flat or graph id-map index of ``vectors`` under ``ids``."""
    base: Any
    vectors = np.ascontiguousarray(vectors, np.float32)
    if graph:
        base = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
        base.hnsw.efConstruction = HNSW_BUILD_SEARCH
        sample = vectors if len(vectors) <= CODE_SAMPLE else vectors[np.random.default_rng(0).choice(
            len(vectors), CODE_SAMPLE, replace=False)]
        base.train(sample)  # each dimension's range: what its 256 codes span
    else:
        base = faiss.IndexFlatIP(dim)
    out = faiss.IndexIDMap(base)  # (not IDMap2: its reverse map costs ~50 bytes a vector and is never read)
    if len(ids):
        out.add_with_ids(vectors, ids)
    return out
