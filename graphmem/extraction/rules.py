"""The extraction rules, read from ``ontology/extraction.yaml`` (patterns live in the vocabulary, not here)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from graphmem.errors import OntologyError
from graphmem.ontology import Ontology
from graphmem.ontology.vocabulary import read_yaml

__all__ = ["GAP", "GERUND_OBJECT", "JA_NAME_CHAR", "JapaneseRules", "Rules", "TaskRules", "Template",
           "load_rules"]

GAP = "{*}"  # in a template's phrase: a few words the statement does not keep ("got {*} job at")
# "{*role}": a few words that are also a value of that predicate ("works as {*role} at": a role)
_NAMED_GAP = re.compile(r"^\{\*(\w+)\}$")
LEFT = "{-}"  # a few words naming what the subject leaves ("switched from {-} to"): ended as the new starts
_ANY_GAP = re.compile(r"\{\*\w*\}|\{-\}")
GERUND_OBJECT = "{O-ing}"  # a template's object that opens with an -ing word ("{S} started {O-ing}")
# "{O-<kind>}": a template's object named before a head word of that kind (the rules' ``object_heads``: "{S}
# signed up for {O-lesson}" does pottery of "a pottery class")
_HEADED_OBJECT = re.compile(r" \{O-(\w+)\}$")
# (a comma within words between, "a new, exciting job", but not one setting off what a name is: "went to
# Woodhaven, a small town in the Midwest")
_GAP_WORD = r"(?:[^\s.;!?]*[^\s.,;!?]|[^\s.;!?]+,(?=\s+(?!(?i:a|an|the)\s)))"
_GAP_WORDS = rf"{_GAP_WORD}(?:\s+{_GAP_WORD}){{0,4}}?"


@dataclass(frozen=True)
class Template:
    """One statement template: ``{S} <verb phrase> {O}``, and the expression that finds its verb phrase in a
    sentence (compiled at its first use: ~860 templates took ~0.3 s to compile, most of them rarely used)."""

    predicate: str
    action: str  # "assert" | "close" | "negated" | "past" | "since" (an assert read only with a start said)
    phrase: str
    regex: str
    negated: bool = False  # the phrase carries a negation ("doesn't work at")
    first_person: bool = False  # said by "I" ("I work at"): its subject is who says the line
    mutual: bool = False  # "{S} and {O} got married": both names stand before the phrase
    nouns_only: bool = False  # read only with one of its predicate's ``object_nouns`` after it ("has a dog")
    gerund: bool = False  # ``{O-ing}``: its object opens with an -ing word ("started surfing")
    head: str | None = None  # ``{O-<kind>}``: its object is named before a head word of that kind
    also: str | None = None  # ``{*role}``: the predicate whose value the skipped words are too
    held_before: bool = False  # a close whose words say the value held up to it ("graduated from")
    keyed: str | None = None  # the one word a sentence must hold for it to be tried, if not its phrase's
    unnamed: bool = False  # ``close_unnamed``: "{S} <phrase>" ends whatever value it holds ("quit my job")

    @property
    def leaves(self) -> bool:
        """``{-}``: the phrase names what its subject leaves ("switched from {-} to")."""
        return LEFT in self.phrase

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.regex)

    @property
    def gapped(self) -> bool:
        """Whether the phrase skips words (``{*}``): its object must then be a name ("switched from the night
        shift to mornings" says nothing of tools)."""
        return _ANY_GAP.search(self.phrase) is not None


@dataclass(frozen=True)
class JapaneseRules:
    """The ``japanese`` section: statements read without a tokeniser (see graphmem/extraction/japanese.py)."""

    endings: dict[str, tuple[str, str]]  # an ending ("に引っ越した") -> (predicate, "assert" | "close" | "past")
    # words that end whatever value a single-valued predicate holds, none named ("会社を辞めた") -> predicate
    unnamed: dict[str, str]
    # predicate -> words one of which its object must end with ("エンジニアです": a post, not "東京です")
    object_words: dict[str, tuple[str, ...]]
    object_not_first: dict[str, tuple[str, ...]]  # predicate -> what its object may not open with ("元")
    negations: tuple[str, ...]  # after an ending: it is negated ("好きじゃない")
    not_after: tuple[str, ...]  # what may not follow an ending ("引っ越したい", "好きですか")
    plans: tuple[str, ...]  # what may follow one though a name's character opens it ("引っ越す予定")
    first_person: frozenset[str]  # who says the line ("私")
    not_subjects: frozenset[str]  # words with は or が that speak of no one ("今は")
    adverbs: tuple[str, ...]  # words that may open an object's run without being part of it ("以前")
    honorifics: tuple[str, ...]  # between a name and its particle ("さん")
    not_objects: frozenset[str]  # words before an ending that name nothing of their own ("会社")
    line_labels: frozenset[str]  # a line's label before a colon, not who says it ("メモ")
    surnames: tuple[str, ...]  # family names: a line opened by one before a colon is that person's
    titles: dict[str, str]  # a title ("妹") -> its predicate ("family_of")
    ended_titles: frozenset[str]  # ... of those, what one was to another: a tie over by then ("元夫")
    beliefs: tuple[str, ...]  # what follows a claim someone holds ("と思う")
    belief_not_first: tuple[str, ...]  # words a claim may not open with ("そう思う")
    volitional: tuple[str, ...]  # how a claim that is what one means to do ends ("行こうと思う")
    not_names: frozenset[str]  # words after a title and の that name no one ("妻の誕生日")

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """An object (a run of kanji, katakana and Latin letters) right before an ending, longest first; not
        the endings of a predicate whose object must end with one of its words (:attr:`worded_pattern`)."""
        return self._pattern([e for e, (p, _) in self.endings.items() if p not in self.object_words], "")

    @cached_property
    def worded_pattern(self) -> re.Pattern[str] | None:
        """An object that ends with one of its predicate's ``object_words`` right before one of its endings
        ("エンジニアです"; "エビアレルギーです" is allergic_to's, and "です" alone is no ending of it)."""
        words = "|".join(map(re.escape, sorted({w for ws in self.object_words.values() for w in ws},
                                                key=len, reverse=True)))
        return self._pattern([e for e, (p, _) in self.endings.items() if p in self.object_words],
                             f"(?:{words})")

    def _pattern(self, endings: list[str], last: str) -> re.Pattern[str] | None:
        if not endings:
            return None
        ends = "|".join(map(re.escape, sorted(endings, key=len, reverse=True)))
        negations = "|".join(map(re.escape, sorted(self.negations, key=len, reverse=True))) or "(?!)"
        honorifics = "|".join(map(re.escape, self.honorifics))  # ("田中さんと結婚した": 田中)
        run = f"{_JA_OBJECT}*?{last}" if last else f"{_JA_OBJECT}+"
        return re.compile(rf"(?P<object>{run})(?:{honorifics})?(?P<ending>{ends})(?P<negated>{negations})?")

    @cached_property
    def unnamed_pattern(self) -> re.Pattern[str] | None:
        """The words of :attr:`unnamed`, longest first."""
        if not self.unnamed:
            return None
        return re.compile("|".join(map(re.escape, sorted(self.unnamed, key=len, reverse=True))))

    @cached_property
    def title_pattern(self) -> re.Pattern[str] | None:
        """A title, の and the name after it (its honorific, and a particle after: "妻の花子が")."""
        if not self.titles:
            return None
        titles = "|".join(map(re.escape, sorted(self.titles, key=len, reverse=True)))
        honorifics = "|".join(map(re.escape, self.honorifics))
        return re.compile(rf"(?P<title>{titles})の\s*(?P<name>{JA_NAME_CHAR}{{1,8}})"
                          rf"(?P<honorific>{honorifics})?(?=(?P<particle>[はがとも](?!っ))?)")


# what an object in Japanese is made of: kanji, katakana, Latin letters and digits (one space between two
# Latin words: "Acme Inc"), not hiragana, which ends a name
_JA_OBJECT = r"(?:[\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff々〇A-Za-z0-9&]|(?<=[A-Za-z0-9]) (?=[A-Za-z0-9]))"
JA_NAME_CHAR = r"[\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff々A-Za-z0-9]"  # (a name's: no hiragana)


@dataclass(frozen=True)
class TaskRules:
    """The ``tasks`` section: a task written as one (see graphmem/extraction/tasks.py)."""

    predicate: str  # whose values tasks are ("todo")
    # a line opening with a box or a label of a task: group "done" set when it is ticked off, "what" its words
    line: re.Pattern[str] | None
    remind: re.Pattern[str] | None  # a phrase asking to be reminded: "what" the words after it
    need: re.Pattern[str] | None  # a Japanese sentence saying what its speaker has to do: "what" the task
    # ... said with a verb's negative stem ("提出しなければならない"): "what" up to the stem
    must: re.Pattern[str] | None
    irregular_pasts: dict[str, tuple[str, ...]]  # a verb not made past with "-ed" -> its past and participle


@dataclass(frozen=True)
class Rules:
    templates: tuple[Template, ...]
    by_first_word: dict[str, tuple[int, ...]]  # template indexes by the lower-cased first word of the phrase
    needs: tuple[frozenset[str], ...]  # per template, the words a sentence must hold for it to be tried
    # ... and one of which it must hold (its predicate's ``object_words``: the object holds one), or None
    wants: tuple[frozenset[str] | None, ...]
    opposites: dict[str, str]
    object_words: dict[str, frozenset[str]]  # predicate -> words one of which its (literal) object must hold
    object_words_open: frozenset[str]  # predicates whose object opens with one of its object_words
    object_max_words: dict[str, int]  # predicate -> the most words its (literal) object holds
    object_not_first: dict[str, frozenset[tuple[str, ...]]]  # predicate -> words its object may not open with
    # predicate -> words its object opens with only when what they stand for follows ("it's important to ...")
    object_points_back: dict[str, frozenset[tuple[str, ...]]]
    object_not_heads: dict[str, frozenset[str]]  # predicate -> words its object may not end with ("the idea")
    # predicate -> words of what a thing shown is like: no word of what "the" names with others ("the color
    # and texture")
    object_qualities: dict[str, frozenset[str]]
    object_nouns: dict[str, tuple[str, ...]]  # predicate -> what it takes unnamed ("a pup"), longest first
    object_drop_first: dict[str, frozenset[str]]  # predicate -> words its (literal) object drops in front
    object_stops: dict[str, re.Pattern[str]]  # predicate -> where its (literal) object ends, besides a clause
    infinitive_as_doing: frozenset[str]  # predicates whose object "to cook" is the doing it names: cooking
    # predicates whose (literal) object goes on past "and" before one more thing ("buy milk and eggs", "clean
    # the kitchen and the bathroom"), not before a doing ("call Bob and book the venue": call Bob)
    object_joins_things: frozenset[str]
    doings: frozenset[str]  # verbs a doing opens with: one after "and" with no article ("buy groceries")
    open_ended: frozenset[str]  # predicates whose asserted values never end ("visited": has been there since)
    # predicate -> those whose tie between the same two a value of it said to hold from then ends then
    # (married_to -> partner_of: "Tom and I got married" ends "dating Tom")
    ends: dict[str, tuple[str, ...]]
    # predicate -> those whose tie between the same two a close of it ends too, when one holds then: words
    # that fit either ("Tom and I split up", "my ex Tom" end a marriage or a dating, whichever memory holds)
    close_ends: dict[str, tuple[str, ...]]
    # a kind of head word ("lesson") -> its words ("class", "lessons") and whether the object keeps its head
    object_heads: dict[str, tuple[frozenset[str], bool, frozenset[str]]]
    # predicate -> words of its phrases after which a name is its object only when known as of its type
    known_objects_after: dict[str, frozenset[str]]
    # predicate -> the types a known name may have besides its own ("studying at Oxford": a place) -> the last
    # words of the phrases it may follow (empty: any phrase; "works at Spotify", not "joined Spotify")
    known_types_too: dict[str, dict[str, frozenset[str]]]
    as_after_object: dict[str, str]  # predicate -> whose value "as ..." after its object is ("as CTO")
    titles: dict[str, str]  # what one is to another ("wife", "CEO"), lower-cased -> its predicate
    # ... of those, what one was to another: a tie over by then ("ex-wife") -> the predicates that list it (an
    # "ex" of a marriage or of a dating: each ends, whichever memory holds)
    ended_titles: dict[str, tuple[str, ...]]
    negation_suffixes: tuple[str, ...]
    negation_words: frozenset[str]
    pronouns: frozenset[str]
    pronoun_genders: dict[str, str]  # a pronoun, lower-cased -> the gender it says ("she": female)
    given_names: dict[str, str]  # a given name of one gender, lower-cased -> that gender
    whole_values: re.Pattern[str] | None  # a value that holds "and" but names one thing, at a clause's start
    kinds_of: dict[str, frozenset[str]]  # a thing ("movies") -> words naming kinds of it ("action")
    # literal predicates whose values are listed with "and" ("plays tennis and golf"): activities or things
    listed: dict[str, str]
    # a day said of a tie ("my last day at Globex is Friday"), lower-cased -> (its predicate, assert or close)
    days: dict[str, tuple[str, str]]
    # a trip's word, lower-cased -> the predicate whose object it went to ("my trip to the UK": visited)
    trips: dict[str, str]
    # a word of getting, lower-cased -> the predicate whose object one got ("my TV that I got": owns)
    got_it: dict[str, str]
    got_it_not: frozenset[str]  # ... what got so is no thing one has ("my job that I got")
    org_suffixes: frozenset[str]
    place_suffixes: frozenset[str]  # last words of a longer name that make it a place ("Whispering Falls")
    thing_suffixes: frozenset[str]  # ... or a thing ("Star Wars", "Chicken Pot Pie")
    org_heads: frozenset[str]  # kinds of institution named "<kind> of <name>" ("University of Tokyo")
    place_prepositions: frozenset[str]
    person_cues: frozenset[str]  # words before "to" / "from" after which a name is someone ("sent to Maria")
    place_cues: frozenset[str]  # ... and after which it stays a place ("flew back to Oslo")
    tool_cues: frozenset[str]  # ... and after which it is a tool ("migrated from Elasticsearch to Kuzu")
    project_cues: frozenset[str]
    title_cues: frozenset[str]  # words after which a name is a title or a game ("playing Fortnite")
    visit_cues: frozenset[str]  # ... or a place ("visited Zermatt")
    places_of: frozenset[str]  # words before "of" after which a name is a place ("the city of Nuuk")
    someone_of: frozenset[str]  # ... or someone ("a pic of Oliver", "care of Toby")
    speaking_verbs: frozenset[str]  # after a name opening a sentence: it is someone's ("Thaddeus called")
    brand_nouns: frozenset[str]  # words before which a name is a brand ("Nike shoes")
    thing_nouns: frozenset[str]  # ... and a thing named ("a Valorant tournament")
    name_particles: frozenset[str]  # lower-case words inside a name ("Ivo van Hove")
    named_kinds: dict[str, str]  # a word -> the type of a name "called" after it ("a game called Zelda")
    tools: tuple[str, ...]
    imperatives: frozenset[str]  # listed names that are verbs too ("Go")
    imperative_next: frozenset[str]  # ... said as a verb before these words, opening a line ("Go for it")
    commands: frozenset[str]  # verbs of an instruction, no part of a name after them ("Email Peter")
    places: tuple[str, ...]
    concepts: tuple[str, ...]  # languages, peoples, holidays: named, never someone
    not_names: frozenset[str]
    line_labels: frozenset[str]  # words that open a line as a label, not as who says it ("Note: I moved ...")
    contraction_cues: frozenset[str]  # after "X's": the 's is "is" or "has", not a possessive
    first_names: frozenset[str]  # given names: a person's even opening a sentence ("Carla called")
    the_named: re.Pattern[str] | None  # "the user": the entity "user", before a verb or a possessive
    the_named_words: frozenset[str]  # ("user", lower-cased): someone, however written ("User's manager")
    common_nouns: frozenset[str]  # words that are no name alone, capitalised or not ("Life's too short")
    # "Peter Smith, also known as Pete": what stands between a name and another name of it, whole (None: no
    # such phrases)
    alias_between: re.Pattern[str] | None
    alias_of_speaker: re.Pattern[str] | None  # "my name is Sam": what says a name is who says the line's
    japanese: JapaneseRules
    tasks: TaskRules

    @cached_property
    def not_first_by_word(self) -> dict[str, dict[str, tuple[tuple[str, ...], ...]]]:
        """``object_not_first`` by the first word of each opening: a value is checked against those that
        open with its own first word (a predicate refuses a hundred openings)."""
        out: dict[str, dict[str, tuple[tuple[str, ...], ...]]] = {}
        for predicate, openings in self.object_not_first.items():
            by_word: dict[str, list[tuple[str, ...]]] = {}
            for opening in openings:
                by_word.setdefault(opening[0], []).append(opening)
            out[predicate] = {w: tuple(o) for w, o in by_word.items()}
        return out


def _rules_path() -> Path:
    repo = Path(__file__).resolve().parents[2] / "ontology" / "extraction.yaml"
    if repo.exists():
        return repo
    return Path(str(resources.files("graphmem.ontology") / "data" / "extraction.yaml"))


def load_rules(ontology: Ontology | None = None, path: str | None = None) -> Rules:
    """The rules in ``path`` (default: the shipped file), checked against ``ontology``'s predicates."""
    rules = _read_rules(str(path or _rules_path()))
    if ontology is not None:
        unknown = sorted(({t.predicate for t in rules.templates} | {p for p, _ in rules.days.values()}
                          | set(rules.trips.values()) | set(rules.got_it.values()))
                         - set(ontology.predicates))
        if unknown:
            raise OntologyError(f"extraction rules name unknown predicate {unknown[0]!r}", field="statements")
        ja_predicates = {p for p, _ in rules.japanese.endings.values()} | set(rules.japanese.unnamed.values())
        unknown = sorted(ja_predicates - set(ontology.predicates))
        if unknown:
            raise OntologyError(f"extraction rules name unknown predicate {unknown[0]!r}",
                                field="japanese.statements")
        unnamed = {t.predicate for t in rules.templates if t.unnamed} | set(rules.japanese.unnamed.values())
        if many := sorted(p for p in unnamed if not ontology.predicate(p).single_valued):
            raise OntologyError(f"close_unnamed of {many[0]!r}: it holds many values at once, and an unnamed "
                                "close ends whichever one is held; name the value in each template instead",
                                field=f"statements.{many[0]}.close_unnamed")
        for title, listing in sorted(rules.ended_titles.items()):
            if of := next((p for p in listing if ontology.predicate(p).object != "entity"), None):
                raise OntologyError(f"statements.{of}.ended_titles: {title!r} would end a value named in its "
                                    "words; list former titles of ties between two only",
                                    field=f"statements.{of}.ended_titles")
        for key, tied in (("ends", rules.ends), ("close_ends", rules.close_ends)):
            for predicate, ended in tied.items():
                if wrong := [p for p in (predicate, *ended) if p not in ontology.predicates
                             or ontology.predicates[p].object != "entity"]:
                    raise OntologyError(f"statements.{predicate}.{key} names {wrong[0]!r}: list predicates "
                                        "whose object is an entity (a tie between two), under one",
                                        field=f"statements.{predicate}.{key}")
        unknown = sorted(set(rules.japanese.titles.values()) - set(ontology.predicates))
        if unknown:
            raise OntologyError(f"extraction rules name unknown predicate {unknown[0]!r}",
                                field="japanese.titles")
        for predicate, kinds in rules.known_types_too.items():
            if unknown := sorted(set(kinds) - set(ontology.entity_types)):
                raise OntologyError(f"statements.{predicate}.known_types_too names unknown entity type "
                                    f"{unknown[0]!r}; known: {', '.join(sorted(ontology.entity_types))}",
                                    field=f"statements.{predicate}.known_types_too")
        types = sorted(set(rules.named_kinds.values()) - set(ontology.entity_types))
        if types:
            raise OntologyError(f"extraction rules: named_kinds names unknown entity type {types[0]!r}; "
                                f"known: {', '.join(sorted(ontology.entity_types))}", field="named_kinds")
        for predicate, also in [*((t.predicate, t.also) for t in rules.templates if t.also),
                                *rules.as_after_object.items()]:
            if also not in ontology.predicates or ontology.predicates[also].object == "entity":
                raise OntologyError(f"statements.{predicate}: {also!r} is no predicate that takes a value; "
                                    "the words a template reads as a second statement are a value "
                                    f"(known: {', '.join(sorted(ontology.predicates))})",
                                    field=f"statements.{predicate}")
        named = sorted({t.predicate for t in rules.templates
                        if t.gerund and ontology.predicates[t.predicate].object == "entity"})
        if named:
            raise OntologyError(f"statements.{named[0]}: {GERUND_OBJECT} reads a value, and {named[0]!r} "
                                "takes an entity; write {O}", field=f"statements.{named[0]}")
    return rules


def _ended_titles(statements: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each former title of the rules' ``statements``, lower-cased -> the predicates listing it, in order."""
    ties: dict[str, list[str]] = {}
    for predicate, spec in statements.items():
        for title in _word_list(f"statements.{predicate}.ended_titles", spec.get("ended_titles") or []):
            ties.setdefault(title.lower(), []).append(predicate)
    return {title: tuple(predicates) for title, predicates in ties.items()}


def _held_before(predicate: str, spec: dict[str, Any]) -> frozenset[str] | None:
    """Which close templates of ``predicate`` say the value held up to the close: those listed (each one of
    its close templates), or all (``true``: None)."""
    held = spec.get("held_before") or []
    if held is True:
        return None
    unknown = sorted(set(held) - set(spec.get("close") or ())) if isinstance(held, list) else [str(held)]
    if unknown:
        raise OntologyError(f"statements.{predicate}.held_before names {unknown[0]!r}: give true or a list "
                            "of its close templates", field=f"statements.{predicate}.held_before")
    return frozenset(held)


def _flat(words: list[Any]) -> list[str]:
    """A word list with the lists inside it (a YAML alias of another list: ``[*posts, food]``) spliced in."""
    return [str(w) for item in words for w in (_flat(item) if isinstance(item, list) else [item])]


def _object_heads(raw: Any) -> dict[str, tuple[frozenset[str], bool, frozenset[str]]]:
    """The rules' ``object_heads``: each kind's head words, whether the object keeps its head, and the head
    words that are a value with no word before them ("joined a gym"; not "joined a club")."""
    if not isinstance(raw, dict) or not all(isinstance(v, dict) and isinstance(v.get("words"), list)
                                            for v in raw.values()):
        raise OntologyError("extraction rules: object_heads maps a kind to {words: [...], keep: true|false}",
                            field="object_heads")
    out: dict[str, tuple[frozenset[str], bool, frozenset[str]]] = {}
    for kind, spec in raw.items():
        words, keep = frozenset(str(w).lower() for w in spec["words"]), bool(spec.get("keep"))
        alone = frozenset(str(w).lower() for w in spec.get("alone") or ())
        if alone - words or (alone and not keep):
            raise OntologyError(f"object_heads.{kind}.alone: a value alone is one of its words, kept (keep: "
                                f"true); list {sorted(alone - words or alone)[0]!r} in words",
                                field=f"object_heads.{kind}.alone")
        out[str(kind)] = (words, keep, alone)
    return out


def _listed(statements: dict[str, Any]) -> dict[str, str]:
    listed = {p: str(spec["listed"]) for p, spec in statements.items() if spec.get("listed")}
    for predicate, kind in listed.items():
        if kind not in ("activities", "things"):
            raise OntologyError(f"statements.{predicate}.listed is {kind!r}; use activities or things",
                                field=f"statements.{predicate}.listed")
    return listed


def _days(statements: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The words of ``days`` (per predicate: a word -> assert or close), each said of one predicate only."""
    days: dict[str, tuple[str, str]] = {}
    for predicate, spec in statements.items():
        for word, action in (spec.get("days") or {}).items():
            where = f"statements.{predicate}.days"
            if action not in ("assert", "close"):
                raise OntologyError(f"{where}: {word!r} is {action!r}; use assert or close", field=where)
            if str(word).lower() in days:
                raise OntologyError(f"{where}: {word!r} is said of {days[str(word).lower()][0]!r} already",
                                    field=where)
            days[str(word).lower()] = (predicate, str(action))
    return days


def _predicate_words(statements: dict[str, Any], key: str) -> dict[str, str]:
    """The words of ``key`` (``trips``, ``got_it``) lower-cased -> the predicate that lists them, each said of
    one predicate only."""
    found: dict[str, str] = {}
    for predicate, spec in statements.items():
        where = f"statements.{predicate}.{key}"
        for word in _word_list(where, spec.get(key) or []):
            if word.lower() in found:
                raise OntologyError(f"{where}: {word!r} is said of {found[word.lower()]!r} already",
                                    field=where)
            found[word.lower()] = predicate
    return found


@lru_cache(maxsize=8)
def _read_rules(path: str) -> Rules:
    raw: dict[str, Any] = read_yaml(Path(path).read_text(encoding="utf-8"))
    negations = sorted(raw.get("negations", []), key=len, reverse=True)
    bases: dict[str, str] = raw.get("verb_bases", {})
    templates: list[Template] = []
    opposites: dict[str, str] = {}
    object_words: dict[str, frozenset[str]] = {}
    object_not_first: dict[str, frozenset[tuple[str, ...]]] = {}
    object_points_back: dict[str, frozenset[tuple[str, ...]]] = {}
    object_not_heads: dict[str, frozenset[str]] = {}
    object_qualities: dict[str, frozenset[str]] = {}
    titles: dict[str, str] = {}
    object_nouns: dict[str, tuple[str, ...]] = {}
    object_drop_first: dict[str, frozenset[str]] = {}
    object_stops: dict[str, re.Pattern[str]] = {}
    known_objects_after: dict[str, frozenset[str]] = {}
    known_types_too: dict[str, dict[str, frozenset[str]]] = {}
    as_after_object: dict[str, str] = {}
    object_heads = _object_heads(raw.get("object_heads") or {})
    statements: dict[str, Any] = raw.get("statements") or {}
    for predicate, spec in statements.items():
        of = f"statements.{predicate}"
        if spec.get("as_after_object"):
            as_after_object[predicate] = str(spec["as_after_object"])
        if spec.get("opposite"):
            opposites[predicate] = spec["opposite"]
        if spec.get("object_words"):
            object_words[predicate] = frozenset(w.lower() for w in _word_list(f"{of}.object_words",
                                                                              spec["object_words"]))
        if spec.get("object_not_first"):
            object_not_first[predicate] = frozenset(tuple(w.lower().split()) for w in _word_list(
                f"{of}.object_not_first", spec["object_not_first"]))
        if spec.get("object_points_back"):
            object_points_back[predicate] = frozenset(tuple(w.lower().split()) for w in _word_list(
                f"{of}.object_points_back", spec["object_points_back"]))
        if spec.get("object_not_heads"):
            object_not_heads[predicate] = frozenset(w.lower() for w in _flat(spec["object_not_heads"]))
        if spec.get("object_qualities"):
            object_qualities[predicate] = frozenset(w.lower() for w in _flat(spec["object_qualities"]))
        for title in [*(spec.get("titles") or ()), *_word_list(f"statements.{predicate}.ended_titles",
                                                               spec.get("ended_titles") or [])]:
            titles.setdefault(str(title).lower(), predicate)
        if spec.get("object_stops"):
            stops = _word_list(f"{of}.object_stops", spec["object_stops"])
            object_stops[predicate] = re.compile(r"(?i)\s(?:" + "|".join(map(re.escape, stops)) +
                                                 r")(?:\s|$)")
        if spec.get("object_drop_first"):
            object_drop_first[predicate] = frozenset(w.lower() for w in _word_list(f"{of}.object_drop_first",
                                                                                   spec["object_drop_first"]))
        if too := spec.get("known_types_too"):  # [type, ...] (after any phrase) or {type: [last word, ...]}
            field = f"statements.{predicate}.known_types_too"
            known_types_too[predicate] = (
                {str(t): frozenset(w.lower() for w in _word_list(f"{field}.{t}", words))
                 for t, words in too.items()}
                if isinstance(too, dict) else {t: frozenset() for t in _word_list(field, too)})
        if spec.get("known_objects_after"):
            known_objects_after[predicate] = frozenset(str(w).lower() for w in spec["known_objects_after"])
        if spec.get("object_nouns"):
            object_nouns[predicate] = tuple(sorted({str(w).lower() for w in spec["object_nouns"]}, key=len,
                                                   reverse=True))
            titles.update((n, predicate) for n in object_nouns[predicate] if " " not in n)  # "my dog Max"
        if spec.get("assert_nouns") and predicate not in object_nouns:
            raise OntologyError(f"statements.{predicate}: assert_nouns reads only object_nouns; list them",
                                field=f"statements.{predicate}.object_nouns")
        held = _held_before(predicate, spec)
        for key, action, nouns_only in _TEMPLATE_KEYS:
            for template in spec.get(key) or ():
                held_before = key == "close" and (held is None or template in held)
                gerund = template.endswith(" " + GERUND_OBJECT)
                headed = _HEADED_OBJECT.search(template) if not gerund else None
                head = headed[1] if headed else None
                if head is not None and head not in object_heads:
                    raise OntologyError(f"template {template!r}: no object_heads kind {head!r}; known: "
                                        f"{', '.join(sorted(object_heads)) or 'none'}",
                                        field=f"statements.{predicate}.{key}")
                if gerund or headed:
                    template = template[: template.rindex("{")] + "{O}"
                unnamed = key == "close_unnamed"
                if unnamed:  # ("{S} quit {*} job": whatever job it is; read as "{S} quit {*} job {O}" is)
                    if template.endswith("{O}") or not template.startswith("{S} "):
                        raise OntologyError(f"template {template!r} of close_unnamed must read '{{S}} <verb "
                                            "phrase>', naming no {O}", field=f"statements.{predicate}.{key}")
                    template += " {O}"
                if template.startswith(_MUTUAL) and len(template) > len(_MUTUAL) and GAP not in template:
                    phrase = template[len(_MUTUAL):]
                    templates.append(Template(predicate, action, phrase, _phrase_regex(phrase),
                                              mutual=True, held_before=held_before))
                    first, _, rest = phrase.partition(" ")
                    if action == "assert" and first.lower() == "are" and rest:  # "are no longer married"
                        negated = (f"are no longer {rest}", f"are not {rest}", f"aren't {rest}")
                        templates += [Template(predicate, "negated", said, _phrase_regex(said), True,
                                               mutual=True) for said in negated]
                    continue
                if not (template.startswith("{S} ") and template.endswith(" {O}")):
                    raise OntologyError(f"template {template!r} must read '{{S}} <verb phrase> {{O}}' or "
                                        "'{S} and {O} <verb phrase>'",
                                        field=f"statements.{predicate}.{key}")
                phrase = template[4:-4]
                words = phrase.split()
                if _ANY_GAP.fullmatch(words[0]) or _ANY_GAP.fullmatch(words[-1]):
                    raise OntologyError(
                        f"template {template!r}: {GAP} stands between two words of the phrase",
                        field=f"statements.{predicate}.{key}")
                named = [m[1] for w in words if (m := _NAMED_GAP.match(w))]
                if len(named) > 1 or words.count(LEFT) > 1:
                    raise OntologyError(f"template {template!r}: one {{*predicate}} and one {LEFT} a "
                                        "template at most", field=f"statements.{predicate}.{key}")
                # how each of its forms (in the first person, negated) reads its object
                shape: dict[str, Any] = dict(nouns_only=nouns_only, gerund=gerund, head=head,
                                             also=named[0] if named else None, unnamed=unnamed)
                templates.append(Template(predicate, action, phrase, _phrase_regex(phrase), **shape,
                                          held_before=held_before))
                first, _, rest = phrase.partition(" ")
                base = bases.get(first.lower()) or _base_form(first)
                own = _in_first_person(first, base, rest)
                # ("I grew up in Ohio and now live in Texas": "I"'s verb after "and" as "I" says it; a form
                # that is the phrase's own is read by the phrase: "and moved to")
                joined = own.split(" ")[0].lower() != first.lower()
                templates.append(Template(predicate, action, f"I {own}",
                                          _first_person_regex(own, perfect=action != "past", joined=joined),
                                          first_person=True, **shape, held_before=held_before))
                if action == "assert" and base and not unnamed:
                    for neg in negations:
                        text = _negated(neg, first, base, rest, phrase)
                        if text:
                            templates.append(Template(predicate, "negated", text, _phrase_regex(text), True,
                                                      **shape))
                        text = _negated_in_first_person(neg, base, rest)
                        if text:
                            templates.append(Template(predicate, "negated", f"I {text}",
                                                      _first_person_regex(text, joined=True), True,
                                                      first_person=True,
                                                      **shape))
    # longest phrases first: "stopped working at" wins over "works at", "is married to" over "is the"
    # "I am {O}" said "I'm vegan": the sentence holds "i'm", not "am" (a phrase with a word after "am" is
    # tried by that word)
    templates += [replace(t, keyed="i'm") for t in templates if t.first_person and _key_words(t) == ["am"]]
    templates.sort(key=lambda t: len(t.phrase), reverse=True)
    ent = {key: _word_list(f"entities.{key}", value) for key, value in (raw.get("entities") or {}).items()}
    aliases = raw.get("aliases") or {}
    if not isinstance(aliases, dict):
        raise OntologyError("extraction rules: aliases must map 'between' and 'of_speaker' to lists of "
                            "phrases", field="aliases")
    by_first_word: dict[str, list[int]] = {}
    for index, template in enumerate(templates):
        by_first_word.setdefault(_key_words(template)[0], []).append(index)
    return Rules(
        templates=tuple(templates),
        by_first_word={w: tuple(ix) for w, ix in by_first_word.items()},
        needs=tuple(frozenset(_key_words(t)) for t in templates),
        wants=tuple(object_words.get(t.predicate) for t in templates),
        opposites=opposites,
        object_words=object_words,
        object_words_open=frozenset(p for p, spec in statements.items() if spec.get("object_words_open")),
        object_max_words={p: int(spec["object_max_words"]) for p, spec in statements.items()
                          if spec.get("object_max_words")},
        object_not_first=object_not_first,
        object_points_back=object_points_back,
        object_not_heads=object_not_heads,
        object_qualities=object_qualities,
        object_nouns=object_nouns,
        object_drop_first=object_drop_first,
        object_stops=object_stops,
        object_heads=object_heads,
        infinitive_as_doing=frozenset(p for p, spec in statements.items() if spec.get("infinitive_as_doing")),
        object_joins_things=frozenset(p for p, spec in statements.items() if spec.get("object_joins_things")),
        doings=frozenset(w.lower() for p, spec in statements.items()
                         for w in _word_list(f"statements.{p}.doings", spec.get("doings") or [])),
        open_ended=frozenset(p for p, spec in statements.items() if spec.get("open_ended")),
        ends={p: tuple(_word_list(f"statements.{p}.ends", spec["ends"])) for p, spec in statements.items()
              if spec.get("ends")},
        close_ends={p: tuple(_word_list(f"statements.{p}.close_ends", spec["close_ends"]))
                    for p, spec in statements.items() if spec.get("close_ends")},
        as_after_object=as_after_object,
        titles=titles,
        ended_titles=_ended_titles(statements),
        negation_suffixes=tuple(raw.get("negation_suffixes") or ()),
        negation_words=frozenset(w for sfx in raw.get("negation_suffixes") or () for w in sfx.split()),
        pronouns=frozenset(p.lower() for p in raw.get("pronouns") or ()),
        **_genders(raw),
        whole_values=_phrases_at_start(_word_list("whole_values", raw.get("whole_values") or [])),
        kinds_of={thing.lower(): words
                  for thing, words in _word_lists("kinds_of", raw.get("kinds_of") or {})},
        listed=_listed(statements),
        known_objects_after=known_objects_after,
        known_types_too=known_types_too,
        days=_days(statements),
        trips=_predicate_words(statements, "trips"),
        got_it=_predicate_words(statements, "got_it"),
        got_it_not=frozenset(w.lower() for spec in statements.values()
                             for w in _word_list("statements.got_it_not", spec.get("got_it_not") or [])),
        org_suffixes=frozenset(ent.get("org_suffixes") or ()),
        place_suffixes=frozenset(ent.get("place_suffixes") or ()),
        thing_suffixes=frozenset(ent.get("thing_suffixes") or ()),
        org_heads=frozenset(ent.get("org_heads") or ()),
        place_prepositions=frozenset(ent.get("place_prepositions") or ()),
        person_cues=_lowered_words(ent, "person_cues"),
        place_cues=_lowered_words(ent, "place_cues"),
        tool_cues=_lowered_words(ent, "tool_cues"),
        project_cues=frozenset(ent.get("project_cues") or ()),
        title_cues=_lowered_words(ent, "title_cues"),
        visit_cues=_lowered_words(ent, "visit_cues"),
        places_of=_lowered_words(ent, "places_of"),
        someone_of=_lowered_words(ent, "someone_of"),
        speaking_verbs=_lowered_words(ent, "speaking_verbs"),
        brand_nouns=_lowered_words(ent, "brand_nouns"),
        thing_nouns=_lowered_words(ent, "thing_nouns"),
        name_particles=_lowered_words(ent, "name_particles"),
        named_kinds=_named_kinds(raw.get("named_kinds") or {}, object_nouns.get("owns", ())),
        tools=tuple(ent.get("tools") or ()),
        imperatives=frozenset(ent.get("imperatives") or ()),
        imperative_next=_lowered_words(ent, "imperative_next"),
        commands=frozenset(ent.get("commands") or ()),
        places=tuple(ent.get("places") or ()),
        concepts=tuple(ent.get("concepts") or ()),
        not_names=frozenset(ent.get("not_names") or ()),
        line_labels=frozenset(ent.get("line_labels") or ()),
        contraction_cues=_lowered_words(ent, "contraction_cues"),
        first_names=frozenset(ent.get("first_names") or ()),
        the_named=_the_named(ent.get("the_named") or []),
        the_named_words=_lowered_words(ent, "the_named"),
        common_nouns=frozenset(ent.get("common_nouns") or ()),
        alias_between=_alias_pattern(aliases, "between", r"[\s,(]*(?:{listed})\s+"),
        alias_of_speaker=_alias_pattern(aliases, "of_speaker", r"\b(?:{listed})\s+$"),
        japanese=_japanese(raw.get("japanese") or {}),
        tasks=_tasks(raw.get("tasks") or {}),
    )


def _mapping(field: str, value: Any) -> dict[str, Any]:
    """The rules' section ``field``, a mapping (none: empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise OntologyError(f"extraction rules: {field} must map each word to a list of words", field=field)
    return value


def _tasks(raw: Any) -> TaskRules:
    if not isinstance(raw, dict):
        raise OntologyError("extraction rules: tasks must map 'predicate', boxes and labels to what they "
                            "hold", field="tasks")

    def alternation(key: str) -> str:
        listed = _word_list(f"tasks.{key}", raw.get(key) or [])
        return "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(listed, key=len, reverse=True))

    def marks(kind: str) -> str:
        boxes, labels = alternation(f"{kind}_boxes"), alternation(f"{kind}_labels")
        return "|".join(filter(None, [boxes, labels and rf"(?:{labels})[ \t]*[:：]"])) or "(?!)"

    # (who says the line may open it, "田中：TODO：..."; a bullet may stand before a label, "- TODO: ...",
    # a box is a bullet's own)
    line = (r"(?im)^[ \t]*(?:[^\W\d][\w・ー'.-]{0,15}(?: [^\W\d][\w'.-]{0,15}){0,2}[ \t]*[:：][ \t]*)??"
            r"(?:[-*+•・][ \t]+)?"
            rf"(?:(?P<done>{marks('done')})|(?:{marks('open')}))[ \t]*(?P<what>\S[^\n]*)")
    remind = alternation("remind")
    needs, musts = alternation("needs"), alternation("musts")
    # (after who says the line, "田中：", or "私は"; its words hold no は or が: of no one else)
    opening = (r"(?m)(?:^|(?<=[。！？!?]))[ \t\u3000]*(?:[^\s:：。]{1,16}[:：][ \t\u3000]*)?"
               r"(?:(?:私|僕|俺|わたし|あたし|ぼく|おれ)は、?)?")
    return TaskRules(
        predicate=str(raw.get("predicate") or "todo"),
        line=re.compile(line) if raw.get("open_boxes") or raw.get("open_labels") or raw.get("done_boxes")
        or raw.get("done_labels") else None,
        remind=re.compile(rf"(?i)(?:^|(?<=[.!?:]\s)|(?<=\n))[ \t]*(?:{remind})\s+(?P<what>\S[^\n]*)")
        if remind else None,
        need=re.compile(rf"{opening}(?P<what>[^。！？!?\nはが]*?[うくぐすつぬぶむる])(?:{needs})(?=[。！？!?\s]|$)")
        if needs else None,
        must=re.compile(rf"{opening}(?P<what>[^。！？!?\nはが]*?[^\s。！？!?\nはが])(?:{musts})(?=[。！？!?\s]|$)")
        if musts else None,
        irregular_pasts={verb.lower(): tuple(w.lower() for w in _word_list(f"tasks.irregular_pasts.{verb}", f))
                         for verb, f in _mapping("tasks.irregular_pasts", raw.get("irregular_pasts")).items()},
    )


def _the_named(words: list[str]) -> re.Pattern[str] | None:
    """Where "the" and one of ``words`` name someone: before "'s" or a word (the caller checks it opens a
    statement's phrase); the word in group 1, the next word in group 2."""
    if not words:
        return None
    listed = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?i)\bthe\s+({listed})(?:['\u2019]s\b|\s+([\w'\u2019]+))")


def _alias_pattern(section: dict[str, Any], key: str, form: str) -> re.Pattern[str] | None:
    """The phrases of the rules' ``aliases.<key>`` in ``form`` (their alternation at ``{listed}``), longest
    first; a space in a phrase is any run of spaces."""
    phrases = _word_list(f"aliases.{key}", section.get(key) or [])
    if not phrases:
        return None
    listed = "|".join(r"\s+".join(map(re.escape, p.split())) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(form.replace("{listed}", listed), re.IGNORECASE)


def _japanese(raw: Any) -> JapaneseRules:
    if not isinstance(raw, dict):
        raise OntologyError("extraction rules: japanese must map its parts ('statements', 'titles', ...) to "
                            "what they hold", field="japanese")
    endings: dict[str, tuple[str, str]] = {}
    unnamed: dict[str, str] = {}
    object_words: dict[str, tuple[str, ...]] = {}
    object_not_first: dict[str, tuple[str, ...]] = {}
    statements = raw.get("statements") or {}
    if not isinstance(statements, dict) or not all(isinstance(spec, dict) for spec in statements.values()):
        raise OntologyError("extraction rules: japanese.statements must map each predicate to its actions' "
                            "endings ('lives_in: {assert: [に住んでいる]}')", field="japanese.statements")
    for predicate, spec in statements.items():
        for action in spec:
            if action in ("object_words", "object_not_first"):
                listed = tuple(_word_list(f"japanese.statements.{predicate}.{action}", spec[action]))
                (object_words if action == "object_words" else object_not_first)[predicate] = listed
                continue
            if action not in ("assert", "close", "past", "close_unnamed"):
                raise OntologyError(f"japanese.statements.{predicate}: {action!r} is no action; write "
                                    "assert, close, past or close_unnamed",
                                    field=f"japanese.statements.{predicate}")
            for ending in _word_list(f"japanese.statements.{predicate}.{action}", spec[action]):
                if action == "close_unnamed":
                    unnamed[ending] = predicate
                else:
                    endings[ending] = (predicate, action)
    words = {key: _word_list(f"japanese.{key}", raw.get(key) or []) for key in (
        "negations", "not_after", "plans", "first_person", "not_subjects", "adverbs", "honorifics",
        "not_objects", "line_labels", "surnames", "not_names", "beliefs", "belief_not_first", "volitional")}
    return JapaneseRules(
        endings=endings, unnamed=unnamed, object_words=object_words, object_not_first=object_not_first,
        negations=tuple(words["negations"]), not_after=tuple(words["not_after"]), plans=tuple(words["plans"]),
        first_person=frozenset(words["first_person"]), not_subjects=frozenset(words["not_subjects"]),
        adverbs=tuple(sorted(words["adverbs"], key=len, reverse=True)),
        honorifics=tuple(sorted(words["honorifics"], key=len, reverse=True)),
        not_objects=frozenset(words["not_objects"]), line_labels=frozenset(words["line_labels"]),
        surnames=tuple(sorted(words["surnames"], key=len, reverse=True)),
        titles={title: predicate
                for key in ("titles", "ended_titles")
                for predicate, titles in _word_lists(f"japanese.{key}", raw.get(key) or {})
                for title in titles},
        ended_titles=frozenset(title for _, titles in _word_lists("japanese.ended_titles",
                                                                  raw.get("ended_titles") or {})
                               for title in titles),
        not_names=frozenset(words["not_names"]),
        beliefs=tuple(sorted(words["beliefs"], key=len, reverse=True)),
        belief_not_first=tuple(words["belief_not_first"]), volitional=tuple(words["volitional"]))


def _phrases_at_start(phrases: list[str]) -> re.Pattern[str] | None:
    """Where one of ``phrases`` opens a clause (after a determiner, if any), longest first."""
    if not phrases:
        return None
    listed = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?i)\s*(?:(?:the|some|my|our|a|an)\s+)?(?:{listed})\b")


def _word_lists(field: str, section: Any) -> list[tuple[str, frozenset[str]]]:
    """The rules' section ``field``, a mapping of word lists, as (key, its words lower-cased) pairs."""
    if not isinstance(section, dict):
        raise OntologyError(f"extraction rules: {field} must map each thing to a list of words", field=field)
    return [(key, frozenset(w.lower() for w in _word_list(f"{field}.{key}", words)))
            for key, words in section.items()]


def _named_kinds(section: Any, owned: Iterable[str]) -> dict[str, str]:
    """Word -> the type of a name "called" or "named" after it: the ``named_kinds`` section's (type -> words),
    and a thing owned is a concept."""
    out = dict.fromkeys((w.lower() for w in owned), "concept")
    for type_, words in _word_lists("named_kinds", section):
        out.update(dict.fromkeys(words, type_))
    return out


def _lowered_words(entities: dict[str, Any], name: str) -> frozenset[str]:
    """The words of the ``entities`` section's list ``name``, lower-cased."""
    return frozenset(w.lower() for w in entities.get(name) or ())


def _genders(raw: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """``pronoun_genders`` and ``given_names`` read, checked against each other: a gender of a pronoun has a
    list of names, and no name is in two lists."""
    said = raw.get("pronoun_genders") or {}
    lists = raw.get("given_names") or {}
    if not isinstance(said, dict) or not isinstance(lists, dict):
        raise OntologyError("extraction rules: pronoun_genders and given_names must be mappings "
                            "(pronoun: gender; gender: [names])", field="given_names")
    names: dict[str, str] = {}
    for gender, listed in lists.items():
        for name in _word_list(f"given_names.{gender}", listed):
            if names.setdefault(name.lower(), gender) != gender:
                raise OntologyError(f"extraction rules: given_names lists {name!r} as {names[name.lower()]} "
                                    f"and {gender}; a name given to both belongs in neither",
                                    field="given_names")
    if missing := sorted(set(said.values()) - set(lists)):
        raise OntologyError(f"extraction rules: pronoun_genders names gender {missing[0]!r}, which "
                            f"given_names has no list of", field="pronoun_genders")
    return {"pronoun_genders": {str(p).lower(): g for p, g in said.items()}, "given_names": names}


def _word_list(field: str, value: Any) -> list[str]:
    """A list of words of the rules' ``entities`` section, each a string: YAML reads a bare yes, no, on or
    off as true or false, and a list of names would lose the word without a word said."""
    if not isinstance(value, list):
        raise OntologyError(f"extraction rules: {field} must be a list of words", field=field)
    for item in value:
        if not isinstance(item, str):
            raise OntologyError(
                f"extraction rules: {field} holds {item!r}, not a word; YAML reads a bare yes, no, on or off "
                "as true or false: quote it (\"Yes\")", field=field)
    return value


# the keys of a predicate's templates: (key, what they do, read only with an object noun)
# (a `past` phrase holds over the period its clause gives: "lived in Paris from 2015 to 2019")
_TEMPLATE_KEYS = (("assert", "assert", False), ("close", "close", False), ("assert_nouns", "assert", True),
                  ("past", "past", False), ("close_unnamed", "close", False), ("since", "since", False))


def _base_form(verb: str) -> str | None:
    """The form "I" says a verb in with "he" in: "owns" own, "studies" study, "watches" watch, "goes" go;
    None for one that is no such form ("moved", "is": see the rules' ``verb_bases``, which name the others).

    >>> [_base_form(v) for v in ("owns", "studies", "watches", "goes", "uses", "misses", "moved", "is")]
    ['own', 'study', 'watch', 'go', 'use', 'miss', None, None]
    """
    v = verb.lower()
    if len(v) < 4 or not v.endswith("s") or v.endswith(("ss", "us", "is")) or not v.isalpha():
        return None
    if v.endswith("ies"):
        return v[:-3] + "y"
    if v.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return v[:-2]
    return v[:-1]


def _negated(neg: str, first: str, base: str, rest: str, phrase: str) -> str | None:
    """The phrase with ``neg`` in it: "no longer works at", "doesn't work at", "is not the"."""
    if base == "be":
        if neg in ("isn't", "wasn't"):
            return f"{neg} {rest}".strip()
        return f"{first} {neg} {rest}".strip() if neg in ("no longer", "not", "never") else None
    if neg in ("no longer", "never"):
        return f"{neg} {phrase}"
    if neg in ("isn't", "is not", "wasn't", "was not", "not"):
        return None
    return f"{neg} {base} {rest}".strip()


def _phrase_regex(phrase: str) -> str:
    """The phrase's words, any spacing between them, ``{*}`` one to five words within the clause, and up to
    two adverbs after an auxiliary opening it ("is now based in", "has also worked at").

    >>> bool(re.search(_phrase_regex("moved from {*} to"), "Ana moved from New York to Oslo"))
    True
    >>> bool(re.search(_phrase_regex("moved from {*} to"), "Ana moved from Rome. She went to Oslo"))
    False
    >>> bool(re.search(_phrase_regex("is based in"), "Ana is currently based in Oslo"))
    True
    >>> bool(re.search(_phrase_regex("has been living in"), "Ana's been living in Oslo"))
    True
    """
    first, _, rest = phrase.partition(" ")
    if not rest and first.lower() in _AUXILIARIES:  # the verb alone: "is mostly vegetarian", "has always {O}"
        return r"(?i)(?<![\w@])" + _words(first) + _WORD_END + _I_ADVERBS
    if rest and first.lower() in _AUXILIARIES:
        # ("Peter's been living in", "Anna's based in": "has" and "is" glued to the subject as "'s")
        glued = r"|(?<=\w)['’]s" if first.lower() in ("is", "has") else ""
        return r"(?i)(?:(?<![\w@])" + _words(first) + glued + ")" + _I_ADVERBS + r"\s+" + _words(rest) + \
            _WORD_END
    return r"(?i)(?<![\w@])" + _words(phrase) + _WORD_END


_AUXILIARIES = frozenset(["is", "are", "was", "were", "has", "have", "had"])


_MUTUAL = "{S} and {O} "  # how a template that names both before its phrase opens ("{S} and {O} got married")
# a phrase ends where its last word does: "thinks that" is not in "thinks that's"
_WORD_END = r"(?![\w'’])"


def _words(phrase: str) -> str:
    return r"\s+".join(_GAP_WORDS if w == GAP else f"(?P<left>{_GAP_WORDS})" if w == LEFT
                       else f"(?P<also>{_GAP_WORDS})" if _NAMED_GAP.match(w)
                       else re.escape(w).replace("'", "['’]")
                       for w in phrase.split())


# the forms of the first word of a template's phrase "I" says: "I live in", "I am based in", "I have lived in"
_FIRST_PERSON_FORMS = {"is": "am", "has": "have", "does": "do", "doesn't": "don't", "hasn't": "haven't"}
# (who says "we" is one of those it names: "we moved to Porto" says where the speaker lives)
_I = r"(?:I|we)"
_I_OR_JOINED = r"(?:I|we|and|but)"
# pasts that are their participles too ("I've left", "I had bought"; not "began": "I've begun")
_PAST_PARTICIPLES = frozenset("""left quit lost bought got spent built found met made sold kept won held had
    brought taught paid sent""".split())
# words said between a subject and its verb, two at most ("I just moved to", "he now works at")
VERB_ADVERBS = ("just recently finally also now still actually really already officially eventually then "
                "totally definitely always currently previously formerly mostly mainly largely fully "
                "completely basically primarily so very truly super deeply incredibly genuinely").split()
_I_ADVERBS = r"(?:\s+(?:" + "|".join(VERB_ADVERBS) + r")){0,2}"
# ("I still have to", "I've")
_I_LEADS = {"am": r"(?:I(?:\s+am|['’]m)|we(?:\s+are|['’]re))",
            "have": _I + r"(?:" + _I_ADVERBS + r"\s+have|['’]ve)"}


def _key_words(template: Template) -> list[str]:
    """The words a sentence must hold for ``template`` to be tried, the first indexing it: its phrase's, or
    for one said by "I" those after "I" and "am" or "have" (which "I'm" and "I've" hold): "moved", "to" of "I
    moved to", "based", "in" of "I am based in". (Most sentences of a conversation hold "I", "is" or "have":
    each such phrase tried on each of them made reading a turn three times slower.) A phrase of three words or
    more opening with "is" or "has" is tried without it, which may be glued to the subject ("Ana's been
    living in")."""
    if template.keyed is not None:
        return [template.keyed]
    words = _PHRASE_WORD.findall(_ANY_GAP.sub(" ", template.phrase.lower().replace("’", "'")))
    if template.first_person:
        words = words[2:] if words[1] in _I_LEADS and len(words) > 2 else words[1:]
    elif words[0] in ("is", "has") and len(words) > 2:
        words = words[1:]  # ("Peter's been living in" holds no "has"; "is the" keeps "is": "the" is in most)
    return words


_PHRASE_WORD = re.compile(r"[\w']+")  # (as the pipeline splits a sentence; "{*}" is none)


def _in_first_person(first: str, base: str | None, rest: str) -> str:
    """A template's phrase as "I" says it (without the "I"): "lives in" -> "live in", "is based in" -> "am
    based in", "has lived in" -> "have lived in", "moved to" as it is."""
    verb = _FIRST_PERSON_FORMS.get(first.lower()) or (base if base and base != "be" else first)
    return f"{verb} {rest}".strip()


def _negated_in_first_person(neg: str, base: str, rest: str) -> str | None:
    """``_negated`` as "I" says it: "don't work at", "no longer work at", "am not the", "am no longer the"."""
    if base == "be":
        return f"am {neg} {rest}".strip() if neg in ("no longer", "not", "never") else (
            f"{neg} {rest}".strip() if neg in ("wasn't", "was not") else None)
    if neg in ("no longer", "never", "don't", "do not", "didn't", "did not"):
        return f"{neg} {base} {rest}".strip()
    return None


def _first_person_regex(phrase: str, *, perfect: bool = False, joined: bool = False) -> str:
    """``phrase`` (as ``_in_first_person`` gives it) after "I" or "we", with "I'm" and "I've" for "I am" and
    "I have" and up to two adverbs before the verb ("I just moved to", "I've finally been promoted to");
    ``perfect``: a verb in the past said after "have" or "had" too ("I've moved to", "I had joined"), when
    its past is its participle; ``joined``: a verb (not "am" or "have") after "and" or "but" too ("and now
    live in": whether "I" says it is the pipeline's to find).

    >>> bool(re.search(_first_person_regex("have been living in"), "Yeah, I've been living in Porto"))
    True
    >>> bool(re.search(_first_person_regex("moved to", perfect=True), "We've just moved to Porto"))
    True
    """
    first, _, rest = phrase.partition(" ")
    lead = _I_LEADS.get(first)
    if lead and not rest:  # the verb alone: "I've", "I already have", "I'm mostly"
        alone = lead + "|" + _I + _I_ADVERBS + r"\s+" + first
        return r"(?i)(?<![\w@])(?:" + alone + ")" + _WORD_END + _I_ADVERBS
    if not lead and rest and first.lower() in _AUXILIARIES:  # ("I was also in Turkey", "we were all in")
        return r"(?i)(?<![\w@])" + _I + _I_ADVERBS + r"\s+" + _words(first) + _I_ADVERBS + r"\s+" + \
            _words(rest) + _WORD_END
    if not lead and perfect and (first.lower().endswith("ed") or first.lower() in _PAST_PARTICIPLES):
        lead = _I + r"(?:\s+(?:have|had)|['’](?:ve|d))?"
        return r"(?i)(?<![\w@])" + lead + _I_ADVERBS + r"\s+" + _words(phrase) + _WORD_END
    head, body = (lead, rest) if lead else (_I_OR_JOINED if joined else _I, phrase)
    tail = r"\s+" + _words(body) if body else ""
    return r"(?i)(?<![\w@])" + head + _I_ADVERBS + tail + _WORD_END
