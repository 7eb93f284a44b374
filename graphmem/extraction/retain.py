"""``## Retain`` sections of Markdown daily logs: the writer's own short list of what is worth keeping.

Each bullet starts with a type: ``W`` (world: a fact about the world), ``B`` (experience: something the writer
did or lived), ``O`` (opinion, optionally ``O(c=0.9)`` with a confidence) or ``S`` (observation / summary),
then optionally the entities it is about as ``@mentions`` before a colon, then the text::

    ## Retain
    - W @Peter: staying in Marrakesh (Nov 27 - Dec 1) for Andy's birthday.
    - B @warelay: fixed the socket crash by wrapping the update handler.
    - O(c=0.95) @Peter: prefers short replies on WhatsApp; long content goes into files.

A heading ``## Retain`` (or ``## 保持``) opens the section; the next heading of level one or two closes it.
Indented lines continue the bullet above. A bullet without a type prefix is an error naming its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.errors import InvalidInput

__all__ = ["HEADING", "MENTION", "RETAIN_KINDS", "RetainItem", "is_retain_heading", "parse_retain"]

RETAIN_KINDS = {"W": "world", "B": "experience", "O": "opinion", "S": "observation"}
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_OPENS = {"retain", "保持"}
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")
_PREFIX = re.compile(r"^([WBOS])(?:\(\s*c\s*=\s*([^)]*)\))?(?:\s+|:\s*|$)(.*)$", re.DOTALL)
_ABOUT = re.compile(r"^((?:@[\w][\w.\-]*(?:\s*,\s*|\s+))*@[\w][\w.\-]*)\s*:\s*(.*)$", re.DOTALL)
MENTION = re.compile(r"(?<![\w@])@([\w][\w.\-]*[\w]|[\w])")


@dataclass(frozen=True)
class RetainItem:
    """One retained bullet."""

    kind: str  # world, experience, opinion or observation
    text: str  # without the type prefix and the @about header
    about: tuple[str, ...]  # the @entities before the colon
    mentions: tuple[str, ...]  # every @entity of the bullet, the about ones first
    confidence: float | None  # an opinion's c
    line: int  # 1-based line of the bullet in the document


def parse_retain(markdown: str) -> list[RetainItem]:
    """The bullets of every Retain section of ``markdown``, in order."""
    items: list[RetainItem] = []
    bullets: list[tuple[int, str]] = []
    inside = False
    for number, line in enumerate(markdown.splitlines(), start=1):
        heading = HEADING.match(line)
        if heading:
            if is_retain_heading(heading.group(2)):
                inside = True
            elif len(heading.group(1)) <= 2:
                inside = False
            continue
        if not inside or not line.strip():
            continue
        bullet = _BULLET.match(line)
        if bullet:
            bullets.append((number, bullet.group(1).strip()))
        elif bullets and line[:1].isspace():
            bullets[-1] = (bullets[-1][0], f"{bullets[-1][1]} {line.strip()}")
    for number, text in bullets:
        items.append(_item(number, text))
    return items


def is_retain_heading(title: str) -> bool:
    """Whether a heading's text opens a Retain section."""
    return title.strip().casefold() in _OPENS


def _item(line: int, text: str) -> RetainItem:
    prefix = _PREFIX.match(text)
    if not prefix:
        raise InvalidInput(
            f"line {line}: a Retain bullet starts with its type W, B, O or S (e.g. '- W @Peter: moved to Berlin')",
            field=f"line {line}",
        )
    letter, raw_c, rest = prefix.group(1), prefix.group(2), prefix.group(3).strip()
    confidence = None
    if raw_c is not None:
        if letter != "O":
            raise InvalidInput(f"line {line}: only an opinion (O) takes a confidence (c=...)", field=f"line {line}")
        try:
            confidence = float(raw_c)
        except ValueError:
            confidence = -1.0
        if not 0.0 <= confidence <= 1.0:
            raise InvalidInput(f"line {line}: c must be a number in [0, 1], not {raw_c!r}", field=f"line {line}")
    about: tuple[str, ...] = ()
    header = _ABOUT.match(rest)
    if header:
        about = tuple(MENTION.findall(header.group(1)))
        rest = header.group(2).strip()
    if not rest:
        raise InvalidInput(f"line {line}: the bullet has no text after its type", field=f"line {line}")
    mentions = tuple(dict.fromkeys((*about, *MENTION.findall(rest))))
    return RetainItem(kind=RETAIN_KINDS[letter], text=rest, about=about, mentions=mentions, confidence=confidence,
                      line=line)
