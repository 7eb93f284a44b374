"""The lexical index's terms and their numbers, in 12 bytes a term.

A ``dict`` of term strings costs ~120 bytes a term: at a million documents the index held ~1M terms (every
number, name and code is one) and ~120 MB for them. Searching needs only a term's number, never its text,
so a term is kept as a stable 64-bit hash of it (BLAKE2b), in a sorted array beside the numbers. Two terms
would share postings only if their hashes collided: among a million terms, odds of about 3 in 10^8.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["Vocabulary", "term_key"]


def term_key(term: str) -> int:
    """The term's 64-bit key, the same in every process (``hash()`` of a string is not)."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little", signed=True)


class Vocabulary:
    """Terms numbered 0, 1, 2, ... in the order they were first given.

    Lookups read the sorted pair of arrays without a lock: :meth:`numbers` replaces the pair in one
    assignment, so a reader sees the terms of one moment or the next, never half of each.

    >>> vocabulary = Vocabulary()
    >>> vocabulary.numbers(["peter", "marrakesh", "peter"]).tolist()
    [0, 1, 0]
    >>> vocabulary.get("marrakesh"), vocabulary.get("acme"), len(vocabulary)
    (1, None, 2)
    """

    def __init__(self, keys: NDArray[np.int64] | None = None, numbers: NDArray[np.int32] | None = None) -> None:
        """``keys`` ascending and the ``numbers`` of their terms (as :meth:`saved` gives them)."""
        if keys is None or numbers is None:
            keys, numbers = np.zeros(0, np.int64), np.zeros(0, np.int32)
        self._sorted = (np.asarray(keys, np.int64), np.asarray(numbers, np.int32))
        self._n = int(self._sorted[1].max()) + 1 if len(self._sorted[1]) else 0

    @classmethod
    def of(cls, terms: Sequence[str]) -> Vocabulary:
        """The terms numbered in the order given (an index saved with its terms as text loads this way)."""
        out = cls()
        out.numbers(terms)
        return out

    def __len__(self) -> int:
        return self._n

    def __contains__(self, term: str) -> bool:
        return self.get(term) is not None

    def get(self, term: str) -> int | None:
        keys, numbers = self._sorted
        key = term_key(term)
        at = int(np.searchsorted(keys, key))
        return int(numbers[at]) if at < len(keys) and keys[at] == key else None

    def numbers(self, terms: Sequence[str]) -> NDArray[np.int64]:
        """Each term's number; a term not seen before gets the next one (in the order given)."""
        keys, numbers = self._sorted
        wanted = np.fromiter((term_key(t) for t in terms), np.int64, len(terms))
        at = np.searchsorted(keys, wanted)
        known = at < len(keys)
        known[known] = keys[at[known]] == wanted[known]
        out = np.empty(len(terms), np.int64)
        out[known] = numbers[at[known]]
        if not known.all():
            unknown = wanted[~known]
            new_keys, first = np.unique(unknown, return_index=True)  # a term given twice: one number
            new_numbers = np.empty(len(new_keys), np.int32)
            new_numbers[np.argsort(first, kind="stable")] = np.arange(self._n, self._n + len(new_keys))
            out[~known] = new_numbers[np.searchsorted(new_keys, unknown)]
            places = np.searchsorted(keys, new_keys)
            self._sorted = (np.insert(keys, places, new_keys), np.insert(numbers, places, new_numbers))
            self._n += len(new_keys)
        return out

    def saved(self) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        """The keys, ascending, and their terms' numbers: what the constructor takes back."""
        return self._sorted
