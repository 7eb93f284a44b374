"""Session transcripts through ``graphmem ingest-sessions`` and :func:`tail_sessions`: offsets survive a restart,
a half-written last line waits, nothing is recorded twice."""

from __future__ import annotations

import json

from click.testing import CliRunner

from graphmem import Memory
from graphmem.cli.main import main
from graphmem.io import tail_sessions


def rollout_lines(session="abc-123", cwd="/home/dev/search-svc"):
    def item(ts, payload, kind="response_item"):
        return {"timestamp": f"2026-02-02T10:00:{ts:02d}Z", "type": kind, "payload": payload}

    def message(role, text, part):
        return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}

    return [
        item(0, {"id": session, "cwd": cwd}, "session_meta"),
        item(1, message("user", "<environment_context>cwd</environment_context>", "input_text")),
        item(2, message("user", "Cut p95 search latency below 50 ms; Lena owns the ranking path.", "input_text")),
        item(3, {"type": "reasoning", "summary": []}),
        item(4, {"type": "function_call", "name": "shell", "arguments": '{"command": ["rg", "rank"]}',
                 "call_id": "c1"}),
        item(5, {"type": "function_call_output", "call_id": "c1", "output": "ranking.py"}),
        item(6, {"type": "agent_message", "message": "echo of the reply"}, "event_msg"),
        item(7, message("assistant", "Ranking re-reads event rows; a per-request cache fixes it.", "output_text")),
    ]


def write(path, lines, tail=""):
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail)


def test_a_rollout_becomes_a_session_of_its_project(tmp_path):
    write(tmp_path / "rollout-1.jsonl", rollout_lines())
    mem = Memory.in_memory(embedder="none")
    report = tail_sessions(mem, [tmp_path])
    assert (report.lines, report.created, report.skipped, report.errors) == (8, 3, 5, [])
    events = mem.events(limit=10)
    assert [(e.tags, e.source.ref) for e in events] == [
        (("assistant",), "rollout-1.jsonl#L8"), (("tool_use",), "rollout-1.jsonl#L5"),
        (("user", "speaker:user"), "rollout-1.jsonl#L3")]
    assert {e.thread for e in events} == {"codex:abc-123"} and {e.scope for e in events} == {"project:search-svc"}
    assert str(events[0].occurred_at.at) == "2026-02-02 10:00:07+00:00"
    assert mem.session_key("abc-123") == "codex:abc-123"
    pack = mem.resume_pack(project="search-svc", session="abc-123")
    assert "per-request cache" in pack.markdown


def test_what_the_user_says_of_themselves_is_about_the_user(tmp_path):
    """"I" in a user's message is the user (the tag ``speaker:user``): where they live, what they like, who
    their kin are; what the assistant says of itself is no one's state."""
    write(tmp_path / "chat.jsonl", [
        {"role": "user", "timestamp": "2026-02-02T10:00:00Z", "session_id": "s-1",
         "content": "I just moved to Seattle and I love hiking. My sister Anna lives in Portland."},
        {"role": "assistant", "timestamp": "2026-02-02T10:00:05Z", "session_id": "s-1",
         "content": "I love that! I live in the cloud."}])
    with Memory.in_memory(embedder="none") as mem:
        tail_sessions(mem, [tmp_path])
        held = {(s.subject, s.predicate, s.object) for s in mem.as_of("2026-02-03").states()}
        assert held == {("user", "lives_in", "Seattle"), ("user", "likes", "hiking"),
                        ("Anna", "family_of", "user"), ("Anna", "lives_in", "Portland")}
        assert [(p.predicate, p.object) for p in mem.preferences("user")] == [("likes", "hiking")]


def test_restart_resumes_at_the_offset_and_a_half_written_line_waits(tmp_path):
    path = tmp_path / "chat.jsonl"
    db = str(tmp_path / "m.kuzu")
    chat = [{"role": "user", "content": f"message {i} about the search index", "id": f"m{i}",
             "timestamp": f"2026-02-03T09:{i:02d}:00Z"} for i in range(5)]
    write(path, chat[:3], tail='{"role": "user", "content": "message 3 about')
    mem = Memory.open(db, embedder="none")
    first = tail_sessions(mem, [path])
    assert (first.lines, first.created, first.waiting) == (3, 3, [str(path)])
    mem.close()  # a restart
    with path.open("a") as handle:
        handle.write(' the search index", "id": "m3", "timestamp": "2026-02-03T09:03:00Z"}\n')
        handle.write(json.dumps(chat[4]) + "\nthis is not json\n")
    mem = Memory.open(db, embedder="none")
    second = tail_sessions(mem, [path])
    assert (second.lines, second.created, second.held, second.waiting) == (3, 2, 0, [])
    assert second.errors == [{"path": str(path), "line": 6, "message": "not JSON: Expecting value"}]
    contents = sorted(e.content for e in mem.events(limit=20))
    assert contents == [f"message {i} about the search index" for i in range(5)]
    assert {e.source.message_id for e in mem.events(limit=20)} == {f"m{i}" for i in range(5)}
    assert tail_sessions(mem, [path]).lines == 0
    mem.close()


def test_a_crash_between_events_and_cursor_replays_without_duplicates(tmp_path):
    path = tmp_path / "chat.jsonl"
    write(path, [{"role": "assistant", "content": f"reply {i}"} for i in range(4)])
    mem = Memory.in_memory(embedder="none")
    tail_sessions(mem, [path])
    mem.save_cursors([])  # nothing
    for cursor in mem.cursors("sessions:"):  # the cursor is lost: as if the process died before saving it
        mem.save_cursors([type(cursor)(key=cursor.key, digest="", offset=0, line=0, updated_at=cursor.updated_at)])
    again = tail_sessions(mem, [path])
    assert again.restarted == [str(path.resolve())] and (again.created, again.held) == (0, 4)
    assert len(mem.events(limit=20)) == 4


def test_cli_reports_and_json(tmp_path):
    write(tmp_path / "rollout-1.jsonl", rollout_lines())
    db = str(tmp_path / "m.kuzu")
    out = CliRunner().invoke(main, ["--db", db, "ingest-sessions", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("1 files, 8 new lines: 3 events created")
    again = CliRunner().invoke(main, ["--db", db, "--json", "ingest-sessions", str(tmp_path)])
    assert json.loads(again.output)["lines"] == 0
    missing = CliRunner().invoke(main, ["--db", db, "ingest-sessions", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2
