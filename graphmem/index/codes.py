"""Names as small integer codes, given in the order the names are first seen."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Codes"]


class Codes:
    """A vocabulary (scopes, kinds, threads, entities) as integer codes.

    >>> kinds = Codes(["fact"])
    >>> kinds.code("todo"), kinds.code("fact"), kinds.known(["todo", "nope"])
    (1, 0, [1])
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names = list(names)
        self.codes = {n: i for i, n in enumerate(self.names)}

    def code(self, name: str) -> int:
        found = self.codes.get(name)
        if found is None:
            found = self.codes[name] = len(self.names)
            self.names.append(name)
        return found

    def known(self, names: Iterable[str]) -> list[int]:
        return [self.codes[n] for n in names if n in self.codes]
