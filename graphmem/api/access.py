"""Who may read and write what: bearer tokens mapped to agents, and the scopes each agent reaches.

Scopes are ``global``, ``project:<slug>`` and ``agent:<id>``. The rules, in one place:

- an ``agent:<id>`` scope belongs to that agent alone: it always reads and writes it (private items
  included), and no configuration can grant it to anyone else;
- every other scope is read or written only when the agent's entry (or one of its roles) lists it; an agent
  with no lists reads and writes ``global``;
- a *private* item (privacy tag ``private`` or ``sensitive``) is shown only when the caller asks with
  ``includePrivate`` **and** may read private items of that scope (its own scope, or ones listed under
  ``private``); elsewhere the flag is ignored, so asking never reveals more than the token allows;
- an event the caller may not see is left out wherever another item names it (a state's evidence, a
  revision's evidence ids, an opinion's steps, a recall hit's event ids, the event an event replaces), and
  citing or linking to one is answered as citing an event that does not exist;
- a private state (``assertState``, ``holdOpinion``) is written only by a caller that may read the scope's
  private items: it joins their timeline, and its answer shows what that holds; so is a private event whose
  text is read for states (they would be private states of that scope), unless it is recorded unread
  (``extract: false``);
- counts (``stats``, ``health``) are of what the caller may read: other scopes' would show how they change;
- an unknown entity name's error suggests only names of entities the caller can see something about (by a
  name alone one may learn who is in another scope);
- with no tokens configured, the server is a single local user's: the caller reaches every scope, and the
  server binds to loopback only.

A tokens file (YAML or JSON)::

    roles:
      supervisor: {read: ["project:apollo", "project:hermes"]}
    agents:
      claude:   {token_sha256: "<sha256 of the token>", read: [global, "project:apollo"],
                 write: [global, "project:apollo"]}
      overseer: {token: "<the token>", roles: [supervisor], private: ["project:apollo"]}
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graphmem.errors import Forbidden, GraphmemError, InvalidInput, NotFound
from graphmem.ontology import AGENT_ID_PATTERN, Event, State, Visibility, check_scope
from graphmem.ontology.vocabulary import read_yaml
from graphmem.store import ReadPass

__all__ = ["AccessPolicy", "Principal", "ReadPass"]


@dataclass(frozen=True)
class Principal:
    """The caller of one request. ``agent_id`` is ``None`` for the local user of a server without tokens."""

    agent_id: str | None
    read: frozenset[str] | None = None  # None: every scope
    write: frozenset[str] | None = None
    private: frozenset[str] | None = None  # scopes whose private items it may read; None: all

    @classmethod
    def local(cls) -> Principal:
        return cls(agent_id=None)

    @property
    def is_local(self) -> bool:
        return self.agent_id is None

    def shown(self, error: GraphmemError) -> GraphmemError:
        """``error`` as this caller may read it: names it suggests that were not checked against what the
        caller sees (``NotFound.checked``) are left out, unless it sees every scope."""
        if isinstance(error, NotFound) and error.suggestions and not error.checked and not self.is_local:
            return error.suggesting(())
        return error

    def can_read(self, scope: str) -> bool:
        return self.read is None or scope in self.read

    def can_write(self, scope: str) -> bool:
        return self.write is None or scope in self.write

    def can_read_private(self, scope: str) -> bool:
        return self.can_read(scope) and (self.private is None or scope in self.private)

    def check_write(self, scope: str, field: str = "scope", *, private: bool = False) -> None:
        """Refuses a write to ``scope`` the caller may not make; ``private``: a private state, which joins
        the timeline of the scope's private states (an opinion held again, a value restated or superseded), so
        only a caller that may read those writes one."""
        if not self.can_write(scope):
            raise Forbidden(f"agent {self.agent_id!r} may not write scope {scope!r}; it writes "
                            f"{', '.join(sorted(self.write or ()))}", field=field)
        if private and not self.can_read_private(scope):
            raise Forbidden(f"agent {self.agent_id!r} may not write private states in scope {scope!r}, whose "
                            f"private items it may not read; write it in agent:{self.agent_id}, or not "
                            "private", field=field)

    def check_record(self, scope: str, privacy: Iterable[str], *, read: bool, field: str = "scope",
                     read_field: str = "extract") -> None:
        """Refuses an event the caller may not record: in a scope it may not write, or private and ``read``
        (its text read for states, which would join the scope's private timeline, as a private state does)
        in a scope whose private items it may not read."""
        self.check_write(scope, field)
        if read and Visibility.of(privacy) is Visibility.PRIVATE and not self.can_read_private(scope):
            raise Forbidden(f"agent {self.agent_id!r} may not record a private event read for states in "
                            f"scope {scope!r}, whose private items it may not read: they would join their "
                            f"timeline; record it with extract false (stored, not read), in "
                            f"agent:{self.agent_id}, or not private", field=read_field)

    def check_read(self, scope: str, what: str, field: str = "id") -> None:
        if not self.can_read(scope):
            raise Forbidden(f"agent {self.agent_id!r} may not read {what} in scope {scope!r}", field=field)

    def writer_id(self, requested: str | None, field: str = "agentId") -> str:
        """The agent id a write is recorded under: the token's own (a different one is refused)."""
        if self.agent_id is None:
            return requested or "unknown"
        if requested not in (None, self.agent_id):
            raise Forbidden(f"this token writes as agent {self.agent_id!r}, not {requested!r}; leave {field} "
                            "out or send the token of that agent", field=field)
        return self.agent_id

    def passes(self, include_private: bool, scopes: Sequence[str] | None = None) -> list[ReadPass]:
        """The store reads that give exactly this caller's view (optionally narrowed to ``scopes``)."""
        wanted = None if scopes is None else frozenset(scopes)
        readable = self.read if wanted is None else (wanted if self.read is None else wanted & self.read)
        if readable is None:
            return [ReadPass(None, include_private)]
        if not include_private:
            return [ReadPass(tuple(sorted(readable)), False)] if readable else []
        open_private = readable if self.private is None else readable & self.private
        out = [ReadPass(tuple(sorted(open_private)), True)] if open_private else []
        rest = readable - open_private
        if rest:
            out.append(ReadPass(tuple(sorted(rest)), False))
        return out

    def may_see(self, item: Event | State, include_private: bool) -> bool:
        """Whether one event or state is in this caller's view."""
        if item.visibility is not Visibility.PRIVATE:
            return self.can_read(item.scope)
        return include_private and self.can_read_private(item.scope)

    def linkable(self) -> Callable[[Event | State], bool] | None:
        """Which events (and states) this caller may cite, link to or name in a plan: those it may read,
        private ones included (it is pointing at them, not reading them). ``None``: every one (the local
        user)."""
        if self.is_local:
            return None
        return functools.partial(self.may_see, include_private=True)


class _Grant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    read: list[str] = Field(default_factory=list, description="scopes it reads")
    write: list[str] = Field(default_factory=list, description="scopes it writes")
    private: list[str] = Field(default_factory=list, description="scopes whose private items it may read")

    @field_validator("read", "write", "private")
    @classmethod
    def _scopes(cls, value: list[str]) -> list[str]:
        return [check_scope(v) for v in value]


class _Agent(_Grant):
    token: str | None = Field(default=None, min_length=16, description="the bearer token (prefer token_sha256)")
    token_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    roles: list[str] = Field(default_factory=list)


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roles: dict[str, _Grant] = Field(default_factory=dict)
    agents: dict[str, _Agent] = Field(default_factory=dict)


class AccessPolicy:
    """Maps bearer tokens to :class:`Principal` s. ``AccessPolicy.open()`` has no tokens (local use)."""

    def __init__(self, principals: Mapping[str, Principal]) -> None:
        # sha256(token) -> principal; tokens are compared by digest in constant time
        self._by_digest = dict(principals)

    @classmethod
    def open(cls) -> AccessPolicy:
        return cls({})

    @property
    def enabled(self) -> bool:
        return bool(self._by_digest)

    @property
    def agents(self) -> list[str]:
        return sorted(p.agent_id for p in self._by_digest.values() if p.agent_id)

    @classmethod
    def from_file(cls, path: str | Path) -> AccessPolicy:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text) if str(path).endswith(".json") else read_yaml(text)
        return cls.from_config(data or {}, origin=str(path))

    @classmethod
    def from_config(cls, data: Mapping[str, Any], *, origin: str = "tokens") -> AccessPolicy:
        try:
            config = _Config.model_validate(data)
        except ValidationError as exc:
            problems = [{"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()]
            first = problems[0]
            raise InvalidInput(f"{origin}: {first['field']}: {first['message']}", field=first["field"],
                               problems=problems) from None
        principals: dict[str, Principal] = {}
        for agent_id, agent in config.agents.items():
            principal = _principal(agent_id, agent, config.roles, origin)
            digest = agent.token_sha256 or (hashlib.sha256(agent.token.encode()).hexdigest() if agent.token else None)
            if digest is None:
                raise InvalidInput(f"{origin}: agent {agent_id!r} has no token; add token or token_sha256",
                                   field=f"agents.{agent_id}.token")
            if digest in principals:
                raise InvalidInput(f"{origin}: agents {principals[digest].agent_id!r} and {agent_id!r} share a "
                                   "token; give each agent its own", field=f"agents.{agent_id}.token")
            principals[digest] = principal
        return cls(principals)

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller behind an ``Authorization`` header; raises :class:`Forbidden` for a missing or bad one."""
        if not self.enabled:
            return Principal.local()
        if not authorization or not authorization.lower().startswith("bearer "):
            raise Forbidden("missing bearer token; send 'Authorization: Bearer <token>'", field="authorization")
        digest = hashlib.sha256(authorization[7:].strip().encode()).hexdigest()
        for known, principal in self._by_digest.items():
            if hmac.compare_digest(known, digest):
                return principal
        raise Forbidden("unknown bearer token", field="authorization")


def _principal(agent_id: str, agent: _Agent, roles: Mapping[str, _Grant], origin: str) -> Principal:
    if not re.match(AGENT_ID_PATTERN, agent_id):
        raise InvalidInput(f"{origin}: agent id {agent_id!r} must be lowercase letters, digits, '_', '-', '.'",
                           field=f"agents.{agent_id}")
    grants: list[_Grant] = [agent]
    for role in agent.roles:
        if role not in roles:
            raise InvalidInput(f"{origin}: agent {agent_id!r} has unknown role {role!r}; known: "
                               f"{', '.join(sorted(roles)) or 'none'}", field=f"agents.{agent_id}.roles")
        grants.append(roles[role])
    own = f"agent:{agent_id}"

    def collect(name: str, default: Iterable[str]) -> frozenset[str]:
        scopes = {s for g in grants for s in getattr(g, name)}
        foreign = sorted(s for s in scopes if s.startswith("agent:") and s != own)
        if foreign:
            raise InvalidInput(f"{origin}: agent {agent_id!r} lists {', '.join(foreign)} under {name}; an agent "
                               "scope belongs to its own agent only", field=f"agents.{agent_id}.{name}")
        return frozenset(scopes or set(default)) | {own}

    listed = any(g.read or g.write for g in grants)
    return Principal(
        agent_id=agent_id,
        read=collect("read", () if listed else ("global",)),
        write=collect("write", () if listed else ("global",)),
        private=collect("private", ()),
    )
