"""Markdown workspaces through ``graphmem ingest-workspace`` / ``watch`` and :func:`ingest_workspace`."""

from __future__ import annotations

import hashlib
import json
import shutil
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem import Memory
from graphmem.cli.main import main
from graphmem.io import ingest_workspace

SAMPLE = Path(str(resources.files("graphmem.samples").joinpath("workspace")))


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "notes"
    shutil.copytree(SAMPLE, root)
    return root


def fingerprint(root: Path) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def answers(mem: Memory) -> dict[str, object]:
    """What a person would ask of the sample workspace, in a form that does not depend on when it was read."""
    def states(view_states):
        return sorted((s.subject, s.predicate, s.object, str(s.valid.start.at), str(s.valid.end.at) if s.valid.end
                       else None, tuple(sorted(e.source.ref or "" for e in s.evidence))) for s in view_states)
    mem.index.wait()  # recall with every vector in place: how soon the last ones land is not the question
    return {
        "feb": states(mem.as_of("2026-02-10").states()),
        "march": states(mem.as_of("2026-03-05").states()),
        "peter": states(mem.timeline("Peter")),
        "recall": [(h.content, h.refs) for h in mem.recall("Where does Peter live now?", k=5)],
        "opinions": sorted((o.statement, o.holder, round(o.confidence, 6), len(o.history)) for o in mem.opinions()),
        "page": mem.entity_page("Lena"),
    }


def test_sources_keep_their_lines_and_the_files_stay_untouched(workspace, tmp_path):
    before = fingerprint(workspace)
    db = tmp_path / "m.kuzu"
    result = CliRunner().invoke(main, ["--db", str(db), "--json", "ingest-workspace", str(workspace)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["read"][0] == "memory.md" and "memory/2026-02-23.md" in report["read"]
    assert report["created"] > 30 and report["errors"] == {} and report["opinions"] == 4
    mem = Memory.open(str(db), embedder="none")
    try:
        moved = [e for e in mem.events(limit=200) if e.content == "Peter moved to Lisbon."]
        assert [e.source.ref for e in moved] == ["memory/2026-02-23.md#L3"]
        line = (workspace / "memory/2026-02-23.md").read_text().splitlines()[2]
        assert line == "Peter moved to Lisbon."
        assert [(s.object, str(s.valid.start.at.date())) for s in mem.as_of("2026-03-01").states(
            subject="Peter", predicate="lives_in")] == [("Lisbon", "2026-02-23")]
        private = [e for e in mem.events(limit=200, include_private=True) if "thinking about moving" in e.content]
        assert private and private[0].visibility.value == "private" and "#private" not in private[0].content
        assert not [e for e in mem.events(limit=200) if "thinking about moving" in e.content]
        # memory.md's front matter dates its notes
        assert {str(e.occurred_at.at.date()) for e in mem.events(limit=200)
                if (e.source.ref or "").startswith("memory.md#")} == {"2026-01-31"}
        mem.reflect(str(workspace))
    finally:
        mem.close()
    after = fingerprint(workspace)
    assert {k: v for k, v in after.items() if not k.startswith("bank/entities") and k != "bank/opinions.md"} == before


def test_reading_again_is_incremental_and_edits_record_only_what_is_new(workspace):
    mem = Memory.in_memory(embedder="none")
    first = ingest_workspace(mem, workspace)
    again = ingest_workspace(mem, workspace)
    assert again.read == [] and again.unchanged == first.files and again.created == 0
    log = workspace / "memory/2026-03-02.md"
    text = log.read_text()
    # a line inserted at the top shifts every note; one note is edited, one added
    log.write_text("Standup moved to 10:00.\n\n" + text.replace("- Aiko left Globex.",
                                                                   "- Aiko left Globex for Initech.\n- Lena moved to Porto."))
    edited = ingest_workspace(mem, workspace)
    assert edited.read == ["memory/2026-03-02.md"] and edited.unchanged == first.files - 1
    assert edited.created == 3  # the standup, the edited note, the new note; nothing shifted is recorded again
    assert list(edited.stale) == ["memory/2026-03-02.md"] and len(edited.stale["memory/2026-03-02.md"]) == 1
    assert [s.object for s in mem.as_of("2026-03-03").states(subject="Lena", predicate="lives_in")] == ["Porto"]
    mem.close()


def test_rebuilding_from_the_markdown_gives_the_same_answers(workspace, tmp_path):
    db = tmp_path / "m.kuzu"
    mem = Memory.open(str(db), embedder="static")
    ingest_workspace(mem, workspace)
    first = answers(mem)
    mem.close()
    shutil.rmtree(db, ignore_errors=True)
    for leftover in tmp_path.glob("m.kuzu*"):
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    mem = Memory.open(str(db), embedder="static")
    report = ingest_workspace(mem, workspace)
    assert report.unchanged == 0 and report.created > 30
    assert answers(mem) == first
    mem.close()


def test_pages_reflect_wrote_are_skipped_and_a_bad_retain_bullet_writes_nothing_of_its_file(workspace):
    mem = Memory.in_memory(embedder="none")
    ingest_workspace(mem, workspace)
    mem.reflect(str(workspace))
    (workspace / "memory/2026-03-03.md").write_text("Quiet day.\n\n## Retain\n- @Peter without a type\n")
    report = ingest_workspace(mem, workspace)
    assert "bank/entities/Peter.md" in report.generated and "bank/opinions.md" in report.generated
    assert list(report.errors) == ["memory/2026-03-03.md"] and "line 4" in report.errors["memory/2026-03-03.md"]
    assert not [e for e in mem.events(limit=300) if e.content == "Quiet day."]
    result = CliRunner().invoke(main, ["--db", ":memory:", "ingest-workspace", str(workspace)])
    assert result.exit_code == 1 and "error: memory/2026-03-03.md" in result.output


def test_watch_reads_changes_between_looks(workspace, tmp_path):
    db = tmp_path / "w.kuzu"
    result = CliRunner().invoke(main, ["--db", str(db), "watch", str(workspace), "--rounds", "2",
                                       "--interval", "0"])
    assert result.exit_code == 0, result.output
    assert "8 files, 8 read" in result.output.splitlines()[0]


def test_a_missing_workspace_is_a_clear_error():
    with pytest.raises(Exception, match="not a directory"):
        ingest_workspace(Memory.in_memory(embedder="none"), "/nonexistent/notes")
