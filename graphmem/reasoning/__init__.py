"""Reasoning over memory: how updates change timelines, opinions and preferences."""

from graphmem.reasoning.opinions import plan_weigh
from graphmem.reasoning.preferences import (
    POLARITIES,
    PREFERENCE_OPS,
    PreferenceOp,
    live_preferences,
    plan_preference,
)
from graphmem.reasoning.timeline import Assertion, Resolved, resolve_timeline
from graphmem.reasoning.updates import Plan, make_id, plan_assert, plan_close, plan_retract, plan_revise

__all__ = [
    "POLARITIES",
    "PREFERENCE_OPS",
    "Assertion",
    "Plan",
    "PreferenceOp",
    "Resolved",
    "live_preferences",
    "make_id",
    "plan_assert",
    "plan_close",
    "plan_preference",
    "plan_retract",
    "plan_revise",
    "plan_weigh",
    "resolve_timeline",
]
