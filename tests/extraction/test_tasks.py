import datetime as dt

import pytest

from graphmem.extraction import Extractor
from graphmem.extraction.rules import load_rules
from graphmem.extraction.tasks import KnownTasks, past_forms, read_tasks
from graphmem.ontology import load_ontology
from graphmem.temporal.expressions import find_times

A = dt.datetime(2025, 11, 27, 12, tzinfo=dt.UTC)  # a Thursday


@pytest.fixture(scope="module")
def extractor():
    return Extractor(load_ontology())


def _tasks(text):
    rules = load_rules().tasks
    return [(t.object, t.done, t.due.label() if t.due else None)
            for t in read_tasks(text, find_times(text, A), rules)]


@pytest.mark.parametrize(("text", "tasks"), [
    ("- [ ] renew the passport", [("renew the passport", False, None)]),
    ("* [x] renew the passport", [("renew the passport", True, None)]),
    ("[X] Renew the passport.", [("Renew the passport", True, None)]),
    ("TODO: book the venue by Friday", [("book the venue", False, "2025-11-28")]),
    ("todo - nothing", []),  # (a label needs its colon)
    ("  - To-do: send the deck (due Monday)", [("send the deck", False, "2025-12-01")]),
    ("Done: book the venue", [("book the venue", True, None)]),
    ("Notes\n- [ ] call Bob on Monday\n- [x] email Ana\nDone is better than perfect.",
     [("call Bob", False, "2025-12-01"), ("email Ana", True, None)]),
    ("Can you remind me to call Mom tomorrow, she is waiting?", [("call Mom", False, "2025-11-28")]),
    ("Great talk. Remind me to send the slides.", [("send the slides", False, None)]),
    ("TODO: remind me to send the slides", [("send the slides", False, None)]),
    # Japanese: a time before the task, or in brackets after it, is when it is due
    ("やること：金曜までに請求書を送る", [("請求書を送る", False, "2025-11-28")]),
    ("- [ ] 請求書を送る（金曜まで）", [("請求書を送る", False, "2025-11-28")]),
    ("完了：請求書を送る", [("請求書を送る", True, None)]),
    # ... and a sentence that says its speaker needs to do it; not someone else, nor "if need be"
    ("金曜までに請求書を送る必要がある。", [("請求書を送る", False, "2025-11-28")]),
    ("田中：私は、パスポートを更新する必要があります。", [("パスポートを更新する", False, None)]),
    ("田中さんは請求書を送る必要がある。", []),
    ("必要があれば連絡してください。", []),
    # ... or has to, said after the verb's negative stem: the task says the verb in its dictionary form
    ("金曜までに報告書を提出しなければならない。", [("報告書を提出する", False, "2025-11-28")]),
    ("田中：銀行に行かなきゃ。", [("銀行に行く", False, None)]),
    ("請求書を払わなければなりません。", [("請求書を払う", False, None)]),
    ("早く寝ないといけない。", [("早く寝る", False, None)]),
    ("また来なくてはいけない。", [("また来る", False, None)]),
    ("田中さんは報告書を書かなければならない。", []),
    # none asked for
    ("These moments remind me to slow down.", []),
    ("Note: the TODO list is long.", []),
    ("I have a to-do list.", []),
    ("- [ ]", []),
])
def test_a_task_written_as_one_is_read_open_or_done_with_when_it_is_due(text, tasks):
    assert _tasks(text) == tasks


@pytest.mark.parametrize(("text", "speaker", "expected"), [
    ("TODO: renew the passport", "Sam", {("Sam", "todo", "renew the passport", "assert")}),
    ("Kim: - [x] renew the passport", None, {("Kim", "todo", "renew the passport", "done")}),
    ("田中：TODO：請求書を送る", None, {("田中", "todo", "請求書を送る", "assert")}),
    # no one says it: the memory tells whose (a project's, in its scope)
    ("TODO: renew the certificate", None, {("", "todo", "renew the certificate", "assert")}),
    # said in a sentence, by the templates: one task, not two
    ("TODO: I need to call Bob", "Sam", {("Sam", "todo", "call Bob", "assert")}),
    ("Peter has to finish the report by Dec 5th.", None, {("Peter", "todo", "finish the report", "assert")}),
    ("I still have to book the flights.", "Sam", {("Sam", "todo", "book the flights", "assert")}),
    # one more thing after "and" is part of the task; a doing after it, a task of its own; not another clause
    ("I need to set up cable and internet at the new flat.", "Sam",
     {("Sam", "todo", "set up cable and internet", "assert")}),
    ("I need to call Bob and book the venue.", "Sam",
     {("Sam", "todo", "call Bob", "assert"), ("Sam", "todo", "book the venue", "assert")}),
    ("I need to pick up the kids, and then drop off the car.", "Sam",
     {("Sam", "todo", "pick up the kids", "assert"), ("Sam", "todo", "drop off the car", "assert")}),
    ("I need to call Bob and I want to rest.", "Sam", {("Sam", "todo", "call Bob", "assert")}),
    # two words after "and": a thing, unless the first is a doing's verb (the rules' doings)
    ("I need to set up cable and TV services.", "Sam",
     {("Sam", "todo", "set up cable and TV services", "assert")}),
    ("I need to pay rent and buy groceries.", "Sam",
     {("Sam", "todo", "pay rent", "assert"), ("Sam", "todo", "buy groceries", "assert")}),
    ("I need to clean the kitchen and wash dishes.", "Sam",
     {("Sam", "todo", "clean the kitchen", "assert"), ("Sam", "todo", "wash dishes", "assert")}),
    # what is said, wished or inferred rather than to do
    ("I have to say, the show was great.", "Sam", set()),
    ("I need to go now!", "Sam", set()),
    ("I need to try that.", "Sam", set()),
    ("You can see what Tokyo has to offer.", "Sam", set()),
    ("It must have been hard.", "Sam", set()),
])
def test_tasks_are_whose_says_them(extractor, text, speaker, expected):
    read = extractor.extract(text, A, speaker=speaker)
    assert {(s.subject, s.predicate, s.object, s.action) for s in read.statements} == expected


def test_a_time_said_with_a_task_is_when_it_is_due_not_when_it_opens(extractor):
    [task] = extractor.extract("I need to call the dentist on Monday.", A, speaker="Sam").statements
    assert (task.object, task.valid_from, task.due.label()) == ("call the dentist", None, "2025-12-01")
    two = extractor.extract("I need to call Bob tomorrow and book the venue by Monday.", A, speaker="Sam")
    assert [(t.object, t.due.label()) for t in two.statements] == [("call Bob", "2025-11-28"),
                                                                    ("book the venue", "2025-12-01")]


@pytest.mark.parametrize(("text", "speaker", "done"), [
    ("Kim: I finally called the dentist!", None, {("Kim", "call the dentist")}),
    ("Yeah, I've renewed my passport.", "Kim", {("Kim", "renew my passport")}),
    ("Kim has renewed my passport", None, {("Kim", "renew my passport")}),
    ("Sam: I sent the invoice, and Kim called the dentist.", None,
     {("Sam", "send the invoice"), ("Kim", "call the dentist")}),
    # a verb after "and" or a comma, of the subject of the clause before
    ("Kim: I sent the invoice and called the dentist.", None, {("Kim", "call the dentist")}),
    ("Yesterday I paid the rent, renewed my passport and called the dentist.", "Kim",
     {("Kim", "call the dentist"), ("Kim", "renew my passport")}),
    ("Sam: Kim sent the invoice and called the dentist.", None, {("Kim", "call the dentist")}),
    ("Kim: Sam sent the invoice and called the dentist.", None, {("Sam", "send the invoice")}),
    ("田中：報告書を書いた。", None, {("田中", "報告書を書く")}),
    ("報告書を書きました", "田中", {("田中", "報告書を書く")}),
    # not done, or not by whoever has it
    ("I haven't called the dentist yet.", "Kim", set()),
    ("I never renewed my passport.", "Kim", set()),
    ("Sam: I called the dentist.", None, set()),
    ("Peter called the dentist.", None, set()),
    ("Kim: I need to call the dentist.", None, set()),
    ("報告書を書いたことがない", "田中", set()),
    ("報告書を書いたら教えて", "田中", set()),
])
def test_an_open_task_is_said_done_in_the_past_of_its_words_by_whoever_has_it(text, speaker, done):
    extractor = Extractor(load_ontology())
    extractor.add_tasks([("Kim", "call the dentist"), ("Kim", "renew my passport"),
                         ("Sam", "send the invoice"), ("田中", "報告書を書く")])
    read = extractor.extract(text, A, speaker=speaker)
    assert {(s.subject, s.object) for s in read.statements if s.action == "done"} == done
    extractor.drop_tasks([("Kim", "call the dentist")])
    assert all(s.object != "call the dentist" or s.action != "done"
               for s in extractor.extract(text, A, speaker=speaker).statements)


@pytest.mark.parametrize(("verb", "pasts"), [
    ("call", ("called",)), ("schedule", ("scheduled",)), ("try", ("tried",)), ("play", ("played",)),
    ("stop", ("stoped", "stopped")), ("send", ("sent",)), ("write", ("wrote", "written")),
])
def test_the_past_of_a_tasks_verb(verb, pasts):
    assert past_forms(verb, load_rules().tasks.irregular_pasts) == pasts


def test_known_tasks_are_found_by_their_words_in_the_past_and_forgotten_one_by_one():
    known = KnownTasks(load_rules().tasks.irregular_pasts)
    known.add([("Kim", "call the dentist"), ("Sam", "call the dentist"), ("Kim", "send the invoice"),
               ("田中", "報告書を書く"), ("田中", "本を読む")])
    text = "I called the dentist! Then I sent the invoice's copy and called the dentist's office."
    assert sorted(known.said_in(text, text.lower().split())) == [("Kim", "call the dentist", 2, 20),
                                                                 ("Sam", "call the dentist", 2, 20)]
    known.discard([("Sam", "call the dentist"), ("Kim", "send the invoice")])
    assert [who for who, *_ in known.said_in(text, text.lower().split())] == ["Kim"]
    assert known.said_in_japanese("昨日、報告書を書いた。") == [("田中", "報告書を書く", 3, 10)]
    assert known.said_in_japanese("本を読んだ") == [("田中", "本を読む", 0, 5)]
    known.discard([("Kim", "call the dentist"), ("田中", "報告書を書く"), ("田中", "本を読む")])
    assert not known
