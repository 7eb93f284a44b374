"""The claude-mem importer against SQLite databases built here with both schema generations' columns."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from graphmem import Memory
from graphmem.cli.main import main
from graphmem.errors import InvalidInput
from graphmem.io import import_claude_mem


def newer(path):
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE sdk_sessions (id INTEGER PRIMARY KEY, content_session_id TEXT, memory_session_id TEXT,
            project TEXT, user_prompt TEXT, started_at TEXT, started_at_epoch INTEGER, status TEXT);
        CREATE TABLE observations (id INTEGER PRIMARY KEY, memory_session_id TEXT, project TEXT, type TEXT,
            title TEXT, subtitle TEXT, narrative TEXT, facts TEXT, concepts TEXT, files_read TEXT,
            created_at TEXT, created_at_epoch INTEGER);
        CREATE TABLE session_summaries (id INTEGER PRIMARY KEY, memory_session_id TEXT, project TEXT,
            request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT, notes TEXT,
            created_at TEXT, created_at_epoch INTEGER);
    """)
    db.execute("INSERT INTO sdk_sessions VALUES (1, 'c-1', 'm-1', 'search', 'fix ranking', "
               "'2025-11-27T09:00:00Z', 1764234000000, 'completed')")
    db.executemany("INSERT INTO observations VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", [
        (1, "m-1", "search", "decision", "Use BM25 for lexical recall", "bm25s beats Kuzu FTS",
         "Measured both on LoCoMo.", json.dumps(["bm25s is 3x faster"]), json.dumps(["recall"]), "[]",
         "2025-11-27T09:10:00Z", 1764234600000),
        (2, "m-1", "search", "bugfix", "Tie-break ranking by id", None, "Equal scores flipped order.", None,
         None, None, None, 1764235200000),
        (3, "m-1", None, "discovery", "", None, "", None, None, None, None, None),
    ])
    db.execute("INSERT INTO session_summaries VALUES (1, 'm-1', 'search', 'Make ranking stable', "
               "'ranking code', 'ties flip order', 'tie-break added', 'ship', NULL, NULL, 1764238800000)")
    db.commit()
    db.close()


def older(path):
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE sdk_sessions (id INTEGER PRIMARY KEY, claude_session_id TEXT, sdk_session_id TEXT,
            project TEXT, started_at TEXT);
        CREATE TABLE observations (id INTEGER PRIMARY KEY, sdk_session_id TEXT, text TEXT, type TEXT,
            created_at TEXT);
    """)
    db.execute("INSERT INTO sdk_sessions VALUES (1, 'cl-9', 'sdk-9', 'Apollo', '2025-10-01T08:00:00Z')")
    db.execute("INSERT INTO observations VALUES (1, 'sdk-9', 'Deploy script needs sudo.', 'discovery', NULL)")
    db.commit()
    db.close()


def test_newer_schema_imports_with_sessions_as_threads(tmp_path):
    path = tmp_path / "claude-mem.db"
    newer(path)
    mem = Memory.in_memory(extract=False)
    report = import_claude_mem(mem, path)
    assert report.rows == {"sdk_sessions": 1, "observations": 3, "session_summaries": 1}
    assert (report.created, report.duplicate, report.skipped) == (3, 0, 1)
    events = mem.events(thread="claude-mem:m-1", ascending=True)
    assert [(e.kind, e.scope, e.source.ref) for e in events] == [
        ("decision", "project:search", "observations:1"), ("bug", "project:search", "observations:2"),
        ("summary", "project:search", "session_summaries:1")]
    assert events[0].content == ("Use BM25 for lexical recall\nbm25s beats Kuzu FTS\nMeasured both on LoCoMo.\n"
                                 "bm25s is 3x faster\nrecall")
    assert events[0].occurred_at.at.isoformat() == "2025-11-27T09:10:00+00:00"
    assert events[2].content.startswith("Request: Make ranking stable\nInvestigated: ranking code")
    again = import_claude_mem(mem, path)
    assert (again.created, again.duplicate) == (0, 3)
    assert import_claude_mem(mem, path, verify=True).missing == []


def test_older_schema_adapts_and_verify_names_missing_rows(tmp_path):
    path = tmp_path / "old.db"
    older(path)
    mem = Memory.in_memory(extract=False)
    check = import_claude_mem(mem, path, verify=True)
    assert check.missing == ["observations:1"] and mem.stats().events == 0  # verify writes nothing
    report = import_claude_mem(mem, path)
    assert report.created == 1 and "no session_summaries table" in report.notes
    event = mem.events(limit=1)[0]
    assert (event.content, event.scope, event.thread) == ("Deploy script needs sudo.", "project:apollo",
                                                          "claude-mem:sdk-9")
    assert event.occurred_at.at.isoformat() == "2025-10-01T08:00:00+00:00"  # the session's start


def test_not_a_claude_mem_database(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(InvalidInput) as err:
        import_claude_mem(Memory.in_memory(), other)
    assert err.value.field == "path"
    garbage = tmp_path / "garbage.db"
    garbage.write_text("not sqlite")
    with pytest.raises(InvalidInput):
        import_claude_mem(Memory.in_memory(), garbage)


def test_the_command_line_imports_and_verifies(tmp_path):
    path = tmp_path / "claude-mem.db"
    newer(path)
    db = str(tmp_path / "m.kuzu")
    out = CliRunner().invoke(main, ["--db", db, "import-claude-mem", str(path)])
    assert out.exit_code == 0 and "3 created" in out.output
    verified = CliRunner().invoke(main, ["--db", db, "import-claude-mem", str(path), "--verify"])
    assert verified.exit_code == 0 and "every row is in memory" in verified.output
