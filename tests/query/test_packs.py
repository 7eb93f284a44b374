"""Pins, snapshots, resume packs and session summaries, through Memory."""

from __future__ import annotations

import pytest

from graphmem import Memory
from graphmem.errors import InvalidInput, NotFound
from graphmem.query.packs import SnapshotRequest, approx_tokens


@pytest.fixture
def mem() -> Memory:
    m = Memory.in_memory(extract=False)
    m.record(content="Deploys freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze",
             occurred_at="2025-11-20")
    m.record(content="The bot token lives in .env.local", kind="config", dedupe_key="token-location",
             occurred_at="2025-11-21", scope="project:bot", confidence="high")
    m.record(content="The bot token lives in .env", kind="config", dedupe_key="token-location",
             occurred_at="2025-11-22", scope="project:bot", confidence="low")
    return m


def test_pins_keep_the_latest_event_per_key_and_scope(mem: Memory) -> None:
    snap = mem.snapshot(scopes=["global", "project:bot"])
    assert [(p.scope, p.key, p.event.content) for p in snap.pins] == [
        ("global", "deploy-freeze", "Deploys freeze on Fridays."),
        ("project:bot", "token-location", "The bot token lives in .env"),
    ]
    older = mem.events(scopes=["project:bot"], until="2025-11-21")[0]
    assert snap.pins[1].replaced == (older.id,)
    assert snap.pinned_md == (
        "## global\n- **deploy-freeze** (decision, 2025-11-20): Deploys freeze on Fridays.\n"
        "## project:bot\n- **token-location** (config, 2025-11-22): The bot token lives in .env"
    )
    assert snap.ruleset_stamp.startswith("GRAPHMEM_RULESET=v1;ontology=v1+")


def test_a_superseded_event_is_neither_pinned_nor_recent(mem: Memory) -> None:
    old = mem.record(content="Releases go out on Tuesdays.", kind="decision", dedupe_key="release-day",
                     occurred_at="2025-11-23")
    mem.record(content="Releases now go out on Thursdays.", kind="decision", occurred_at="2025-11-24",
               supersedes=old.id)
    snap = mem.snapshot()
    assert "release-day" not in {p.key for p in snap.pins}
    assert old.id not in {e.id for e in snap.recent}
    assert snap.recent[0].content == "Releases now go out on Thursdays."


def test_scopes_default_to_global_and_the_agents_own(mem: Memory) -> None:
    mem.record(content="Claude's scratch note.", scope="agent:claude", dedupe_key="scratch", occurred_at="2025-11-23")
    assert {p.scope for p in mem.snapshot().pins} == {"global"}
    assert {p.scope for p in mem.snapshot(agent_id="claude").pins} == {"global", "agent:claude"}


def test_private_events_need_include_private(mem: Memory) -> None:
    mem.record(content="Sam's salary band is L5.", privacy=["private"], dedupe_key="salary", occurred_at="2025-11-23")
    assert "salary" not in {p.key for p in mem.snapshot().pins}
    assert "salary" in {p.key for p in mem.snapshot(include_private=True).pins}


def test_a_snapshot_id_reads_the_same_snapshot_after_later_writes(mem: Memory) -> None:
    first = mem.snapshot(scopes=["global", "project:bot"], limit_recent=5)
    mem.record(content="Deploys may happen on Fridays after all.", kind="decision", dedupe_key="deploy-freeze",
               occurred_at="2025-11-25")
    again = mem.snapshot(snapshot_id=first.id)
    assert again.id == first.id
    assert again.pinned_md == first.pinned_md
    assert [e.id for e in again.recent] == [e.id for e in first.recent]
    assert "after all" in mem.snapshot(scopes=["global"]).pinned_md


def test_snapshot_input_errors_name_the_field(mem: Memory) -> None:
    for bad in ("nope", "snap1-!!!", "snap1-" + "e30"):
        with pytest.raises(InvalidInput) as err:
            mem.snapshot(snapshot_id=bad)
        assert err.value.field == "snapshot_id"
    with pytest.raises(InvalidInput) as err:
        mem.snapshot(scopes=["team"])
    assert err.value.field == "scopes"
    with pytest.raises(InvalidInput) as err:
        mem.snapshot(limit_recent=-1)
    assert err.value.field == "limit_recent"


def test_snapshot_request_round_trips_through_its_id() -> None:
    import datetime as dt

    request = SnapshotRequest(scopes=("global", "project:x"), limit_recent=7, include_private=True,
                              known_at=dt.datetime(2025, 11, 27, 8, 30, 1, 123456, tzinfo=dt.UTC), agent_id="codex")
    assert SnapshotRequest.from_id(request.id) == request


def test_approx_tokens_counts_cjk_characters_one_each() -> None:
    assert approx_tokens("") == 0
    assert approx_tokens("abcd") == 1
    assert approx_tokens("abcde") == 2
    assert approx_tokens("先週の会議") == 5


@pytest.fixture
def session_mem(mem: Memory) -> Memory:
    mem.record(content="Session started on the Retain parser.", thread="claude:s-1", scope="project:bot",
               occurred_at="2025-11-23T10:00")
    mem.checkpoint("s-1", "Parser done", "The Retain parser passes its tests.", scope="project:bot",
                   occurred_at="2025-11-23T11:00")
    mem.record(content="Ship the parser on Monday.", kind="decision", thread="claude:s-1", scope="project:bot",
               occurred_at="2025-11-23T12:00")
    mem.assert_state(subject="bot", predicate="todo", object="write the release notes",
                     valid_from="2025-11-23", scope="project:bot")
    return mem


def test_a_checkpoint_joins_the_sessions_thread(session_mem: Memory) -> None:
    found = session_mem.events(thread="claude:s-1", kinds=["checkpoint"])
    assert [e.content for e in found] == ["Parser done\n\nThe Retain parser passes its tests."]
    with pytest.raises(InvalidInput) as err:
        session_mem.checkpoint("s-1", " ", "x")
    assert err.value.field == "title"


def test_finalize_writes_one_deterministic_summary(session_mem: Memory) -> None:
    first = session_mem.finalize_session("s-1")
    assert first.status == "created"
    summary = session_mem.get([first.id])[0]
    assert (summary.kind, summary.thread, summary.scope) == ("summary", "claude:s-1", "project:bot")
    assert summary.content == (
        "Session claude:s-1: 3 events from 2025-11-23 10:00 to 2025-11-23 12:00 UTC "
        "(checkpoint 1, decision 1, observation 1).\n\nCheckpoints:\n- 2025-11-23 Parser done\n\n"
        "Decisions and notes:\n- [decision] Ship the parser on Monday.\n\nLast: Ship the parser on Monday."
    )
    assert session_mem.finalize_session("claude:s-1").status == "duplicate"
    session_mem.record(content="Parser shipped.", thread="claude:s-1", scope="project:bot",
                       occurred_at="2025-11-24T09:00")
    second = session_mem.finalize_session("s-1")
    assert second.status == "created"
    assert session_mem.get([second.id])[0].supersedes == first.id


def test_finalize_errors(session_mem: Memory) -> None:
    with pytest.raises(NotFound) as err:
        session_mem.finalize_session("s-404")
    assert err.value.field == "session"
    session_mem.record(content="other", thread="codex:s-1", occurred_at="2025-11-23")
    with pytest.raises(InvalidInput, match="ambiguous"):
        session_mem.finalize_session("s-1")


def test_resume_pack_fits_the_budget_in_priority_order(session_mem: Memory) -> None:
    session_mem.finalize_session("s-1")
    full = session_mem.resume_pack("bot", session="claude:s-1", token_budget=4000)
    assert full.sections == ("pinned", "session", "open_tasks", "recent")
    assert full.dropped == 0
    assert [i.section for i in full.items] == sorted(
        (i.section for i in full.items), key=["pinned", "session", "open_tasks", "recent"].index)
    assert "- [ ] write the release notes (since 2025-11-23)" in full.markdown
    assert full.markdown.startswith("# Resume: project bot, session claude:s-1\n\n## Pinned\n")
    for budget in (60, 120, 250):
        pack = session_mem.resume_pack("bot", session="s-1", token_budget=budget)
        assert pack.tokens <= budget
        assert approx_tokens(pack.markdown) == pack.tokens
        assert pack.dropped > 0
        assert len(pack.items) + pack.dropped == len(full.items)
    small = session_mem.resume_pack("bot", session="s-1", token_budget=60)
    assert {i.section for i in small.items} <= {"pinned"}
    with pytest.raises(InvalidInput) as err:
        session_mem.resume_pack("bot", token_budget=10)
    assert err.value.field == "token_budget"


def test_a_resume_pack_lists_open_tasks_however_many_are_done(mem: Memory, monkeypatch) -> None:
    from graphmem import memory as memory_module

    monkeypatch.setattr(memory_module, "MAX_PAGE", 2)  # (a page of tasks: the done ones take no place in it)
    done = [mem.assert_state("Aiko", "todo", f"step {i}", valid_from=f"2025-11-0{i + 1}", scope="project:bot")
            for i in range(3)]
    for task in done:
        mem.mark_done(task.id, at="2025-11-10")
    mem.assert_state("Aiko", "todo", "ship the bot", valid_from="2025-11-20", scope="project:bot")
    pack = mem.resume_pack(project="bot", limit_recent=2)
    assert [i.text for i in pack.items if i.section == "open_tasks"] == [
        "- [ ] ship the bot (since 2025-11-20)"]
