"""Sets of integers as sorted numpy arrays, how far a growable array grows, and named arrays in a file.

numpy's own ``unique`` and ``union1d`` hash their input: ~0.9 s for a million 64-bit numbers, where sorting
them and dropping the repeats takes ~30 ms. Every sorted set in the package is made here.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["grown", "room", "save_arrays", "sorted_union", "sorted_unique"]

N = TypeVar("N", bound=np.integer)


def room(needed: int, held: int) -> int:
    """The length to give an array that must hold ``needed`` items and now has room for ``held``: a quarter
    more than it has (at least ``needed``, and 1,024). Doubling left up to half of the search index's arrays
    empty: at a million events ~80 MB of its columns, allocated at twice their length when it was opened.

    >>> room(1, 0), room(1_025, 1_024), room(5_000, 1_024)
    (1024, 1280, 5000)
    """
    return max(needed, held + held // 4, 1_024)


def grown(array: NDArray[Any], needed: int, fill: Any = 0) -> NDArray[Any]:
    """``array`` when it holds ``needed`` items already, else a longer copy (see :func:`room`) with ``fill``
    past its items. The old array is never changed: a reader that took it still sees all it held.

    >>> grown(np.arange(3), 2).tolist(), len(grown(np.arange(3), 4, -1)), grown(np.arange(3), 4, -1)[2:5].tolist()
    ([0, 1, 2], 1024, [2, -1, -1])
    """
    if needed <= len(array):
        return array
    out = np.full(room(needed, len(array)), fill, array.dtype)
    out[: len(array)] = array
    return out


def sorted_unique(values: NDArray[N]) -> NDArray[N]:
    """The distinct values, in increasing order.

    >>> sorted_unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def sorted_union(*arrays: NDArray[N]) -> NDArray[N]:
    """The distinct values of all ``arrays``, in increasing order.

    >>> sorted_union(np.array([5, 1]), np.array([1, 4])).tolist()
    [1, 4, 5]
    """
    return sorted_unique(np.concatenate(arrays))


def save_arrays(path: Path, arrays: dict[str, NDArray[Any]]) -> None:
    """``arrays`` by name in one ``.npz`` file (``np.load`` reads them back), each written from its own
    memory: ``np.savez`` copies an array into the file 16 MiB at a time, ~32 MiB more held while a large one
    is written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     arrays = {"n": np.arange(3), "ids": np.array([b"ab", b"c"]), "k": np.array(2)}
    ...     save_arrays(Path(tmp) / "a.npz", arrays)
    ...     with np.load(Path(tmp) / "a.npz") as got:
    ...         got["n"].tolist(), got["ids"].tolist(), int(got["k"])
    ([0, 1, 2], [b'ab', b'c'], 2)
    """
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as out:
                if array.dtype.hasobject:
                    np.lib.format.write_array(out, array, allow_pickle=False)  # (refused: no objects saved)
                    continue
                header = np.lib.format.header_data_from_array_1_0(array) | {"fortran_order": False}
                np.lib.format.write_array_header_2_0(out, header)
                whole = np.ascontiguousarray(array).reshape(-1)  # (a copy only of a strided one)
                out.write(whole.view(np.uint8).data)
