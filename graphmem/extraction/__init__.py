"""Offline extraction: entities, times and statements from text, and structured inputs agents write."""

from graphmem.extraction.markdown import Note, front_matter, parse_notes
from graphmem.extraction.pipeline import (
    AliasMention,
    EntityMention,
    Extraction,
    Extractor,
    Statement,
    language_of,
)
from graphmem.extraction.retain import RETAIN_KINDS, RetainItem, parse_retain
from graphmem.extraction.rules import Rules, load_rules

__all__ = [
    "RETAIN_KINDS",
    "AliasMention",
    "EntityMention",
    "Extraction",
    "Extractor",
    "Note",
    "RetainItem",
    "Rules",
    "Statement",
    "front_matter",
    "language_of",
    "load_rules",
    "parse_notes",
    "parse_retain",
]
