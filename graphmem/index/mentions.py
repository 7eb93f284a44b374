"""The entities each document mentions, by document number, as codes in flat arrays.

A tuple of entity ids per document cost ~80 bytes for the usual two entities (the tuple and its list slot),
more when each document brought its own copies of the id strings; here a document costs its codes (4 bytes
each) and one end offset (8 bytes), and each entity id is held once. Documents are only ever appended; an
entity a write plan names for an older document goes to a small side table, and a merge points the merged
entity's code at the kept one's instead of rewriting the documents that mention it.

>>> mentions = Mentions()
>>> mentions.append(("ent_a", "ent_b"))
>>> mentions.append(())
>>> mentions.add(1, "ent_c"), mentions.add(1, "ent_c")
(True, False)
>>> mentions.rename("ent_b", "ent_a")
>>> mentions.of(0), mentions.of(1)
(('ent_a',), ('ent_c',))
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from graphmem.index.codes import Codes

__all__ = ["Mentions"]


class Mentions:
    def __init__(self) -> None:
        self._entities = Codes()  # entity id <-> code
        self._into: dict[int, int] = {}  # a merged entity's code -> the code it was merged into
        self._flat = array("i")  # every document's codes, in document order
        self._ends = array("q")  # document d's codes are _flat[_ends[d - 1]:_ends[d]]
        self._later: dict[int, list[int]] = {}  # codes added to a document after it was appended

    def __len__(self) -> int:
        return len(self._ends)

    def append(self, names: Iterable[str]) -> None:
        """The next document, mentioning ``names``."""
        self._flat.extend(self._entities.code(n) for n in dict.fromkeys(names))
        self._ends.append(len(self._flat))

    def of(self, doc: int) -> tuple[str, ...]:
        start = self._ends[doc - 1] if doc else 0
        codes: Sequence[int] = self._flat[start: self._ends[doc]]
        if doc in self._later:
            codes = [*codes, *self._later[doc]]
        if self._into:
            codes = [self._kept(c) for c in codes]
        return tuple(dict.fromkeys(self._entities.names[c] for c in codes))

    def _kept(self, code: int) -> int:
        while code in self._into:
            code = self._into[code]
        return code

    def add(self, doc: int, name: str) -> bool:
        """Document ``doc`` mentions ``name`` too; False (and nothing changes) if it already did."""
        if name in self.of(doc):
            return False
        self._later.setdefault(doc, []).append(self._entities.code(name))
        return True

    def rename(self, merged: str, kept: str) -> None:
        """Documents mentioning ``merged`` mention ``kept`` instead."""
        code = self._entities.codes.pop(merged, None)  # (a later mention of it gets a code of its own)
        if code is not None:
            self._into[code] = self._entities.code(kept)

    @classmethod
    def from_docs(cls, documents: int, docs_of: Mapping[str, Sequence[int]]) -> Mentions:
        """Built from each entity's documents (what the search index saves), for ``documents`` documents; a
        document lists its entities in the order of ``docs_of``."""
        out = cls()
        names = list(docs_of)
        out._entities = Codes(names)
        lengths = np.fromiter((len(d) for d in docs_of.values()), np.int64, len(names))
        docs = (np.concatenate([np.asarray(d, np.int64) for d in docs_of.values()]) if names
                else np.zeros(0, np.int64))
        codes = np.repeat(np.arange(len(names), dtype=np.int32), lengths)
        order = np.argsort(docs, kind="stable")
        out._flat.frombytes(codes[order].astype(np.int32).tobytes())
        out._ends.frombytes(np.cumsum(np.bincount(docs, minlength=documents)[:documents]).astype(np.int64).tobytes())
        return out
