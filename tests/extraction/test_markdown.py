"""Notes of a Markdown page: what is a note, where it starts, what marks it private."""

from __future__ import annotations

from graphmem.extraction import parse_notes

PAGE = """---
updated: 2026-01-31
---
# Monday

Peter moved to Lisbon.
Lena hates flaky tests and
quarantined three of them.

- Aiko joined Globex. #work
  She starts in March.
1. [ ] call @Sam about the release

<!-- a comment
over lines -->
```
- code is not a note
```
| a | b |
---
## Retain
- W @Peter: retained bullets are the Retain reader's
## Private
- Aiko is tired. #private
"""


def test_notes_lines_and_marks():
    notes = parse_notes(PAGE, privacy_tags={"private"})
    assert [(n.line, n.text) for n in notes] == [
        (6, "Peter moved to Lisbon."),
        (7, "Lena hates flaky tests and quarantined three of them."),
        (10, "Aiko joined Globex. #work She starts in March."),
        (12, "call @Sam about the release"),
        (24, "Aiko is tired."),
    ]
    assert notes[2].tags == ("work",) and notes[3].mentions == ("Sam",)
    assert [n.private for n in notes] == [False, False, False, False, True]
    assert notes[-1].tags == ("private",) and notes[0].heading == "Monday"


def test_an_empty_page_has_no_notes():
    assert parse_notes("") == [] and parse_notes("# Only a heading\n") == []
