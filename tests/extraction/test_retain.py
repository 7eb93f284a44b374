import pytest

from graphmem.errors import InvalidInput
from graphmem.extraction import parse_retain

LOG = """# 2025-11-27

Worked on the socket crash most of the day.

## Retain
- W @Peter: currently in Marrakesh (Nov 27 - Dec 1) for @Andy's birthday.
- B @warelay: fixed the WS crash by wrapping
  the update handler in try/catch.
- O(c=0.95) @Peter, @Mika: prefer short replies on WhatsApp.
- S mostly ops work this week

## Notes
- W not retained: outside the section
"""


def test_bullets_types_mentions_confidence_and_lines():
    items = parse_retain(LOG)
    assert [(i.kind, i.line) for i in items] == [("world", 6), ("experience", 7), ("opinion", 9),
                                                 ("observation", 10)]
    assert items[0].about == ("Peter",) and items[0].mentions == ("Peter", "Andy")
    assert items[1].text == "fixed the WS crash by wrapping the update handler in try/catch."
    assert items[2].about == ("Peter", "Mika") and items[2].confidence == 0.95
    assert items[3].about == () and items[3].text == "mostly ops work this week"


def test_japanese_heading_and_text():
    items = parse_retain("## 保持\n- W @Peter: 現在マラケシュに滞在中（2025年11月27日〜12月1日）。\n")
    assert items[0].about == ("Peter",) and items[0].text.startswith("現在マラケシュ")


@pytest.mark.parametrize("bullet, problem", [
    ("- I went to the gym", "starts with its type"),
    ("- W(c=0.5) @Peter: a fact with a confidence", "only an opinion"),
    ("- O(c=1.5) @Peter: too sure", "c must be a number in [0, 1]"),
    ("- O(c=high) @Peter: words", "c must be a number in [0, 1]"),
    ("- W @Peter:", "no text"),
])
def test_a_malformed_bullet_is_an_error_naming_its_line(bullet, problem):
    with pytest.raises(InvalidInput) as err:
        parse_retain(f"## Retain\n- W fine\n{bullet}\n")
    assert problem in str(err.value) and err.value.field == "line 3"


def test_memory_records_bullets_with_sources_and_forms_opinions_once(mem):
    result = mem.retain(LOG, path="memory/2025-11-27.md", agent_id="claude")
    events = mem.get(result.event_ids)
    assert [e.source.ref for e in events] == [f"memory/2025-11-27.md#L{n}" for n in (6, 7, 9, 10)]
    assert [e.kind for e in events] == ["world", "experience", "opinion", "observation"]
    assert {e.occurred_at.at.date().isoformat() for e in events} == {"2025-11-27"}
    assert "andy" in mem.store.mentions([events[0].id])[events[0].id]
    (opinion,) = mem.opinions(about="Mika")
    assert opinion.statement == "Peter, Mika: prefer short replies on WhatsApp."
    assert opinion.confidence == 0.95 and opinion.holder == "self"
    assert [e.event_id for e in opinion.supporting] == [events[2].id]
    again = mem.retain(LOG, path="memory/2025-11-27.md", agent_id="claude")
    assert {r.status for r in again.results} == {"duplicate"} and again.opinion_ids == []
    assert mem.opinion(opinion.id).confidence == 0.95


def test_the_day_comes_from_the_file_name_or_must_be_given(mem):
    with pytest.raises(InvalidInput) as err:
        mem.retain("## Retain\n- W fine\n", path="notes/today.md")
    assert err.value.field == "day"
    assert mem.retain("## Retain\n- W fine\n", path="notes/today.md", day="2025-11-28").event_ids
