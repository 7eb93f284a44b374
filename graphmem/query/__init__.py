"""Read paths: time views over states, and recall (hybrid search)."""

from graphmem.query.opinions import ConfidenceChange, Opinion, build_opinions
from graphmem.query.recall import (
    PRESETS,
    Preset,
    Ranked,
    RecallFilters,
    RecallHit,
    asks_now,
    asks_title,
    asks_where,
    evidence_refs,
    hydrate,
    preset_named,
    rank,
)
from graphmem.query.views import TimeView, attach_evidence, from_the_other_side, with_the_other_side

__all__ = [
    "PRESETS",
    "ConfidenceChange",
    "Opinion",
    "Preset",
    "Ranked",
    "RecallFilters",
    "RecallHit",
    "TimeView",
    "asks_now",
    "asks_title",
    "asks_where",
    "attach_evidence",
    "evidence_refs",
    "build_opinions",
    "from_the_other_side",
    "hydrate",
    "preset_named",
    "rank",
    "with_the_other_side",
]
