"""The base of graphmem's frozen records (events, states, entities, times ...): one shared set of field names.

pydantic keeps, on every model, the set of the fields its constructor was given. For a state that set alone
is ~1.2 KB (a hash table of 18 names), more than the state's own values. Frozen records never change that
set, so :class:`Record` swaps it for one shared by every record made with the same fields
(:func:`shared_fields`). Measured (tracemalloc): a state 2,781 -> 1,325 bytes, a copy of one 2,209 -> 969,
an event 3,048 -> 1,592, an entity 1,135 -> 782. A write of 40,000 states holds two or three versions of
each; the caches hold 20,000 events and 50,000 entities. The cost: ~0.5 us more to make a record.
The shared set refuses changes: a mutation would otherwise reach every record that shares it.
"""

from __future__ import annotations

import copyreg
import threading
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, Self, TypeVar

from pydantic import BaseModel, ConfigDict

__all__ = ["Record", "shared_fields"]


class _SharedFields(set[str]):
    """A set of field names that many records share: read-only."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a record's set of given fields is shared between records and cannot change")

    add = discard = remove = pop = clear = update = _refuse
    difference_update = intersection_update = symmetric_difference_update = _refuse
    __ior__ = __iand__ = __isub__ = __ixor__ = _refuse

    # a copy (pydantic's model_copy adds to it) or a pickle is a plain set
    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: Any) -> set[str]:
        return set(self)

    def __reduce__(self) -> tuple[type[set[str]], tuple[list[str]]]:
        return set, (list(self),)


_SHARED: dict[frozenset[str], _SharedFields] = {}
_LOCK = threading.Lock()
_EVERY: dict[type, set[str]] = {}  # a record class -> the shared set of all its fields


def shared_fields(names: Iterable[str]) -> set[str]:
    """The one shared (read-only) set holding ``names``.

    >>> shared_fields(["b", "a"]) is shared_fields({"a", "b"})
    True
    """
    key = frozenset(names)
    found = _SHARED.get(key)
    if found is None:
        with _LOCK:
            found = _SHARED.setdefault(key, _SharedFields(key))
    return found


class Record(BaseModel):
    """A frozen model whose set of given fields is shared (see the module's note)."""

    model_config = ConfigDict(frozen=True)

    def model_post_init(self, context: Any, /) -> None:
        object.__setattr__(self, "__pydantic_fields_set__", shared_fields(self.__pydantic_fields_set__))

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Self:
        """As pydantic's (trusted values, no validation); given every field and nothing else, the values become
        the record's own at once: an event ~15 -> ~6 us (pydantic walks the fields one by one, filling defaults),
        and the store makes one for every row it reads."""
        every = _every(cls)
        if _fields_set is not None or len(values) != len(every) or not every.issuperset(values):
            return super().model_construct(_fields_set, **values)
        return _made(cls, values, every)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        mine = self.__pydantic_fields_set__
        if (not deep and isinstance(mine, _SharedFields) and (not update or update.keys() <= mine)
                and self.__pydantic_extra__ is None and self.__pydantic_private__ is None):
            # what pydantic's copy makes (a shallow copy of the values, updated; no validation), made at once:
            # ~1.5 us, not ~8 (every event written is copied once, with its time of writing)
            return _made(type(self), {**self.__dict__, **update} if update else {**self.__dict__}, mine)
        # pydantic adds the updated names to a copy of the set (a plain one: see _SharedFields.__reduce__)
        copied = super().model_copy(update=update, deep=deep)
        mine = self.__pydantic_fields_set__
        same = isinstance(mine, _SharedFields) and (not update or update.keys() <= mine)
        fields = mine if same else shared_fields(copied.__pydantic_fields_set__)
        object.__setattr__(copied, "__pydantic_fields_set__", fields)
        return copied

    def __reduce__(self) -> str | tuple[Any, ...]:
        """Pickled as its class and values, with the names given only when some were not (the journal pickles
        every record a write makes): a write of one event with a confirmed state pickles in ~38 us, not ~48.
        Journals written before (pydantic's own pickles) still load."""
        if self.__pydantic_extra__ is not None or self.__pydantic_private__ is not None:
            return copyreg.__newobj__, (type(self),), self.__getstate__()  # type: ignore[attr-defined]
        given = self.__pydantic_fields_set__
        if given is _EVERY.get(type(self)) or len(given) == len(_every(type(self))):
            return _unpickled, (type(self), self.__dict__)
        return _unpickled, (type(self), self.__dict__, tuple(given))


_R = TypeVar("_R", bound=Record)


def _every(cls: type[Record]) -> set[str]:
    """The shared set of all the fields of ``cls``."""
    every = _EVERY.get(cls)
    if every is None:
        every = _EVERY.setdefault(cls, shared_fields(cls.model_fields))
    return every


def _made(cls: type[_R], values: dict[str, Any], given: set[str]) -> _R:
    made = object.__new__(cls)
    object.__setattr__(made, "__dict__", values)
    object.__setattr__(made, "__pydantic_fields_set__", given)
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", None)
    return made


def _unpickled(cls: type[Record], values: dict[str, Any], given: Iterable[str] | None = None) -> Any:
    """A record as :meth:`Record.__reduce__` pickled it."""
    return _made(cls, values, _every(cls) if given is None else shared_fields(given))
