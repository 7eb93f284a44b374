"""Text -> entities, times and statements, offline and without a model download.

English is tokenised by a spaCy pipeline built blank and split into sentences by spaCy's sentencizer rule
(a sentence ends after its closing punctuation), applied to the token table directly.
Known names are then looked up as token sequences (``_Names``): the gazetteer (entities memory already knows,
with their aliases and types), the tool and place lists of ``ontology/extraction.yaml`` and ``@mentions``.
Capitalised runs no name claimed become candidates typed by context ("<Name> Inc": org; after in/to/from:
place; after a project cue: project; otherwise person), and a statement template that uses one as its
object retypes it to the predicate's object type. When ``GRAPHMEM_SPACY_MODEL`` names an installed spaCy
package, its statistical entities are used where no known name was found.

Japanese text (detected by its script) does not go through spaCy: times, ``@mentions``, names with an
honorific ("田中さん") and gazetteer/place names are found by matching the text directly, and statements by
the endings of the rules' ``japanese`` section (graphmem/extraction/japanese.py).
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import itertools
import os
import re
import sys
import threading
import types
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from graphmem.extraction.japanese import line_speakers, read_beliefs, read_japanese, read_titles
from graphmem.extraction.rules import VERB_ADVERBS, Rules, Template, load_rules
from graphmem.extraction.tasks import KnownTasks, due_of, read_tasks
from graphmem.index.text import STOP_WORDS
from graphmem.ontology import Ontology, Predicate, TimePoint, name_key
from graphmem.ontology.time import UTC, Granularity
from graphmem.temporal.expressions import TimeMention, find_times
from graphmem.temporal.holidays import HOLIDAY_NAMES, HOLIDAY_OPENINGS, NAMES_GO_ON

__all__ = ["EntityMention", "Extraction", "Extractor", "Statement", "language_of"]

CONFIDENCE = {"gazetteer": 0.9, "rule": 0.75, "pronoun": 0.55}
VOCAB_GROWTH = 100_000  # new words spaCy may keep (~50 MB) before the pipeline is built afresh
_WORD = re.compile(r"[\w']+")
_JA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_NAMING = ("called", "named", "titled")  # words before a name given
_OPEN_QUOTES = ("'", '"', "\u2018", "\u201c")
_OWNS = ("'s", "\u2019s")  # after a name: what follows is its own ("Tom's notes") or the 's is "is"
_POSSESSIVES = frozenset(["my", "our", "your", "his", "her", "their"])
# words before 's that is "is" or "has", not a possessive ("It's Zelda", "Here's Max")
_NOT_OWNERS = frozenset(["it", "that", "there", "here", "what", "who", "he", "she", "this", "let", "where"])
_BEFORE_OWNED = frozenset(["new", "old", "little", "beloved", "trusty", "first", "second", "favorite",
                           "favourite"])  # (between a possessive and what is owned: "my new Prius")
_MENTION = re.compile(r"(?<![A-Za-z0-9_@])@([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z0-9_])")
# a name and its honorific; not a word the honorific's character ends or opens ("仕様", "皆様", "様子", "彼氏")
_JA_SAN = re.compile(r"([\u30a0-\u30ff\u4e00-\u9fff]{1,6})(?:さん|くん|(?<![仕同模多異一皆王神])様(?![々子])|"
                     r"(?<!彼)氏(?!名))")
_CLAUSE_END = re.compile(r"[.;!?。！？\n]|,\s|\s[-\u2013\u2014]+\s|\s(?:and|but|because|since|until|from|in|on|"
                         r"at|after|before|when|over|than|instead|rather|more|so|as|while|though|although)\s")


@dataclass(frozen=True)
class EntityMention:
    text: str
    start: int
    end: int
    type: str
    source: str  # gazetteer | mention | rule | model

    @property
    def name(self) -> str:
        return self.text.lstrip("@")


@dataclass(frozen=True)
class Statement:
    """A state read from a sentence: what, from when, the span it came from and how sure we are."""

    subject: str
    predicate: str
    object: str
    action: str  # assert | close
    span: str
    start: int
    end: int
    confidence: float
    valid_from: TimePoint | None = None
    valid_to: TimePoint | None = None
    subject_type: str | None = None
    object_type: str | None = None
    title: str | None = None  # what the subject is to the object, in the words' title ("Peter's sister Anna")
    object_title: str | None = None  # what the object is to the subject ("my dog Max": dog)
    # a close that says the value held up to its end, whether memory knew it or not ("Peter graduated from MIT
    # in 2019": he studied there until then; not "left Berlin", said of a trip as of a home)
    held_before: bool = False
    due: TimePoint | None = None  # a task's: when it is to be done by ("renew the passport by Friday")
    # valid_from to valid_to is a period it was seen to hold in, not all its time ("lived in Paris in 2019")
    witnessed: bool = False


@dataclass(frozen=True)
class AliasMention:
    """Another name of something named, said outright: "Peter Smith, also known as Pete" (``alias`` Pete)."""

    name: str
    alias: str
    type: str
    span: str


@dataclass
class Extraction:
    language: str
    entities: list[EntityMention] = field(default_factory=list)
    times: list[TimeMention] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    aliases: list[AliasMention] = field(default_factory=list)
    speaker: str | None = None  # who "I" is in a line no name opens ("Caroline: ..."), if the text says so


def language_of(text: str) -> str:
    """'ja' when the text is written in Japanese script, else 'en': an English sentence naming a place in it
    ("Peter moved to 東京 last week") is English. A Japanese letter counts for three Latin ones (a word of
    it is a letter or two).

    >>> language_of("田中さんはAcme Incで働いている"), language_of("Peter moved to 東京 last week.")
    ('ja', 'en')
    """
    if _JA.search(text) is None:
        return "en"
    return "ja" if 3 * len(_JA.findall(text)) >= len(_LATIN.findall(text)) else "en"


def _import_spacy() -> Any:
    """spaCy, the only import of it in graphmem, loaded without two parts a rule pipeline never uses:

    - torch, which spaCy's thinc layer imports whenever it is installed (~1.4 s);
    - spaCy's command line (``spacy.cli``: downloads, project tooling and their HTTP clients, ~0.25 s, over
      a third of importing spaCy), which its package imports for one name, ``spacy.info``.

    Stand-ins hold their places in ``sys.modules`` while spaCy loads and are removed after: a later
    ``import torch`` or ``import spacy.cli`` loads the real one, and ``spacy.info`` imports it on its first call.
    Nothing is hidden when spaCy or torch is already loaded, or a statistical model is asked for."""
    if "spacy" in sys.modules or "torch" in sys.modules or os.environ.get("GRAPHMEM_SPACY_MODEL"):
        import spacy

        return spacy
    cli = types.ModuleType("spacy.cli")
    cli.__path__ = []  # a package holding nothing
    info = types.ModuleType("spacy.cli.info")
    info.info = _spacy_info  # type: ignore[attr-defined]
    stand_ins: dict[str, types.ModuleType | None] = {"torch": None, "spacy.cli": cli, "spacy.cli.info": info}
    sys.modules.update(stand_ins)  # type: ignore[arg-type]  # None: 'import torch' raises ImportError
    try:
        import spacy
    finally:
        for name, stand_in in stand_ins.items():
            if name in sys.modules and sys.modules[name] is stand_in:
                del sys.modules[name]
    return spacy


def _spacy_info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info``, from spaCy's command line, imported on the first call."""
    from spacy.cli.info import info

    return info(*args, **kwargs)


class Extractor:
    """Builds the pipeline once; ``extract`` is then pure and thread-safe (threads take turns: see ``batch``)."""

    def __init__(self, ontology: Ontology, *, rules: Rules | None = None,
                 known: Iterable[tuple[str, str]] = ()) -> None:
        spacy = _import_spacy()
        self.ontology = ontology
        self.rules = rules or load_rules(ontology)
        model = os.environ.get("GRAPHMEM_SPACY_MODEL")
        self.model: str | None = model if model and importlib.util.find_spec(model) is not None else None
        self.nlp = self._pipeline()
        self._fresh_strings = len(self.nlp.vocab.strings)
        # every name learnt, by its name key -> its type; the names' finder reads plain names from it
        self._gazetteer: dict[str, str] = {}
        # words a name made only of is not learnt: the gazetteer finds a name in any case, and one such name
        # (a film called "That", a "To" misread at a line's start) would make every "that" or "to" a mention
        self._ordinary = STOP_WORDS | {w.lower() for w in self.rules.not_names}
        self._headline_words = self._ordinary | _HEADLINE_SMALL  # (capitalised inside one, a headline's)
        self._names = _Names(self.nlp.tokenizer, self._gazetteer)
        # a sentence holding one of these may say what one is to another ("kids": "has two kids, Leo and Mia")
        self._title_words = frozenset(self.rules.titles) | {f"{t}s" for t in self.rules.titles} | {
            f"{t}ren" for t in self.rules.titles}
        # "my last day at Globex", "Peter's first day at Initech": a day of a tie (``days`` in the rules)
        self._day_of = _day_pattern(self.rules.days)
        # "my trip to the UK", "Tim's road trip to Jasper": where someone went (``trips`` in the rules)
        self._trip_of = _trip_pattern(self.rules.trips)
        self._trip_words = frozenset(w.split()[-1] for w in self.rules.trips)
        # "my new TV that I got from Best Buy": a thing of one's own (``got_it`` in the rules)
        self._got_of = _got_pattern(self.rules.got_it)
        self._got_words = frozenset(w.split()[0] for w in self.rules.got_it)
        # a pipeline that splits sentences itself (a model's parser) marks where each starts; otherwise the rule
        # of spaCy's sentencizer is applied to the token table (its component reads one Token object a word)
        splits = bool({"sentencizer", "parser", "senter"} & set(self.nlp.pipe_names))
        self._attrs: tuple[int, int, int] = (
            spacy.attrs.IDX, spacy.attrs.LENGTH, spacy.attrs.SENT_START if splits else spacy.attrs.IS_PUNCT)
        # (and a semicolon: what follows it is read as a sentence of its own, its subject and time its own)
        self._ends: frozenset[str] | None = (
            None if splits else frozenset(spacy.pipeline.Sentencizer.default_punct_chars) | {";"})
        for words, label in self._base_patterns():
            self._names.add_exact(words, label)
        self._turn = threading.RLock()  # one thread at a time in the pipeline (it may be built afresh)
        self._ja_names: dict[str, str] = {p: "place" for p in self.rules.places if _JA.search(p)}
        self._ja_longest_first: list[str] | None = None  # (the names above, longest first: made on use)
        self.add_known(known)
        self._known_tasks = KnownTasks(self.rules.tasks.irregular_pasts)  # (see add_tasks)

    # -- the gazetteer ------------------------------------------------------------------------------------

    def _base_patterns(self) -> list[tuple[list[str], str]]:
        """The tool, place and concept lists, matched case-sensitively: "Go" the tool, not "go" (a place in
        Japanese too: "moved to 東京")."""
        return [(t.split(), "tool") for t in self.rules.tools] + [
            (p.split(), "place") for p in self.rules.places] + [
            (c.split(), "concept") for c in self.rules.concepts]

    def _pipeline(self) -> Any:
        spacy = _import_spacy()
        if self.model:
            return spacy.load(self.model, exclude=["lemmatizer"])
        nlp = spacy.blank("en")
        # a word spaCy meets for the first time gets its 23 lexical attributes computed by Python functions
        # (~35 us: half of tokenising a text that holds one new name or number); without a model, extraction
        # reads only whether a token is punctuation
        getters = nlp.vocab.lex_attr_getters
        nlp.vocab.lex_attr_getters = {spacy.attrs.IS_PUNCT: getters[spacy.attrs.IS_PUNCT]}
        # a dash typed against a word's end is no part of it ("a trip to Rio de Janeiro- we loved it")
        suffixes = [*nlp.Defaults.suffixes, r"(?<=[^\W\d_]{2})-"]
        nlp.tokenizer.suffix_search = spacy.util.compile_suffix_regex(suffixes).search
        return nlp

    def _renew(self) -> None:
        """spaCy keeps every new word it tokenises for the life of its pipeline, about 1 KB a text of fresh
        names, ids and numbers: a server would grow without end. Past ``VOCAB_GROWTH`` new words the pipeline
        is built afresh (a few ms; names already learnt are kept as words). spaCy's memory zones would free
        them per text, but tokenising inside one is 5-20x slower (its caches stay off)."""
        self.nlp = self._pipeline()
        self._fresh_strings = len(self.nlp.vocab.strings)
        self._names.tokenizer = self.nlp.tokenizer

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Extract many texts in one turn: the pipeline is this thread's until the block ends."""
        with self._turn:
            yield

    def add_known(self, names: Iterable[tuple[str, str]]) -> None:
        """Teach the gazetteer ``(name, type)`` pairs: entities and aliases memory already holds."""
        with self.batch():
            self._learn(names)

    def add_tasks(self, tasks: Iterable[tuple[str, str]]) -> None:
        """Teach ``(whose, task)`` pairs: open tasks memory holds, which text may say are done ("I finally
        called the dentist" of "call the dentist")."""
        with self._turn:
            self._known_tasks.add(tasks)

    def drop_tasks(self, tasks: Iterable[tuple[str, str]]) -> None:
        """Forget ``(whose, task)`` pairs: tasks done, closed or retracted."""
        with self._turn:
            self._known_tasks.discard(tasks)

    def _learn(self, names: Iterable[tuple[str, str]]) -> None:
        for name, type_ in names:
            key = name_key(name)
            if not key or key in self._gazetteer or len(name) < 2 or self._ordinary.issuperset(key.split()):
                continue
            self._gazetteer[key] = type_
            if _JA.search(name):  # (found in Japanese text by itself, in English as a word: "met 田中 today")
                self._ja_names[name] = type_
                self._ja_longest_first = None
            self._names.add_known(name, type_)

    # -- extraction ---------------------------------------------------------------------------------------

    def extract(self, text: str, anchor: TimePoint | dt.datetime, *, tz: dt.tzinfo = UTC,
                speaker: str | None = None) -> Extraction:
        """Entities, times and statements of ``text``, times resolved against ``anchor``; ``speaker``: who
        says the text, "I" in its lines that no name opens (a user's message: "I moved to Porto")."""
        with self._turn:
            if len(self.nlp.vocab.strings) > self._fresh_strings + VOCAB_GROWTH:
                self._renew()
            return self._extract(text, anchor, tz, speaker)

    def _extract(self, text: str, anchor: TimePoint | dt.datetime, tz: dt.tzinfo,
                 speaker: str | None = None) -> Extraction:
        text = _APOSTROPHE.sub("'", text)  # (one character for one: every span still points into the event)
        language = language_of(text)
        result = Extraction(language=language, times=find_times(text, anchor, tz=tz), speaker=speaker)
        if language == "ja":
            speakers = self._ja_speakers(text)
            result.entities = self._japanese_entities(text, result.times, speakers)
            result.statements = self._japanese_statements(text, result, speakers)
            result.statements += self._tasks(text, result, lambda at: _ja_speaker_at(text, at, speakers,
                                                                                     result.speaker))
            if self._known_tasks:
                result.statements += self._ja_done(text, result, speakers)
            result.statements += self._ended_by(result.statements)
            return result
        doc = self.nlp(text)
        tokens = _Tokens.of(text, doc, self._attrs, self._ends)
        taken = _Spans(result.times)
        for m in _QUOTED.finditer(text):  # a title in quotes is one thing named, whatever names it holds
            title = m[1].rstrip(".,!?;: ")
            end = m.start(1) + len(title)
            if _titled(title) and taken.free(m.start(1), end):
                result.entities.append(EntityMention(title, m.start(1), end, "concept", "rule"))
                taken.add(m.start(1), end)
        named_days = () if _NAMED_DAY_WORDS.isdisjoint(tokens.lowered) else _NAMED_DAY.finditer(text)
        for m in named_days:  # "the Black Friday sale", "Happy New Year's Eve": a thing named
            if m[0][0].isupper() and taken.free(m.start(), m.end()):
                result.entities.append(EntityMention(m[0], m.start(), m.end(), "concept", "rule"))
                taken.add(m.start(), m.end())
        for m in _org_of(self.rules.org_heads).finditer(text):  # "the University of Tokyo": one firm
            if taken.free(m.start(), m.end()):
                result.entities.append(EntityMention(m[0], m.start(), m.end(), "org", "rule"))
                taken.add(m.start(), m.end())
        for ent in self._names.find(tokens, doc.ents if self.model else ()):  # (reading doc.ents walks the tokens)
            label = {"gpe": "place", "loc": "place", "fac": "place", "norp": "concept",
                     "product": "tool", "work_of_art": "concept"}.get(ent.label, ent.label)
            if label not in self.ontology.entity_types or not taken.free(ent.start_char, ent.end_char):
                continue
            source = "mention" if ent.text.startswith("@") else (
                "gazetteer" if ent.source == "gazetteer" or name_key(ent.text) in self._gazetteer
                else ent.source)
            if source == "gazetteer" and self._name_goes_on(tokens.words, ent.end):
                continue  # a known "Peter" opening a longer name ("Peter Smith"): the capitalised run takes it
            if source == "gazetteer" and ent.end - ent.start == 1 and self._name_goes_back(tokens, ent.start):
                continue  # ... or closing one ("play Super Mario" once Mario is known: no "Super" alone)
            if source == "list" and ent.start and tokens.words[ent.start - 1] in self.rules.first_names:
                continue  # a listed word closing a given name ("Taylor Swift"): the capitalised run takes it
            if source == "list" and ent.text in self.rules.imperatives and \
                    self._said_as_verb(tokens, ent.start):
                continue  # "Go for it, Jon!": no tool
            name, end_char = ent.text, ent.end_char
            if source == "list" and label in _NAMES_GO_ON:  # ("GitHub Actions", "Docker Compose": one name)
                last = self._more_of_a_name(tokens, ent.end, taken)
                if last > ent.end:
                    end_char = tokens.starts[last - 1] + len(tokens.words[last - 1])
                    name = text[ent.start_char : end_char]
            result.entities.append(EntityMention(name, ent.start_char, end_char, label, source))
            taken.add(ent.start_char, end_char)
        result.entities += self._capitalised_runs(tokens, taken)
        result.entities += self._the_named(text, taken)
        result.entities.sort(key=lambda e: e.start)
        said: list[Statement] = []
        for start_char, end_char in _items(text, tokens.sentences()):
            kept, believed = self._statements(text, start_char, end_char, result)
            result.statements += kept
            said += kept + believed
        result.statements += self._tasks(text, result, lambda at: (
            by.name if (by := self._line_speaker(text, at, result)) else None))
        if self._known_tasks:
            result.statements += self._done(text, tokens, result)
        result.statements += self._ended_by(result.statements)
        # a statement's object type is better evidence than capitalisation: "left Initech" -> org (so is one
        # inside an opinion, which is not kept as a fact), as is its subject's ("Acme was headquartered in")
        retype = {s.subject: s.subject_type for s in said if s.subject_type} | {
            s.object: s.object_type for s in said if s.object_type}
        stated = {s.subject for s in said} | {s.object for s in said}
        result.entities = [
            EntityMention(e.text, e.start, e.end, retype.get(e.name, e.type), "rule")
            if e.source in ("rule", "initial") else e
            for e in result.entities if e.source != "initial" or e.name in stated
        ]
        result.aliases = self._aliases(text, result)
        return result

    def _ended_by(self, statements: Sequence[Statement]) -> list[Statement]:
        """What each tie said to hold from then ends between the same two then (the rules' ``ends``): "Tom and
        I got married" ends their dating; not a tie only seen in a period, or named by a title ("my wife
        Anna": since when, unsaid). And what a close ends besides its own tie (``close_ends``): "Tom and I
        split up" ends their marriage if memory holds one, not their dating; not a close of whatever is held
        ("I got divorced"), a former title's ("my ex-wife Anna": her former title says which tie) or a
        negation's ("Tom and I are not married"). A close that finds no such tie ends nothing."""
        ended = [Statement(s.subject, tie, s.object, "close", s.span, s.start, s.end, s.confidence,
                           valid_to=s.valid_from, subject_type=s.subject_type, object_type=s.object_type)
                 for s in statements if s.action == "assert" and s.valid_to is None and not s.witnessed
                 and not s.title and not s.object_title for tie in self.rules.ends.get(s.predicate, ())]
        return ended + [replace(s, predicate=tie, held_before=False) for s in statements
                        # (not "I got divorced", "my ex-wife": her title says which tie; nor a negation, which
                        # says no tie held up to it: "Tom and Anna are not married yet")
                        if s.action == "close" and s.held_before and s.object and not s.title
                        for tie in self.rules.close_ends.get(s.predicate, ())]

    def _said_as_verb(self, tokens: _Tokens, i: int) -> bool:
        """Whether the listed name at token ``i``, a verb too, is said as one: opening a line before a word
        of the rules' ``imperative_next``, a mark or a given name ("Go for it", "Go, Jon!", "Go Jon!")."""
        if not _opens_line(tokens, i):
            return False
        nxt = tokens.words[i + 1] if i + 1 < len(tokens.words) else ""
        return (not nxt or nxt in ",!." or nxt.lower() in self.rules.imperative_next
                or nxt in self.rules.first_names or self._gazetteer.get(name_key(nxt)) == "person")

    def _the_named(self, text: str, taken: _Spans) -> list[EntityMention]:
        """"The user" where it names the one an agent serves (the rules' ``the_named``): before a possessive
        or a word opening a statement's phrase ("The user prefers", "the user's wife", "the user no longer
        works at"); not "the user table"."""
        found: list[EntityMention] = []
        pattern = self.rules.the_named
        for m in pattern.finditer(text) if pattern is not None else ():
            after = (m[2] or "").lower().replace("\u2019", "'")
            # ("the user and his wife moved")
            theirs = after == "and" and _AND_THEIRS.match(text, m.end(1)) is not None
            if m[2] is None or after in self.rules.by_first_word or after in _BEFORE_A_VERB or theirs:
                if taken.free(m.start(1), m.end(1)):
                    found.append(EntityMention(m[1].lower(), m.start(1), m.end(1), "person", "rule"))
        return found

    def _aliases(self, text: str, ex: Extraction) -> list[AliasMention]:
        """Other names said outright (the rules' ``aliases``): "Peter Smith, also known as Pete", "Robert goes
        by Bob", "Caroline: my name is Carrie" (who says the line). Of two names of different types the later
        must be a guess from its capitals ("Kubernetes, aka K8s": a tool too)."""
        between, of_speaker = self.rules.alias_between, self.rules.alias_of_speaker
        out: list[AliasMention] = []
        for one, other in itertools.pairwise(ex.entities):
            joined = between is not None and between.fullmatch(text, one.end, other.start) is not None
            if joined and one.name != other.name and (one.type == other.type or other.source == "rule"):
                out.append(AliasMention(one.name, other.name, one.type, text[one.start : other.end]))
        if of_speaker is None:
            return out
        for e in ex.entities:
            said = of_speaker.search(text, max(0, e.start - 30), e.start)
            who = self._line_speaker(text, e.start, ex) if said else None
            if said and who is not None and who.name != e.name and e.type in ("person", "concept"):
                out.append(AliasMention(who.name, e.name, "person", text[said.start() : e.end]))
        return out

    def _headline(self, tokens: _Tokens, capital: Sequence[bool]) -> frozenset[int]:
        """The tokens of the lines or sentences written in Title Case ("How To Know When You Need A Break From
        Social Media", a pasted article's headline): every word but the small ones capitalised, ordinary words
        capitalised among them after the first ("To", "When", "You"), no comma (a list of things named is no
        headline). There a capital says nothing of a name: no run of them is guessed to be one (names memory
        knows, listed places and quoted titles are still found)."""
        words, out = tokens.words, set[int]()
        inside = [k for k in itertools.compress(range(len(words)), capital) if k and not tokens.opens[k]
                  and tokens.lowered[k] in self._headline_words and words[k] != "I"]
        if len(inside) < 2:
            return frozenset()  # (most text: fewer than two ordinary words capitalised inside a sentence)
        start = 0
        for k in range(1, len(words) + 1):
            if k < len(words) and not (tokens.opens[k] or words[k - 1] == ":" or "\n" in words[k - 1]
                                        or "\n" in tokens.text[tokens.end_of(k - 1) : tokens.starts[k]]):
                continue
            said = [i for i in range(start, k) if words[i][:1].isalpha()]
            content = [i for i in said if tokens.lowered[i] not in _HEADLINE_SMALL]
            listed = "," in words[start:k]  # ("(1) The Scriptures, (2) The Triune God": a list)
            ordinary = sum(capital[i] and tokens.lowered[i] in self._headline_words for i in said[1:])
            if not listed and len(content) >= _HEADLINE_WORDS and all(capital[i] for i in content) and \
                    ordinary >= 2:
                out.update(range(start, k))
            start = k
        return frozenset(out)

    def _capitalised_runs(self, tokens: _Tokens, taken: _Spans) -> list[EntityMention]:
        found: list[EntityMention] = []
        words, starts, rules = tokens.words, tokens.starts, self.rules
        not_names = rules.not_names

        def candidate(k: int) -> bool:  # ("SO cute": a word of the list, shouted)
            word = words[k]
            return _name_word(word) and word not in not_names and taken.free(starts[k], starts[k] + 1) \
                and not (word.isupper() and word.capitalize() in not_names) and not _contracted(tokens, k)

        def shouting(k: int) -> bool:  # a word of two letters or more in capitals
            return 0 <= k < len(words) and len(words[k]) > 1 and words[k].isalpha() and words[k].isupper()

        capital = [w[:1].isupper() for w in words]  # (most words are not: looked at no further)
        headline = self._headline(tokens, capital) if sum(capital) >= _HEADLINE_WORDS else frozenset()
        i = 0
        while i < len(words):
            if not capital[i] or not candidate(i) or i in headline:
                i += 1
                continue
            j, joined, anded = i, False, False
            while j + 1 < len(words) and j - i < 5:
                if j - i < 3 and candidate(j + 1):
                    j += 1
                    continue
                glued = j + 2 < len(words) and starts[j + 2] == starts[j] + len(words[j]) + 1
                if glued and words[j + 1] == "-" and candidate(j + 2):
                    j += 2  # "Counter-Strike", "Spider-Man", "Jean-Luc": one name
                    continue
                k = self._past_particles(words, j + 1)
                if j + 1 < k < len(words) and candidate(k):
                    j = k  # "Ivo van Hove", "Maria de la Cruz": one name
                    continue
                if j + 2 < len(words) and words[j + 1] in ("'s", "\u2019s") and candidate(j + 2) and \
                        starts[j + 1] == starts[j] + len(words[j]) and words[j + 2] in rules.org_suffixes:
                    j += 2  # "St Mary's Hospital", "Joe's Cafe": one name (not "Peter's Tesla")
                    continue
                if j + 2 < len(words) and words[j + 1] == "&" and candidate(j + 2) and not (
                        words[i] in rules.first_names and words[j + 2] in rules.first_names):
                    j, anded = j + 2, True  # "Barnes & Noble", "Johnson & Johnson": one name
                    continue
                # "University of Tokyo", "Bank of America", "Lord of the Rings": one name across "of (the)";
                # "Habitat for Humanity", "Center for Disease Control" across "for", but for a person ("a gift
                # from Anna for Peter")
                k = j + 3 if j + 3 < len(words) and tokens.lowered[j + 2] == "the" else j + 2
                if tokens.lowered[j + 1] not in ("of", "for") or k >= len(words) or not candidate(k) or \
                        tokens.lowered[j + 1] == "for" and (words[j] in rules.first_names
                                                            or words[k] in rules.first_names):
                    break
                j, joined = k, True
            if j > i and words[i] not in rules.first_names and _opens_line(tokens, i) and (
                    words[i].lower().endswith("ing") or _a_verb(tokens.lowered[i], rules)
                    or words[i] in rules.imperatives or words[i] in rules.commands and not joined):
                # "Learning German has been tough", "Joined Acme in March", "Go Jon!", "Email Peter": a name
                # follows
                i += 1
            if i == j and words[i] in rules.common_nouns:
                i += 1  # "Nature's beauty", "Family's love", "Chess night": a word, capitalised
                continue
            if words[j] in rules.line_labels and j + 1 < len(words) and words[j + 1] == ":":
                i = j + 1  # "Additional Tips:", "Next Steps:": a heading
                continue
            shouted = all(w.isupper() or _plural_acronym(w) for w in words[i : j + 1])
            if shouted and (j > i or len(words[i].rstrip(".")) < 2 or shouting(i - 1) or shouting(i + 1)):
                i = j + 1  # "JUST DOING IT", "I.": no name; "VR", "LGBTQ", "it's INTENSE": a thing named
                continue
            start, end = starts[i], starts[j] + len(words[j].rstrip("."))
            prev = tokens.lowered[i - 1] if i > 0 else ""
            nxt = tokens.lowered[j + 1] if j + 1 < len(words) else ""
            given = words[i] in rules.first_names  # ("Peter Lake", "playing Tom": someone)
            if (words[j].rstrip(".") in rules.org_suffixes and j > i) or (
                    joined and words[i] in rules.org_heads):  # "Umbrella Labs", "Acme Inc", "Bank of X"
                type_ = "org"
            elif prev in rules.project_cues or nxt in rules.project_cues:
                type_ = "project"
            elif prev in rules.title_cues and nxt not in _OWNS and not given:
                type_ = "concept"  # "playing Fortnite", "watched Jurassic Park", "playing Animal Crossing";
                # not "playing Tom", "read Tom's"
            elif j > i and words[j] in rules.place_suffixes and not given:
                type_ = "place"  # "Whispering Falls", "Fenway Park"; not "Peter Lake"
            elif j > i and words[j] in rules.thing_suffixes and not given:
                type_ = "concept"  # "Star Wars", "Chicken Pot Pie"
            elif nxt in rules.brand_nouns:
                type_ = "org"  # "Nike shoes", "an Adidas jacket": a brand
            elif nxt in rules.thing_nouns:
                type_ = "concept"  # "a Valorant tournament", "a Harry Potter movie"
            elif (named := self._named_as(tokens.lowered, i)) and not given:
                type_ = named  # "a game called Apex Legends", "a town named Fox Hollow"; a given name stays
                # someone's ("then the school called Maria")
            elif prev in rules.visit_cues and nxt not in _OWNS and not given and \
                    tokens.lowered[i] not in rules.titles:
                type_ = "place"  # "visited Zermatt"; not "visited Tom", "visited Grandma", "Tom's farm"
            elif self._possessed(tokens, i) and not given and tokens.lowered[i] not in rules.titles:
                type_ = "concept"  # "my new Prius", "Peter's Tesla": a thing of theirs; not "my Mom"
            elif prev in rules.place_prepositions and prev != "at" and not (given and nxt in _OWNS):
                # ("went to Anna's party": someone's)
                type_ = (self._pointed_at(tokens, i - 1) if prev in ("to", "from") else None) or (
                    "org" if prev == "from" and self._someone_before(tokens, i - 1, found) else "place")
            elif prev in ("at", "of", "for") and not (prev == "for" and given):  # ("flowers for Maria": hers)
                # ("a fan of Harry Potter": a thing; a team is "the Lakers")
                before = tokens.lowered[i - 2] if prev == "of" and i > 1 else ""
                type_ = ("concept" if before in ("fan", "fans") else "place" if before in rules.places_of
                         else "person" if before in rules.someone_of else "org")
            elif prev in ("the", "a", "an"):  # "the Acme search team": a thing, typed later by what is said of it
                type_ = "concept"
            elif shouted:  # "VR", "PC", "INTENSE": no one's name
                type_ = "concept"
            elif anded:  # "Barnes & Noble": a firm, as no one's name holds "&"
                type_ = "org"
            else:  # (no one's name holds "of": "Game of Thrones")
                type_ = "concept" if joined else "person"
            text = tokens.text[start:end]
            known = name_key(text) in self._gazetteer
            # one capitalised word opening a sentence may be capitalised only because it opens it ("Daily logs
            # live in ..."): it stays a candidate only if a statement is about it, unless it is a given name
            # "Caroline's ..." names someone; "Life's too short", "Painting's been fun" say "is" or "has"
            speaker = nxt in _OWNS and (
                j + 2 >= len(words) or not self._contracted(tokens.lowered[j + 2]))
            opening = (i == j and _opens_line(tokens, i) and not speaker and not self._speaks(words[i], nxt)
                       and text not in rules.first_names and not self._says_line(tokens, i))
            source = "gazetteer" if known else "initial" if opening else "rule"
            found.append(EntityMention(text, start, end, self._gazetteer.get(name_key(text), type_), source))
            taken.add(start, end)
            i = j + 1
        return found

    def _speaks(self, word: str, after: str) -> bool:
        """Whether ``word``, opening a sentence, is someone's name by the verb ``after`` it ("Thaddeus called
        about the invoice"): not a word of doing or a plural ("Having said that", "Doctors said")."""
        plural = word[-1:] == "s" and word[-2:-1] not in ("a", "e", "i", "o", "u", "s")
        return after in self.rules.speaking_verbs and not plural and not word.lower().endswith("ing")

    @staticmethod
    def _possessed(tokens: _Tokens, at: int) -> bool:
        """Whether the name at word ``at`` follows a possessive, maybe a word such as "new" between ("my new
        Prius"), or a name's ("Peter's Tesla"; not "It's Zelda", where 's is "is")."""
        lowered = tokens.lowered
        k = at - 1 - (at >= 2 and lowered[at - 1] in _BEFORE_OWNED)
        if k >= 1 and lowered[k] in _OWNS:
            owner = tokens.words[k - 1]
            return owner[:1].isupper() and lowered[k - 1] not in _NOT_OWNERS
        return k >= 0 and lowered[k] in _POSSESSIVES

    def _named_as(self, lowered: Sequence[str], at: int) -> str | None:
        """The type of the name at word ``at`` when it is "called" or "named" after a word the rules say what
        it names with ("an album called 'Sleep'": a concept; "a band called The Midnight Owls"), else None."""
        k = at - 1
        while k > 0 and at - k < 3 and (lowered[k] in _OPEN_QUOTES or lowered[k] == "the"):
            k -= 1
        return self.rules.named_kinds.get(lowered[k - 1]) if k > 0 and lowered[k] in _NAMING else None

    def _name_goes_on(self, words: Sequence[str], at: int) -> bool:
        """Whether a name goes on at word ``at``: a capitalised word follows ("Peter Smith"), or lower-case
        words inside a name and one ("Peter van der Berg")."""
        k = self._past_particles(words, at)
        return k < len(words) and _name_word(words[k]) and words[k] not in self.rules.not_names

    def _name_goes_back(self, tokens: _Tokens, at: int) -> bool:
        """Whether the name at word ``at`` goes on a name begun before it: right after a capitalised word of
        a name that opens no sentence ("Super Mario", "Uncle Mario", as the capitalised run reads them where
        Mario is not known; not "Thanks Mario", "Yesterday Mario")."""
        k = at - 1
        return k >= 0 and not tokens.opens[k] and _name_word(tokens.words[k]) and \
            tokens.words[k] not in self.rules.not_names and tokens.starts[at] == tokens.end_of(k) + 1

    def _more_of_a_name(self, tokens: _Tokens, at: int, taken: _Spans) -> int:
        """Where the capitalised words right after a listed name, which go on with it, end (up to two, none
        opening a sentence or taken: "GitHub Actions", "Google Cloud Run"; ``at``: the word after it)."""
        k = at
        while k < min(len(tokens.words), at + 2) and _name_word(tokens.words[k]) and not tokens.opens[k] and \
                tokens.words[k] not in self.rules.not_names and \
                taken.free(tokens.starts[k], tokens.starts[k] + 1) and \
                tokens.starts[k] == tokens.starts[k - 1] + len(tokens.words[k - 1]) + 1:
            k += 1
        return k

    def _past_particles(self, words: Sequence[str], at: int) -> int:
        """Where the lower-case words inside a name that start at word ``at`` end (up to two: "de la")."""
        k = at
        while k < min(len(words), at + 2) and words[k] in self.rules.name_particles:
            k += 1
        return k

    def _contracted(self, following: str) -> bool:
        """Whether the word after "X's" makes the 's "is" or "has": a word the rules list, or one of doing or
        done ("Store's going well", "Art's allowed me to explore")."""
        return following in self.rules.contraction_cues or (
            len(following) > 4 and following.endswith(("ing", "ed")))

    def _says_line(self, tokens: _Tokens, i: int) -> bool:
        """Whether the word ``i``, with a colon after it, names who says its line: it opens the text or a
        line, is no label ("Note:") and the line speaks as "I" or "we" ("Omar: I have to walk the dog"), or
        other lines open so too (a transcript: "Zara: shipped the exporter\nTomasz: reviewing the PR")."""
        words = tokens.words
        if i + 1 >= len(words) or words[i + 1] != ":" or words[i] in self.rules.line_labels:
            return False
        start = tokens.starts[i]
        before = tokens.text[:start].rstrip(" \t")
        if before and not before.endswith("\n"):
            return False
        end = tokens.text.find("\n", start)
        if _FIRST_PERSON.search(tokens.text, start, end if end >= 0 else len(tokens.text)) is not None:
            return True
        return "\n" in tokens.text and sum(m[1] not in self.rules.line_labels
                                           for m in _LINE_SAID.finditer(tokens.text)) > 1

    def _someone_before(self, tokens: _Tokens, at: int, found: Sequence[EntityMention]) -> bool:
        """Whether a person's name ends right before token ``at`` ("Sarah from Acme": a firm she is from, as a
        place would be a listed one, "Sarah from Lisbon")."""
        if at < 1:
            return False
        end = tokens.starts[at - 1] + len(tokens.words[at - 1])
        return tokens.words[at - 1] in self.rules.first_names or any(
            e.end == end and e.type == "person" for e in found[-1:])

    def _pointed_at(self, tokens: _Tokens, at: int) -> str | None:
        """What the "to" or "from" at token ``at`` points at, told by the nearest word before it in its clause
        that tells it: someone after a word of saying or giving ("sent the report to", "an email from"), a
        tool after a word of moving work ("migrated the index from"), a place after a word of moving ("moved
        back to", "a trip from"); None when no word tells."""
        for k in range(at - 1, max(-1, at - 8), -1):
            word = tokens.lowered[k]
            if word in _CLAUSE_PUNCT:
                return None
            for type_, cues in (("place", self.rules.place_cues), ("person", self.rules.person_cues),
                                ("tool", self.rules.tool_cues)):
                if word in cues:
                    return type_
        return None

    def _japanese_entities(self, text: str, times: Sequence[TimeMention],
                           speakers: Sequence[tuple[str, int, int]]) -> list[EntityMention]:
        found: list[EntityMention] = []
        taken = _Spans(times)
        for m in _MENTION.finditer(text):
            found.append(EntityMention(m[0], m.start(), m.end(), "person", "mention"))
            taken.add(m.start(), m.end())
        if self._ja_longest_first is None:
            self._ja_longest_first = sorted(self._ja_names, key=len, reverse=True)
        for name in self._ja_longest_first:
            for m in re.finditer(re.escape(name), text):
                if taken.free(m.start(), m.end()):
                    found.append(EntityMention(name, m.start(), m.end(), self._ja_names[name], "gazetteer"))
                    taken.add(m.start(), m.end())
        for m in _JA_SAN.finditer(text):
            start = max([m.start(1), *(t.end for t in times if m.start(1) < t.end < m.end(1))])
            if taken.free(start, m.end(1)):  # "先週佐藤さん": the name starts after the time
                found.append(EntityMention(text[start : m.end(1)], start, m.end(1), "person", "rule"))
                taken.add(start, m.end(1))
        for name, start, end in speakers:
            if taken.free(start, end):  # "田中: ..." (who says the line)
                found.append(EntityMention(name, start, end, "person", "rule"))
                taken.add(start, end)
        return sorted(found, key=lambda e: e.start)

    def _ja_speakers(self, text: str) -> list[tuple[str, int, int]]:
        """Who says each line of Japanese text (graphmem/extraction/japanese.py: :func:`line_speakers`)."""
        return line_speakers(text, self.rules, lambda name: self._ja_names.get(name) == "person")

    def _japanese_statements(self, text: str, ex: Extraction,
                             speakers: Sequence[tuple[str, int, int]]) -> list[Statement]:
        """What Japanese text says (graphmem/extraction/japanese.py); what a statement names becomes an
        entity too."""
        out: list[Statement] = []
        known = {e.name for e in ex.entities}
        # what one named is to another first: the name it tells ("妻の花子が") may say more ("大阪に引っ越した")
        for t in read_titles(text, ex.entities, speakers, self.rules, ex.speaker):
            if t.subject not in known:
                ex.entities.append(EntityMention(t.subject, t.subject_start, t.subject_start + len(t.subject),
                                                 "person", "rule"))
                known.add(t.subject)
            over = t.title in self.rules.japanese.ended_titles  # ("元夫の健太": married no longer)
            out.append(Statement(
                subject=t.subject, predicate=t.predicate, object=t.object,
                action="close" if over else "assert",
                span=text[t.span[0] : t.span[1]], start=t.sentence_start, end=t.span[1],
                confidence=CONFIDENCE["rule"], subject_type="person", object_type="person", title=t.title))
        for r in read_japanese(text, ex.times, ex.entities, speakers, self.rules, self.ontology, ex.speaker):
            # ("住んでいた": held over the period said with it, else ended)
            action = r.action if r.action != "past" else _past_action(r.time)
            valid_from, valid_to = _dated(r.time, action, open_ended=r.predicate in self.rules.open_ended,
                                          past=r.action == "past")
            start, end = r.span
            if r.time is not None:  # (the span quotes its time)
                start, end = min(start, r.time.start), max(end, r.time.end)
            if r.object_type is not None and r.object not in known:
                at = r.object_start  # (a name inside it is none of its own: "東京大学" holds no 東京)
                ex.entities[:] = [e for e in ex.entities if not at <= e.start < e.end <= at + len(r.object)]
                ex.entities.append(EntityMention(r.object, at, at + len(r.object), r.object_type, "rule"))
                known.add(r.object)
            out.append(Statement(
                subject=r.subject, predicate=r.predicate, object=r.object, action=action,
                span=text[start:end], start=r.sentence_start, end=end,
                confidence=CONFIDENCE["rule"] if r.named else CONFIDENCE["pronoun"],
                valid_from=valid_from, valid_to=valid_to, subject_type="person", object_type=r.object_type,
                witnessed=r.action == "past" and action == "assert" and r.time is not None and
                _witnessed(r.time) and valid_to is not None))
        if "believes" in self.ontology.predicates:  # (a vocabulary of one's own may have none)
            out.extend(Statement(
                subject=b.subject, predicate="believes", object=b.claim, action="assert",
                span=text[b.span[0] : b.span[1]], start=b.sentence_start, end=b.span[1],
                confidence=CONFIDENCE["rule"] if b.named else CONFIDENCE["pronoun"], subject_type="person")
                for b in read_beliefs(text, ex.entities, speakers, self.rules, ex.speaker))
        ex.entities.sort(key=lambda e: e.start)
        return out

    # -- statements ---------------------------------------------------------------------------------------

    def _done(self, text: str, tokens: _Tokens, ex: Extraction) -> list[Statement]:
        """The open tasks memory holds (see :meth:`add_tasks`) that ``text`` says are done, in the past of the
        task's words by whoever has it: "Kim: I finally called the dentist" of Kim's "call the dentist",
        "Kim renewed her passport" of her "renew her passport"; not "I haven't called the dentist yet", nor
        Sam's "called the dentist" of Kim's task."""
        out: list[Statement] = []
        done: set[tuple[str, str]] = set()
        said = sorted(self._known_tasks.said_in(text, tokens.lowered), key=lambda f: f[2])  # (in order)
        for whose, task, at, end in said:
            if (whose, task) in done:
                continue
            cuts = list(_CLAUSE_BEFORE.finditer(text, 0, at))
            start = cuts[-1].end() if cuts else 0
            if _NOT_DONE.search(text, start, at):
                continue  # ("I haven't called the dentist", "never renewed it")
            who = self._doer(text, cuts, at, ex)
            if who is None or name_key(who) != name_key(whose):
                continue
            done.add((whose, task))
            out.append(Statement(subject=whose, predicate=self.rules.tasks.predicate, object=task,
                                 action="done", span=text[start:end].strip(), start=start, end=end,
                                 confidence=CONFIDENCE["rule"], subject_type="person"))
        return out

    def _doer(self, text: str, cuts: list[re.Match[str]], at: int, ex: Extraction) -> str | None:
        """Who did what the verb at ``at`` says, by the words of its clause before it (the clauses end at
        ``cuts``): "I" or "we" (with "have" and words such as "finally" after): who says the line; else a
        name right before them. A verb opening its clause after "and" or a comma has the subject of the
        clause before ("I sent the invoice and called the dentist", "Kim paid the rent, renewed her passport
        and ...")."""
        start = cuts[-1].end() if cuts else 0
        words = text[start:at].lower().replace("\u2019", "'").split()
        while words and (words[-1] in _DONE_BETWEEN or words[-1] in VERB_ADVERBS):
            words.pop()
        if words and words[-1] in _DONE_BY_I:
            said = self._line_speaker(text, at, ex)
            return said.name if said is not None else None
        for e in ex.entities:
            between = text[e.end : at].lower().replace("\u2019", "'").split() if e.end <= at else None
            if e.type == "person" and between is not None and \
                    all(w in _DONE_BETWEEN or w in VERB_ADVERBS for w in between):
                return e.name
        while not words and cuts and cuts[-1][0].strip() in _AND_CUTS:
            end = cuts.pop().start()
            start = cuts[-1].end() if cuts else 0
            for w in list(_WORD.finditer(text, start, end))[:_SUBJECT_WITHIN]:  # (after "Yesterday", "So")
                if w[0].lower().replace("\u2019", "'") in _DONE_BY_I:
                    said = self._line_speaker(text, w.start(), ex)
                    return said.name if said is not None else None
                named = next((e for e in ex.entities if e.start == w.start() and e.type == "person"), None)
                if named is not None and not text.startswith(":", named.end):  # (not who says the line)
                    return named.name
        return None

    def _ja_done(self, text: str, ex: Extraction,
                 speakers: Sequence[tuple[str, int, int]]) -> list[Statement]:
        """The open Japanese tasks memory holds that ``text`` says in the past, in a line of whoever has it
        ("報告書を書いた" in 田中's line, of 田中's "報告書を書く"; not after a negation of it)."""
        out = []
        done: set[tuple[str, str]] = set()
        for whose, task, start, end in self._known_tasks.said_in_japanese(text):
            if (whose, task) in done or text.startswith(_JA_NOT_DONE, end):
                continue  # ("書いたことがない", "書いたら", "書いたか")
            who = _ja_speaker_at(text, end, speakers, ex.speaker)
            if who is None or name_key(who) != name_key(whose):
                continue
            done.add((whose, task))
            out.append(Statement(subject=whose, predicate=self.rules.tasks.predicate, object=task,
                                 action="done", span=text[start:end], start=start, end=end,
                                 confidence=CONFIDENCE["rule"], subject_type="person"))
        return out

    def _tasks(self, text: str, ex: Extraction, who: Callable[[int], str | None]) -> list[Statement]:
        """The tasks ``text`` writes as tasks (graphmem/extraction/tasks.py), of who says each (``who`` of
        where it stands; "" for no one known: the memory tells whose). Not one the statements read already
        ("TODO: I need to call Bob": one task)."""
        predicate = self.rules.tasks.predicate
        tasks = self.rules.tasks
        if predicate not in self.ontology.predicates or tasks.line is None and tasks.remind is None and \
                tasks.need is None:
            return []
        read = [(s.start, s.end) for s in ex.statements if s.predicate == predicate]
        out = []
        for t in read_tasks(text, ex.times, self.rules.tasks):
            if any(a < t.end and t.start < b for a, b in read):
                continue
            subject = who(t.start)
            out.append(Statement(
                subject=subject or "", predicate=predicate, object=t.object,
                action="done" if t.done else "assert", span=text[t.start : t.end].strip(), start=t.start,
                end=t.end, confidence=CONFIDENCE["rule"], subject_type="person" if subject else None, due=t.due))
        return out

    def _statements(self, text: str, s_start: int, s_end: int,
                    ex: Extraction) -> tuple[list[Statement], list[Statement]]:
        """The statements of one sentence, and those it makes only inside what someone believes."""
        sentence = text[s_start:s_end]
        used: list[tuple[int, int]] = []
        words = set(_WORD.findall(sentence.lower().replace("’", "'")))
        needs, wants, by_first_word = self.rules.needs, self.rules.wants, self.rules.by_first_word
        candidates = sorted(i for w in words for i in by_first_word.get(w, ()) if needs[i] <= words
                            and ((want := wants[i]) is None or not want.isdisjoint(words)))
        matches = [(self.rules.templates[i], m) for i in candidates
                   for m in self.rules.templates[i].pattern.finditer(sentence)]
        verbs = sorted((s_start + m.start(), s_start + m.end()) for _, m in matches)
        read: list[tuple[int, Statement]] = []  # (where its verb starts, the statement)
        for template, m in matches:
            v_start, v_end = s_start + m.start(), s_start + m.end()
            if any(a < v_end and v_start < b for a, b in used):
                continue
            st = self._read(template, text, s_start, s_end, v_start, v_end, ex, verbs)
            if st is not None:
                listed = self._listed_with(st, text, v_end, s_end, ex, verbs) if st.object else []
                if listed:
                    st, *listed = self._sharing_a_head([st, *listed], text)
                also = [*self._also(template, m, st, text, v_end, s_end, ex), *listed]
                if template.also and m.group("also") and all(a.predicate != template.also for a in also):
                    continue  # ("is a regular at Joe's": "{*role}" words naming no post, no job; another
                    # template may read them: "is a student at Stanford")
                used.append((v_start, v_end))
                partner = _partner(text, v_start, ex) if template.first_person else None
                joined: list[tuple[str, str | None]] = [(partner.name, partner.type)] if partner else []
                fellows = [] if joined else self._co_subjects(text, s_start, v_start, st, ex)
                if fellows:  # ("Peter and Lena moved to Porto": the span names them all)
                    st = replace(st, span=text[fellows[0][2] : st.end].strip())
                others = joined or [(name, kind) for name, kind, _ in fellows]
                if template.leaves:
                    also += self._left(st, s_start + m.start("left"), s_start + m.end("left"), ex)
                for one in (st, *also):
                    read.extend((v_start, replace(one, subject=name, subject_type=kind))
                                for name, kind in others)
                    read.append((v_start, one))
        if not words.isdisjoint(self._title_words):
            read.extend(self._titled(text, s_start, s_end, ex))
        if "favorite" in words or "favourite" in words:
            read.extend(self._favourites(text, s_start, s_end, ex))
        if "day" in words and self._day_of is not None and not words.isdisjoint(self.rules.days):
            read.extend(self._days(text, s_start, s_end, ex))
        if self._trip_of is not None and not words.isdisjoint(self._trip_words):
            read.extend(self._trips(text, s_start, s_end, ex))
        if self._got_of is not None and not words.isdisjoint(self._got_words) and \
                not words.isdisjoint(_MY_OUR):
            read.extend(self._got(text, s_start, s_end, ex))
        # a thing named with its title is no thing had when the sentence ends having it ("We rehomed our cat
        # Luna": no longer owned, not owned)
        ended = {_said(st) for _, st in read if st.action == "close"}
        titled = {_said(st): st for _, st in read
                  if st.action == "assert" and st.object_title and _said(st) in ended}
        if titled:  # (the close keeps what the title says the thing is: a cat, a concept)
            read = [(at, replace(st, object_type=t.object_type, object_title=t.object_title)
                     if st.action == "close" and (t := titled.get(_said(st))) else st)
                    for at, st in read if st.action != "assert" or _said(st) not in titled]
        # what someone thinks is their opinion, not a fact: "Kim thinks Peter moved to Berlin" says nothing of
        # where Peter lives
        claims = [(at, st.end) for at, st in read if self.ontology.predicate(st.predicate).kind == "opinion"]
        inside = [any(a < at < b for a, b in claims) for at, _ in read]
        return ([st for (_, st), no in zip(read, inside, strict=True) if not no],
                [st for (_, st), yes in zip(read, inside, strict=True) if yes])

    def _read(self, template: Template, text: str, s_start: int, s_end: int, v_start: int, v_end: int,
              ex: Extraction, verbs: Sequence[tuple[int, int]]) -> Statement | None:
        predicate = self.ontology.predicate(template.predicate)
        pair = self._sides(template, predicate, text, s_start, s_end, v_start, v_end, ex, verbs)
        if pair is None:
            return None
        (subject_name, subject_type, confidence, subject_start), obj = pair
        obj_text, obj_type, obj_end = obj
        if not template.unnamed and not self._fits(predicate.name, obj_text):
            return None
        # ("doesn't think the launch will slip anymore": a claim running to the sentence's end holds the word)
        said_last = next((sfx for sfx in self.rules.negation_suffixes
                          if obj_text.lower().endswith(f" {sfx}") and template.negated), None)
        if said_last is not None:
            obj_text, obj_end = obj_text[: -len(said_last) - 1].rstrip(" ,"), obj_end - len(said_last) - 1
        rest = text[obj_end:s_end].lower()
        stopped = any(rest.lstrip(" ,").startswith(sfx) for sfx in self.rules.negation_suffixes) or \
            "no longer" in template.phrase.lower()
        negated = template.negated or stopped
        action = template.action
        name = predicate.name
        if negated:
            if action == "since":  # ("I haven't been at Globex for 3 years": no start, nor an end, said)
                return None
            if name in self.rules.opposites and not stopped:
                name, action = self.rules.opposites[name], "assert"
            elif action != "close":
                action = "close"
            else:
                return None
        elif action == "negated":
            return None
        # the clause's own time ("left Acme in March and joins Globex in April"), else one opening the
        # sentence; an opinion's is one before its verb ("Yesterday Kim said she thinks ..."): a time after it
        # is part of what is believed ("thinks the launch will slip to March")
        clause_end = min((v[0] for v in verbs if v[0] >= v_end), default=s_end)
        if predicate.kind == "opinion":
            times = [t for t in ex.times if s_start <= t.start and t.end <= v_start]
        else:
            times = [t for t in ex.times if v_start <= t.start < clause_end] or \
                [t for t in ex.times if s_start <= t.start < verbs[0][0]]  # (verbs: sorted, this one in them)
        if action == "close" and times and (times[0].kind == "range" or _witnessed(times[0])) and \
                template.phrase.lower().removeprefix("i ").startswith("used to"):
            action = "past"  # ("used to work at Acme from 2015 to 2018", "in 2010", "I used to ...": held then)
        elif action == "close" and times and times[0].kind == "range" and _AFTER_A_SPAN.match(times[0].text):
            # "quit my job at Acme after five years": held those five years, up to now; a close of what is
            # not named ("left my IT job after 3 years") ends whatever is held, now
            action, times = ("past", times) if obj_text else ("close", [])
        if action == "since":  # held from a start months or years back said with it: "has been at Globex
            # for 3 years", "since 2019" (not "for a few days", "since yesterday": a stay, a visit)
            if not times or times[0].kind != "since" or times[0].interval.start is None or \
                    times[0].interval.start.granularity.rank < Granularity.MONTH.rank:
                return None
            action = "assert"
        past = action == "past"
        if past:  # held over the period said, and only then: "lived in Paris from 2015 to 2019", "in 2019"
            if negated or not times or not (times[0].kind in _BOUNDING or _witnessed(times[0])):
                return None
            action = _past_action(times[0])
        valid_from, valid_to = _dated(times[0] if times else None, action,
                                      open_ended=name in self.rules.open_ended, past=past)
        due = None
        if predicate.kind == "task":  # a time said with a task is when it is due, not when it starts
            due = next((d for t in times if (d := due_of(t)) is not None), None)
            valid_from = valid_to = None
        span_end = max(obj_end, *(t.end for t in times)) if times else obj_end
        nouns = self.rules.object_nouns.get(name)  # "adopted a pup named Ned": Ned, a pup
        named = _owned_pattern(nouns).match(text, v_end, s_end) if nouns and obj_text[:1].isupper() else None
        return Statement(
            subject=subject_name, predicate=name, object=obj_text, action=action,
            span=text[min(v_start, subject_start) : span_end].strip(),
            start=s_start, end=span_end, confidence=confidence, valid_from=valid_from, valid_to=valid_to,
            subject_type=subject_type, object_type=obj_type,
            object_title=named[2].lower() if named and named[3] == obj_text else None,
            held_before=action == "close" and not negated and template.held_before, due=due,
            witnessed=past and action == "assert" and _witnessed(times[0]) and valid_to is not None,
        )

    def _left(self, st: Statement, start: int, end: int, ex: Extraction) -> list[Statement]:
        """What the subject leaves for ``st``'s new value, named between ``start`` and ``end`` (a template's
        ``{-}``): no longer held from when the new one is ("switched from VS Code to Neovim": VS Code no
        longer used, which nothing else would end, as uses holds many at once)."""
        if st.action != "assert":
            return []
        wanted = self.ontology.predicate(st.predicate).object_types
        return [replace(st, object=e.name, action="close", valid_from=None, valid_to=st.valid_from,
                        object_type=e.type if e.type in wanted or not wanted else wanted[0])
                for e in ex.entities if start <= e.start and e.end <= end and e.name != st.object]

    def _also(self, template: Template, m: re.Match[str], st: Statement, text: str, v_end: int, s_end: int,
              ex: Extraction) -> list[Statement]:
        """What else a statement's words say of its subject: the words a template skips as a value
        ("works as {*role} at": "works as a data engineer at Globex"), or "as ..." after its object ("joined
        Acme as CTO in 2021", ``as_after_object`` in the rules): the subject's role, from the same time."""
        found: list[tuple[str, str, int]] = []  # predicate, words, where they end
        if template.also and (skipped := m.group("also")):
            found.append((template.also, skipped, st.end))
        also = self.rules.as_after_object.get(st.predicate)
        at = text.find(st.object, v_end) if also else -1
        if also and at >= 0 and (after := _AS_AFTER.match(text, at + len(st.object), s_end)):
            end = min([s_end, *(t.start for t in ex.times if after.end() <= t.start < s_end)])
            stop = _CLAUSE_END.search(text, after.end(), end)
            end = stop.start() if stop else end
            found.append((also, text[after.end() : end], end))
        out = []
        for predicate, raw, end in found:
            value = _without_article(_without_when(raw).strip(" ,"))
            if value and self._fits(predicate, value):
                said = replace(st, predicate=predicate, object=value, object_type=None)
                out.append(_reaching(said, text, end))
        return out

    def _listed_with(self, st: Statement, text: str, v_end: int, s_end: int, ex: Extraction,
                     verbs: Sequence[tuple[int, int]]) -> list[Statement]:
        """The things liked (or not) with a liked thing named by a common noun: "loves cats and dogs", "hates
        mornings and long meetings"; the values listed with one of a predicate the rules list (``listed``:
        "plays tennis and golf"). Not what a new clause says ("loves cats and Peter loves dogs": the verb of
        another statement ends it) nor one thing named with "and" ("rock and roll", ``whole_values``)."""
        predicate = self.ontology.predicate(st.predicate)
        at = text.find(st.object, v_end)
        if predicate.name in self.rules.object_joins_things:
            return [] if at < 0 else self._doings_listed(st, predicate, text, at + len(st.object), s_end, ex,
                                                         verbs)
        literal = predicate.name in self.rules.listed and st.object_type is None and not (
            _POSSESSIVES.intersection(words := st.object.lower().split())
            or len(words) > 1 and words[0].endswith("ing"))  # ("tracking my meditation and ...": its objects)
        nouns = self.rules.object_nouns.get(predicate.name)
        owned = nouns is not None and (  # ("has two dogs and a cat", "a dog named Max and a cat named Luna")
            st.object.lower().split()[-1] in nouns or st.object_title in nouns)
        a_name = any(e.start == at and e.name == st.object for e in ex.entities)
        if at >= 0 and a_name and not literal and not owned and predicate.object == "entity" and \
                not predicate.single_valued:
            return self._names_listed(st, text, at + len(st.object), s_end, ex)
        if not literal and not owned and (predicate.kind != "preference" or st.object_type != "concept") \
                or at < 0:
            return []
        out: list[Statement] = []
        end, value = at + len(st.object), st.object
        # (after a word that takes a phrase, "and" may join inside it: "the feeling of being healthy and
        # strong", "events to practice mindfulness and self-care")
        while not _TAKES_A_PHRASE.intersection(value.lower().split()) and (joint := _joint(text, end, s_end)):
            # (what is owned is one of the predicate's nouns, read from the space before it: "and a cat")
            found = self._listed_value(predicate, text, joint.end(), s_end, ex) if literal else \
                self._common_noun(predicate, text, joint.end() - (1 if owned else 0), s_end, ex)
            first = found[0].split()[0].lower().split("'")[0] if found else ""
            if found is None or any(joint.end() <= a < found[2] for a, _ in verbs) or \
                    first in _CLAUSE_SUBJECTS or first in _NOT_LISTED:
                break
            item = replace(st, object=found[0], object_type=found[1])
            if owned and not literal:  # (what a thing owned is, when it is named: "a cat named Luna")
                named = _owned_pattern(nouns or ()).match(text, joint.end() - 1, s_end)
                item = replace(item, object_title=named[2].lower() if named and named[3] else None)
            out.append(_reaching(item, text, found[2]))
            value, end = found[0], found[2]
        return out

    def _joined_thing(self, clause: str, at: int) -> re.Match[str] | None:
        """One more thing named after "and" at ``at`` (:data:`_ONE_THING`): not a doing ("buy groceries": a
        verb of the rules' ``doings`` without an article after it) nor a clause ("and I want to rest", "and
        Anna needs to": a name, said as one, opening two words)."""
        thing = _ONE_THING.match(clause, at)
        if thing is None or thing["article"]:
            return thing
        first = thing["first"]
        if first.lower() in _NO_THING_FIRST or thing.end() > thing.end("first") and (
                first.lower() in self.rules.doings or first[0].isupper() and not first.isupper()):
            return None
        return thing

    def _doings_listed(self, st: Statement, predicate: Predicate, text: str, end: int, s_end: int,
                       ex: Extraction, verbs: Sequence[tuple[int, int]]) -> list[Statement]:
        """The doings said after "and" with one of a predicate whose object goes on past "and" before a thing
        (``object_joins_things``: a task): "I need to call Bob and book the venue" (book the venue too), "call
        Bob tomorrow, and then book the venue"; not another clause ("and I want to rest", "and Kim needs to
        ...": the verb of another statement)."""
        out: list[Statement] = []
        while True:
            said = next((t for t in ex.times if end <= t.start and not text[end : t.start].strip()), None)
            end = said.end if said else end  # ("call Bob tomorrow and ...")
            joint = _THEN_AND.match(text, end, s_end)
            first = text[joint.end() : s_end].split(maxsplit=1)[:1] if joint else []
            if joint is None or not first or first[0].lower() in _CLAUSE_SUBJECTS | _NOT_LISTED or \
                    any(joint.end() <= a < s_end for a, _ in verbs):
                return out
            # a doing, by what its first word takes ("book the venue", "send it to Anna", "call Anna"); not
            # a thing named in two words ("set up cable and TV services", "my speaking and listening skills")
            doing = _DOING.match(text, joint.end(), s_end)
            if doing is None or not doing["after"] and not any(e.start == doing.end() for e in ex.entities) \
                    and first[0].lower() not in self.rules.doings:
                return out
            found = self._object(predicate, text, joint.end(), s_end, ex)
            if found is None:
                return out
            after = _THEN_AND.search(text, found[2], s_end)
            due = next((d for t in ex.times if joint.end() <= t.start < (after.start() if after else s_end)
                        and (d := due_of(t)) is not None), None) if predicate.kind == "task" else None
            out.append(_reaching(replace(st, object=found[0], due=due or st.due), text, found[2]))
            end = found[2]

    def _names_listed(self, st: Statement, text: str, end: int, s_end: int,
                      ex: Extraction) -> list[Statement]:
        """The names of its kind listed after a named object of a predicate of many values: "visited Paris
        and Rome", "I was in Turkey and Mexico", "use Slack, Notion and Linear" (each right after "and" or a
        comma of a list that "and" ends; not one of another kind, "moved to Berlin and Anna stayed", though
        one typed by its capitals alone takes the first's: "Jira and Confluence")."""
        out: list[Statement] = []
        while joint := _joint(text, end, s_end):
            name = next((e for e in ex.entities if e.start == joint.end()), None)
            guessed = name is not None and name.source in ("rule", "initial") and \
                name.text.split()[0] not in self.rules.first_names
            if name is None or (name.type != st.object_type and not guessed) or \
                    _NAME_THEN_VERB.match(text, name.end, s_end):  # ("and Initech hired me": a clause)
                break
            out.append(_reaching(replace(st, object=name.name), text, name.end))
            end = name.end
        return out

    def _listed_value(self, predicate: Predicate, text: str, start: int, s_end: int,
                      ex: Extraction) -> tuple[str, str | None, int] | None:
        """A literal value listed after another at ``start``: a few words that do not open with a verb
        ("plays tennis and golf"; not "plays tennis and sings", "is into jazz and wants to learn")."""
        found = self._object(predicate, text, start, s_end, ex)
        if found is None:
            return None
        words = found[0].lower().split()
        verb = self.rules.listed[predicate.name] == "activities" and \
            words[0].endswith(("ed", "s")) and not words[0].endswith("ss")  # (a few lost: "darts")
        return None if len(words) > 3 or verb or not self._fits(predicate.name, found[0]) else found

    def _sharing_a_head(self, listed: list[Statement], text: str) -> list[Statement]:
        """Things listed with "and" that name kinds of what the last one names share it: "action and sci-fi
        movies" are action movies and sci-fi movies, as the rules' ``kinds_of`` say (each before the last,
        and the last's first word, a kind of its thing): "jazz and board games" are two things."""
        *kinds, last = listed
        words = last.object.split()
        known = self.rules.kinds_of.get(words[-1].lower(), frozenset()) if len(words) == 2 else frozenset()
        if words[0].lower() not in known or not all(k.object.lower() in known for k in kinds):
            return listed
        head = words[-1]
        return [_reaching(replace(k, object=f"{k.object} {head}"), text, last.end) for k in kinds] + [last]

    def _fits(self, predicate: str, value: str) -> bool:
        """Whether ``value`` reads as an object of ``predicate``: a role names one ("CTO of Acme", not "the
        best"), a mood is no likeness ("feels like ...")."""
        words = _WORD.findall(value.lower())
        wanted = self.rules.object_words.get(predicate)
        opening = words[:1] if predicate in self.rules.object_words_open else words
        if wanted is not None and not wanted.intersection(opening):
            return False
        if (most := self.rules.object_max_words.get(predicate)) is not None and len(value.split()) > most:
            return False  # ("lactose intolerant I'm trying out dairy-free options": no diet of so many words)
        if words and words[-1] in self.rules.object_not_heads.get(predicate, ()):
            return False  # "I like the structure", "I love the idea of ...": a reply to what was offered
        back = self.rules.object_points_back.get(predicate, ())
        if any(_opens(words, w) for w in back) and not _says_what(words):
            return False  # "I think it's worth it": not "it's important to ...", where what "it" is follows
        return not self._opens_refused(predicate, words)

    def _opens_refused(self, predicate: str, words: Sequence[str]) -> bool:
        """Whether a value of ``predicate`` (its lower-cased ``words``) opens with words its object may not
        open with ("thinks about", "thinks I'll": no claim)."""
        refused = self.rules.not_first_by_word.get(predicate, {}).get(words[0], ()) if words else ()
        return any(_opens(words, r) for r in refused)

    def _subject(self, text: str, s_start: int, v_start: int, ex: Extraction,
                 verbs: Sequence[tuple[int, int]]) -> tuple[str, str, float, int] | None:
        """Who the statement is about, its type, how sure we are, and where its span starts.

        In coordinated clauses ("Sam left Acme in March and joins Globex"), the name just before "and" is the
        first clause's object: the subject is the first clause's subject, found through the verb before it.
        """
        mine = self._said_before_and(text, s_start, v_start, ex)
        if mine is not None:
            return mine
        before = [e for e in ex.entities if s_start <= e.start and e.end <= v_start]
        span_start = before[-1].start if before else s_start
        # "William Chen, who goes by Bill, works at ...": the one the clause is said of, for both its verbs
        said_of = _WHO_CLAUSE.search(text, s_start, v_start)
        named = next((e for e in before if e.end == said_of.start() and e.type == "person"), None) \
            if said_of else None
        if named is not None:
            return _named_subject(named, named.start)
        if before:
            e = before[-1]
            gap = text[e.end : v_start]
            if len(before) > 1 and _OWNED_APPOSITION.fullmatch(gap) and \
                    re.fullmatch(r"\s*,\s*", text[before[-2].end : e.start]):
                return _named_subject(before[-2], before[-2].start)  # "Anna, Peter's wife, moved": Anna moved
            if _POSSESSED.match(gap):
                return None  # "Peter's wife is a nurse", "Peter's team moved to Berlin": of no one named
            if _AND_THEIRS.fullmatch(gap) and e.type == "person":
                return _named_subject(e, e.start)  # "Peter and his wife moved to Denver": Peter did too
            # "Our CTO, Sam, moved": a name set off by commas is what the words before it name
            appositive = (re.fullmatch(r",\s*", gap) is not None
                          and text[s_start : e.start].rstrip().endswith(","))
            if _COORDINATED.search(gap) and len(gap.split()) <= 6 and not appositive:
                # "Kim likes sushi and hates": a verb after the name makes it that verb's subject, and ours;
                # else the name is the object of a verb before it ("left Acme and joins"), whose subject is ours
                earlier = [v for v in verbs if e.end <= v[0] and v[1] <= v_start] or \
                    [v for v in verbs if v[1] <= e.start]
                if earlier:
                    return self._subject(text, s_start, earlier[-1][0], ex, verbs)
                # "Peter met Ana and moved": no known verb before; the sentence's first person, less surely;
                # "Peter changed jobs and works at": the name opening the sentence, of a verb no rule reads.
                # Who says the line is that person only when "I" is ("Caroline: I met Peter and moved"; not
                # "Caroline: Peter called and moved")
                said = self._line_speaker(text, v_start, ex)
                label = next((p for p in before if said is not None and p.start == said.start >= 0), None)
                if label is not None and _I_SAID.search(text, label.end, v_start):
                    return label.name, "person", CONFIDENCE["pronoun"], label.start
                opening = label.end if label is not None else s_start
                first = next((p for p in before if p.type == "person" and p is not label), None)
                opens = first is e and e.type == "person" and gap.split()[0].islower() and \
                    text[opening : e.start].strip(" :").lower() in ("", "the")
                if first is None or (first is e and not opens):
                    return None
                return first.name, "person", CONFIDENCE["pronoun"], first.start
            # "Sometimes it feels like", "Hope your injury is feeling": a pronoun between is the subject
            set_off = re.fullmatch(r",[^,]*,\s*", gap) is not None  # "Sam, our CTO, moved"
            own = (set_off or _SUBJECT_WORDS.isdisjoint(gap.lower().split())) and not _gerund(e)
            if own and len(gap.split()) <= 3 and not re.search(r"[.;!?]", gap) and (
                    "," not in gap or set_off or appositive):
                return _named_subject(e, span_start)
        if not before and not text[s_start:v_start].strip(" \t\n-*+\u2022\u2013") and \
                not text[v_start:v_start + 6].lower().startswith(_IT_VERBS):
            # a sentence with no subject ("Moved to Berlin last week", "- Lives in Berlin since 2021"): of
            # who says the line, when the line or the event says who ("Feels great" leaves out "it")
            said = self._line_speaker(text, v_start, ex)
            if said is not None:
                return said.name, "person", CONFIDENCE["pronoun"], v_start
        words = text[s_start:v_start].split()
        for _ in range(3):  # ("he now works at", "she has also recently joined")
            if len(words) > 1 and words[-1].lower() in _BEFORE_A_VERB:
                words.pop()
        if words and words[-1].lower() in self.rules.pronouns:
            # ("James: Yeah, he loves playing in the water": whoever says a line is "I" in it, never "he")
            said = self._line_speaker(text, v_start, ex)
            people = [e for e in self._referents(words[-1], ex, v_start, said) if not _gerund(e)]
            if people:
                return people[-1].name, "person", CONFIDENCE["pronoun"], span_start
        return None

    def _said_before_and(self, text: str, s_start: int, v_start: int,
                         ex: Extraction) -> tuple[str, str, float, int] | None:
        """Who says a clause "I" opens, when the verb at ``v_start`` follows it after "and" or "but" with no
        subject of its own: "I quit Initech and moved to Berlin", "Last month I sold my house and moved to
        Denver", "I met Tom and moved" (not "I said they left and moved", "I think Tom called and moved",
        "When I was young, my dad quit Acme and moved")."""
        if not text[s_start:v_start].rstrip().endswith(_AND_BUT_ENDS):  # (most verbs: no search)
            return None
        joined = _AND_BUT.search(text, max(s_start, v_start - 40), v_start)
        said = list(_I_SAYS.finditer(text, s_start, joined.start())) if joined else []
        if not said or joined is None:
            return None
        i_end, joint = said[-1].end(), joined.start()
        gap = text[i_end:joint]
        if len(gap.split()) > 10 or re.search(r"[,;:!?()]|\s[-\u2013\u2014]+\s", gap) or \
                not _OWN_CLAUSE_WORDS.isdisjoint(_WORD.findall(gap.lower())):
            return None
        for e in ex.entities:  # someone named there with a verb after them ("Tom called") says it instead
            if e.type == "person" and i_end <= e.start and e.end <= joint:
                after = text[e.end : joint].split()
                if after and after[0].lower() not in _AFTER_AN_OBJECT:
                    return None
        return self._speaker(text, s_start, said[-1].start(), ex)

    def _speaker(self, text: str, s_start: int, v_start: int,
                 ex: Extraction) -> tuple[str, str, float, int] | None:
        """Who "I" is at ``v_start`` (where a phrase said by "I" starts): the name opening its line before a
        colon ("Caroline: Yeah, I just moved to Seattle"), if "I" opens its clause (a word such as "yeah" or
        "so" before it at most, or someone named with it: "Melanie and I moved"; a time before it is none of
        its words: "Last month I moved"). Nobody otherwise: who wrote a note is not who "I" is in it."""
        partner = _partner(text, v_start, ex)
        end = partner.start if partner else v_start
        if partner and (title := _MY_TITLE.search(text, s_start, end)):
            end = title.start()  # ("My wife Anna and I moved": a title of the speaker's before the name)
        before = text[s_start:end]
        for t in ex.times:
            if s_start <= t.start and t.end <= end:  # (and the word it is said with: "In 2019 I moved")
                lead = _TIME_WORD_BEFORE.search(before, 0, t.start - s_start)
                at = lead.start() if lead else t.start - s_start
                before = before[:at] + " " * (t.end - s_start - at) + before[t.end - s_start :]
        if (lead := _LEAD_IN.search(before)) and not _LEAD_IN_NOT.search(lead[0]):
            before = before[: lead.start()] + " " * len(lead[0])  # ("After the wedding I moved")
        clause = _CLAUSE_MARK.split(before)[-1].lower().split()
        if len(clause) > 2 or not _OPENERS.issuperset(clause):
            return None
        if _SO_AFTER_A_CLAUSE.search(before) and _MAY_OR_WILL.match(text, v_start):
            return None  # ("..., so I don't feel too overwhelmed": what it is for, not how one feels)
        said = self._line_speaker(text, v_start, ex)
        if said is None:
            return None
        # (the span: from the speaker's name in the line's first sentence, else from the sentence's start)
        return said.name, "person", CONFIDENCE["pronoun"], max(said.start, s_start)

    def _line_speaker(self, text: str, at: int, ex: Extraction) -> EntityMention | None:
        """The name opening the line of ``at`` before a colon, if a name and not a label ("Note:"); else who
        says the text, when that is known (``Extraction.speaker``: no place in it)."""
        opener = _SPEAKER.match(text, text.rfind("\n", 0, at) + 1)
        if opener is None or opener[1] in self.rules.not_names or opener[1] in self.rules.line_labels:
            return EntityMention(ex.speaker, -1, -1, "person", "speaker") if ex.speaker else None
        said = next((e for e in ex.entities if e.start == opener.start(1) and e.end == opener.end(1)), None)
        return said if said is not None and said.type in ("person", "concept") else None

    def _titled(self, text: str, s_start: int, s_end: int, ex: Extraction) -> list[tuple[int, Statement]]:
        """What one named is to another, said with a possessive and a title (``titles`` in the rules):
        "Peter's wife Anna", "Anna, Peter's wife,", "Anna is Peter's wife", "my husband Tom" (the line's
        speaker's), "Acme's CEO John Smith" (a role: "CEO of Acme"). Undated: a sentence's times are its
        verbs'."""
        names = [e for e in ex.entities if s_start <= e.start and e.end <= s_end]
        found: list[tuple[int, int, EntityMention, EntityMention, str]] = []  # at, end, who, whose, title
        for one, other in itertools.pairwise(names):
            between = text[one.end : other.start]
            if (m := _OWNERS_TITLE.fullmatch(between)) and m[1].lower() in self.rules.titles:
                found.append((one.end + m.start(1), other.end, other, one, m[1]))  # "Peter's wife Anna"
            elif _IS_OR_COMMA.fullmatch(between) and (m := _TITLE_AFTER.match(text, other.end, s_end)) and \
                    m[1].lower() in self.rules.titles:
                found.append((m.start(1), m.end(1), one, other, m[1]))  # "Anna, Peter's wife," "Anna is ..."
        for e in names:  # "my husband Tom", "Toby, my puppy", "Anna is my sister"
            before = _MY_TITLE.search(text, max(s_start, e.start - 40), e.start)
            if before and "," in before[0] and _LIST_GOES_ON.match(text, e.end, s_end):
                before = None  # ("My girlfriend, Toby and I are going camping": three of them, a list)
            after = _MY_TITLE_AFTER.match(text, e.end, s_end)
            for mine, end in ((before, e.end), (after, after.end(1) if after else 0)):
                titled = mine is not None and mine[1].lower() in self.rules.titles
                owner = self._line_speaker(text, e.start, ex) if titled else None
                if mine and owner:
                    found.append((mine.start(), end, e, owner, mine[1]))
            theirs = _THEIR_TITLE.search(text, max(s_start, e.start - 40), e.start)  # "with his wife Anna"
            if theirs and theirs[1].lower() in self.rules.titles:
                said = self._line_speaker(text, e.start, ex)
                owner = next(reversed(self._referents(theirs[0].split()[0], ex, theirs.start(), said)), None)
                if owner is not None:
                    found.append((theirs.start(), e.end, e, owner, theirs[1]))
        found += self._kin_had(text, s_start, s_end, ex, names)
        out: list[tuple[int, Statement]] = []
        for at, end, who, whose, title in found:
            predicate = self.ontology.predicate(self.rules.titles[title.lower()])
            object_type: str | None = whose.type
            owned = title.lower() in self.rules.object_nouns.get(predicate.name, ())
            if owned:
                who, whose, object_type = whose, who, "concept"  # "my dog Max": the owner owns Max
            elif predicate.object == "entity" and whose.type not in (predicate.object_types or [whose.type]):
                continue
            if who.type != "person" or who.name == whose.name:
                continue
            literal = predicate.object != "entity"
            if literal and whose.type == "person" and whose.source in ("rule", "initial") and \
                    whose.text.split()[0] not in self.rules.first_names and \
                    whose.name.lower() not in self.rules.the_named_words:  # "Globex's CEO John Smith": a firm
                ex.entities[ex.entities.index(whose)] = whose = replace(whose, type="org")
            if literal and whose.type == "person":  # "Peter's manager Anna": no post Anna holds, a tie
                if "knows" not in self.ontology.predicates:
                    continue
                predicate, literal, object_type = self.ontology.predicate("knows"), False, "person"
            # (a line's speaker is quoted in its first sentence only: "Caroline: My mom Linda", "my aunt Jo")
            start = min(p for p in (at, who.start, whose.start) if p >= s_start)
            # one's pet gone ("my dog Max passed away last year"): had up to then
            gone = _GONE.match(text, end, s_end) if owned else None
            over = title.lower() in self.rules.ended_titles  # ("my ex-husband Tom": married no longer)
            if gone:
                end = gone.end()
                when = next((t for t in ex.times if end <= t.start < s_end), None) or \
                    next((t for t in ex.times if s_start <= t.start < at), None)
                _, valid_to = _dated(when, "close")
                end = max(end, when.end) if when else end
            stated = Statement(
                subject=who.name, predicate=predicate.name,
                object=f"{title} of {whose.name}" if literal else whose.name,
                action="close" if gone or over else "assert",
                span=text[start:end].strip(" ,"), start=s_start, end=end, confidence=CONFIDENCE["rule"],
                subject_type="person", object_type=None if literal else object_type,
                title=None if literal or owned else title.lower(),
                object_title=title.lower() if owned else None,
                valid_to=valid_to if gone else None, held_before=bool(gone))
            # ("my ex Tom": a marriage or a dating over, whichever memory holds)
            ties = self.rules.ended_titles[title.lower()] if over else (predicate.name,)
            out += [(at, replace(stated, predicate=tie)) for tie in dict.fromkeys((predicate.name, *ties))]
        return out

    def _kin_had(self, text: str, s_start: int, s_end: int, ex: Extraction,
                 names: list[EntityMention]) -> list[tuple[int, int, EntityMention, EntityMention, str]]:
        """Those someone has, named after the title ("Peter has two kids, Leo and Mia", "I have a daughter
        named Emma", "has three dogs, Rex, Bo and Max"): each is the title to them (kid, daughter, dog)."""
        found: list[tuple[int, int, EntityMention, EntityMention, str]] = []
        for m in _HAS_TITLED.finditer(text, s_start, s_end):
            word = m["title"].lower()
            title = next((t for t in (word, word.removesuffix("ren"), word.removesuffix("s"))
                          if t in self.rules.titles), None)
            if m["i"]:
                owner = self._line_speaker(text, m.start(), ex)
            else:
                owner = next((e for e in reversed(names) if e.end <= m.start()), None)
                if owner is not None and text[owner.end : m.start()].strip():
                    owner = None  # ("Peter has", not "Peter said she has")
            listed = [e for e in names if e.start >= m.end()]
            if title is None or owner is None or not listed or listed[0].start != m.end():
                continue
            kin = [listed[0]]
            for e in listed[1:]:
                if not _LISTED.fullmatch(text, kin[-1].end, e.start):
                    break
                kin.append(e)
            found += [(m.start("title"), e.end, e, owner, title) for e in kin if e.type == "person"]
        return found

    def _favourites(self, text: str, s_start: int, s_end: int, ex: Extraction) -> list[tuple[int, Statement]]:
        """"My favorite color is blue", "Kenji's favourite film is Inception": likes, what is liked of that
        kind (its ``object_title``: a movie; typed by ``named_kinds`` when they name the kind)."""
        out: list[tuple[int, Statement]] = []
        if "likes" not in self.ontology.predicates:  # (a vocabulary of one's own may have none)
            return out
        for m in _FAVOURITE.finditer(text, s_start, s_end):
            if m["whose"]:
                who = _person_at(ex, m.start("whose"), m.end("whose"))
            else:
                who = self._line_speaker(text, m.start(), ex)
            stop = _CLAUSE_END.search(text, m.start("value"), s_end)
            end = stop.start() if stop else s_end
            value = _without_article(text[m.start("value") : end].strip(" \"'\u201c\u201d"))
            kind = m["kind"].lower()
            if who is None or not value or len(value.split()) > 6 or value.lower() in _NOT_A_FAVOURITE or \
                    kind.split()[0] in _NOT_A_KIND:
                continue
            at = m.start("value")
            named = next((e for e in ex.entities if at <= e.start and e.end <= end
                          and text[at : e.start].strip(" \"'\u201c").lower() in ("", "the", "a", "an")),
                         None)  # "is The Midnight Owls": the name found
            out.append((m.start(), Statement(
                subject=who.name, predicate="likes", object=named.name if named else value, action="assert",
                span=text[max(s_start, m.start()) : end].strip(), start=s_start, end=end,
                confidence=CONFIDENCE["rule"], subject_type="person",
                object_type=self.rules.named_kinds.get(kind, named.type if named else None),
                object_title=kind)))
        return out

    def _days(self, text: str, s_start: int, s_end: int, ex: Extraction) -> list[tuple[int, Statement]]:
        """A day of a tie said with its time (``days`` in the rules): "my last day at Globex is Friday"
        closes the job at Friday's end, and says it held up to then; "Peter's first day at Initech was
        Monday", "Today is my first day at Initech" open it ("his", "her": the last one named before).
        Without a time, or with a span of one, nothing: "my last day at Globex" says not when."""
        out: list[tuple[int, Statement]] = []
        assert self._day_of is not None
        for m in self._day_of.finditer(text, s_start, s_end):
            predicate, action = self.rules.days[m["which"].lower()]
            if predicate not in self.ontology.predicates:  # (a vocabulary of one's own may lack it)
                continue
            wanted = self.ontology.predicate(predicate).object_types
            tie = next((e for e in ex.entities if e.start == m.end()), None)
            who = self._owner(text, m, ex)
            when = _time_said(ex, tie.end, s_start, s_end, m.start()) if tie is not None else None
            if (who is None or tie is None or (wanted and tie.type not in wanted) or when is None
                    or when.kind != "point"):
                continue
            closes = action == "close"  # (the last day is worked: the tie ends as it does)
            out.append((m.start(), Statement(
                subject=who.name, predicate=predicate, object=tie.name, action=action,
                span=text[min(m.start(), when.start) : max(tie.end, when.end)], start=s_start,
                end=max(tie.end, when.end), confidence=CONFIDENCE["rule"],
                valid_from=None if closes else when.interval.start,
                valid_to=when.interval.end if closes else None, subject_type="person", object_type=tie.type,
                held_before=closes)))
        return out

    def _owner(self, text: str, m: re.Match[str], ex: Extraction) -> EntityMention | None:
        """Whose ``m`` (a match of ``_POSSESSOR`` and what follows) says a thing is: "Peter's" Peter's,
        "his", "her" or "their" the last one named before who is not saying the line ("Anna joined in 2019.
        Her last day at Globex is Friday"), "my" or "our" who says the line."""
        said = self._line_speaker(text, m.start(), ex)
        if m["whose"]:
            return _person_at(ex, m.start("whose"), m.end("whose"))
        if m["theirs"]:
            return next(reversed(self._referents(m["theirs"], ex, m.start(), said)), None)
        return said

    def _referents(self, pronoun: str, ex: Extraction, at: int,
                   said: EntityMention | None) -> list[EntityMention]:
        """Who ``pronoun`` at ``at`` may stand for, the nearest last: the people named before it but who says
        the line ("James: Yeah, he loves ...": "I" to James), and none whose given name is known as of the
        other gender ("Anna said Peter is leaving. She thinks ...": Anna)."""
        gender, names = self.rules.pronoun_genders.get(pronoun.lower()), self.rules.given_names
        return [e for e in _people_before(ex, at) if (said is None or e.start != said.start)
                and (gender is None or names.get(e.name.split()[0].lower(), gender) == gender)]

    def _trips(self, text: str, s_start: int, s_end: int, ex: Extraction) -> list[tuple[int, Statement]]:
        """Where a trip of someone's went (``trips`` in the rules): "during my trip to the UK last Friday"
        (who says the line), "Tim's road trip to Jasper", "her trip to Peru" (the last one named before);
        dated by the sentence's time. Not a trip to come: "my upcoming trip to", "planning my trip to",
        "packing for our trip to"."""
        out: list[tuple[int, Statement]] = []
        assert self._trip_of is not None
        for m in self._trip_of.finditer(text, s_start, s_end):
            predicate = self.rules.trips[" ".join(m["trip"].lower().split())]
            wanted = self.ontology.predicate(predicate).object_types
            place = next((e for e in ex.entities if e.start == m.end()), None)
            if place is None or (wanted and place.type not in wanted) or _TRIP_TO_COME.search(
                    text, s_start, m.start()) or _TRIP_TO_COME.search(m[0]) or (
                    (ahead := _FOR_A_TRIP.search(text, s_start, m.start())) and not ahead["thanks"]):
                continue
            who = self._owner(text, m, ex)
            if who is None:
                continue
            when = _time_said(ex, place.end, s_start, s_end, m.start())
            valid_from, _ = _dated(when, "assert", open_ended=True)
            end = max(place.end, when.end) if when else place.end
            out.append((m.start(), Statement(
                subject=who.name, predicate=predicate, object=place.name, action="assert",
                span=text[min(m.start(), when.start if when else m.start()) : end], start=s_start, end=end,
                confidence=CONFIDENCE["rule"], valid_from=valid_from, subject_type="person",
                object_type=place.type)))
        return out

    def _got(self, text: str, s_start: int, s_end: int, ex: Extraction) -> list[tuple[int, Statement]]:
        """A thing of one's own said with how one got it (``got_it`` in the rules): "my new 55-inch 4K TV that
        I got from Best Buy on November 27th" owns the 55-inch 4K TV (who says the line) from then; "new"
        is when, no part of the thing."""
        out: list[tuple[int, Statement]] = []
        assert self._got_of is not None
        for m in self._got_of.finditer(text, s_start, s_end):
            words = m["what"].split()
            while words and words[0].lower() in _JUST_GOT:
                words.pop(0)
            who = self._line_speaker(text, m.start(), ex)
            if who is None or not words or len(words) > 5 or not words[-1][:1].isalnum() or \
                    words[-1].lower() in self.rules.got_it_not:
                continue  # ("my job that I got last year": no thing one has)
            when = _time_said(ex, m.end(), s_start, s_end, m.start())
            valid_from, _ = _dated(when, "assert")
            end = max(m.end(), when.end) if when else m.end()
            out.append((m.start(), Statement(
                subject=who.name, predicate=self.rules.got_it[" ".join(m["got"].lower().split())],
                object=" ".join(words), action="assert", span=text[m.start() : end], start=s_start, end=end,
                confidence=CONFIDENCE["rule"], valid_from=valid_from, subject_type="person",
                object_type="concept")))
        return out

    def _sides(self, template: Template, predicate: Predicate, text: str, s_start: int, s_end: int,
               v_start: int, v_end: int, ex: Extraction, verbs: Sequence[tuple[int, int]],
               ) -> tuple[tuple[str, str, float, int], tuple[str, str | None, int]] | None:
        """Who a statement is about (name, type, confidence, where its span starts) and its object (value,
        type, where it ends)."""
        if template.mutual:
            return self._pair(predicate, text, s_start, v_start, v_end, ex)
        if template.first_person and (joined := _JOINED_VERB.match(text, v_start)):
            # ("I grew up in Ohio and now live in Texas"); of a place, a firm, a person ... only: a word of
            # any kind after "and" is too often no verb ("I love the self-acceptance and love theme", "I'd
            # love to get some exercise and enjoy the scenery")
            if not predicate.object_types:
                return None
            subject = self._said_before_and(text, s_start, joined.end(), ex)
        else:
            subject = (self._speaker(text, s_start, v_start, ex) if template.first_person
                       else self._subject(text, s_start, v_start, ex, verbs))
        if subject is None or subject[1] not in (*predicate.subject_types, "person", "concept") and \
                predicate.subject_types:
            return None  # ("The man who lives in Rome works at Acme": no place works anywhere)
        if template.unnamed:  # (whatever value it holds then: one a single-valued predicate holds at most)
            return (subject, ("", None, v_end)) if predicate.single_valued else None
        name, type_, confidence, start = subject
        guessed = type_ in ("person", "concept") and not any(
            e.name == name and (e.source not in ("rule", "initial") or e.text in self.rules.first_names)
            for e in ex.entities)
        if guessed and predicate.subject_types and type_ not in predicate.subject_types:
            # ("Acme was headquartered in": a firm, the likeliest of what a capitalised name not someone's is)
            kinds = predicate.subject_types
            subject = name, "org" if "org" in kinds else kinds[0], confidence, start
        if predicate.object == "entity" and "person" in (predicate.object_types or ()) and \
                (me := _ME_OBJECT.match(text, v_end, s_end)) and \
                (said := self._line_speaker(text, v_end, ex)) is not None and said.name != name:
            return subject, (said.name, "person", me.end(1))  # ("Tom married me": who says the line)
        after = self.rules.known_objects_after.get(predicate.name)
        obj = self._object(predicate, text, v_end, s_end, ex, nouns=not template.gapped,
                           names=not template.nouns_only, gerund=template.gerund, head=template.head,
                           known=after is not None and not after.isdisjoint(template.phrase.lower().split()))
        return None if obj is None else (subject, obj)

    def _pair(self, predicate: Predicate, text: str, s_start: int, v_start: int, v_end: int,
              ex: Extraction) -> tuple[tuple[str, str, float, int], tuple[str, str | None, int]] | None:
        """The two names a mutual phrase is about, right before it: "Peter and Anna got married" (a word or
        two between: "Peter and Anna finally got married", "Peter and Anna have been married"); one of them
        who says the line: "Tom and I got married"."""
        before = [e for e in ex.entities if s_start <= e.start and e.end <= v_start]
        other = before[-1] if before else None
        if other is not None and ((me := _WITH_ME.fullmatch(text, other.end, v_start))
                                  or (me := _ME_WITH.search(text, s_start, other.start))):
            # who "I" is as in "Tom and I moved": the line's speaker, "I" opening its clause; not one of three
            # or more ("Peter, Tom and I got married")
            who = self._speaker(text, s_start, me.start("i"), ex)
            if who is None or who[0] == other.name or other.type != "person" or \
                    "person" not in (predicate.subject_types or ["person"]) or \
                    _AND_BEFORE.search(text, s_start, min(me.start(), other.start)) or \
                    me.re is _ME_WITH and not _WITH_NOTHING.fullmatch(text, other.end, v_start):
                return None
            return (who[0], "person", who[2], other.start), (other.name, other.type, v_end)
        if len(before) < 2:
            return None
        first, second = before[-2], before[-1]
        between, after = text[first.end : second.start], text[second.end : v_start]
        listed = _AND_BEFORE.search(text[s_start : first.start]) is not None  # "Kim, Peter and Anna married"
        if (not _AND.fullmatch(between) or len(after.split()) > 2 or re.search(r"[,.;:!?]", after) or listed
                or first.type != second.type or first.type not in (predicate.subject_types or [first.type])):
            return None
        return (first.name, first.type, CONFIDENCE["rule"], first.start), (second.name, second.type, v_end)

    @staticmethod
    def _co_subjects(text: str, s_start: int, v_start: int, st: Statement,
                     ex: Extraction) -> list[tuple[str, str | None, int]]:
        """The names listed with the subject, of its type, and where each starts: "Sam and Ana moved", "Sam,
        Bo and Ana moved", "Sam and his wife Ana moved"."""
        before = [e for e in ex.entities if s_start <= e.start and e.end <= v_start]
        at = next((e for e in reversed(before) if e.name == st.subject), None)
        if at is None:
            return []
        out: list[tuple[str, str | None, int]] = []
        current = at
        for e in reversed([e for e in before if e.end <= at.start]):
            joint = text[e.end:current.start]
            closest = current is at  # the joint next to the subject says "and"; earlier ones may be commas
            joins = (_AND.fullmatch(joint) or _AND_THEIRS.fullmatch(joint) if closest
                     else _LISTED.fullmatch(joint))
            if e.type != at.type or not joins:
                break
            out.append((e.name, e.type, e.start))
            current = e
        return out[::-1]

    def _object(self, predicate: Predicate, text: str, v_end: int, s_end: int, ex: Extraction, *,
                nouns: bool = True, names: bool = True, gerund: bool = False, head: str | None = None,
                known: bool = False) -> tuple[str, str | None, int] | None:
        """What the statement says of its subject (``nouns``: a lower-case object may do, "loves sushi";
        ``names``: a name right after the phrase may, "has Anna on the team" owns nothing; ``gerund``: a
        literal object opens with an -ing word, "started surfing"; ``head``: it is named before one of the
        rules' head words of that kind, see :meth:`_headed`; ``known``: a name only if memory or the lists
        know it as of the predicate's type, "adopted Terraform", not "adopted Pixie")."""
        if head is not None:
            return self._headed(predicate, head, text, v_end, s_end, ex)
        if predicate.object == "entity" and not names:
            return self._common_noun(predicate, text, v_end, s_end, ex)
        if predicate.object == "entity":
            after = [e for e in ex.entities if v_end <= e.start < s_end]
            # a name a few words on is the object unless those words compare or join ("prefers email over
            # Slack": the object is email)
            between = text[v_end : after[0].start].lower().split() if after else []
            # (nor one after a second preposition: "went all in on Tesla" went in no Tesla)
            last = text[max(0, v_end - 8) : v_end].lower().split()
            stacked = bool(between and last) and between[0] in _PREPOSITIONS and last[-1] in _PREPOSITIONS
            # (nor one after a thing said in a word and where: "bought it at Target", "got them from Walmart")
            stacked |= len(between) == 2 and between[0] in _THING_STAND_INS and between[1] in _PREPOSITIONS
            # (nor whom a thing is for: "bought flowers for Maria" owns no Maria)
            stacked |= len(between) > 1 and between[-1] == "for"
            if not after or len(between) > 2 or _JOINING.intersection(between) or stacked:
                return self._common_noun(predicate, text, v_end, s_end, ex) if nouns else None
            e = after[0]
            if not _OWNERS_OBJECTS.isdisjoint(predicate.object_types) and \
                    _THEIRS_AFTER.match(text, e.end, s_end):
                return None  # "went to Anna's party", "working on Globex's website": a place, work of theirs
            if (product := _NEXT_WORD.match(text, e.end, s_end)) and product[1] in self.rules.brand_nouns:
                return text[e.start : product.end()], "concept", product.end()  # "bought Nike shoes": shoes
            wanted = predicate.object_types
            if product and product[1] in self.rules.thing_nouns and wanted and "concept" not in wanted:
                return None  # "went to the coolest Harry Potter party": a thing named by the name, not it
            if between[:1] in (["a"], ["an"]) and wanted and _ONE_NAMED.issuperset(wanted):
                return None  # "joined a new LGBTQ activist group": the name tells what kind of thing
            if predicate.kind == "preference":
                if self._of_a_thing_shown(predicate, text[v_end:s_end]):
                    return None  # ("I like the Personalized & Sentimental theme")
                if _NAME_MODIFIES.match(text, e.end, s_end):  # "I love the Miami vibe": the vibe is liked
                    return self._common_noun(predicate, text, v_end, s_end, ex) if nouns else None
                said_to = text[v_end : e.start].rstrip().endswith(",") or (
                    len(between) > 1 and between[0] in _POINTING)  # (not "I love watching LeBron.")
                if said_to and e.type == "person" and _SAID_TO.match(text, e.end, s_end):
                    return None  # "I love the thought Nate!", "I love it, Nate": said to Nate
            # a known name's type, a project's (named so: "the Atlas project") and a given name's alone ("to
            # join Anna": no firm), nor someone's title ("visited Grandma", "Aunt Mary": no place)
            firm = e.source in ("gazetteer", "list") or e.type == "project" or \
                e.text in self.rules.first_names or \
                self.rules.titles.get(e.text.split()[0].lower()) in _KIN_OR_KNOWN
            type_ = e.type if (not wanted or e.type in wanted or firm) else wanted[0]
            too = self.rules.known_types_too.get(predicate.name, {}).get(e.type)
            if wanted and firm and e.type not in wanted and predicate.kind != "preference" and (
                    too is None or too and (not last or last[-1] not in too)):
                # "left Berlin" is no employer left, "joined the Atlas project" none joined; "works at
                # Spotify" names its maker, "joined Instagram" signed up
                return None
            listed = e.source in ("gazetteer", "list") and (not wanted or e.type in wanted)
            if known and not listed and not (e.type == "project" and "project" in wanted):
                return None  # ("we adopted Pixie": no tool memory or the lists know; a project named so is)
            return e.name, type_, e.end
        clause = text[v_end:s_end]
        # a time in the clause dates the state and is no part of its value, but for an opinion, whose claim
        # holds it ("the launch will slip to March")
        for t in ex.times:
            if v_end <= t.start < s_end and predicate.kind != "opinion":
                clause = clause[: t.start - v_end]
                break
        stop = _CLAUSE_END.search(clause) if predicate.kind != "opinion" else _CLAIM_END.search(clause)
        while stop and stop[0].strip() == "and" and predicate.name in self.rules.object_joins_things and \
                (thing := self._joined_thing(clause, stop.end())):
            stop = _CLAUSE_END.search(clause, thing.end())  # ("set up cable and internet at the flat")
        raw = clause[: stop.start()] if stop else clause
        if (stops := self.rules.object_stops.get(predicate.name)) and \
                (more := stops.search(raw, self._infinitive_end(predicate, raw))):
            raw = raw[: more.start()]  # "playing chess to get better at strategy": chess
        if predicate.kind != "opinion":
            raw = _without_when(raw)
        value = raw.strip(" ,")
        if predicate.name in self.rules.infinitive_as_doing:  # ("is learning to cook": cooking)
            value = _as_doing(value)
        if gerund and not _GERUND.match(value):
            return None
        if self._opens_refused(predicate.name, _WORD.findall(value.lower())):
            return None  # (before "a" goes: "plays a key role" names no activity)
        if predicate.kind != "opinion":
            value = _without_article(value)
        dropped = self.rules.object_drop_first.get(predicate.name, ())
        value = _without_first(value, dropped)  # "playing the guitar": the guitar
        if not value or len(value) > 120 or value.lower() in dropped or _doing_a_stand_in(value) or (
                gerund and value in _NO_VALUE_ALONE):
            return None
        return value, None, v_end + len(raw.rstrip())

    def _of_a_thing_shown(self, predicate: Predicate, clause: str) -> bool:
        """Whether what ``clause`` opens with is what a thing shown is like, said with more (the rules'
        ``object_qualities``): "the color and texture", "the Personalized & Sentimental theme"."""
        qualities = self.rules.object_qualities.get(predicate.name)
        return qualities is not None and _qualities(_the_phrase(clause), qualities)

    def _infinitive_end(self, predicate: Predicate, raw: str) -> int:
        """Where the infinitive opening ``raw`` ends, for a predicate whose object it names as a doing: its
        "to" is no stop of the object ("is learning to cook", "loves to play with her toys"); else 0."""
        if predicate.name not in self.rules.infinitive_as_doing:
            return 0
        doing = _INFINITIVE.match(raw, len(raw) - len(raw.lstrip()))
        return doing.end() if doing else 0

    def _headed(self, predicate: Predicate, kind: str, text: str, v_end: int, s_end: int,
                ex: Extraction) -> tuple[str, str | None, int] | None:
        """What is named before the first of a kind's head words after a phrase (the rules' ``object_heads``),
        the head kept or not: "signed up for a pottery class" (lesson) pottery, "joined a book club" (group)
        book club; with no word before it, nothing ("joined the group chat", "signed up for the newsletter"),
        unless the head alone is a value (``alone``: "joined a gym").
        For a predicate that takes an entity, a thing named by what it is (a concept, as "a dog" owned is)."""
        heads, keep, alone = self.rules.object_heads[kind]
        clause = text[v_end : min([s_end, *(t.start for t in ex.times if v_end <= t.start < s_end)])]
        stop = _CLAUSE_END.search(clause)
        raw = _without_when(clause[: stop.start()] if stop else clause)
        words = list(_NON_SPACE.finditer(raw))
        # (a head word in lower case: "a Hooli Group book club")
        # (a head word before another word names what that is: "a church choir" a choir, "a gym class" no
        # group; "a gym near my house" a gym)
        at = next((i for i, w in enumerate(words) if w[0] in heads and (
            i + 1 == len(words) or not words[i + 1][0].isalpha() or words[i + 1][0].lower() in _AFTER_A_HEAD
            or words[i + 1][0].endswith("ly"))), None)  # ("a poetry class lately")
        if at is None or not at and not keep:  # (a head first is a value only alone: "does yoga")
            return None
        value = _without_article(raw[: words[at if keep else at - 1].end()].strip(" ,"))
        dropped = self.rules.object_drop_first.get(predicate.name, ())
        value = _without_first(value, dropped)  # ("a weekend yoga class": yoga)
        lone = value.lower() in heads and value.lower() not in alone
        # (a phrase of its own before the head names no group: "is on the phone with the support team")
        phrased = not _PREPOSITIONS.isdisjoint(_WORD.findall(value.lower()))
        if not value or value.lower() in dropped or lone or phrased or \
                self._opens_refused(predicate.name, _WORD.findall(value.lower())):
            return None
        return value, "concept" if predicate.object == "entity" else None, v_end + words[at].end()

    def _common_noun(self, predicate: Predicate, text: str, v_end: int, s_end: int,
                     ex: Extraction) -> tuple[str, str | None, int] | None:
        """A lower-case object ("loves sushi", "uses spreadsheets"): a concept, for preferences and tools;
        for a predicate with ``object_nouns``, one of them ("adopted a pup") or the name it is given."""
        owned = self.rules.object_nouns.get(predicate.name)
        if owned is None and predicate.kind != "preference" and predicate.name != "uses":
            return None
        # (a time in the clause is none of it: "adopted her two years ago")
        cut = min([s_end, *(t.start for t in ex.times if v_end <= t.start < s_end)])
        s_end, timed = cut, cut < s_end
        if owned is not None:
            return self._owned(owned, text, v_end, s_end)
        clause = text[v_end:s_end]
        whole = self.rules.whole_values.match(clause) if self.rules.whole_values else None
        stop = _CLAUSE_END.search(clause, whole.end() if whole else 0)  # ("rock and roll": one value)
        raw = clause[: stop.start()] if stop else clause
        if (stops := self.rules.object_stops.get(predicate.name)) and \
                (more := stops.search(raw, self._infinitive_end(predicate, raw))):
            raw = raw[: more.start()]  # "use a whiteboard to stay on track": a whiteboard
        # ("painting together lately": painting together; "having them around": all of it, no time follows)
        words = _without_when(raw, timed=timed and len(raw) == len(clause)).split()
        while words and words[0].lower() in _DETERMINERS:
            words.pop(0)
        # ("I love hiking too": a word that adds it to others is none of it)
        while words and (words[-1].lower() in self.rules.negation_words or words[-1].lower() in _ADDING):
            words.pop()
        stand_in = bool(words) and words[0].lower() in _STAND_INS and not (
            words[0].lower() == "her" and len(words) > 1)  # ("I love her": nothing; "her cooking")
        if not words or len(words) > 4 or not words[0][0].isalpha() or stand_in:
            return None
        if (len(words) == 1 and words[0].lower() in _NOTHING_ALONE) or _doing_a_stand_in(" ".join(words)):
            return None  # "I love to", "I love going [on road trips]": what is liked was cut off
        if words[0].lower() in _SHOWN and (
                predicate.name == "uses" or (predicate.kind == "preference" and len(words) <= 2)):
            return None  # "I love this series", "been using this app": shown or said before, not named
        if words[0].lower() in _WHOSE and predicate.kind == "preference":
            return None  # "I love your turtles", "I love his tech", "I like her teaching style": someone's
            # named before, not named here
        if self._of_a_thing_shown(predicate, clause):
            return None  # "I love the warm, luxurious look of it", "the color and texture": of a thing shown
        if predicate.kind != "preference" and _holds_a_noun(self.rules.object_nouns, " ".join(words)):
            return None  # "adopted this cute pup", "a guinea pig named Oscar": a pet is owned, not used
        value = " ".join(words).strip(" ,")
        end = text.find(value, v_end) + len(value)
        if predicate.name in self.rules.infinitive_as_doing:  # ("I love to cook": cooking)
            value = _as_doing(value)
            if value.lower().startswith("to "):
                return None  # ("I love to see it", "I love to the moon and back": no doing named)
        return value, "concept" if predicate.kind == "preference" else "tool", end

    @staticmethod
    def _owned(nouns: tuple[str, ...], text: str, v_end: int,
               s_end: int) -> tuple[str, str | None, int] | None:
        """One of ``nouns`` right after a phrase, a few words of what it is like before it ("adopted this
        cute pup", "have three dogs at home"), or the name it is given ("another cat named Bailey"). Not one
        given away ("got this pup for you") or the first part of another thing ("got a car wash")."""
        m = _owned_pattern(nouns).match(text, v_end, s_end)
        if m is None or not _NOT_DESCRIBING.isdisjoint(m[1].lower().split()):
            return None
        if m[3] is not None:  # "named Bailey"
            return m[3], "concept", m.end(3)
        following = _WORD.match(text[m.end(2) : s_end].lstrip(" \t"))
        if following is not None and following[0].lower() not in _AFTER_OWNED:
            return None
        return m[2].lower(), "concept", m.end(2)


def _reaching(st: Statement, text: str, end: int) -> Statement:
    """``st`` with its span running on to ``end`` in ``text`` (where its object, read after its own words,
    ends: "I like cheese pizza and prosciutto" for prosciutto, not "I like cheese pizza")."""
    if end <= st.end:
        return st
    return replace(st, span=text[st.end - len(st.span) : end].rstrip(), end=end)


def _without_when(raw: str, *, timed: bool = True) -> str:
    """A value without the words of when or how often that end it ("a dog trainer now": a dog trainer);
    ``timed``: a time may have been cut off right after it, so a word that only qualifies one goes too ("the
    guitar about [five years ago]"; not "having them around")."""
    while (tail := _WHEN_TAIL.search(raw) or (_BEFORE_TIME.search(raw) if timed else None)) is not None:
        raw = raw[: tail.start()]
    return raw


# the times that end what a past phrase says held: a range ("from 2015 to 2019"), or up to one ("until 2019")
_BOUNDING = frozenset(["range", "until"])
_AFTER_A_SPAN = re.compile(r"(?i)after\s")  # (a range said as how long what ended had lasted: see find_times)


def _named_subject(e: EntityMention, span_start: int) -> tuple[str, str, float, int]:
    """A statement's subject named by ``e``: its name, type, how sure (a known name surer than one guessed
    from its capitals) and where the statement's span starts."""
    conf = CONFIDENCE["gazetteer" if e.source in ("gazetteer", "mention", "list") else "rule"]
    return e.name, e.type, conf, span_start


def _past_action(time: TimeMention | None) -> str:
    """What a past phrase says with ``time``: it held over a range ("lived in Paris from 2015 to 2019") or in
    the year or month said (see :func:`_witnessed`); it ended at what else ends it ("until 2019": what memory
    holds ends then, as "left" ends it; a state with no start would be one held before everything memory
    holds, and so ended by it, not ending it)."""
    return "assert" if time is not None and (time.kind == "range" or _witnessed(time)) else "close"


def _witnessed(time: TimeMention) -> bool:
    """Whether a past phrase says what held in a period by ``time``: a year or a month or longer ("lived in
    Paris in 2019", "was based in Berlin in March", "2019年にパリに住んでいた"), which is all memory knows of
    it, so it holds over that period, its start and end known to its granularity; not a day or a week (a
    stay, not a home)."""
    return time.kind == "point" and time.interval.end is not None and \
        time.granularity.rank >= Granularity.MONTH.rank


def _person_at(ex: Extraction, start: int, end: int) -> EntityMention | None:
    """The person named exactly at ``start:end`` ("Kenji's favourite film", "Peter's last day"), if one is."""
    return next((e for e in ex.entities if e.start == start and e.end == end and e.type == "person"), None)


def _people_before(ex: Extraction, at: int) -> list[EntityMention]:
    """The names of people before ``at``, in order: not one a statement already read took as a firm, a place
    or a thing ("Anna joined Globex. She moved to Berlin": Globex, capitalised, is no one "she" may be)."""
    things = {s.object for s in ex.statements if s.object_type not in (None, "person")}
    return [e for e in ex.entities if e.end <= at and e.type == "person" and e.name not in things]


def _day_pattern(days: Mapping[str, tuple[str, str]]) -> re.Pattern[str] | None:
    """Whose day of a tie: "my last day at", "Peter's first day with" (the tie's name follows)."""
    if not days:
        return None
    words = "|".join(re.escape(w) for w in sorted(days, key=len, reverse=True))
    tie = r"(?i:(?:of\s+work\s+)?(?:at|with))"
    return re.compile(rf"\b{_POSSESSOR}\s+(?P<which>(?i:{words}))\s+(?i:day)\s+{tie}\s+")


# whose a thing is (see Extractor._owner): "my", "our", "his", "her", "their" or a name's ("Tim's")
_POSSESSOR = (r"(?:(?i:my|our)|(?P<theirs>(?i:his|her|their))"
              r"|(?P<whose>[A-Z][\w-]*(?: [A-Z][\w-]*)?)['\u2019]s)")


def _time_said(ex: Extraction, after: int, s_start: int, s_end: int, before: int) -> TimeMention | None:
    """The time a sentence says a thing with: the first after ``after`` in it, else the last before
    ``before`` ("my last day at Globex is Friday", "On Friday, my trip to Rome ...")."""
    return next((t for t in ex.times if after <= t.start < s_end), None) or next(
        (t for t in reversed(ex.times) if s_start <= t.start and t.end <= before), None)


def _trip_pattern(trips: Mapping[str, str]) -> re.Pattern[str] | None:
    """Whose trip went where: "my trip to", "our road trip to", "Tim's vacation in" (the place follows)."""
    if not trips:
        return None
    words = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(trips, key=len, reverse=True))
    # (three words between at most, none another's or a preposition: "my last road trip to"; not "It's from
    # our trip")
    said = r"(?:(?!(?:my|our|his|her|their|from|to|in|on|at|of|for|with)\b)[a-z-]+\s+){0,3}?"
    return re.compile(rf"\b{_POSSESSOR}\s+{said}(?P<trip>(?i:{words}))\s+(?i:to|in)\s+")


def _got_pattern(got_it: Mapping[str, str]) -> re.Pattern[str] | None:
    """One's thing and how one got it: "my new TV that I got", "our house, which we bought", "my new Prius,
    the one I just bought" (the thing between)."""
    if not got_it:
        return None
    words = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(got_it, key=len, reverse=True))
    what = r"(?P<what>[^\s,.;:!?]+(?:\s+[^\s,.;:!?]+){0,5}?)"
    said = r"(?:,?\s+(?:that|which)|,\s+the\s+one(?:\s+(?:that|which))?)"  # ("..., the one I bought")
    return re.compile(rf"(?i)\b(?:my|our)\s+{what}\s*{said}\s+(?:I|we)\s+"
                      rf"(?:(?:just|recently|finally|also|actually)\s+)?(?P<got>{words})\b")


# words before a thing one got that say when, not what ("my new TV", "my brand-new laptop")
_JUST_GOT = frozenset(["new", "brand-new", "brand", "newly"])
_MY_OUR = frozenset(["my", "our"])

# what says a trip is yet to come: before it in its sentence, or among its words ("my upcoming trip to")
_TRIP_TO_COME = re.compile(r"(?i)\b(?:upcoming|next|future|planned|dream|plan(?:s|ning)?|will|going\s+to|"
                           r"gonna|can['\u2019]?t\s+wait|cannot\s+wait|book(?:ed|ing)?|pack(?:ed|ing)?)\b|"
                           r"['\u2019]ll\b")
# "for" or "before" right before a trip: one to come ("ready for my trip to", "saving for our trip to"), but
# for one thanked for ("so grateful for my trip to Italy"); not any "for" before ("Thanks for asking about
# my trip to Japan")
_FOR_A_TRIP = re.compile(r"(?i)(?:\b(?P<thanks>grateful|thankful|thanks|thank\s+you)\s+)?"
                         r"\b(?:for|before)\s+$")


def _dated(time: TimeMention | None, action: str, *, open_ended: bool = False,
           past: bool = False) -> tuple[TimePoint | None, TimePoint | None]:
    """A statement's valid_from and valid_to from the time said with it: a close ends at it; an assert starts
    at it, and ends at its end too when it says so ("until June", "from May to July"; a ``past`` phrase's
    period: "lived in Paris in 2019"), unless its predicate's values never end (``open_ended``: "was in Osaka
    from May to July" has been there since May). A deadline ("by the end of May") ends no state: what is
    asserted by it holds from it."""
    if time is None:
        return None, None
    said = time.text.lower()
    if time.kind == "until" and (said.startswith("by ") or said.startswith("before ") and not past):
        # ("will have moved to Oslo by ...", "moved to Oslo before March": there by then, from when unknown)
        return (None, time.interval.end) if action == "close" else (time.interval.end, None)
    if action == "close":
        return None, time.interval.start or time.interval.end
    ends = (time.kind in ("until", "range") or past and _witnessed(time)) and not open_ended
    return time.interval.start, time.interval.end if ends else None


def _without_first(value: str, dropped: Collection[str]) -> str:
    """``value`` without the words of ``dropped`` opening it, while a word stays ("playing the guitar":
    guitar; "playing" alone stays, for its caller to refuse)."""
    while (first := value.split(" ", 1))[0].lower() in dropped and len(first) > 1:
        value = first[1].lstrip()
    return value


def _without_article(value: str) -> str:
    for article in ("the ", "a ", "an "):
        value = value.removeprefix(article)
    return value


def _as_doing(value: str) -> str:
    """An infinitive as the doing it names ("to cook" cooking, "to play the guitar" playing the guitar, "to
    swim" swimming); anything else as it is ("to the park")."""
    m = _INFINITIVE.match(value)
    if m is None or m[1].lower() in _NOT_VERBS:
        return value
    verb = m[1].lower()
    if verb == "go" and (then := _WORD.match(value, m.end(1) + 1)) and then[0].lower().endswith("ing"):
        return value[then.start() :]  # ("to go hiking": hiking)
    if verb.endswith("ie"):
        doing = verb[:-2] + "ying"  # (lie: lying)
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and verb != "be":
        doing = verb[:-1] + "ing"  # (bake: baking)
    elif _DOUBLED_END.search(verb) and len(_VOWEL_GROUPS.findall(verb)) == 1:
        doing = verb + verb[-1] + "ing"  # (swim: swimming; not visit, edit)
    else:
        doing = verb + "ing"
    return doing + value[m.end(1) :]


# "to" and a word that may be a verb; words after "to" that are none ("to the park", "to my mom")
_INFINITIVE = re.compile(r"to\s+([a-z]+)\b")
_NOT_VERBS = frozenset(["the", "a", "an", "my", "your", "his", "her", "their", "our", "its", "it", "them",
                        "me", "you", "us", "him", "this", "that", "these", "those", "some", "any", "all",
                        "no", "do", "get", "have", "say", "see", "know", "think", "hear", "meet", "try",
                        "come", "just", "really", "also", "always", "never", "still", "even", "actually",
                        "finally", "simply", "enjoy", "love", "like", "hate", "feel", "want", "need",
                        "realize", "realise", "understand", "appreciate", "notice", "wonder", "worry",
                        "miss"])
_DOUBLED_END = re.compile(r"[^aeiou][aeiou][^aeiouwxy]$")
_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


def _doing_a_stand_in(value: str) -> bool:
    """Whether ``value`` is a word of doing and words standing for something said elsewhere ("writing
    another one", "doing it", "making this"): what is done was named before."""
    first, *rest = value.lower().split()
    return bool(rest) and first.endswith("ing") and all(w in _STAND_INS or w in _POINTERS or w in _ANOTHER
                                                        for w in rest)


def _holds_a_noun(object_nouns: Mapping[str, tuple[str, ...]], value: str) -> bool:
    """Whether ``value`` holds one of the nouns some predicate takes without a name ("guinea pig")."""
    listed = tuple(n for nouns in object_nouns.values() for n in nouns)
    return _nouns_pattern(listed).search(value) is not None


@lru_cache(maxsize=16)
def _nouns_pattern(nouns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?i)\b(?:" + "|".join(map(re.escape, nouns)) + r")\b" if nouns else r"(?!)")


@lru_cache(maxsize=16)
def _owned_pattern(nouns: tuple[str, ...]) -> re.Pattern[str]:
    """A determiner or a number, up to two words, one of ``nouns``, and the name it is given after it."""
    return re.compile(r"\s+(?:(?:a|an|the|another|this|that|these|my|our|his|her|their|two|three|four|five|"
                      r"six|some|several|a couple of|a few|\d+)\s+)?((?:[a-z][\w-]*\s+){0,2}?)("
                      + "|".join(re.escape(n) for n in nouns)
                      + r")\b(?:\s*,?\s+(?:named|called)\s+((?-i:[A-Z])[\w'-]*))?", re.IGNORECASE)


# what may come right after something owned: the end of its clause, where or when, its name
_AFTER_OWNED = frozenset(["from", "at", "in", "on", "with", "back", "home", "and", "or", "but", "that", "who",
                          "which", "named", "called", "last", "this", "too", "as", "now", "recently", "so",
                          "because", "since", "of", "here", "there", "today", "yesterday", "a", "an", "two",
                          "three", "when", "while", "after", "before", "by", "into", "just", "yet", "already",
                          "again", "finally", "earlier"])
# words that say something owned is not what the phrase takes: "got in the car", "have to walk the dog"
_NOT_DESCRIBING = frozenset(["in", "into", "out", "of", "to", "on", "at", "from", "with", "off", "for", "by",
                             "up", "rid", "back", "over", "the", "a", "an", "my", "our", "your", "his", "her",
                             "their", "been", "being", "no", "not", "any"])


# the end of a gap between a name and a verb that makes the name the object of an earlier clause
_COORDINATED = re.compile(r"(?:^\s*,|(?:^|[\s,])(?:and|but|then))(?:\s+(?:also|then|later|now|soon))?\s*$")


_AND = re.compile(r"\s*,?\s*(?:and|&)\s*")
_AFTER_A_HEAD = frozenset("""with in at on for to and or near called named that which where who of from every
    each since as but so because here there too again together nearby downtown online today now last this next
    yesterday tonight""".split())
# ("and then moved", "but now live in")
_AND_BUT_ADVERBS = ("also", "then", "later", "now", "soon", "just", "finally", "still", "currently")
_AND_BUT_ENDS = ("and", "but", *_AND_BUT_ADVERBS)
_AND_BUT = re.compile(r"[\s,](?:and|but)(?:\s+(?:" + "|".join(_AND_BUT_ADVERBS) + r"))?\s*$")
# "and" or "but" opening a verb said as "I" says it (see rules._first_person_regex's ``joined``)
_JOINED_VERB = re.compile(r"(?i)(?:and|but)(?:\s+(?:" + "|".join(_AND_BUT_ADVERBS) + r"))?\s+")
_I_SAYS = re.compile(r"(?<![\w@])(?:I|[Ww]e)(?:['’](?:m|ve|d))?(?![\w'’])")
# words of a clause of its own between "I" and "and" ("I said they left and moved", "I know that Tom
# left and"), and what follows a name that is an object ("I met Tom in Paris and moved"), not a subject
_OWN_CLAUSE_WORDS = frozenset(["i", "we", "you", "he", "she", "they", "that", "who", "which", "there", "when",
                               "if", "because", "since", "while", "where", "whether", "though", "although"])
_AFTER_AN_OBJECT = frozenset(["in", "at", "to", "from", "with", "for", "on", "over", "during", "last", "this",
                              "yesterday", "today", "again", "too", "once", "there", "here"])
_I_SAID = re.compile(r"\bI(?:['’](?:m|ve|d|ll))?\b")  # "I" speaking, in a line someone says
def _joint(text: str, end: int, s_end: int) -> re.Match[str] | None:
    """What joins a thing listed at ``end`` to the next: "and", or a comma of a list that "and" ends."""
    return _LISTED_AND.match(text, end, s_end) or (
        _LISTED_COMMA.match(text, end, s_end) if _LIST_OF.match(text, end, s_end) else None)


_LISTED_AND = re.compile(r",?\s+(?:and|&)\s+")
_DOING = re.compile(r"(?i)[a-z]+\s+(?P<after>(?:the|a|an|my|our|his|her|their|your|its|some|this|that|these|"
                    r"those|it|them|him|me|us|up|out|off|back|down|over|through|to|for|with|about|at|on|"
                    r"in)\b)?")
_THEN_AND = re.compile(r",?\s+and\s+(?:then\s+|also\s+)?")  # ("call Bob, and then book the venue")
# a name opening a clause of its own: a verb of the past or of "he" after it ("and Anna moved", "and Tom is")
_NAME_THEN_VERB = re.compile(r"\s+(?:\w+ed|is|was|has|had|does|did|\w+s)\b(?!\s*[,.;:!?]|$)")
# a comma lists only in a list that "and" ends: "hiking, swimming and yoga" ("hiking, it's fun": no list)
_LISTED_COMMA = re.compile(r",\s+")
_LIST_OF = re.compile(r"(?:,\s+[^,.;:!?]+?)+,?\s+(?:and|&)\s+[^,.;:!?]+")
_TAKES_A_PHRASE = frozenset(["of", "to", "for", "with", "like", "about", "from", "into"])
# words that open a clause of their own after "and" ("I love cats and they love me")
_CLAUSE_SUBJECTS = frozenset(["i", "we", "you", "he", "she", "they", "it", "this", "that", "there", "then"])
# words that open no thing listed but an aside or another clause ("hiking, especially in the mountains, and")
_NOT_LISTED = frozenset(["but", "or", "so", "yet", "which", "who", "because", "though", "although", "plus",
                         "especially", "mostly", "mainly", "particularly", "usually", "really", "actually",
                         "definitely", "honestly", "probably", "also", "even", "just", "not"])
_NO_THING_FIRST = _CLAUSE_SUBJECTS | _NOT_LISTED  # (one more thing after "and" opens with none of these)
# a backtick or an acute accent between two letters is an apostrophe typed so ("It`s Susie", "I´m"); a
# backtick anywhere else stays (Markdown's `code`)
_APOSTROPHE = re.compile(r"(?<=[^\W\d_])[`´](?=[^\W\d_])")
_AND_BEFORE = re.compile(r",\s*$")  # a name listed before the pair
# a possessive and a title between two names ("Peter's wife Anna", "Peter's wife is Anna"), after a name
# ("Anna, Peter's wife,"), and "my" and a title before one ("my husband Tom") or after it ("Toby, my puppy")
_OWNERS_TITLE = re.compile(r"['\u2019]s\s+([\w-]+)(?:\s*,?\s+|\s+(?:is|was)\s+)")
_IS_OR_COMMA = re.compile(r"\s*,\s*|\s+is\s+")
# a clause said of someone named right before it, up to a verb: ", who lives in Porto" ("William Chen, who
# lives in Porto"), ", who goes by Bill, " ("William Chen, who goes by Bill, works at")
_WHO_CLAUSE = re.compile(r",\s*who\s+(?:[^,.;!?]*,\s*)?$")
_LINE_SAID = re.compile(r"(?m)^[ \t]*([A-Z][\w'\u2019-]*):")  # a line a one-word name says ("Zara: ...")
_ME_OBJECT = re.compile(r"\s*\b(me)\b(?!\s+and\b|-)")  # "Tom married me"; not "me and Anna", "me-time"
_ME_WITH = re.compile(r"(?<!and )\b(?P<i>[Mm]e)\s+and\s+$")  # "Me and Tom got married"
_WITH_NOTHING = re.compile(r"(?:\s+[a-z']+){0,2}\s+")  # (a word or two before the phrase: "finally")
# one thing after "and": a word or two, or a few after an article or whose ("milk and eggs", "TV services",
# "the kitchen and the bathroom"), up to the clause's end or a word that ends a value ("cable and internet at
# the new flat"); its first word without an article is no doing's (see _joined_thing)
_VALUE_ENDS = (r"(?:at|in|on|for|before|by|after|with|to|from|so|because|but|when|if|until|and|or|this|next|"
               r"tomorrow|today|tonight)\b")
_ONE_THING = re.compile(rf"(?i)(?P<article>(?:the|a|an|my|our|his|her|their|your|some)\s+(?:[\w'-]+\s+)?)?"
                        rf"(?P<first>[\w'-]+)(?:\s+(?!{_VALUE_ENDS})[\w'-]+)?"
                        rf"(?=\s*(?:$|[.;:!?,)]|\s{_VALUE_ENDS}))")
_WITH_ME = re.compile(r"\s+and\s+(?P<i>I)(?:\s+[a-z']+){0,2}\s+")  # "Tom and I (finally) got married"
_AND_THEIRS = re.compile(r"\s+and\s+(?:his|her|their|my|our)\s+[a-z]+(?:\s+[a-z]+)?\s+")  # "and his wife"
_POSSESSED = re.compile(r"['\u2019]s\s+[a-z]")  # what someone has, said after them ("Peter's wife is")
_OWNED_APPOSITION = re.compile(r"['\u2019]s\s+[\w-]+\s*,\s*")  # "Anna, [Peter]'s wife, moved"
_TITLE_AFTER = re.compile(r"['\u2019]s\s+([\w-]+)(?=\s*(?:[,.;:!?)]|$))")
# "has two kids, Leo and Mia", "I have a daughter named Emma", "we adopted two cats, Milo and Otis": who has
# them, the title, and where names start
_HAS_TITLED = re.compile(r"(?i)(?<!\w)(?:(?P<i>(?:I|we)\s+have|(?:I|we)['\u2019]ve\s+got|"
                         r"(?:I|we)\s+have\s+got|"
                         r"(?:I|we)\s+(?:just\s+|recently\s+)?(?:adopted|rescued))|has|has\s+got|adopted|"
                         r"rescued)\s+"
                         r"(?:a|an|one|two|three|four|five|six|\d+)\s+(?:(?:little|young|older|younger|baby|"
                         r"grown|adult|teenage|twin|lovely|beautiful|wonderful|amazing)\s+)?"
                         r"(?P<title>[a-z-]+)\s*(?:,|:|\(|-|\s+(?:named|called))\s*")
_BEFORE_TITLE = r"\s+(?:(?:new|little|old|older|younger|big|baby|best|dear|sweet|beloved|first|second)\s+)?"
_MINE = rf"(?:my|our){_BEFORE_TITLE}"
# "my new puppy Toby", "My manager is Laura"
_LIST_GOES_ON = re.compile(r"\s*,?\s+(?:and|&)\s+")
_MY_TITLE = re.compile(rf"(?i)(?<!\w){_MINE}([\w-]+)(?:\s*,|\s+(?:is|was))?\s+$")
# "Toby, my puppy.", "Anna is my sister", "Laura is my manager at Globex"
_MY_TITLE_AFTER = re.compile(rf"(?i)(?:\s*,|\s+(?:is|was))\s*{_MINE}([\w-]+)"
                             r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:at|from|and|who|since|for)\b)")
_THEIR_TITLE = re.compile(rf"(?i)(?<!\w)(?:his|her|their){_BEFORE_TITLE}([\w-]+)\s*,?\s+$")  # "his wife Anna"
# "my favorite color is", "Kenji's favourite film was": whose, what kind, and the value after
_FAVOURITE = re.compile(r"\b(?:(?i:my|our)|(?P<whose>[A-Z][\w-]*(?: [A-Z][\w-]*)?)['\u2019]s)\s+"
                        r"(?i:(?:all[- ]time|absolute|current|new|personal|very)\s+)?(?i:favou?rite)\s+"
                        r"(?P<kind>[a-z]+(?:[ -][a-z]+)?)\s+"
                        r"(?i:is|was|has\s+to\s+be|would\s+(?:have\s+to\s+)?be)\s+(?P<value>\S)")
_NOT_A_FAVOURITE = frozenset(["this", "that", "it", "one", "the one", "this one", "that one", "probably",
                              "definitely", "still", "hard to pick", "tough", "a secret"])
# kinds that name a piece of something said before, not a thing liked ("my favorite part was the ending")
_NOT_A_KIND = frozenset(["part", "parts", "thing", "things", "moment", "moments", "bit", "bits", "way",
                         "memory", "memories", "aspect", "time", "times", "one", "ones", "day"])
# a name and a colon opening a line: who says the line ("Caroline: I went ...")
_SPEAKER = re.compile(r"[ \t]*(\w[\w.'-]*(?: \w[\w.'-]*){0,2})[ \t]*:[ \t]")
# where a clause "I" may open starts: after a comma, a dash, "and" or "but" right before it, a word that
# gives a reason or what happened before, or "that" after a word of knowing or saying ("Guess what - I got a
# puppy", "I moved to Seattle and I love hiking", "since I lost my job at", "I remembered that I already have
# three dogs"), or after a word of finding out, "that" or not ("I found out recently I'm allergic to"), or
# "why" after one of remembering ("it reminded me why I'm passionate about charity work"). Not after "if" or
# "when" (a condition, a habit: "when I'm feeling down") nor "that" opening a relative clause ("a quote that
# I really like")
_CLAUSE_MARK = re.compile(r"[,;:]|\s*[-\u2013\u2014]+\s|\s(?:and|but)\s+$|"
                          r"(?i:\b(?:because|cuz|since|after|(?<=['’])cause)\s|"
                          r"\b(?:said|say|says|remembered|remember|realized|realised|realize|know|knew|guess|"
                          r"heard|hear|mean|forgot|noticed|figured|tell you|told you|reminded me|reminds me|"
                          r"remind me|remind myself|remind us|reminded us|reminds us)\s+(?:that|why)\s|"
                          r"\b(?:let\s+(?:you|ya|u)\s+know|tell\s+(?:you|ya|u)|told\s+(?:you|ya|u))"
                          r"\s+(?:that\s+)?$|"
                          r"\b(?:found out|find out|learned|learnt|discovered|realized|realised|noticed)"
                          r"(?:\s+(?:recently|today|yesterday|finally|just|lately|last\s+\w+))?"
                          r"\s+(?:that\s+)?$)")
# what titles of someone name them as ("Grandma", "Aunt Mary"; not a thing owned, "my kayak")
_KIN_OR_KNOWN = frozenset(["family_of", "married_to", "knows"])
# a name's possessive before a word: what follows is the name's, not the name ("Anna's party")
_THEIRS_AFTER = re.compile(r"'s\s+[a-z]")
# a word a time before "I" is said with ("In 2019 I moved", "Back in May I joined")
_TIME_WORD_BEFORE = re.compile(r"(?i)\b(?:(?:back\s+)?(?:in|on|at|during|around|over)|earlier|later)\s+$")
# a phrase of when or where that may open a clause before "I" ("During the pandemic I moved", "After the
# wedding I moved", "On the way home I stopped"): none said with "if" ("In the event I move")
_LEAD_IN = re.compile(r"(?i)\b(?:after|during|before|over|throughout|following|at|in|on)\s+"
                      r"(?:the|a|an|my|our|this|that|his|her|their)\s+(?:[\w'-]+\s+){1,6}$")
_LEAD_IN_NOT = re.compile(r"(?i)\b(?:event|case|chance|hope|dream|dreams|mind|opinion|view|words)\b")
# "I" and a word of what may or will be, after "so" after a clause: a purpose ("..., so I can rest", "...,
# so I don't get lost"; "So I don't feel that way anymore" opens its sentence: what is)
_SO_AFTER_A_CLAUSE = re.compile(r"(?i),\s*so\s+$")
_MAY_OR_WILL = re.compile(r"(?i)(?:I|we)\s+(?:do\s+not|don['\u2019]t|won['\u2019]t|will|can|can['\u2019]t|"
                          r"cannot|could|would|may|might|wouldn['\u2019]t|couldn['\u2019]t)\b"
                          r"|(?:I|we)['\u2019]ll\b")
# what the verb of a task said done may stand after in its clause: "I've", "we have", "Kim has finally"
_DONE_BETWEEN = frozenset(["have", "has", "had", "'ve"])
_DONE_BY_I = frozenset(["i", "we", "i've", "we've", "i'd", "we'd"])
_NOT_DONE = re.compile(r"(?i)\b(?:not|never|no|haven't|hasn't|hadn't|didn't|won't|can't|couldn't)\b|n't\b")
# after a Japanese past: what it is not told as done by ("書いたことがない", "書いたら", "書いたり", "書いたか")
_JA_NOT_DONE = ("こと", "ら", "り", "か", "ほう", "方")
# where the clause of a task's verb said done opens; after which of those it may have the subject of the one
# before, within how many words of its start
_CLAUSE_BEFORE = re.compile(r"[.;!?\n]|,\s|\s(?:and|but|so|because|when|if)\s")
_AND_CUTS = frozenset([",", "and"])
_SUBJECT_WITHIN = 3
# what may open a clause before "I" ("Yeah I moved", "So I just started")
_OPENERS = frozenset(["yeah", "yes", "yep", "oh", "well", "so", "and", "but", "actually", "also", "btw",
                      "lol", "haha", "wow", "ok", "okay", "now", "anyway", "honestly", "hey", "guess", "then",
                      "plus", "just"])
_CLAUSE_PUNCT = frozenset([",", ".", ";", ":", "!", "?", "(", ")", "\n"])
# words that stand for a thing named elsewhere: "He likes it", "I love it there" say nothing of what is liked
# (nor does a negation: "I hate not being on the court"); those that also point at a noun ("those hikes") only
# when alone
_STAND_INS = frozenset(["not", "it", "it's", "them", "him", "her", "you", "me", "us", "everything",
                        "something", "anything", "nothing", "myself", "himself", "herself", "themselves",
                        "yourself"])
_POINTERS = frozenset(["that", "this", "these", "those", "one", "there", "here", "what", "which", "all",
                       "both", "lots", "so", "too"])
# words between a subject and its verb ("the user no longer works at", "the user also likes", "he has now")
_BEFORE_A_VERB = frozenset(["no", "never", "doesn't", "does", "didn't", "did", "isn't", "wasn't", "usually",
                            "often", "only", "has", "have", "had", *VERB_ADVERBS])
# "it is" in a claim whose "it" stands for what follows "to" or "that" ("it's important to rest")
_IT_IS = frozenset(["it's", "its", "is", "was", "be"])
# (not "his", "her", "their": "I love their work" likes no work of one's own)
_DETERMINERS = frozenset(["the", "a", "an", "some", "my", "our", "also", "both", "either"])
_ADDING = frozenset(["too", "also"])
# a literal object of one of these words says nothing by itself: the rest of it was cut at a clause's end
_CUT_OFF = frozenset(["to", "going", "getting", "working", "being", "doing", "making", "taking", "putting",
                      "throwing", "having", "giving", "keeping", "spending", "trying", "bringing", "coming",
                      "setting"])
_NOTHING_ALONE = _CUT_OFF | _POINTERS
# one thing pointed at, not named ("this series", "a certain method"; "those hikes" are hikes)
def _said(st: Statement) -> tuple[str, str, str]:
    """What a statement says of whom, whatever it does with it."""
    return st.subject, st.predicate, st.object


# what ends having a pet named before it ("my dog Max passed away")
_GONE = re.compile(r"(?i),?\s+(?:has\s+|had\s+|sadly\s+|recently\s+)*(?:passed\s+away|passed\s+on|died|"
                   r"was\s+put\s+down|was\s+put\s+to\s+sleep|ran\s+away|went\s+missing)\b")
_THING_STAND_INS = frozenset(["it", "them", "one", "ones", "this", "that", "these", "those", "some", "both"])
_SHOWN = frozenset(["this", "that", "certain"])
# whose a thing is, someone named before ("your turtles", "their work"); and where a taste is read, "her"
# before a word ("her cooking": elsewhere "her" may be whom something is done to, and is read so above)
_WHOSE = frozenset(["your", "his", "their", "its", "her"])
_ANOTHER = frozenset(["another", "ones", "again", "more", "some"])
_SUBJECT_WORDS = frozenset(["i", "you", "we", "it", "he", "she", "they", "this", "that", "there", "your",
                            "my", "our", "his", "her", "their", "its"])


def _the_phrase(clause: str) -> list[str]:
    """The lower-cased words of what "the" opening ``clause`` names, over the commas and "and" between its
    words, up to "of", another determiner or a pronoun: "the warm, luxurious look of the cabin" (warm,
    luxurious, look), "the smell and taste it adds" (smell, and, taste); none without "the", nor of one
    that is of a kind of thing ("the smell of fresh bread": what has it is named, in general)."""
    words = _PHRASE_TOKEN.findall(clause)
    if not words or words[0].lower() != "the":
        return []
    said: list[str] = []
    for at, word in enumerate(words[1 : 1 + _THE_PHRASE_MAX], 1):
        lowered = "and" if word == "&" else word.lower()
        if lowered == "of" and at + 1 < len(words) and words[at + 1][0].isalpha() and \
                words[at + 1].lower() not in _THE_PHRASE_ENDS:
            return []
        if lowered in _THE_PHRASE_ENDS or not (word[0].isalnum() or word in (",", "&")):
            break
        said.append(lowered)
    return said


def _qualities(words: list[str], qualities: frozenset[str]) -> bool:
    """Whether ``words`` (what "the" names, see :func:`_the_phrase`) hold one of ``qualities`` among others
    they join ("color and texture", "warm, luxurious look")."""
    while words and words[-1] in (",", "and"):
        words = words[:-1]
    joined = "," in words or "and" in words
    return joined and not qualities.isdisjoint(words)


def _partner(text: str, at: int, ex: Extraction) -> EntityMention | None:
    """The person named with "I" at ``at``: "Melanie and I moved"."""
    return next((e for e in ex.entities
                 if e.type == "person" and e.end <= at and _AND_I.fullmatch(text, e.end, at)), None)


_AND_I = re.compile(r"\s+and\s+")


def _contracted(tokens: _Tokens, k: int) -> bool:
    """Whether token ``k`` is what spaCy splits off a negation: "Can't", "Won't" are "Ca", "Wo" and "n't"."""
    return k + 1 < len(tokens.words) and tokens.lowered[k + 1] in ("n't", "n\u2019t") and \
        tokens.starts[k + 1] == tokens.end_of(k)


def _gerund(e: EntityMention) -> bool:
    """Whether ``e`` is a word opening a sentence that reads as a verb's -ing form ("Having a buddy will be
    great", "Being in the mountains is the best"): no one a statement is about."""
    return e.source == "initial" and len(e.name) > 4 and e.name.endswith("ing")


# a word of doing that says nothing alone: what it was about was cut off ("Just started learning")
_NO_VALUE_ALONE = frozenset(["learning", "teaching", "doing", "making", "taking", "getting", "trying",
                             "writing", "building", "creating", "reading up"])
_AS_AFTER = re.compile(r"\s+as\s+")  # "joined Acme as CTO"
# where a claim ends: its sentence's, or a clause of the one holding it after it ("... would need to be used,
# and I'm still slightly unsure")
_CLAIM_END = re.compile(r"[.;!?。\n]|,\s*(?:and|but|so)\s+I\b")
_GERUND = re.compile(r"[a-z]{2,}ing\b")  # a word of doing opening a value: "surfing", "playing chess"
# words of when or how often that may end a clause after a value without being part of it ("a dog trainer
# now", "hiking every weekend"); and those that qualify a time cut off after them ("guitar about [five years
# ago]")
_WHEN_TAIL = re.compile(r"(?i)[\s,]+(?:right now|here|there|now|soon|currently|again|too|also|already|still|"
                        r"lately|recently|anymore|though|nowadays|these days|every \w+|each \w+|"
                        r"once|twice|once a \w+|twice a \w+|(?:on|at) weekends|daily|weekly|regularly|a lot|"
                        r"all the time|sometimes|often)\s*$")
_BEFORE_TIME = re.compile(r"(?i)[\s,]+(?:about|around|roughly|nearly|almost|over|some)\s*$")
# a name that says what kind of thing the object is: a lower-case word or a possessive right after it ("the
# Miami vibe", "Iron Man's humour"), not a word that ends or extends the clause ("Berlin in spring")
_EXTENDING = ("about over than since during after before because when while and but too also very much "
              "more most the lot now then here there again already still lately recently these this that "
              "every each was are were has had have will would can could even just really anymore though "
              "which who where until like best better right back yet ever always today tonight tomorrow "
              "yesterday last next for with from").split()  # (a word of one or two letters says no kind)
_NEXT_WORD = re.compile(r"[ \t]+([a-z]+)\b")
_NAME_MODIFIES = re.compile(r"(?:'s|’s)?\s+(?!(?:" + "|".join(_EXTENDING) + r")\b)[a-z]{3,}\b|(?:'s|’s)\s+\w")
# a name set off at the end of what is said, after a comma or an object with a word pointing at it: who it is
# said to ("I love it, Nate!", "I love the thought Nate!")
_POINTING = frozenset(["the", "a", "an", "this", "that", "these", "those", "your", "my", "our", "his", "her",
                       "their", "its"])
_SAID_TO = re.compile(r"\s*(?:[!?.]|$)")
# what is one of its kind by its name: a name after "a" or "an" says what kind of thing something else is
_ONE_NAMED = frozenset(["person", "org", "place", "project"])
_PHRASE_TOKEN = re.compile(r"[\w'-]+|[^\w\s]")
_THE_PHRASE_MAX = 8  # words and commas
_THE_PHRASE_ENDS = frozenset("""of the a an this that these those my your his her its our their it i you
    we they he she with to for in on at from is are was were it's that's there's i'm i've we're they're which
    who but so because too especially""".split())
# the types of objects a name's own thing after it is none of ("Anna's party", "Globex's website")
_OWNERS_OBJECTS = frozenset(["place", "project"])
_PREPOSITIONS = frozenset(["in", "on", "at", "to", "from", "for", "with", "by", "into", "onto", "about"])
_JOINING = frozenset(["over", "than", "to", "instead", "rather", "and", "or", "but", "not", "vs", "versus"])
_LISTED = re.compile(r"\s*(?:,|,?\s*(?:and|&))\s*")


def _opens(words: Sequence[str], opening: tuple[str, ...]) -> bool:
    """Whether ``words`` open with the words of ``opening``."""
    return tuple(words[: len(opening)]) == opening


def _says_what(words: Sequence[str]) -> bool:
    """Whether a claim's "it" stands for what follows: "it's important to rest", "it is clear that ...",
    "it would be nice to ..." (not "it might need to be replaced", not "they ...")."""
    near = words[:5]
    cut = next((i for i, w in enumerate(near) if w in ("to", "that")), 0)
    return near[0] in ("it", "it's", "its") and not _IT_IS.isdisjoint(near[:cut])


@dataclass(frozen=True)
class _Tokens:
    """A parsed text's tokens as plain lists, read from the document in one call: each spaCy ``Token`` object
    costs ~3 us to make, and reading the tokens one object at a time several times took a third of a text's
    extraction."""

    text: str
    words: list[str]
    lowered: list[str]
    starts: list[int]  # character offset of each token
    opens: list[bool]  # the token opens a sentence

    @classmethod
    def of(cls, text: str, doc: Any, attrs: tuple[int, int, int], ends: frozenset[str] | None) -> _Tokens:
        """``doc``: ``text`` as spaCy parsed it (its tokenizer keeps every character; ``doc.text``, which walks
        the tokens to rebuild it, is not read). ``attrs``: offset, length and either the sentence start the
        pipeline marked or, with ``ends`` (the characters that close a sentence), whether a token is
        punctuation, for the sentencizer's rule: after a closing character, the next token that is no
        punctuation opens a sentence."""
        table = doc.to_array(list(attrs)).tolist() if len(doc) else []  # (offset, length, flag)
        words = [text[i : i + n] for i, n, _ in table]
        if ends is None:
            opens = [flag == 1 for _, _, flag in table]
        else:
            opens, closed = [False] * len(words), False
            for k, (word, (_, _, punct)) in enumerate(zip(words, table, strict=True)):
                if word in ends:
                    closed = True
                elif closed and not punct:
                    opens[k], closed = True, False
        if opens:
            opens[0] = True
        return cls(text, words, [w.lower() for w in words], [i for i, _, _ in table], opens)

    def end_of(self, k: int) -> int:
        """The character offset just past token ``k``."""
        return self.starts[k] + len(self.words[k])

    def sentences(self) -> list[tuple[int, int]]:
        """Each sentence's character span (from its first token to the end of its last)."""
        firsts = [i for i, opens in enumerate(self.opens) if opens]
        lasts = [i - 1 for i in firsts[1:]] + [len(self.words) - 1] if firsts else []
        return [(self.starts[a], self.end_of(b)) for a, b in zip(firsts, lasts, strict=True)]


@dataclass(frozen=True)
class _Name:
    """A name found in a document: tokens ``start:end``, its characters, its type and where it came from."""

    text: str
    start: int
    end: int
    start_char: int
    end_char: int
    label: str
    source: str  # list | gazetteer | mention | rule (a statistical model's entity)


# a headline: at least this many words that Title Case capitalises, those it leaves small aside
_HEADLINE_WORDS = 4
_HEADLINE_SMALL = frozenset("a an the and or but nor to of in on at for from by with as vs via into "
                            "per".split())
_NAMES_GO_ON = frozenset(["tool", "org"])  # listed names a capitalised word after goes on ("GitHub Actions")
_MENTION_TOKEN = re.compile(r"@\w[\w.-]*")
_PLAIN_WORD = re.compile(r"[A-Za-z]+|[0-9]+")


class _Phrases:
    """Token sequences and their labels, each first token indexed to the longest sequence it opens."""

    def __init__(self) -> None:
        self._labels: dict[tuple[str, ...], str] = {}
        self._longest: dict[str, int] = {}

    def add(self, key: tuple[str, ...], label: str) -> None:
        if key:
            self._labels.setdefault(key, label)
            self.open(key[0], len(key))

    def open(self, first: str, length: int) -> None:
        """Mark ``first`` as the first token of a sequence of ``length`` tokens (one held elsewhere)."""
        self._longest[first] = max(self._longest.get(first, 0), length)

    @property
    def openers(self) -> Mapping[str, int]:
        """The first tokens of the sequences, each to the longest it opens."""
        return self._longest

    @property
    def labels(self) -> Mapping[tuple[str, ...], str]:
        return self._labels

    def at(self, tokens: Sequence[str], i: int) -> Iterator[tuple[int, str]]:
        """``(length, label)`` of each sequence starting at token ``i``, longest first."""
        for n in range(min(self._longest.get(tokens[i], 0), len(tokens) - i), 0, -1):
            if (label := self._labels.get(tuple(tokens[i : i + n]))) is not None:
                yield n, label


class _Names:
    """Known names in a tokenised text: the tool and place lists (case-sensitive), the gazetteer (any case,
    tokenised as the text is) and ``@mentions``. Longer names win, then earlier ones; names never overlap.
    With a statistical model, its entities are kept where no name was found. (A dictionary of token
    sequences: spaCy's entity ruler did this through its token matcher at ~0.6 ms a 200-character text.)

    ``keys``: the gazetteer's names by their name key (shared with the extractor, else its own). A plain name
    ("Peter Novak", "person 4127": words of letters or of digits, one space apart) is its lower-cased words
    joined by a space, which is its key: it is found there, and only its first word and length are kept
    besides (as a tuple of its words, each name cost ~200 bytes more: ~20 MB per 100,000 entities).

    A name of one word is found written in lower case only if it was learnt so ("tiktok") or with a capital
    inside it ("TikTok", "iPhone"): one learnt as "Need", "Data" (a pasted article's headline) or "CA" is no
    mention in every "need", "data" and "can't" after it. Over LoCoMo's turns and LongMemEval's user turns,
    739 one-word mentions in lower case were nearly all such. Nor is the word spaCy splits off a contraction
    ("Can't": "Ca" and "n't"; 118 mentions of CA in LoCoMo's turns)."""

    def __init__(self, tokenizer: Any, keys: dict[str, str] | None = None) -> None:
        self.tokenizer = tokenizer
        # words the tokenizer splits its own way ("cannot", "gonna"); None: not spaCy's rule-based tokenizer (a
        # model's for another language), which is always asked
        rules = getattr(tokenizer, "rules", None)
        self._special = None if rules is None else frozenset(rules)
        self._exact = _Phrases()
        self._known = _Phrases()  # names that are not plain, as the tokenizer splits them; and every opener
        self._keys: dict[str, str] = {} if keys is None else keys
        self._lower: set[str] = set()  # names of one word found in lower case too

    def add_exact(self, words: Sequence[str], label: str) -> None:
        self._exact.add(tuple(words), label)

    def add_known(self, name: str, label: str) -> None:
        words = name.split(" ")
        if len(words) == 1 and (name.islower() or not name.isupper() and not name[1:].islower()):
            self._lower.add(name.lower())
        if self._special is not None and all(map(_PLAIN_WORD.fullmatch, words)) and self._special.isdisjoint(words):
            # (the tokenizer keeps such words whole; tokenising them would cost ~25 us a name and a spaCy word
            # for each new one, ~800 bytes a name over a large gazetteer)
            lowered = name.lower()
            self._keys.setdefault(lowered, label)  # (the extractor's key of it: there already)
            self._known.open(sys.intern(lowered[: len(words[0])]), len(words))
        else:
            self._known.add(tuple(t.text.lower() for t in self.tokenizer(name)), label)

    @property
    def known_openers(self) -> Mapping[str, int]:
        """The first (lower-cased) words of the known names, each to the most words a name it opens has."""
        return self._known.openers

    def known_at(self, lowered: Sequence[str], i: int) -> Iterator[tuple[int, str]]:
        """``(length, label)`` of each known name at token ``i`` of the lower-cased tokens, longest first."""
        labels, keys = self._known.labels, self._keys
        for n in range(min(self._known.openers.get(lowered[i], 0), len(lowered) - i), 0, -1):
            words = lowered[i : i + n]
            label = labels.get(tuple(words))
            if label is not None or (label := keys.get(" ".join(words))) is not None:
                yield n, label

    def find(self, tokens: _Tokens, model_ents: Sequence[Any] = ()) -> list[_Name]:
        """The names in ``tokens``; ``model_ents``: a statistical model's entities (spaCy spans), if any."""
        words, lowered = tokens.words, tokens.lowered
        found: list[tuple[int, int, str, str]] = []  # (start, end, label, source)
        exact, known = self._exact.openers, self._known.openers
        for i, word in enumerate(words):
            if word[:1] == "@" and _MENTION_TOKEN.fullmatch(word):
                found.append((i, i + 1, "person", "mention"))
            if word in exact:  # (most words open no name: the test spares a generator per word)
                found += [(i, i + n, label, "list") for n, label in self._exact.at(words, i)]
            if lowered[i] in known:
                found += [(i, i + n, label, "gazetteer") for n, label in self.known_at(lowered, i)
                          if n > 1 or (not word.islower() or word in self._lower)
                          and not _contracted(tokens, i)]
        found.sort(key=lambda f: (f[0] - f[1], f[0]))  # longest first, then earliest (stable: list before gazetteer)
        taken = [False] * len(words)
        chosen: list[tuple[int, int, str, str]] = []
        for start, end, label, source in found:
            if not any(taken[start:end]):
                if label == "concept" and source == "list":  # "German Shepherd", "Peruvian Lilies": one name
                    while end < len(words) and end - start < 4 and not taken[end] and _name_word(words[end]) \
                            and words[end] not in exact and not words[end].isupper():
                        end += 1
                chosen.append((start, end, label, source))
                taken[start:end] = [True] * (end - start)
        chosen += [(e.start, e.end, e.label_.lower(), "rule") for e in model_ents if not any(taken[e.start : e.end])]
        names = []
        for start, end, label, source in sorted(chosen):
            start_char, end_char = tokens.starts[start], tokens.end_of(end - 1)
            names.append(_Name(tokens.text[start_char:end_char], start, end, start_char, end_char, label, source))
        return names


class _Spans:
    """Character spans already claimed (times first, then entities)."""

    def __init__(self, times: Sequence[TimeMention]) -> None:
        self._spans = [(t.start, t.end) for t in times]

    def free(self, start: int, end: int) -> bool:
        return not any(a < end and start < b for a, b in self._spans)

    def add(self, start: int, end: int) -> None:
        self._spans.append((start, end))


def _a_verb(word: str, rules: Rules) -> bool:
    """Whether ``word`` opens a statement's phrase in a form that is no name ("joined", "lives"; not "will").
    """
    return len(word) > 3 and word.endswith(("ed", "s")) and word in rules.by_first_word


def _opens_line(tokens: _Tokens, i: int) -> bool:
    """Whether token ``i`` opens a sentence or a line: as the sentencizer marks it, after a line break (and a
    list's bullet: "- Lives in Berlin", or its letter or number: "(b) To fulfil a contract", "3 Remedies"), a
    colon ("Caroline: Absolutely, ..."), an ellipsis ("never-ending... Trying my best"), a bracket
    ("\n\n[Shares a photo ...]") or a sentence's end and the notes cited after it ("a requirement.[71]
    Although ...")."""
    line = tokens.text.rfind("\n", 0, tokens.starts[i]) + 1
    if line < tokens.starts[i] and _ENUMERATED.fullmatch(tokens.text, line, tokens.starts[i]):
        return True
    k = i
    while k > 0 and (tokens.words[k - 1].isspace() or tokens.words[k - 1] in _OPENING_MARKS
                     or tokens.words[k - 1] in _BULLETS and _starts_line(tokens, k - 1)):
        if "\n" in tokens.words[k - 1]:
            return True  # (a line's first word: "\n- Started at Globex")
        k -= 1
    # (a colon glued to a mark is one token: "issues:** Use satire")
    before = tokens.text[max(0, tokens.starts[i] - 12) : tokens.starts[i]].rstrip(" \t*_#`\"'([{\u201c\u2018")
    return any(tokens.opens[k : i + 1]) or before.endswith((":", "...", "\u2026")) or (
        before.endswith("]") and _CITED_END.search(before) is not None)


# a named day no time was read from (see temporal/holidays.py); looked for only in a text holding a word that
# tells one may stand there (~15 us a text otherwise): its opening word, or the word after a common one ("New
# Year", "Black Friday")
_NAMED_DAY_WORDS = HOLIDAY_OPENINGS - {"new", "good", "black", "st", "saint"} | {"year", "friday", "patrick"}
_NAMED_DAY = re.compile(rf"(?i)\b(?:{HOLIDAY_NAMES})(?![\w'])(?!\s+(?:{NAMES_GO_ON})\b)")
_NON_SPACE = re.compile(r"\S+")
_QUOTED = re.compile(r"[\"“]([A-Z0-9][^\"”“\n]{0,80})[\"”]")
_TITLE_SMALL = frozenset(["of", "the", "a", "an", "and", "with", "in", "on", "to", "for", "at", "by", "from",
                          "or", "&", "-", "vs", "vs."])
_FIRST_PERSON = re.compile(r"(?i)\b(?:I|I['\u2019](?:m|ve|d|ll)|me|my|we|we['\u2019](?:re|ve|d|ll)|us|our)\b")
_OPENING_MARKS = frozenset("([{\"'\u201c\u2018*_#`")  # (and Markdown's: "**Tips**", "## Plan")
_IT_VERBS = ("feels", "seems", "looks", "sounds")  # (what "it" does, left out: "Feels great to be back")
_BULLETS = frozenset(["-", "*", "+", "\u2022", "\u2013"])  # what opens a list's item ("- Lives in Berlin")
# what opens a line's item of a list by its letter or number, or a numbered heading: "(b) ", "b) ", "12. ",
# "(iv) ", "3 ", "1.6 "
_ITEM_MARK = r"(?:[A-Za-z]|\d{1,3}|[ivxIVX]{1,5})"
_ENUMERATED = re.compile(rf"[ \t]*(?:\({_ITEM_MARK}\)|{_ITEM_MARK}[.)]|\d{{1,3}}(?:\.\d{{1,3}})*)[ \t]+")
# a sentence's end and the notes cited after it ("... a requirement.[71] Although ...")
_CITED_END = re.compile(r"[.!?][\"\u201d']?(?:\[\d{1,3}\])+\s*$")


_ITEM = re.compile(r"\n[ \t]*(?=[-*+\u2022\u2013][ \t])")  # where an item of a list opens a line


def _ja_speaker_at(text: str, at: int, speakers: Sequence[tuple[str, int, int]],
                   speaker: str | None) -> str | None:
    """Who says the Japanese line of ``at``: the name opening it (see ``line_speakers``), else the text's."""
    line = text.rfind("\n", 0, at) + 1
    return next((name for name, start, _ in speakers if text.rfind("\n", 0, start) + 1 == line), speaker)


def _items(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``sentences`` (character spans) with each item of a list a sentence of its own: "- Loves hiking\n-
    Started at Globex" is two, though no full stop ends the first."""
    if "\n" not in text:
        return sentences
    out: list[tuple[int, int]] = []
    for start, end in sentences:
        cuts = [m.end() for m in _ITEM.finditer(text, start, end)]
        bounds = [start, *cuts, end]
        out += [(a, b) for a, b in itertools.pairwise(bounds) if text[a:b].strip()]
    return out


def _starts_line(tokens: _Tokens, k: int) -> bool:
    """Whether token ``k`` is the first of its line (spaces before it aside)."""
    return not tokens.text[: tokens.starts[k]].rstrip(" \t") or tokens.text[: tokens.starts[k]].rstrip(
        " \t").endswith("\n")


@lru_cache(maxsize=4)
def _org_of(heads: frozenset[str]) -> re.Pattern[str]:
    """A firm named by what kind it is, "of" and a name ("University of Tokyo", "Bank of America", "Museum of
    Modern Art"), with the names before it ("Massachusetts Institute of Technology")."""
    kinds = "|".join(sorted(map(re.escape, heads), key=len, reverse=True)) or "(?!)"
    return re.compile(rf"(?:\b(?!(?:The|A|An|Our|My|Your|Their|His|Her|This|That|At|In|To|From)\b)"
                      rf"[A-Z][\w&'-]*\s+){{0,3}}\b(?:{kinds})\s+of\s+(?:the\s+)?[A-Z][\w'-]*"
                      rf"(?:\s+[A-Z][\w'-]*){{0,3}}")


def _titled(text: str) -> bool:
    """Whether quoted words read as a title: each capitalised but for the small words between ("The Lord of
    the Rings", "A Dance with Dragons", "Charlotte's Web"; not "Let's go to Paris", said)."""
    words = text.split()
    return 0 < len(words) <= 8 and words[0][:1].isupper() and all(
        w[:1].isupper() or w[:1].isdigit() or w in _TITLE_SMALL for w in words)


def _plural_acronym(word: str) -> bool:
    """"RPGs", "DIYs", "MOBAs": an acronym's plural, shouted as the acronym is."""
    return len(word) > 2 and word.endswith("s") and word[:-1].isupper()


def _name_word(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and (word[1:].islower() or word.isupper() or word[1:].isalpha())
