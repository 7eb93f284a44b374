"""Nearest neighbours by cosine similarity (inner product of unit vectors): the only home of faiss.

Small indexes are exact (a flat scan). Past ``LISTS_FROM`` vectors the index is rebuilt as inverted lists:
the vectors are split among ``LISTS`` clusters (centroids learnt from the vectors held at that moment) and
a search scans the ``PROBES`` lists whose centroids are nearest the query. Each vector is kept as 8-bit codes
of its offset from its centroid, ~264 bytes with its id for 256 dimensions. Measured on 334k vectors (34k
texts of the shared datasets among 300k synthetic ones, 1,982 LoCoMo questions), against an exact scan:

    index                        bytes a vector   build   search   of the exact top 10 / top 100
    lists, 1024 x 32 probed      267              5 s     0.5 ms   0.968 / 0.975  (25 k-means rounds)
    HNSW (32 links, 8-bit codes) 528              47 s    0.2 ms   0.944 / 0.935 (0.28 ms: 0.964 / 0.968)
    HNSW (16 links, 8-bit codes) 400              29 s    0.1 ms   0.814 / 0.772

Unlike a graph, lists delete in place. A filtered search probes lists until it meets ~``ENOUGH`` allowed
documents for each neighbour it wants (all of them, for a filter as narrow as one entity's events), so a
narrow filter still finds its nearest neighbours. Searches run concurrently; adds and removals wait for them.
An index saved as an HNSW graph by an earlier version is read into lists when it loads.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import faiss as _faiss
import numpy as np
from numpy.typing import NDArray

from graphmem.errors import StoreError

__all__ = ["VectorIndex"]

faiss: Any = _faiss  # its bundled stubs lack the SWIG classes' attributes and keyword arguments

LISTS_FROM = 50_000  # vectors from which lists beat the exact scan (a flat search of 100k 256-d vectors for
# 100 neighbours: ~10 ms; lists at 1.4M vectors: ~3 ms)
LISTS = 1024
POINTS_PER_LIST = 39  # fewer training vectors than this per centroid leave the clusters poorly placed
ROUNDS = 10  # rounds of k-means placing the centroids: at 50k vectors, 25 rounds took 2.3x the CPU of 10 and
# found 0.002 more of the exact top 10 (bench/vector_lists.py)
PROBES = 32  # lists scanned a search: 16 find 0.926 of the exact top 10 in 0.3 ms, 32 0.968 in 0.5 ms,
# 64 0.978 in 0.9 ms (measured as in the table above)
ENOUGH = 10  # allowed documents a filtered search meets for each neighbour it wants: with fewer, the lists
# nearest the query may hold none of them. At 1.4M vectors, a search for 100 with a quarter of them allowed
# probes 32 lists (2.6 ms; 7.8 ms when the probes grew with the share), one in ten thousand all (5-6 ms)


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
        self._lock = _ReadWriteLock()
        self._adding = threading.Lock()  # one adder at a time (growing the index takes a while)

    def __len__(self) -> int:
        return int(self._index.ntotal)

    @property
    def kind(self) -> str:
        return "lists" if _is_lists(self._index) else "flat"

    def add(self, docs: NDArray[np.int64], vectors: NDArray[np.float32]) -> None:
        vectors = np.ascontiguousarray(vectors, np.float32)
        with self._adding:
            with self._lock.write():
                self._index.add_with_ids(vectors, np.asarray(docs, np.int64))
                grow = not _is_lists(self._index) and self._index.ntotal >= LISTS_FROM
            if grow:
                self._grow()

    def _grow(self) -> None:
        """Replace the flat index by lists. They are built from a copy while searches go on in the flat
        index; documents removed meanwhile are then removed from the lists too."""
        with self._lock.read():  # a removal edits the flat index in place: copy it whole first
            ids, vectors = _flat_contents(self._index, self.dim)
        lists = _built(ids, vectors, self.dim)
        with self._lock.write():
            gone = np.setdiff1d(ids, faiss.vector_to_array(self._index.id_map))
            if len(gone):
                lists.remove_ids(faiss.IDSelectorBatch(gone))
            self._index = lists

    def remove(self, docs: NDArray[np.int64] | list[int]) -> None:
        """Forget the vectors of ``docs`` (one pass over the index, however many)."""
        docs = np.asarray(docs, np.int64)
        if len(docs):
            with self._lock.write():
                self._index.remove_ids(faiss.IDSelectorBatch(docs))

    def search(
        self, vector: NDArray[np.float32], k: int, allowed: NDArray[np.bool_] | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """The ``k`` nearest documents (best first) and their cosine similarity."""
        query = np.ascontiguousarray(vector.reshape(1, -1), np.float32)
        with self._lock.read():
            total = int(self._index.ntotal)
            if total == 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32)
            lists = _is_lists(self._index)
            if allowed is None:
                params = faiss.SearchParametersIVF(nprobe=PROBES) if lists else None
                scores, ids = self._index.search(query, k, params=params)
            else:
                bitmap = np.packbits(allowed, bitorder="little")
                selector = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bitmap))
                if lists:  # probe enough lists to meet ~ENOUGH allowed documents a neighbour wanted
                    per_list = max(int(np.count_nonzero(allowed)), 1) / self._index.nlist
                    probes = min(self._index.nlist, max(PROBES, math.ceil(ENOUGH * k / per_list)))
                    params = faiss.SearchParametersIVF(sel=selector, nprobe=probes)
                else:
                    params = faiss.SearchParameters(sel=selector)
                scores, ids = self._index.search(query, k, params=params)
                del bitmap  # the selector points into it until the search returns
        found = ids[0] >= 0
        return ids[0][found].astype(np.int64), scores[0][found].astype(np.float32)

    def save(self, path: Path) -> None:
        with self._lock.read():
            faiss.write_index(self._index, str(path))

    @classmethod
    def load(cls, path: Path, dim: int) -> VectorIndex:
        try:
            index = faiss.read_index(str(path))
        except RuntimeError as exc:
            raise StoreError(f"cannot read the vector index {path}: {exc}; run `graphmem reindex`") from exc
        if index.d != dim:
            raise StoreError(f"the vector index {path} holds {index.d}-d vectors, the embedder makes {dim}-d; "
                             "run `graphmem reindex`")
        if not _is_lists(index) and isinstance(faiss.downcast_index(index.index), faiss.IndexHNSW):
            # a graph saved by an earlier version: its vectors go into lists (or a flat index, if few)
            ids, vectors = _flat_contents(index, dim)
            index = _built(ids, vectors, dim) if len(ids) >= LISTS_FROM else _flat(ids, vectors, dim)
        return cls(dim, index)


def _is_lists(index: Any) -> bool:
    return isinstance(index, faiss.IndexIVF)


def _flat_contents(index: Any, dim: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The ids and vectors of an id-map index (over a flat index or an HNSW graph)."""
    ids = faiss.vector_to_array(index.id_map).astype(np.int64)
    inner = faiss.downcast_index(index.index)
    vectors = inner.reconstruct_n(0, index.ntotal) if index.ntotal else np.zeros((0, dim), np.float32)
    return ids, vectors


def _flat(ids: NDArray[np.int64], vectors: NDArray[np.float32], dim: int) -> Any:
    out = faiss.IndexIDMap(faiss.IndexFlatIP(dim))  # (not IDMap2: its reverse map is never read)
    if len(ids):
        out.add_with_ids(np.ascontiguousarray(vectors, np.float32), ids)
    return out


def _built(ids: NDArray[np.int64], vectors: NDArray[np.float32], dim: int) -> Any:
    """Lists holding ``vectors`` under ``ids``, their centroids learnt from those vectors."""
    vectors = np.ascontiguousarray(vectors, np.float32)
    lists = max(1, min(LISTS, len(vectors) // POINTS_PER_LIST))
    out = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(dim), dim, lists, faiss.ScalarQuantizer.QT_8bit,
                                        faiss.METRIC_INNER_PRODUCT)
    out.cp.min_points_per_centroid = 1  # (few training vectors for tests' tiny indexes: no warning)
    out.cp.niter = ROUNDS
    out.train(vectors)
    if len(ids):
        out.add_with_ids(vectors, ids)
    return out
