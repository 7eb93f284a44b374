"""Tasks written as tasks (the ``tasks`` section of the extraction rules).

A line that opens with a box or a label of a task says one: "- [ ] renew the passport", "TODO: book the
venue", "やること：報告書を書く" are open; "- [x] renew the passport", "Done: book the venue",
"完了：報告書を書く" done. So does a phrase asking to be reminded that opens a sentence ("Can you remind me
to call Mom on Friday?"; not "these moments remind me to slow down"). The task is the words after the mark,
to the end of the sentence, without a time said with them: that time is when it is due ("by Friday",
"金曜までに", "(due 2025-12-05)"). A task is who says the line's to do; sentences that say so ("I need to
renew my passport") are read by the statement templates of the same predicate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from graphmem.extraction.rules import TaskRules
from graphmem.ontology.time import TimePoint
from graphmem.temporal.expressions import TimeMention

__all__ = ["TaskLine", "due_of", "read_tasks"]

# where the words of a task end: the end of its sentence (a full stop before a space, not "v1.2"), and for one
# asked to be reminded of, of its clause ("remind me to call Mom, she's waiting")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|[。！？]")
_CLAUSE_END = re.compile(r",\s|;|\s(?:so|because|since|but|and then|when|if)\s|[?!]")
# words left at either end once a time said with the task is taken out ("renew the passport by [Friday]",
# "[金曜]までに報告書を書く", "call Bob ([tomorrow])")
_TRAILING = re.compile(r"(?i)(?:[\s,;:(\[（「-]+|\s+(?:by|before|on|until|till|due|at|in|for)\b"
                       r"|までに|まで|に)+$")
_LEADING = re.compile(r"^(?:[\s,;:)\]）」-]+|(?:までに|まで|に|は|、)(?=\S))+")
# the marks a sentence's end keeps ("done.", "call Bob!")
_TRIM = " \t.,;:!?。、！？"


@dataclass(frozen=True)
class TaskLine:
    """One task read: its words, whether it is said done, where the words that say it are, and when it is
    due (a time said with it, at that time's own granularity)."""

    object: str
    done: bool
    start: int  # where the mark or phrase that says it starts
    end: int  # where its words end
    due: TimePoint | None


def read_tasks(text: str, times: Sequence[TimeMention], rules: TaskRules) -> list[TaskLine]:
    """Every task ``text`` writes as one, in order (see the module's note)."""
    found: list[TaskLine] = []
    taken: list[tuple[int, int]] = []
    for m, done, clause in _marks(text, rules):
        if any(a <= m.start() < b for a, b in taken):
            continue  # ("TODO: remind me to ...": one task)
        start, end = m.start("what"), m.end("what")
        stop = _SENTENCE_END.search(text, start, end)
        end = stop.start() if stop else end
        if clause and (cut := _CLAUSE_END.search(text, start, end)):
            end = cut.start()
        said = [t for t in times if start <= t.start and t.end <= end]
        words = _without(text, start, end, said)
        if not words or len(words) > 200:
            continue
        due = next((due_of(t) for t in said if due_of(t) is not None), None)
        found.append(TaskLine(words, done, m.start(), end, due))
        taken.append((m.start(), end))
    return found


def _marks(text: str, rules: TaskRules) -> Iterator[tuple[re.Match[str], bool, bool]]:
    """Each mark of a task in ``text``: (its match, whether done, whether its words end with their clause)."""
    matches: list[tuple[re.Match[str], bool, bool]] = []
    reminders = [] if rules.remind is None else list(rules.remind.finditer(text))
    asked = {m.start() for m in reminders}
    if rules.line is not None:  # ("TODO: remind me to send the slides": to send them)
        matches += [(m, m["done"] is not None, False) for m in rules.line.finditer(text)
                    if m["done"] is not None or not _asks_at(text, m.start("what"), asked)]
    matches += [(m, False, True) for m in reminders]
    yield from sorted(matches, key=lambda x: x[0].start())


def _asks_at(text: str, at: int, asked: set[int]) -> bool:
    """Whether a phrase asking to be reminded opens at ``at`` (its match may start at spaces before it)."""
    return any(a <= at and not text[a:at].strip() for a in asked)


def _without(text: str, start: int, end: int, times: Sequence[TimeMention]) -> str:
    """The words of ``text[start:end]`` without ``times`` and the words that tie them to it."""
    pieces, at = [], start
    for t in times:
        pieces.append(_TRAILING.sub("", text[at : t.start]))
        at = t.end
    pieces.append(text[at:end])
    words = " ".join(_LEADING.sub("", p).strip() for p in pieces if _LEADING.sub("", p).strip())
    return _TRAILING.sub("", " ".join(words.split())).strip(_TRIM)


def due_of(t: TimeMention) -> TimePoint | None:
    """When a task said with ``t`` is due: the day, week or month it names ("by Friday"), or the end of one
    said with "until" ("金曜まで")."""
    if t.kind == "point":
        return t.interval.start
    if t.kind == "until":
        return t.interval.end
    return None
