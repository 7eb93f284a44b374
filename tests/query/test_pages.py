"""Entity pages and reflect: deterministic Markdown, golden files, and never a byte of the user's own notes."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from graphmem import Memory
from graphmem.errors import InvalidInput
from graphmem.query.pages import MARKER
from graphmem.samples import load_sample
from tests.conftest import FakeClock

GOLDEN = Path(__file__).parent / "golden" / "reflect"


def sample(start: dt.datetime = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)) -> Memory:
    memory = Memory.in_memory(clock=FakeClock(start), extract=False)
    load_sample(memory)
    return memory


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def test_reflect_on_the_sample_writes_the_golden_pages(tmp_path):
    memory = sample()
    result = memory.reflect(tmp_path)
    assert len(result.written) == len(result.pages) == 11
    made = files(tmp_path)
    if os.environ.get("GRAPHMEM_UPDATE_GOLDEN"):
        for name, data in made.items():
            (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / name).write_bytes(data)
    assert made == files(GOLDEN), "pages differ; regenerate with GRAPHMEM_UPDATE_GOLDEN=1 and review the diff"
    assert memory.reflect(tmp_path).written == []  # unchanged pages are left alone


def test_same_memory_same_bytes_whatever_the_clock(tmp_path):
    sample().reflect(tmp_path / "a")
    sample(dt.datetime(2027, 6, 1, tzinfo=dt.UTC)).reflect(tmp_path / "b")
    assert files(tmp_path / "a") == files(tmp_path / "b")


def test_a_page_shows_current_states_timeline_opinions_and_sources():
    page = sample().entity_page("Peter")
    assert page.startswith(MARKER + "\n# Peter\n\nperson · id `peter`")
    assert "- **lives in** Marrakesh · since 2025-11-27 · [memory/2025-11-27.md#L12]" \
           "(../../memory/2025-11-27.md#L12)" in page
    assert "- 2023 → 2025-11-27 · lives in Berlin · superseded" in page
    assert "\"The new on-call rota is fairer\" — confidence **0.60**" in page
    sam = sample().entity_page("Kuzu")
    assert "- 2025-12-29 against: 0.76 → 0.61 · Kuzu migration slipped" in sam


def test_a_page_writes_the_title_a_tie_was_named_with_beside_the_name_it_describes():
    memory = Memory.in_memory(clock=FakeClock(), embedder="none")
    for text in ("Peter's sister Anna moved to Lisbon.", "Peter adopted a pup named Ned."):
        memory.record(content=text, occurred_at="2025-11-27")
    anna, peter, ned = (memory.entity_page(name) for name in ("Anna", "Peter", "Ned"))
    assert "- **family of** Peter · as sister · since 2025-11-27" in anna
    assert "- **owns** Ned (pup) · since 2025-11-27" in peter
    assert "- Anna (sister) **family of** Peter · 2025-11-27 → … (family of Anna)" in peter
    assert "- Peter **owns** Ned (pup) · 2025-11-27 → … (owned by Peter)" in ned


def test_a_file_graphmem_did_not_write_is_never_overwritten(tmp_path):
    own = tmp_path / "bank" / "entities" / "Peter.md"
    own.parent.mkdir(parents=True)
    own.write_text("# Peter\nMy own notes.\n")
    log = tmp_path / "memory" / "2025-11-27.md"
    log.parent.mkdir()
    log.write_text("# 2025-11-27\n## Retain\n- W @Peter moved to Marrakesh.\n")
    before = log.stat().st_mtime_ns
    with pytest.raises(InvalidInput) as err:
        sample().reflect(tmp_path)
    assert err.value.field == "directory" and "Peter.md" in err.value.message
    assert own.read_text() == "# Peter\nMy own notes.\n"
    assert sorted(p.name for p in tmp_path.rglob("*.md")) == ["2025-11-27.md", "Peter.md"]  # nothing written
    own.unlink()
    sample().reflect(tmp_path)
    assert log.read_text() == "# 2025-11-27\n## Retain\n- W @Peter moved to Marrakesh.\n"
    assert log.stat().st_mtime_ns == before


def test_since_limits_the_entity_pages(tmp_path):
    result = sample().reflect(tmp_path, since="2026-01-10")
    assert sorted(p.name for p in result.pages) == ["Aiko.md", "Kuzu.md", "Peter.md", "opinions.md"]
    with pytest.raises(InvalidInput) as err:
        sample().reflect(tmp_path, since="whenever")
    assert err.value.field == "since"


def test_private_events_stay_off_pages_unless_asked(tmp_path):
    memory = sample()
    memory.record(content="Peter is interviewing at Globex.", entities=["Peter"], privacy=["private"],
                  occurred_at="2026-01-18")
    assert "interviewing" not in memory.entity_page("Peter")
    assert "interviewing" in memory.entity_page("Peter", include_private=True)
