"""The janitor: pins, TTL candidates (never removed), conflict events and warnings, secrets/PII masked."""

from __future__ import annotations

import datetime as dt

import pytest

from graphmem import InvalidInput, Memory
from graphmem.privacy import PrivacyPolicy
from tests.conftest import FakeClock


@pytest.fixture
def clock():
    return FakeClock(dt.datetime(2026, 2, 1, tzinfo=dt.UTC))


@pytest.fixture
def mem(clock):
    m = Memory.in_memory(extract=False, clock=clock, privacy=PrivacyPolicy(pii="allow"))
    m.record(content="The bot token lives in ~/bot/.env.local", kind="config", dedupe_key="token-location",
             confidence="high", occurred_at="2026-01-10")
    m.record(content="The bot token lives in ~/bot/.env", kind="config", dedupe_key="token-location",
             confidence="low", occurred_at="2026-01-12")
    m.record(content="Standup moved to 10:00 this week.", ttl_days=7, occurred_at="2026-01-12")
    m.record(content="Deploys freeze on Fridays.", kind="decision", dedupe_key="deploy-freeze", ttl_days=0,
             occurred_at="2026-01-05")
    return m


def test_pins_are_the_latest_per_key(mem):
    report = mem.janitor(dry_run=True)
    assert report.pins == 2
    assert report.pinned_md == (
        "## global\n- **deploy-freeze** (decision, 2026-01-05): Deploys freeze on Fridays.\n"
        "- **token-location** (config, 2026-01-12): The bot token lives in ~/bot/.env"
    )


def test_ttl_lists_candidates_and_never_deletes(mem, clock):
    assert mem.janitor(dry_run=True).ttl_candidates == []
    clock.start += dt.timedelta(days=8)
    before = mem.stats().events
    report = mem.janitor()
    assert [c.event.content for c in report.ttl_candidates] == ["Standup moved to 10:00 this week."]
    assert mem.get([report.ttl_candidates[0].event.id])  # still there
    assert mem.stats().events == before + 1  # only the conflict note was added


def test_an_expired_event_goes_only_after_a_person_approves(mem, clock):
    [standup] = [e for e in mem.events() if e.ttl_days == 7]
    with pytest.raises(InvalidInput) as early:  # not past its ttl yet
        mem.remove_events([standup.id], approved_by="alice", reason="stale")
    assert early.value.field == "event_ids"
    clock.start += dt.timedelta(days=8)
    for bad, field in (({"approved_by": " "}, "approved_by"), ({"reason": ""}, "reason")):
        with pytest.raises(InvalidInput) as refused:
            mem.remove_events([standup.id], **({"approved_by": "alice", "reason": "stale"} | bad))
        assert refused.value.field == field
    [freeze] = [e for e in mem.events() if e.dedupe_key == "deploy-freeze"]
    with pytest.raises(InvalidInput):  # ttl 0 keeps it forever, unless removed on purpose
        mem.remove_events([standup.id, freeze.id], approved_by="alice", reason="stale")
    assert mem.get([standup.id]) and mem.recall("standup moved")  # the refusals wrote nothing

    audit = mem.remove_events([standup.id], approved_by="alice", reason="the week is over")
    assert mem.get([standup.id]) == [] and not any(h.id == standup.id for h in mem.recall("standup moved"))
    assert mem.janitor(dry_run=True).ttl_candidates == []
    note = mem.get([audit.id])[0]
    assert note.kind == "audit" and "approval by alice: the week is over" in note.content
    assert standup.id in note.content and standup.content_hash[:16] in note.content
    assert "Standup" not in note.content  # what was removed is not copied into the audit
    mem.remove_events([freeze.id], approved_by="alice", reason="no longer a rule", only_expired=False)
    assert mem.get([freeze.id]) == []


def test_a_conflict_gets_one_resolution_event_and_a_warning(mem):
    report = mem.janitor()
    assert len(report.conflicts) == 1 and len(report.conflict_events) == 1
    assert report.warnings == [
        f"`token-location` (global): a lower-confidence version (0.30) overrides a higher one (0.90); "
        f"see {report.conflicts[0].winner.id}"
    ]
    note = mem.get(report.conflict_events)[0]
    assert note.kind == "conflict_resolution" and note.content.startswith("Conflict on `token-location` in global")
    assert "Replaced: \"The bot token lives in ~/bot/.env.local\"" in note.content
    again = mem.janitor()
    assert again.conflict_events == report.conflict_events  # the same conflict: nothing new
    assert len(mem.events(kinds=["conflict_resolution"])) == 1


def test_a_superseding_event_settles_a_conflict(mem):
    old = mem.events(kinds=["config"], until="2026-01-10")[0]
    mem.record(content="Withdrawn: the .env.local location is gone.", supersedes=old.id, occurred_at="2026-01-13")
    assert mem.janitor().conflicts == []


def test_personal_data_that_slipped_in_is_masked_and_audited(mem):
    leak = mem.record(content="Call Bob at bob@example.com about the launch.", occurred_at="2026-01-15")
    mem.privacy = PrivacyPolicy()  # the policy tightened after the event was written
    dry = mem.janitor(dry_run=True)
    assert dry.masked == [(leak.id, ("email",))] and dry.audit_event is None
    assert "bob@example.com" in mem.get([leak.id])[0].content
    report = mem.janitor()
    event = mem.get([leak.id])[0]
    assert event.content == "Call Bob at [REDACTED:email] about the launch." and event.redactions == ("email",)
    audit = mem.get([report.audit_event])[0]
    assert audit.kind == "audit" and leak.id in audit.content and "bob@example.com" not in audit.content
    assert [h.id for h in mem.recall("example.com", k=5, preset="lexical") if h.id == leak.id] == []
    assert [h.id for h in mem.recall("launch", k=5)][0] == leak.id
    assert mem.janitor().masked == []


def test_allowed_personal_data_stays_but_secrets_never_do(mem):
    mem.record(content="Ann's number is +1 415 555 0134.", occurred_at="2026-01-15")
    assert mem.janitor(dry_run=True).masked == []
