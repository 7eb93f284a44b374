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

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from graphmem.extraction.rules import TaskRules
from graphmem.ontology.time import TimePoint
from graphmem.temporal.expressions import TimeMention

__all__ = ["KnownTasks", "TaskLine", "due_of", "ja_past_phrases", "past_forms", "read_tasks"]

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
        if rules.must is not None and m.re is rules.must:
            words = _dictionary_form(words) or ""  # ("提出しなければならない": 提出する)
        if not words or len(words) > 200:
            continue
        due = next((due_of(t) for t in said if due_of(t) is not None), None)
        found.append(TaskLine(words, done, m.start(), end, due))
        taken.append((m.start(), end))
    return found


def _marks(text: str, rules: TaskRules) -> Iterator[tuple[re.Match[str], bool, bool]]:
    """Each mark of a task in ``text``: (its match, whether done, whether its words end with their clause)."""
    matches: list[tuple[re.Match[str], bool, bool]] = []
    if rules.must is not None:  # (its words end with a verb's negative stem: see read_tasks)
        matches += [(m, False, False) for m in rules.must.finditer(text) if _dictionary_form(m["what"])]
    reminders = [] if rules.remind is None else list(rules.remind.finditer(text))
    asked = {m.start() for m in reminders}
    if rules.line is not None:  # ("TODO: remind me to send the slides": to send them)
        matches += [(m, m["done"] is not None, False) for m in rules.line.finditer(text)
                    if m["done"] is not None or not _asks_at(text, m.start("what"), asked)]
    matches += [(m, False, True) for m in reminders]
    matches += [(m, False, False) for m in (rules.need.finditer(text) if rules.need is not None else ())]
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


# a Japanese verb's negative stem, by its last kana -> its dictionary form's (行か: 行く; 食べ: 食べる)
_JA_STEMS = {"か": "く", "が": "ぐ", "さ": "す", "た": "つ", "な": "ぬ", "ば": "ぶ", "ま": "む", "ら": "る", "わ": "う"}
_JA_ICHIDAN = re.compile(r"[いきぎじちにひびぴみりえけげせぜてでねへべぺめれ\u3400-\u9fff]$")


def _dictionary_form(words: str) -> str | None:
    """Japanese words ending with a verb's negative stem, ending with that verb in its dictionary form
    ("報告書を提出し": 報告書を提出する; "銀行に行か": 銀行に行く; "早く寝": 早く寝る; "来": 来る); None when
    the last word is no such stem."""
    if words.endswith("し"):
        return words[:-1] + "する"
    if words.endswith("来") or words.endswith("こ"):
        return words[:-1] + ("来る" if words.endswith("来") else "くる")
    if words[-1:] in _JA_STEMS:
        return words[:-1] + _JA_STEMS[words[-1]]
    return words + "る" if _JA_ICHIDAN.search(words) else None


def due_of(t: TimeMention) -> TimePoint | None:
    """When a task said with ``t`` is due: the day, week or month it names ("by Friday"), or the end of one
    said with "until" ("金曜まで")."""
    if t.kind == "point":
        return t.interval.start
    if t.kind == "until":
        return t.interval.end
    return None


# -- tasks said done ---------------------------------------------------------------------------------------

_VOWELS = "aeiou"
# a Japanese task's last kana (its verb in the dictionary form) -> the endings of its past, plain and polite
# ("書く": 書いた, 書きました; "送る": 送った, and 食べた of "食べる", whose る drops)
_JA_PASTS: dict[str, tuple[str, ...]] = {
    "く": ("いた", "きました"), "ぐ": ("いだ", "ぎました"), "す": ("した", "しました"), "つ": ("った", "ちました"),
    "う": ("った", "いました"), "る": ("った", "た", "りました", "ました"), "ぬ": ("んだ", "にました"),
    "ぶ": ("んだ", "びました"), "む": ("んだ", "みました")}
_JA_IRREGULAR = {"する": ("した", "しました"), "来る": ("来た", "来ました"), "くる": ("きた", "きました"),
                 "行く": ("行った", "行きました"), "いく": ("いった", "いきました")}
_JA_TASK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_JA_PAST_END = re.compile("[ただ]")  # (what each past above ends with: 書いた, 読んだ, 書きました)
_TOKEN = re.compile(r"\S+")
_TRAILING = re.compile(r"[^\w']+$")  # (punctuation after a word: "dentist!", "passport.")


def past_forms(verb: str, irregular: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The past and participle of an English verb ("call": called; "try": tried; "stop": stopped and stopped's
    undoubled kin, one of which text never says; "send": sent, from ``irregular``)."""
    verb = verb.lower()
    if verb in irregular:
        return irregular[verb]
    if verb.endswith("e"):
        return (verb + "d",)
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in _VOWELS:
        return (verb[:-1] + "ied",)
    if len(verb) > 2 and verb[-1] not in _VOWELS + "wxy" and verb[-2] in _VOWELS and verb[-3] not in _VOWELS:
        return (verb + "ed", verb + verb[-1] + "ed")  # (visited, stopped)
    return (verb + "ed",)


def ja_past_phrases(task: str) -> tuple[str, ...]:
    """A Japanese task ("報告書を書く") said done: its verb's past, plain and polite ("報告書を書いた",
    "報告書を書きました")."""
    for plain, irregular in _JA_IRREGULAR.items():
        if task.endswith(plain):
            return tuple(task[: -len(plain)] + p for p in irregular)
    return tuple(task[:-1] + p for p in _JA_PASTS.get(task[-1:], ()))


class KnownTasks:
    """The open tasks memory holds, by the words that say one done: an English task by the past of its first
    word and the rest of its words ("called the dentist" of "call the dentist"), a Japanese one by its phrase
    in the past ("報告書を書いた"). Each is (whose, its words). Text is searched for them by where those words
    can start or end, an English past said or a Japanese past's last "た" or "だ", each place looked up once
    for each length a task has: not by each task (10,000 of them cost a turn 18 ms more, not a few us)."""

    def __init__(self, irregular: Mapping[str, tuple[str, ...]]) -> None:
        self._irregular = irregular
        self._said: dict[str, set[tuple[str, str]]] = {}  # words said (lower-cased, one space apart) -> tasks
        self._pasts: dict[str, int] = {}  # an English past a task's words open with -> how many open with it
        self._words = 1  # the most words an English task has (never lowered: a look at one more is no harm)
        self._ja_chars = 0  # the most characters a Japanese task said done has (likewise)

    def __bool__(self) -> bool:
        return bool(self._said)

    def add(self, tasks: Iterable[tuple[str, str]]) -> None:
        for task in tasks:
            for said in self._keys(task):
                held = self._said.setdefault(said, set())
                if task in held:
                    continue
                held.add(task)
                if _JA_TASK.search(said):
                    self._ja_chars = max(self._ja_chars, len(said))
                else:
                    past = said.split(" ", 1)[0]
                    self._pasts[past] = self._pasts.get(past, 0) + 1
                    self._words = max(self._words, said.count(" ") + 1)

    def discard(self, tasks: Iterable[tuple[str, str]]) -> None:
        for task in tasks:
            for said in self._keys(task):
                held = self._said.get(said)
                if held is None or task not in held:
                    continue
                held.discard(task)
                if not held:
                    del self._said[said]
                if not _JA_TASK.search(said):
                    past = said.split(" ", 1)[0]
                    self._pasts[past] -= 1
                    if not self._pasts[past]:
                        del self._pasts[past]

    def _keys(self, task: tuple[str, str]) -> list[str]:
        words = task[1].lower().split()
        if not words:
            return []
        if _JA_TASK.search(task[1]):
            return list(ja_past_phrases(task[1]))
        return [" ".join([form, *words[1:]]) for form in past_forms(words[0], self._irregular)]

    def said_in(self, text: str, words: Iterable[str]) -> list[tuple[str, str, int, int]]:
        """The English tasks ``text`` says in the past, given its ``words`` (lower-cased): (whose, the task,
        where the words start and end); a task's last word may have punctuation after it ("dentist!")."""
        out: list[tuple[str, str, int, int]] = []
        for past in {w for w in words if w in self._pasts}:
            for m in re.finditer(rf"(?i)(?<![\w'-]){re.escape(past)}(?![\w'-])", text):
                said, end = past, m.end()
                out.extend((who, task, m.start(), end) for who, task in self._said.get(said, ()))
                for token in itertools.islice(_TOKEN.finditer(text, m.end()), self._words - 1):
                    word = token[0].lower()
                    bare = _TRAILING.sub("", word)
                    said, end = f"{said} {bare}", token.start() + len(bare)
                    out.extend((who, task, m.start(), end) for who, task in self._said.get(said, ()))
                    if bare != word:  # (punctuation ends the words a task may have)
                        break
        return out

    def said_in_japanese(self, text: str) -> list[tuple[str, str, int, int]]:
        """The Japanese tasks ``text`` says in the past: (whose, the task, where the phrase starts and ends)."""
        out: list[tuple[str, str, int, int]] = []
        for past in _JA_PAST_END.finditer(text):
            end = past.end()
            for start in range(max(0, end - self._ja_chars), end - 1):
                out.extend((who, task, start, end) for who, task in self._said.get(text[start:end], ()))
        return out
