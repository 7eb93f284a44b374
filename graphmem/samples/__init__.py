"""The bundled sample memory: a fictional team's log (``team.jsonl``), the opinions formed over it
(``opinions.json``: each names the events that formed, supported or contradicted it by their source ref), and
the team's Markdown workspace for the weeks after (``workspace/``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.memory import Memory

__all__ = ["SampleLoad", "load_sample", "sample_events", "sample_workspace"]


@dataclass(frozen=True)
class SampleLoad:
    events: int
    opinions: int
    evidence: int


def _read(name: str) -> str:
    return resources.files("graphmem.samples").joinpath(name).read_text(encoding="utf-8")


def sample_workspace() -> Path:
    """The bundled Markdown workspace: the same team's memory.md, daily logs of Feb-Mar 2026 and a bank page."""
    return Path(str(resources.files("graphmem.samples").joinpath("workspace")))


def sample_events() -> list[dict[str, Any]]:
    return [json.loads(line) for line in _read("team.jsonl").splitlines() if line.strip()]


def load_sample(memory: Memory) -> SampleLoad:
    """Record the sample's events, then form its opinions and weigh their evidence in the order it happened."""
    results = memory.record_many(sample_events())
    by_ref = {e.source.ref: e.id for e in memory.events(limit=1000, include_private=True) if e.source.ref}
    weighed = 0
    specs = json.loads(_read("opinions.json"))
    for spec in specs:
        opinion = memory.hold_opinion(spec["statement"], holder=spec["holder"], about=spec["about"],
                                      confidence=spec["confidence"], valid_from=spec["valid_from"],
                                      evidence=[by_ref[spec["formed_by"]]])
        for item in spec["evidence"]:
            memory.weigh_opinion(opinion.id, by_ref[item["ref"]], stance=item["stance"],
                                 strong=item.get("strong", False))
            weighed += 1
    return SampleLoad(events=sum(r.status == "created" for r in results), opinions=len(specs), evidence=weighed)
