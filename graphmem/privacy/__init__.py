"""Keeping secrets and personal data out of memory."""

from graphmem.privacy.detect import Finding, mask, scan
from graphmem.privacy.guard import GuardDecision, PrivacyPolicy, guard

__all__ = ["Finding", "GuardDecision", "PrivacyPolicy", "guard", "mask", "scan"]
