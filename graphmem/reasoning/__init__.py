"""Reasoning over memory: how updates change timelines, opinions and preferences."""

from graphmem.reasoning.janitor import Conflict, TtlCandidate, conflict_note, conflicts_of, ttl_candidates
from graphmem.reasoning.opinions import plan_restate, plan_weigh
from graphmem.reasoning.preferences import (
    POLARITIES,
    PREFERENCE_OPS,
    PreferenceOp,
    live_preferences,
    plan_preference,
)
from graphmem.reasoning.resolution import MergeCandidate, NameBlocks, merge_candidates, names_like
from graphmem.reasoning.promotion import HeldBack, PromotionCandidate, promotion_candidates
from graphmem.reasoning.tidy import Duplicates, find_duplicates, plan_tidy
from graphmem.reasoning.timeline import Assertion, Resolved, resolve_timeline
from graphmem.reasoning.updates import (
    Plan,
    in_timeline_order,
    make_id,
    plan_assert,
    plan_close,
    plan_confirm,
    plan_merge,
    plan_retract,
    plan_revise,
)

__all__ = [
    "POLARITIES",
    "PREFERENCE_OPS",
    "Assertion",
    "Conflict",
    "Duplicates",
    "HeldBack",
    "MergeCandidate",
    "NameBlocks",
    "PromotionCandidate",
    "TtlCandidate",
    "conflict_note",
    "conflicts_of",
    "find_duplicates",
    "plan_restate",
    "plan_tidy",
    "promotion_candidates",
    "ttl_candidates",
    "Plan",
    "PreferenceOp",
    "Resolved",
    "in_timeline_order",
    "live_preferences",
    "make_id",
    "merge_candidates",
    "names_like",
    "plan_assert",
    "plan_close",
    "plan_confirm",
    "plan_merge",
    "plan_preference",
    "plan_retract",
    "plan_revise",
    "plan_weigh",
    "resolve_timeline",
]
