"""The notes of a Markdown page outside its ``## Retain`` sections: each list item, and each sentence line of a
paragraph (a line ending a sentence ends its note; a wrapped line continues it), is one note, remembered with
the line it starts on.

What is not a note: headings (they give the notes under them their ``heading``), fenced code, HTML comments,
front matter, horizontal rules and table rows. A note under a heading named ``Private`` (or ``非公開``) is
private; ``#tags`` in a note are returned separately and stay in its text unless they are privacy tags.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from graphmem.extraction.retain import HEADING, MENTION, is_retain_heading

__all__ = ["Note", "front_matter", "parse_notes"]

_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_HASHTAG = re.compile(r"(?<![\w#&/])#([A-Za-z][\w\-]*)")
_SENTENCE_END = (".", "!", "?", "。", "！", "？")
_PRIVATE_HEADINGS = {"private", "非公開", "private notes"}


@dataclass(frozen=True)
class Note:
    """One list item or paragraph of a page."""

    line: int  # 1-based line it starts on
    text: str  # continuation lines joined with single spaces; privacy #tags removed
    heading: str | None  # the nearest heading above it
    private: bool  # under a Private heading
    tags: tuple[str, ...]  # its #tags, lower-cased, privacy ones included
    mentions: tuple[str, ...]  # its @mentions


def parse_notes(markdown: str, privacy_tags: Collection[str] = ()) -> list[Note]:
    """The notes of ``markdown`` outside Retain sections, in order. ``privacy_tags`` are the #tags that are
    removed from a note's text (they mark it rather than say something)."""
    notes: list[Note] = []
    open_note: list[tuple[int, str]] = []  # (line, text) pieces of the note being read
    heading: str | None = None
    private = retain = fenced = comment = False
    lines = markdown.splitlines()
    start = front_matter(markdown)[1]

    def flush() -> None:
        if open_note:
            notes.append(_note(open_note, heading, private, privacy_tags))
            open_note.clear()

    for number, line in enumerate(lines[start:], start=start + 1):
        stripped = line.strip()
        if comment:
            comment = "-->" not in stripped
            continue
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        if stripped.startswith("<!--"):
            flush()
            comment = "-->" not in stripped
            continue
        found = HEADING.match(line)
        if found:
            flush()
            level, title = len(found.group(1)), found.group(2).strip()
            if is_retain_heading(title):
                retain = True
            elif level <= 2:
                retain = False
            if not retain:
                heading = title
                private = title.casefold() in _PRIVATE_HEADINGS or (private and level > 2)
            continue
        if retain:
            continue
        if not stripped or _RULE.match(line) or stripped.startswith("|"):
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            open_note.append((number, bullet.group(1).strip()))
        else:
            if open_note and not line[:1].isspace() and open_note[-1][1].endswith(_SENTENCE_END):
                flush()  # a log's next line after a finished sentence is its next note
            open_note.append((number, stripped))  # or a wrapped line / an item's continuation
    flush()
    return [n for n in notes if n.text]


def front_matter(markdown: str) -> tuple[dict[str, str], int]:
    """A page's leading ``---`` ... ``---`` block as ``key: value`` fields (keys lower-cased, quotes
    stripped), and the index of the first line after it (0 when there is none)."""
    lines = markdown.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            fields = {}
            for entry in lines[1:index]:
                key, _, value = entry.partition(":")
                if value.strip():
                    fields[key.strip().lower()] = value.strip().strip("'\"")
            return fields, index + 1
    return {}, 0


def _note(pieces: list[tuple[int, str]], heading: str | None, private: bool, privacy_tags: Collection[str]) -> Note:
    text = " ".join(piece for _, piece in pieces if piece)
    tags = tuple(dict.fromkeys(t.lower() for t in _HASHTAG.findall(text)))
    hidden = {t for t in tags if t in privacy_tags}
    if hidden:
        text = _HASHTAG.sub(lambda m: "" if m.group(1).lower() in hidden else m.group(0), text)
        text = re.sub(r"\s{2,}", " ", text).strip()
    mentions = tuple(dict.fromkeys(MENTION.findall(text)))
    return Note(line=pieces[0][0], text=text, heading=heading, private=private, tags=tags, mentions=mentions)
