"""graphmem: a temporal knowledge-graph memory for AI agents.

>>> from graphmem import Memory
>>> mem = Memory.in_memory()
>>> mem.stats().events
0
"""

from graphmem.errors import (
    DuplicateKey,
    Forbidden,
    GraphmemError,
    InvalidInput,
    InvalidInterval,
    MalformedTime,
    NotFound,
    OntologyError,
    PrivacyRefused,
    StoreError,
    StoreLocked,
    UnknownPredicate,
)
from graphmem.memory import Backup, EntityView, Memory, MergeResult, RecordResult, StateInput
from graphmem.ontology import (
    Entity,
    Event,
    Evidence,
    EvidenceStance,
    Granularity,
    Interval,
    Revision,
    Source,
    State,
    StateStatus,
    Thread,
    TimePoint,
)
from graphmem.privacy import PrivacyPolicy

__version__ = "0.1.0"

__all__ = [
    "Backup",
    "DuplicateKey",
    "Entity",
    "EntityView",
    "Event",
    "Evidence",
    "EvidenceStance",
    "Forbidden",
    "Granularity",
    "GraphmemError",
    "Interval",
    "InvalidInput",
    "InvalidInterval",
    "MalformedTime",
    "Memory",
    "MergeResult",
    "NotFound",
    "OntologyError",
    "PrivacyPolicy",
    "PrivacyRefused",
    "RecordResult",
    "Revision",
    "Source",
    "State",
    "StateInput",
    "StateStatus",
    "StoreError",
    "StoreLocked",
    "Thread",
    "TimePoint",
    "UnknownPredicate",
]
