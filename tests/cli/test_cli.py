"""The command line against a real database file (click's runner, in process)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.cli.main import main


@pytest.fixture
def run(tmp_path):
    db = str(tmp_path / "cli.kuzu")

    def invoke(*args):
        return CliRunner().invoke(main, ["--db", db, *args], catch_exceptions=False)

    invoke.db = db
    return invoke


def test_record_assert_and_ask(run):
    out = run("--json", "record", "Peter moved to Marrakesh.", "--occurred-at", "2025-11-27", "--entity", "Peter")
    event_id = json.loads(out.output)["id"]
    assert run("assert", "Peter", "lives_in", "Berlin", "--from", "2020").exit_code == 0
    assert run("assert", "Peter", "lives_in", "Marrakesh", "--from", "2025-11-27", "--evidence", event_id).exit_code == 0
    out = run("asof", "Nov 2025", "--entity", "Peter")
    assert "Marrakesh" in out.output and "Berlin" not in out.output
    states = json.loads(run("--json", "asof", "2025-11-01", "--entity", "Peter").output)
    assert [s["object"] for s in states] == ["Berlin"]
    timeline = json.loads(run("--json", "timeline", "Peter", "--predicate", "lives_in").output)
    assert [(s["object"], s["status"]) for s in timeline] == [("Berlin", "superseded"), ("Marrakesh", "active")]
    during = run("during", "Nov 2025", "--entity", "Peter").output
    assert "Berlin" in during and "Marrakesh" in during and "(partly)" in during
    entity = json.loads(run("--json", "entity", "peter").output)
    assert entity["entity"]["name"] == "Peter" and len(entity["recent_events"]) == 1
    assert json.loads(run("--json", "stats").output)["events"] == 1


def test_times_as_people_write_them_relative_to_now(run):
    assert run("assert", "Peter", "lives_in", "Berlin", "--from", "2020").exit_code == 0
    assert "Berlin" in run("asof", "last week", "--entity", "Peter").output
    during = run("during", "last summer", "--entity", "Peter").output
    assert "Berlin" in during and "(throughout)" in during, during
    ranged = run("during", "between May and July 2024", "--entity", "Peter").output
    assert "Berlin" in ranged and "(throughout)" in ranged, ranged
    refused = run("asof", "from May to July 2024")  # as of a range: no one time
    assert refused.exit_code == 2 and "when 'from May to July 2024' is a range expression" in refused.output


def test_a_state_row_shows_the_title_its_words_gave_the_tie(run):
    said = "Peter's sister Anna adopted a pup named Ned."
    assert run("record", said, "--occurred-at", "2025-11-27").exit_code == 0
    rows = run("asof", "2025-11-30", "--entity", "Anna").output
    assert "family_of  Peter · as sister" in rows and "owns       Ned (pup)" in rows, rows


def test_errors_are_one_line_with_the_code_and_exit_2(tmp_path):
    out = CliRunner().invoke(main, ["--db", str(tmp_path / "x.kuzu"), "assert", "Peter", "lives_at", "Paris"])
    assert out.exit_code == 2
    assert "unknown_predicate" in out.output and "lives_in" in out.output


def _last_json(output):
    start = output.rindex("{")
    return json.loads(output[start:])


def test_ingest_counts_then_replays(run, tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(json.dumps({"content": f"event {i}"}) for i in range(12)) + "\n")
    assert _last_json(run("--json", "ingest", str(path)).output) == {"created": 12, "duplicate": 0, "dropped": 0}
    assert _last_json(run("--json", "ingest", str(path)).output) == {"created": 0, "duplicate": 12, "dropped": 0}


def test_ingest_stops_at_a_bad_line(run, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"content": "fine"}\n{"content": "bad", "scope": "nope"}\n')
    out = CliRunner().invoke(main, ["--db", str(tmp_path / "b.kuzu"), "ingest", str(path)])
    assert out.exit_code == 2 and "scope" in out.output
    assert json.loads(run("--json", "stats").output)["events"] == 0


@pytest.mark.parametrize(("args", "said"), [
    (["ingest", "--batch-size", "0", "{file}"], "'--batch-size': 0 is not in the range x>=1"),
    (["serve", "--port", "99999"], "'--port': 99999 is not in the range 1<=x<=65535"),
    (["watch", "{dir}", "--rounds", "-3"], "'--rounds': -3 is not in the range x>=1"),
    (["watch", "{dir}", "--interval", "-1"], "'--interval': -1.0 is not in the range x>=0"),
])
def test_a_number_out_of_range_is_refused_naming_its_option(tmp_path, args, said):
    path = tmp_path / "e.jsonl"
    path.write_text('{"content": "fine"}\n')
    args = [a.format(file=path, dir=tmp_path) for a in args]
    out = CliRunner().invoke(main, ["--db", str(tmp_path / "b.kuzu"), *args])
    assert out.exit_code == 2 and said in out.output and not (tmp_path / "b.kuzu").exists()


@pytest.mark.parametrize("batch", ["500", "1"])
def test_a_bad_event_is_reported_at_its_line_of_the_file(tmp_path, batch):
    """The file's line, blank lines counted, and the field: not the event's place in its batch."""
    path = tmp_path / "bad.jsonl"
    path.write_text('{"content": "fine"}\n\n{"content": "bad", "occurred_at": "2025-02-30"}\n')
    db = str(tmp_path / "b.kuzu")
    out = CliRunner().invoke(main, ["--db", db, "--json", "ingest", "--batch-size", batch, str(path)])
    error = json.loads(out.stderr.splitlines()[-1])["error"]  # (after the progress bar)
    assert out.exit_code == 2 and error["field"] == "line 3.occurred_at"
    assert error["message"].startswith(f"line 3 of {path}: cannot read time '2025-02-30' in 'occurred_at'")


def test_demo_answers_the_sample_questions(run):
    out = run("demo")
    assert out.exit_code == 0
    assert "Q: Where did Peter live in Nov 2025?" in out.output and "Marrakesh" in out.output


def test_recall_and_reindex_from_the_command_line(run):
    run("record", "Peter moved to Marrakesh.", "--occurred-at", "2025-11-27", "--source-ref", "notes.md#L3")
    run("record", "The budget review is on Friday.", "--source-ref", "notes.md#L4")
    hits = json.loads(run("--json", "recall", "Where did Peter move?", "--k", "5").output)
    assert hits[0]["refs"] == ["notes.md#L3"]  # Peter's state (its evidence is the event) or the event itself
    assert any(h["type"] == "event" and h["refs"] == ["notes.md#L3"] and h["parts"]["lexical"] == 1.0 for h in hits)
    assert "notes.md#L3" in run("recall", "Marrakesh").output
    assert json.loads(run("--json", "recall", "Marrakesh", "--since", "2026-01-01").output) == []
    status = json.loads(run("--json", "reindex").output)
    assert status["documents"] >= 2
    assert json.loads(run("--json", "stats").output)["index"]["documents"] == status["documents"]


def test_recall_with_a_bad_window_names_the_field(run):
    out = CliRunner().invoke(main, ["--db", run.db, "recall", "x", "--since", "whenever it was"])
    assert out.exit_code == 2 and "since" in out.output


def test_retain_reads_a_daily_log_once(run, tmp_path):
    log = tmp_path / "2025-11-27.md"
    log.write_text("# day\n## Retain\n- W @Peter: moved to Marrakesh.\n- O(c=0.8) @Peter: will love it there.\n")
    before = log.read_text()
    assert json.loads(run("--json", "retain", str(log)).output) == {"created": 2, "duplicate": 0, "dropped": 0,
                                                                    "opinions": 1}
    assert json.loads(run("--json", "retain", str(log)).output)["duplicate"] == 2
    assert log.read_text() == before  # the log is only read
    log.write_text("## Retain\n- went out\n")
    bad = run("retain", str(log))
    assert bad.exit_code != 0 and "line 2" in bad.output


def test_sessions_snapshot_and_resume_from_the_command_line(run):
    run("record", "Token lives in ~/bot/.env", "--kind", "config", "--dedupe-key", "token-location",
        "--occurred-at", "2025-11-27")
    run("record", "Started on the parser.", "--thread", "claude:s-1", "--occurred-at", "2025-11-28T09:00")
    out = run("--json", "checkpoint", "s-1", "Parser done", "It passes its tests.")
    assert json.loads(out.output)["status"] == "created"
    final = json.loads(run("--json", "finalize", "s-1").output)
    assert final["status"] == "created" and final["summary"].startswith("Session claude:s-1: 2 events")
    assert json.loads(run("--json", "finalize", "claude:s-1").output)["status"] == "duplicate"
    snap = json.loads(run("--json", "snapshot", "--limit-recent", "2").output)
    assert "**token-location** (config, 2025-11-27)" in snap["pinned_md"]
    assert len(snap["recent_events"]) == 2
    again = json.loads(run("--json", "snapshot", "--id", snap["snapshot_id"]).output)
    assert again == snap
    pack = run("resume", "--session", "s-1", "--budget", "120").output
    assert pack.startswith("# Resume: session claude:s-1\n") and "tokens" in pack.splitlines()[-1]
    bad = CliRunner().invoke(main, ["--db", run.db, "snapshot", "--id", "snap1-x"])
    assert bad.exit_code == 2 and "snapshot_id" in bad.output


def test_reflect_writes_pages_once(run, tmp_path):
    run("record", "Peter moved to Marrakesh.", "--occurred-at", "2025-11-27", "--entity", "Peter")
    run("assert", "Peter", "lives_in", "Marrakesh", "--from", "2025-11-27")
    out = json.loads(run("--json", "reflect", "--out", str(tmp_path)).output)
    assert sorted(Path(p).name for p in out["written"]) == ["Marrakesh.md", "Peter.md", "opinions.md"]
    assert json.loads(run("--json", "reflect", "--out", str(tmp_path)).output)["written"] == []
    page = (tmp_path / "bank" / "entities" / "Peter.md").read_text()
    assert "- **lives in** Marrakesh · since 2025-11-27" in page
    assert run("page", "Peter").output == page


def test_maintenance_commands_report(run):
    run("record", "Token at .env.local", "--kind", "config", "--dedupe-key", "token", "--occurred-at", "2026-01-01")
    run("record", "Token at .env", "--kind", "config", "--dedupe-key", "token", "--occurred-at", "2026-01-02")
    tidy = json.loads(run("--json", "tidy", "--dry-run").output)
    assert tidy["closed"] == [] and tidy["dry_run"] is True
    assert json.loads(run("--json", "promote").output) == {"candidates": [], "held_back": []}
    dry = run("janitor", "--dry-run").output
    assert "**token** (config, 2026-01-02): Token at .env" in dry and "conflicts: 1" in dry
    report = json.loads(run("--json", "janitor").output)
    assert len(report["conflict_events"]) == 1 and report["warnings"][0].startswith("`token` (global)")
    event_id = json.loads(run("--json", "record", "Token at .env", "--kind", "config", "--dedupe-key", "token",
                              "--occurred-at", "2026-01-02").output)["id"]  # a replay: the same id
    refused = run("remove-events", event_id, "--approved-by", "alice", "--reason", "rotated")
    assert refused.exit_code == 2 and "ttl_days" in refused.output  # kept forever unless said otherwise
    out = json.loads(run("--json", "remove-events", event_id, "--approved-by", "alice", "--reason", "rotated",
                         "--not-expired").output)
    assert out["removed"] == [event_id] and out["audit_event"].startswith("ev")
    assert json.loads(run("--json", "stats").output)["events"] == 3  # 2 written + conflict note + audit - 1


def test_alias_and_merge_from_the_command_line(run):
    assert run("assert", "Peter Smith", "lives_in", "Paris", "--from", "2023").exit_code == 0
    assert run("assert", "Pete", "lives_in", "Lisbon", "--from", "2024-03-01").exit_code == 0
    out = run("alias", "Peter Smith", "P. Smith")
    assert out.exit_code == 0 and "also P. Smith" in out.output
    assert run("assert", "Peter", "lives_in", "Rome", "--from", "2020").exit_code == 0
    candidates = json.loads(run("--json", "merge-candidates").output)
    pairs = {(c["keep"]["id"], c["merge"]["id"]): c["reason"] for c in candidates}
    # 0.8 alike; a first name; a short form of one
    assert set(pairs) == {("peter", "pete"), ("peter-smith", "peter"), ("peter-smith", "pete")}
    out = run("merge", "Peter Smith", "Pete", "--reason", "same person")
    assert out.exit_code == 0 and "merged Pete (pete) into Peter Smith (peter-smith): 1 states moved" in out.output
    timeline = json.loads(run("--json", "timeline", "Pete", "--predicate", "lives_in").output)
    assert [(s["object"], s["status"]) for s in timeline] == [("Paris", "superseded"), ("Lisbon", "active")]
    again = run("merge", "Peter Smith", "Pete")
    assert again.exit_code == 2 and "merge" in again.output


def test_backup_copies_the_database_and_refuses_a_file_that_exists(run, tmp_path):
    run("record", "Peter moved to Marrakesh.", "--occurred-at", "2025-11-27")
    dest = tmp_path / "backup.kuzu"
    copy = json.loads(run("--json", "backup", str(dest)).output)
    assert copy["events"] == 1 and copy["path"] == str(dest) and copy["bytes"] == dest.stat().st_size
    again = run("backup", str(dest))
    assert again.exit_code == 2 and "exists already" in again.output
    restored = CliRunner().invoke(main, ["--db", str(dest), "--json", "stats"], catch_exceptions=False)
    assert json.loads(restored.output)["events"] == 1


def test_help_shows_the_examples_one_a_line():
    shown = CliRunner().invoke(main, ["--help"]).output
    assert "\n      graphmem stats\n" in shown and "``" not in shown and ":class:" not in shown, shown
