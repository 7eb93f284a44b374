"""Statements in Japanese text, read without a tokeniser (the ``japanese`` section of the extraction rules).

A statement is an object right before one of a predicate's endings, a particle and its verb ("大阪に引っ越した",
"Acmeで働いている", "寿司が好き"), said of the person named before it in its sentence with は, が or も
("田中さんは", "@ken は"; "田中さんと佐藤さんは": both), of who says the line when that is "私", "僕" ..., or
when no one is named (Japanese leaves out who it speaks of: "先月大阪に引っ越した" in 田中's line, or in a
message tagged as the user's, says where they live). Who says a line is the name before its colon ("田中:
...", "田中：...", see :func:`line_speakers`; "メモ:", "場所:" are labels), else the event's speaker.

Not a statement: an ending another word of a name follows (a clause that names: "東京に住んでいる人"), one a wish,
a condition or a question goes on from ("引っ越したい", "引っ越したら", "好きですか"), an object the rules say
names nothing ("会社に入社した"). A negation after it ("好きじゃない") makes it its predicate's opposite. A
statement is dated by the time before its object since the statement before it in its sentence.

Two more readings: a title and の before a name (:func:`read_titles`: "妻の花子", "田中さんの妹の花子さん"), and
a claim before "と思う" (:func:`read_beliefs`: what someone thinks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from graphmem.extraction.rules import JA_NAME_CHAR, JapaneseRules, Rules
from graphmem.ontology import Ontology
from graphmem.temporal.expressions import TimeMention

__all__ = ["JapaneseBelief", "JapaneseReading", "JapaneseTitle", "line_speakers", "read_beliefs",
           "read_japanese", "read_titles"]

_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
# a word before a colon opening a line ("田中: "; not "10:30", "https://")
_LINE_LABEL = re.compile(r"(?m)^[ \t]*((?!\d)[\w・ー]{1,16})[ \t]*[:：](?!//)")
_PARTICLE = re.compile(r"\s*[はがも](?!っ)")  # (not "がっ": "がっかり")
# after an ending, a name it qualifies ("住んでいる人", "好きな人")
_NAME_GOES_ON = re.compile(rf"な?{JA_NAME_CHAR}")
# a word with は, が or も: whom a sentence speaks of ("息子は", "彼女が", "今は")
_TOPIC = re.compile(rf"({JA_NAME_CHAR}+)\s*[はがも](?!っ)")
_WHOSE = re.compile(rf"{JA_NAME_CHAR}+の$")  # a name and の right before a post: whose it is ("GlobexのCTO")


@dataclass(frozen=True)
class JapaneseReading:
    """One statement read: who, what, which, from when, and the words that said it."""

    subject: str
    predicate: str
    object: str
    object_type: str | None
    action: str
    object_start: int
    span: tuple[int, int]  # from who is named (or the object) to the ending's end
    sentence_start: int
    time: TimeMention | None
    named: bool  # its subject was named in the sentence (not left out, nor "I")


@dataclass(frozen=True)
class JapaneseTitle:
    """What one named is to another ("妻の花子": 花子, married_to, who says the line, 妻)."""

    subject: str
    subject_start: int
    predicate: str
    object: str
    title: str
    span: tuple[int, int]
    sentence_start: int


@dataclass(frozen=True)
class JapaneseBelief:
    """A claim someone holds ("新しいプランは良いと思う")."""

    subject: str
    claim: str
    span: tuple[int, int]
    sentence_start: int
    named: bool  # its holder was named in the sentence


class _Named(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


def read_japanese(text: str, times: Sequence[TimeMention], entities: Sequence[_Named],
                  speakers: Sequence[tuple[str, int, int]], rules: Rules, ontology: Ontology,
                  speaker: str | None) -> list[JapaneseReading]:
    """The statements of ``text``; ``entities``: those found in it; ``speakers``: who says its lines
    (:func:`line_speakers`); ``speaker``: who says the text when no line says."""
    ja = rules.japanese
    if ja.pattern is None and ja.worded_pattern is None:
        return []
    people = _people(entities)
    found: list[JapaneseReading] = []

    def said_by(s_start: int, start: int) -> tuple[list[str], bool] | None:
        """Who a statement whose words start at ``start`` is of, and whether the sentence names them; with
        whoever is named with と right before its words ("@peter と京都に行った": both went)."""
        who = _subjects(text, s_start, start, people, ja.first_person, ja.honorifics)
        if not who and _someone_else(text, s_start, start, times, ja.not_subjects):
            return None  # "息子は大阪に住んでいる": of someone memory cannot name
        along = [p.name for p in people if s_start <= p.start and p.end <= start and p.name not in who
                 and _past(text, p.end, ja.honorifics, start).strip() == "と"]
        if who not in ([], ["I"]):
            return who + along, True
        line = text.rfind("\n", 0, start) + 1
        said = next((name for name, at, _ in speakers if line <= at < start), speaker)
        return ([said, *along], False) if said is not None else None

    def reading(s_start: int, start: int, end: int, clause: int, said: tuple[list[str], bool], predicate: str,
                value: str, object_type: str | None, action: str) -> list[JapaneseReading]:
        who, named = said
        # its time: the last one before its object since the statement before ("去年Acmeを辞めて、今は
        # Globexで働いている": 去年 dates leaving Acme, not the job at Globex)
        when = next((t for t in reversed(times) if clause <= t.start < start), None)
        span_start = min([start, *(p.start for p in people if p.name in who and s_start <= p.start < start)])
        return [JapaneseReading(subject=name, predicate=predicate, object=value, object_type=object_type,
                                action=action, object_start=start, span=(span_start, end),
                                sentence_start=s_start, time=when, named=named) for name in who]

    for s_start, s_end in _sentences(text, questions=False):
        clause = s_start  # where the words of the statement read next start (after the last one's ending)
        read: list[tuple[int, int]] = []
        matches = [m for pattern in (ja.pattern, ja.worded_pattern) if pattern is not None
                   for m in pattern.finditer(text, s_start, s_end)]
        for m in sorted(matches, key=lambda m: m.start()):
            if not _ending_stands(text, m.end(), s_end, ja):
                continue
            start = _object_start(text, m.start("object"), m.end("object"), times, entities, ja.adverbs)
            value = text[start : m.end("object")].strip()
            if not value or value in ja.not_objects or value.isdigit():
                continue
            predicate, action = ja.endings[m["ending"]]
            if value.startswith(ja.object_not_first.get(predicate, ())):
                continue  # ("元エンジニアです": a post held once)
            if (wanted := ja.object_words.get(predicate)) is not None:
                if not value.endswith(wanted):
                    continue  # ("東京です": no post; a word of another predicate's)
                if whose := _WHOSE.search(text, s_start, start):
                    start = whose.start()  # ("GlobexのCTOです": GlobexのCTO, whose post it is too)
                    value = text[start : m.end("object")]
            if m["negated"]:
                if action != "assert" or predicate not in rules.opposites:
                    continue
                predicate = rules.opposites[predicate]
            if (said := said_by(s_start, start)) is None:
                continue
            kind = ontology.predicate(predicate)
            object_type = kind.object_types[0] if kind.object == "entity" and kind.object_types else None
            found += reading(s_start, start, m.end(), clause, said, predicate, value, object_type, action)
            read.append((start, m.end()))
            clause = m.end()
        # what ends whatever value is held, none named ("3月に会社を辞めた": whatever job then)
        for m in ja.unnamed_pattern.finditer(text, s_start, s_end) if ja.unnamed_pattern else ():
            overlaps = any(a < m.end() and m.start() < b for a, b in read)
            if overlaps or not _ending_stands(text, m.end(), s_end, ja):
                continue
            if (said := said_by(s_start, m.start())) is not None:
                predicate = ja.unnamed[m[0]]
                found += reading(s_start, m.start(), m.end(), s_start, said, predicate, "", None, "close")
    return found


def _ending_stands(text: str, end: int, s_end: int, ja: JapaneseRules) -> bool:
    """Whether an ending that ends at ``end`` says what it says: not the start of a longer word or of what
    may not follow it ("引っ越したい", "好きですか"), but of a plan ("引っ越す予定")."""
    tail = text[end:s_end].rstrip() + "。"
    return not (_NAME_GOES_ON.match(tail) and not tail.startswith(ja.plans) or tail.startswith(ja.not_after))


def read_titles(text: str, entities: Sequence[_Named], speakers: Sequence[tuple[str, int, int]], rules: Rules,
                speaker: str | None) -> list[JapaneseTitle]:
    """What one named is to another, said with a title and の before the name: "妻の花子が" (the wife of who
    says the line), "田中さんの妹の花子さん" (田中's sister), "同僚の佐藤さん". The name is one found, one with an
    honorific, or one は, が, と or も follow that is no one's thing ("妻の誕生日" names no one)."""
    ja = rules.japanese
    if ja.title_pattern is None:
        return []
    people = _people(entities)
    found: list[JapaneseTitle] = []
    for s_start, s_end in _sentences(text):
        for m in ja.title_pattern.finditer(text, s_start, s_end):
            name, at = m["name"], m.start("name")
            known = next((p for p in people if p.start == at), None)
            if known is not None:
                name = known.name
            elif not m["honorific"] and (not m["particle"] or name in ja.not_names or name in ja.not_objects):
                continue
            owner = _owner(text, m.start(), s_start, people, ja.honorifics)
            if owner is None:  # (no one named before the title: who says the line's)
                line = text.rfind("\n", 0, m.start()) + 1
                owner = next((n for n, a, _ in speakers if line <= a < m.start()), speaker)
            if owner is None or owner == name:
                continue
            start = min([m.start(), *(p.start for p in people
                                      if p.name == owner and s_start <= p.start < m.start())])
            found.append(JapaneseTitle(subject=name, subject_start=at, predicate=ja.titles[m["title"]],
                                       object=owner, title=m["title"], span=(start, m.end("name")),
                                       sentence_start=s_start))
    return found


def read_beliefs(text: str, entities: Sequence[_Named], speakers: Sequence[tuple[str, int, int]],
                 rules: Rules, speaker: str | None) -> list[JapaneseBelief]:
    """What someone thinks: the claim before "と思う" and its kin, from the start of its sentence (past a
    line's speaker), or past who is named holding it ("田中さんは", "私は") when the sentence opens so."""
    ja = rules.japanese
    if not ja.beliefs:
        return []
    people = _people(entities)
    found: list[JapaneseBelief] = []
    for s_start, s_end in _sentences(text, questions=False):
        line = text.rfind("\n", 0, s_start) + 1
        said = next((n for n, a, _ in speakers if line <= a < s_end), None)
        label = _LINE_LABEL.match(text, s_start) if said is not None else None
        claim_start = label.end() if label is not None else s_start  # ("田中: ...": after the colon)
        while claim_start < s_end and text[claim_start] in " \t、":
            claim_start += 1
        holder, named = _holder(text, claim_start, s_end, people, ja.first_person, ja.honorifics)
        if holder is not None and holder[0] != "I":
            who: str | None = holder[0]
        else:
            who = said if said is not None else speaker
            named = False
        if holder is not None:
            claim_start = holder[1]
        for ending in ja.beliefs:
            at = text.find(ending, claim_start, s_end)
            if at < 0:
                continue
            claim = text[claim_start:at].strip(" 、,")
            if (who is None or len(claim) < 3 or claim.startswith(ja.belief_not_first)
                    or claim.endswith(ja.volitional)):
                break
            span = (s_start if named else claim_start, at + len(ending))  # (from the holder named)
            found.append(JapaneseBelief(subject=who, claim=claim, span=span, sentence_start=s_start,
                                        named=named))
            break
    return found


def _sentences(text: str, *, questions: bool = True) -> Iterator[tuple[int, int]]:
    """Where each sentence of ``text`` starts and ends (a question states nothing: left out unless asked)."""
    for sentence in _SENTENCE.finditer(text):
        if questions or ("？" not in sentence[0] and "?" not in sentence[0]):
            yield sentence.span()


def _people(entities: Sequence[_Named]) -> list[_Named]:
    """The people named in the text (not a speaker known only from outside it)."""
    return [e for e in entities if e.type == "person" and e.start >= 0]


def _holder(text: str, at: int, end: int, people: Sequence[_Named], first_person: frozenset[str],
            honorifics: tuple[str, ...]) -> tuple[tuple[str, int] | None, bool]:
    """Who a sentence opening at ``at`` says holds what follows (their name, where the claim starts): a person
    named with は or が there, or "I" ("私は")."""
    for p in people:
        if p.start == at and (after := _marked(text, p.end, end, honorifics)):
            return (p.name, after), True
    for word in first_person:
        if text.startswith(word, at) and (after := _marked(text, at + len(word), end, ())):
            return ("I", after), False
    return None, False


def _owner(text: str, at: int, s_start: int, people: Sequence[_Named],
           honorifics: tuple[str, ...]) -> str | None:
    """Whose a title right after ``at`` is: a person named right before it with の ("田中さんの妹"), "私の"
    (None: who says the line's), or no one named (None too)."""
    for p in people:
        if s_start <= p.start and p.end <= at and text[_past_at(text, p.end, honorifics) : at] == "の":
            return p.name
    return None


def _object_start(text: str, start: int, end: int, times: Sequence[TimeMention], entities: Sequence[_Named],
                  adverbs: tuple[str, ...]) -> int:
    """Where the object in the run ``start``-``end`` before an ending starts: after a time in it ("先週大阪"),
    at a name memory knows that ends it, else past the adverbs that open it ("以前Globex")."""
    for t in times:
        if t.start < end and t.end > start:
            start = max(start, t.end)
    known = [e.start for e in entities if start <= e.start and e.end == end]
    if known:
        return min(known)
    while (word := next((a for a in adverbs if text.startswith(a, start) and start + len(a) < end), None)):
        start += len(word)
    return start


def _subjects(text: str, s_start: int, before: int, people: Sequence[_Named], first_person: frozenset[str],
              honorifics: tuple[str, ...]) -> list[str]:
    """Who the sentence speaks of before ``before``: the last person (or "I") with は, が or も after their
    name and its honorific, and those named with them by と; [] when no one is."""
    marked: list[tuple[int, int, str]] = []  # (where the name starts, where its particle ends, name)
    for p in people:
        if s_start <= p.start and p.end <= before and (end := _marked(text, p.end, before, honorifics)):
            marked.append((p.start, end, p.name))
    for word in first_person:
        for m in re.finditer(re.escape(word), text[s_start:before]):
            at = s_start + m.start() + len(word)
            if (end := _marked(text, at, before, ())) is not None:
                marked.append((at - len(word), end, "I"))
    if not marked:
        return []
    start, _, name = max(marked, key=lambda x: x[1])
    who = [name]
    while name != "I":  # "田中さんと佐藤さんは": both
        joined = next((p for p in people if p.end <= start and p.name not in who
                       and _past(text, p.end, honorifics, start).strip() == "と"), None)
        if joined is None:
            break
        who.insert(0, joined.name)
        start = joined.start
    return who


def _someone_else(text: str, s_start: int, before: int, times: Sequence[TimeMention],
                  not_subjects: frozenset[str]) -> bool:
    """Whether a word with は or が before ``before`` speaks of someone no name tells ("息子は", "彼女が"): not
    a time ("去年は") nor a word that speaks of no one ("今は", "実は")."""
    for m in _TOPIC.finditer(text, s_start, before):
        word = m[1]
        if word not in not_subjects and not any(t.start <= m.start(1) < t.end for t in times):
            return True
    return False


def _marked(text: str, at: int, before: int, honorifics: tuple[str, ...]) -> int | None:
    """Where the particle after a name ending at ``at`` ends (past its honorific), if one follows before
    ``before``."""
    m = _PARTICLE.match(text, _past_at(text, at, honorifics), before)
    return m.end() if m else None


def _past_at(text: str, at: int, honorifics: tuple[str, ...]) -> int:
    """Where the words after a name ending at ``at`` start, past its honorific."""
    return next((at + len(h) for h in honorifics if text.startswith(h, at)), at)


def _past(text: str, at: int, honorifics: tuple[str, ...], end: int) -> str:
    return text[_past_at(text, at, honorifics) : end]


def line_speakers(text: str, rules: Rules, known: Callable[[str], bool]) -> list[tuple[str, int, int]]:
    """Who says each line that a name opens before a colon, and where the name stands: one that opens with a
    family name ("田中: ...", "山田太郎：..."), one ``known`` as someone's (by memory), one with an
    honorific ("ケンさん:"; the name without it) or a capitalised name in Latin letters ("Ken:"), not a label
    ("メモ:", "Note:")."""
    ja = rules.japanese
    found = []
    for m in _LINE_LABEL.finditer(text):
        label, start = m[1], m.start(1)
        if label in ja.line_labels or label.capitalize() in rules.line_labels or label in rules.not_names:
            continue
        honorific = next((h for h in ja.honorifics if label.endswith(h) and len(label) > len(h)), None)
        name = label.removesuffix(honorific) if honorific else label
        if honorific or known(name) or name.startswith(ja.surnames) or (
                name.isascii() and name.isalpha() and name[:1].isupper() and not name.isupper()):
            found.append((name, start, start + len(name)))
    return found
