"""Settings for the command line and the server, read from ``GRAPHMEM_*`` environment variables.

The library itself takes these as keyword arguments of :meth:`graphmem.Memory.open`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphmem.privacy import PrivacyPolicy
from graphmem.store import DEFAULT_BUFFER_POOL_MB

__all__ = ["Settings"]


class Settings(BaseModel):
    """Every knob of the CLI and server; each field reads ``GRAPHMEM_<FIELD>`` from the environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    db: str = Field(default="memory.kuzu", description="path of the database file")
    timezone: str = Field(default="UTC", description="timezone naive input times are read in (IANA name)")
    ontology: str | None = Field(default=None, description="a YAML vocabulary merged over the core one")
    secrets: Literal["refuse", "mask"] = Field(default="refuse", description="what to do with secrets found")
    pii: Literal["refuse", "mask", "allow"] = Field(default="mask", description="what to do with personal data")
    buffer_pool_mb: int = Field(default=DEFAULT_BUFFER_POOL_MB, ge=64,
                                description="database page cache, in MiB; it also holds the engine's key indexes and "
                                "the joins of reads: raise it for memories of several million events")
    embedder: str = Field(default="auto", description="vector model: auto, static, static:DIR, minilm or none")
    host: str = Field(default="127.0.0.1", description="address the server listens on")
    port: int = Field(default=8765, ge=1, le=65535, description="port the server listens on")
    tokens: str | None = Field(default=None, description="tokens file (YAML or JSON): agents, scopes, roles")
    max_body_bytes: int = Field(default=1_000_000, ge=1024, description="largest request body accepted")
    backup_dir: str | None = Field(default=None,
                                   description="folder the server copies its database to on a schedule")
    backup_every_h: float = Field(default=24.0, gt=0, description="hours between two scheduled backups")
    backup_keep: int = Field(default=3, ge=1, description="scheduled backups kept (the oldest are deleted)")
    recovery: bool = Field(default=True, description="keep a recovery copy of the database and the journal of "
                           "the writes since, to make the database again if the engine cannot open it after a "
                           "crash")
    index_save_s: float = Field(default=300.0, ge=0, description="seconds between two saves of the search index "
                                "while it changes (0: only at close); an open after a crash catches up on the writes "
                                "since the last save")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name in cls.model_fields:
            key = f"GRAPHMEM_{name.upper()}"
            if key in env:
                values[name] = env[key]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    @property
    def privacy(self) -> PrivacyPolicy:
        return PrivacyPolicy(secrets=self.secrets, pii=self.pii)

    @property
    def memory_options(self) -> dict[str, Any]:
        """What ``Memory.open(settings.db, **settings.memory_options)`` opens the memory with."""
        return {"ontology": self.ontology, "timezone": self.timezone, "privacy": self.privacy,
                "buffer_pool_mb": self.buffer_pool_mb, "embedder": self.embedder, "recovery": self.recovery,
                "index_save_s": self.index_save_s}
