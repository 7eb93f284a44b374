"""Reasoning over memory: how updates change timelines."""

from graphmem.reasoning.timeline import Assertion, Resolved, resolve_timeline
from graphmem.reasoning.updates import Plan, make_id, plan_assert, plan_close, plan_retract

__all__ = ["Assertion", "Plan", "Resolved", "make_id", "plan_assert", "plan_close", "plan_retract", "resolve_timeline"]
