"""The privacy guard every event passes before it is stored.

Order of decisions:

1. a privacy tag whose action is ``drop`` (``no_mem``, ``block``) -> the event is not stored at all;
2. a tag whose action is ``mask`` (``redact``, ``mask``) -> every secret and piece of personal data is masked;
3. otherwise the policy decides: secrets are refused (default) or masked; personal data is masked (default),
   refused, or allowed;
4. tags whose action is ``restrict`` (``private``, ``sensitive``) store the event but keep it out of reads
   unless the reader asks for private items and is allowed to see them (enforced by the read paths).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from graphmem.errors import PrivacyRefused
from graphmem.ontology import Ontology
from graphmem.privacy.detect import Finding, mask, scan

__all__ = ["GuardDecision", "PrivacyPolicy", "guard"]


class PrivacyPolicy(BaseModel):
    """What to do with secrets and personal data found in an event that is not tagged for masking."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    secrets: Literal["refuse", "mask"] = "refuse"
    pii: Literal["refuse", "mask", "allow"] = "mask"


@dataclass(frozen=True)
class GuardDecision:
    store: bool
    content: str
    redactions: tuple[str, ...] = ()


def guard(
    content: str, privacy_tags: Sequence[str], policy: PrivacyPolicy, ontology: Ontology, *, field: str = "content"
) -> GuardDecision:
    """Decide whether and how ``content`` is stored; raises :class:`PrivacyRefused` to refuse it."""
    actions = {ontology.privacy_action(tag) for tag in privacy_tags}
    if "drop" in actions:
        return GuardDecision(store=False, content="")
    findings = scan(content)
    if not findings:
        return GuardDecision(store=True, content=content)
    if "mask" in actions:
        return _masked(content, findings)
    secrets = [f for f in findings if f.category == "secret"]
    personal = [f for f in findings if f.category == "pii"]
    refused = (secrets if policy.secrets == "refuse" else []) + (personal if policy.pii == "refuse" else [])
    if refused:
        raise PrivacyRefused([f.kind for f in refused], field=field)
    to_mask = secrets + (personal if policy.pii == "mask" else [])
    if not to_mask:
        return GuardDecision(store=True, content=content)
    return _masked(content, sorted(to_mask, key=lambda f: f.start))


def _masked(content: str, findings: list[Finding]) -> GuardDecision:
    return GuardDecision(
        store=True, content=mask(content, findings), redactions=tuple(sorted({f.kind for f in findings}))
    )
