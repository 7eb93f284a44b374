"""graphmem's errors: every failure a caller can act on, each with a stable ``code``.

The tree::

    GraphmemError                      code
    ├── InvalidInput                   invalid_input        a field is missing, malformed or out of range
    │   ├── MalformedTime              malformed_time       a time or period could not be read
    │   ├── InvalidInterval            invalid_interval     valid_to is not after valid_from
    │   ├── UnknownPredicate           unknown_predicate    the predicate is not in the ontology
    │   └── OntologyError              ontology_error       an ontology file or definition is wrong
    ├── NotFound                       not_found            an id or name that memory does not hold
    ├── PrivacyRefused                 privacy_refused      the event carries a secret or personal data
    ├── Forbidden                      forbidden            the caller may not read or write that scope
    ├── ConfigError                    config_error         a setting names something missing (a model, a file)
    └── StoreError                     store_error          the database failed
        ├── StoreLocked                store_locked         another process holds the database
        └── DuplicateKey               duplicate_key        a write hit an id that already exists

Every error names what is wrong and how to fix it; ``field`` names the offending input field when there is
one. The GraphQL layer puts ``code`` and ``field`` in ``errors[].extensions``. Raising any of these
guarantees that nothing of the failed call was written.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "ConfigError",
    "DuplicateKey",
    "Forbidden",
    "GraphmemError",
    "InvalidInput",
    "InvalidInterval",
    "MalformedTime",
    "NotFound",
    "OntologyError",
    "PrivacyRefused",
    "StoreError",
    "StoreLocked",
    "UnknownField",
    "UnknownPredicate",
]


class GraphmemError(Exception):
    """Base of every error graphmem raises on purpose."""

    code = "graphmem_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict[str, Any]:
        """The error as data, for JSON output and GraphQL extensions."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        return out


class InvalidInput(GraphmemError):
    """A field of the input is missing, malformed or out of range."""

    code = "invalid_input"

    def __init__(
        self, message: str, *, field: str | None = None, problems: Sequence[dict[str, str]] = ()
    ) -> None:
        super().__init__(message, field=field)
        self.problems = list(problems)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.problems:
            out["problems"] = self.problems
        return out


class UnknownField(InvalidInput):
    """An input names a field its kind of input has none of; the message names the one it most likely meant
    (a typo's nearest, or the field another system's word stands for: ``synonyms``) and every one allowed."""

    def __init__(self, name: str, allowed: Iterable[str], *, where: str = "",
                 synonyms: Mapping[str, str] | None = None, field: str | None = None) -> None:
        allowed = sorted(allowed)
        close = difflib.get_close_matches(name, allowed, 1)
        meant = (synonyms or {}).get(name.lower()) or (close[0] if close else None)
        guess = f" (did you mean {meant!r}?)" if meant in allowed else ""
        super().__init__(f"unknown field {name!r}{where}{guess}; allowed: {', '.join(allowed)}",
                         field=field or name)
        self.name = name
        self.meant = meant if meant in allowed else None


class MalformedTime(InvalidInput):
    """A time or period string could not be read. ``out_of_range``: it has the form of a date, week or instant
    with a part that no calendar has ("2025-13-01"), so no other reading of it is tried."""

    code = "malformed_time"

    def __init__(self, value: object, *, field: str | None = None, hint: str | None = None,
                 out_of_range: bool = False) -> None:
        where = f" in '{field}'" if field else ""
        fix = hint or (
            "use an ISO instant ('2025-11-27T14:30:00Z'), a day ('2025-11-27'), a month ('2025-11' or "
            "'Nov 2025') or a year ('2025')"
        )
        super().__init__(f"cannot read time {value!r}{where}; {fix}", field=field)
        self.value = value
        self.out_of_range = out_of_range


class InvalidInterval(InvalidInput):
    """valid_to is not after valid_from."""

    code = "invalid_interval"


class UnknownPredicate(InvalidInput):
    """The predicate is not defined in the ontology."""

    code = "unknown_predicate"

    def __init__(self, name: str, *, allowed: Iterable[str], field: str = "predicate") -> None:
        known = ", ".join(sorted(allowed))
        super().__init__(
            f"unknown predicate {name!r}; known: {known}; add it to your ontology file "
            f"or call mem.define_predicate({name!r}, cardinality='one'|'many')",
            field=field,
        )
        self.name = name


class OntologyError(InvalidInput):
    """An ontology file or a run-time definition is malformed."""

    code = "ontology_error"


class NotFound(GraphmemError):
    """An id or a name that memory does not hold; ``suggestions``: (id, name) of what it may have meant.

    ``checked``: the suggestions were limited to what the caller may see (a server drops unchecked ones for a
    caller that sees only some scopes: a name is no less private than what is said about it).
    """

    code = "not_found"

    def __init__(self, what: str, key: str, *, field: str | None = None, hint: str | None = None,
                 suggestions: Sequence[tuple[str, str]] = (), checked: bool = False) -> None:
        message = f"no {what} {key!r} in memory"
        if suggestions:
            message += " (did you mean " + ", ".join(repr(name) for _, name in suggestions) + "?)"
        if hint:
            message += f"; {hint}"
        super().__init__(message, field=field)
        self.what = what
        self.key = key
        self.hint = hint
        self.suggestions = tuple(suggestions)
        self.checked = checked

    def suggesting(self, suggestions: Sequence[tuple[str, str]]) -> NotFound:
        """The same error with ``suggestions`` only, checked against what its caller may see."""
        return NotFound(self.what, self.key, field=self.field, hint=self.hint, suggestions=suggestions,
                        checked=True)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.suggestions:
            out["suggestions"] = [name for _, name in self.suggestions]
        return out


class PrivacyRefused(GraphmemError):
    """The event carries a secret or personal data and the policy refuses it."""

    code = "privacy_refused"

    def __init__(self, kinds: Sequence[str], *, field: str = "content") -> None:
        found = ", ".join(sorted(set(kinds)))
        super().__init__(
            f"refused: {field} contains {found}; remove it, or tag the event privacy=['redact'] "
            "to store a masked copy",
            field=field,
        )
        self.kinds = sorted(set(kinds))


class Forbidden(GraphmemError):
    """The caller's token does not allow this read or write."""

    code = "forbidden"


class ConfigError(GraphmemError):
    """A setting names something this machine lacks: an embedder model, an extra, a file."""

    code = "config_error"


class StoreError(GraphmemError):
    """The database failed; the message carries the engine's own words."""

    code = "store_error"


class StoreLocked(StoreError):
    """Another process holds the database file."""

    code = "store_locked"


class DuplicateKey(StoreError):
    """A write hit an id that already exists (for events: a replay, which memory reports as a duplicate)."""

    code = "duplicate_key"
