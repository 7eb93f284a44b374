"""``graphmem``: the command line. Every command opens a :class:`~graphmem.Memory` and calls one method.

Examples::

    graphmem --db memory.kuzu init
    graphmem record "Peter moved to Marrakesh." --occurred-at 2025-11-27 --agent claude
    graphmem assert Peter lives_in Marrakesh --from 2025-11-27 --evidence ev_...
    graphmem asof "Nov 2025" --entity Peter
    graphmem during "Nov 2025" --entity Peter
    graphmem timeline Peter --predicate lives_in
    graphmem entity Peter --json
    graphmem ingest events.jsonl
    graphmem stats
    graphmem snapshot --scope global --scope project:search
    graphmem resume --project search --budget 800
    graphmem reflect --since 7d --out ~/notes
    graphmem tidy --dry-run; graphmem promote; graphmem janitor --dry-run
    graphmem serve --port 8765 --tokens tokens.yaml
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from graphmem.cli.render import state_rows, table, to_json
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.io import (
    BackupSchedule,
    TailReport,
    WorkspaceReport,
    import_claude_mem,
    ingest_workspace,
    tail_sessions,
)
from graphmem.memory import Memory
from graphmem.query.packs import event_line
from graphmem.samples import load_sample, sample_workspace
from graphmem.settings import Settings

__all__ = ["main"]

F = TypeVar("F", bound=Callable[..., Any])
INGEST_BATCH = 5000  # events a transaction: a batch commit costs ~0.1-0.8 s whatever its size (the engine checkpoints)


class Context:
    def __init__(self, settings: Settings, as_json: bool) -> None:
        self.settings = settings
        self.as_json = as_json
        self._memory: Memory | None = None

    def memory(self) -> Memory:
        if self._memory is None:
            self._memory = Memory.open(self.settings.db, **self.settings.memory_options)
        return self._memory

    def emit(self, value: Any, text: str) -> None:
        click.echo(to_json(value) if self.as_json else text)

    def release(self) -> None:
        """Hand the open memory over to its new owner (the server): this context no longer closes it."""
        self._memory = None

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()


def _errors(fn: F) -> F:
    """Errors become a one-line message (or JSON with --json) and exit code 2; nothing is written."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GraphmemError as exc:
            ctx = click.get_current_context().find_object(Context)
            if ctx is not None and ctx.as_json:
                click.echo(json.dumps({"error": exc.to_dict()}, ensure_ascii=False), err=True)
            else:
                click.echo(f"error [{exc.code}]: {exc.message}", err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


# the module's text, without its markup; "\b" keeps the examples' lines as written (click rewraps the rest)
_HELP = (__doc__ or "").replace("``", "").replace(":class:`~graphmem.Memory`", "memory").replace(
    "Examples::\n\n", "Examples:\n\n\b\n")


@click.group(help=_HELP)
@click.option("--db", envvar="GRAPHMEM_DB", default=None, help="Database file (default memory.kuzu).")
@click.option("--timezone", envvar="GRAPHMEM_TIMEZONE", default=None, help="Timezone of naive input times.")
@click.option("--ontology", envvar="GRAPHMEM_ONTOLOGY", default=None, help="Your own vocabulary file (YAML).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.pass_context
def main(ctx: click.Context, db: str | None, timezone: str | None, ontology: str | None, as_json: bool) -> None:
    settings = Settings.from_env(db=db, timezone=timezone, ontology=ontology)
    ctx.obj = Context(settings, as_json)
    ctx.call_on_close(ctx.obj.close)


pass_ctx = click.make_pass_decorator(Context)


@main.command()
@pass_ctx
@_errors
def init(ctx: Context) -> None:
    """Create the database (or open an existing one) and show what it holds.

    Example: graphmem --db memory.kuzu init
    """
    stats = ctx.memory().stats()
    ctx.emit(stats, f"memory ready at {stats.path} ({stats.engine}); {stats.events} events, {stats.states} states")


@main.command()
@click.argument("dest", type=click.Path(path_type=Path))
@pass_ctx
@_errors
def backup(ctx: Context, dest: Path) -> None:
    """Copy the database, with every write acknowledged so far, to the new file DEST (writes wait meanwhile).

    A database the engine cannot open again (its process was killed while it checkpointed) is replaced by
    its latest backup. Example: graphmem --db memory.kuzu backup backups/memory-2025-11-27.kuzu
    """
    copy = ctx.memory().backup(dest)
    ctx.emit(copy, f"backed up {copy.events} events to {copy.path} "
                   f"({copy.bytes / 2**20:,.1f} MB, {copy.seconds:.2f} s)")


@main.command()
@click.argument("content")
@click.option("--occurred-at", help="When it happened (default: now).")
@click.option("--agent", "agent_id", default="cli", show_default=True)
@click.option("--scope", default="global", show_default=True)
@click.option("--kind", default="observation", show_default=True)
@click.option("--thread")
@click.option("--tag", "tags", multiple=True)
@click.option("--privacy", multiple=True, help="no_mem, block, redact, mask, private, sensitive")
@click.option("--entity", "entities", multiple=True, help="An entity the event mentions.")
@click.option("--dedupe-key")
@click.option("--source-ref", help="Where it came from, e.g. memory/2025-11-27.md#L12.")
@pass_ctx
@_errors
def record(ctx: Context, content: str, occurred_at: str | None, agent_id: str, scope: str, kind: str,
           thread: str | None, tags: tuple[str, ...], privacy: tuple[str, ...], entities: tuple[str, ...],
           dedupe_key: str | None, source_ref: str | None) -> None:
    """Record one event.

    Example: graphmem record "Peter moved to Marrakesh." --occurred-at 2025-11-27 --entity Peter
    """
    result = ctx.memory().record(
        content, occurred_at=occurred_at, agent_id=agent_id, scope=scope, kind=kind, thread=thread, tags=tags,
        privacy=privacy, entities=entities, dedupe_key=dedupe_key, source={"system": "cli", "ref": source_ref},
    )
    ctx.emit(result, f"{result.status}: {result.id or '(not stored)'}")


@main.command(name="assert")
@click.argument("subject")
@click.argument("predicate")
@click.argument("object")
@click.option("--from", "valid_from", help="Start of validity (open when left out).")
@click.option("--to", "valid_to", help="Stated end of validity.")
@click.option("--evidence", multiple=True, help="Id of an event that supports it.")
@click.option("--confidence", default="1.0", show_default=True)
@pass_ctx
@_errors
def assert_(ctx: Context, subject: str, predicate: str, object: str, valid_from: str | None,
            valid_to: str | None, evidence: tuple[str, ...], confidence: str) -> None:
    """Assert a state: SUBJECT PREDICATE OBJECT.

    Example: graphmem assert Peter lives_in Marrakesh --from 2025-11-27
    """
    state = ctx.memory().assert_state(subject, predicate, object, valid_from=valid_from, valid_to=valid_to,
                                      evidence=evidence, confidence=confidence)
    ctx.emit(state, f"{state.id}: {state.text} {state.status.value}")


@main.command()
@click.argument("state_id")
@click.option("--at", "valid_to", required=True, help="When it stopped holding.")
@click.option("--reason", default="closed", show_default=True)
@pass_ctx
@_errors
def close(ctx: Context, state_id: str, valid_to: str, reason: str) -> None:
    """End a state at a time.

    Example: graphmem close st_1234 --at "2026-03" --reason "left Acme"
    """
    state = ctx.memory().close_state(state_id, valid_to=valid_to, reason=reason)
    ctx.emit(state, f"{state.id}: {state.status.value}")


@main.command()
@click.argument("state_id")
@click.option("--reason", required=True)
@pass_ctx
@_errors
def retract(ctx: Context, state_id: str, reason: str) -> None:
    """Withdraw a wrong state (its history stays).

    Example: graphmem retract st_1234 --reason "typo: it was Madrid"
    """
    state = ctx.memory().retract_state(state_id, reason=reason)
    ctx.emit(state, f"{state.id}: {state.status.value}")


def _batches(path: Path, size: int) -> Iterator[tuple[list[int], list[dict[str, Any]]]]:
    """The file's events, ``size`` at a time, each batch with the line number of each of its events."""
    batch: list[dict[str, Any]] = []
    lines: list[int] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {number} of {path} is not JSON: {exc.msg}", field=f"line {number}") from exc
            if not isinstance(item, dict):
                raise InvalidInput(f"line {number} of {path} must be a JSON object", field=f"line {number}")
            batch.append(item)
            lines.append(number)
            if len(batch) >= size:
                yield lines, batch
                batch, lines = [], []
    if batch:
        yield lines, batch


def _on_its_line(exc: GraphmemError, path: Path, lines: list[int]) -> GraphmemError:
    """A batch's error said of the file's line it is about ("line 12 of events.jsonl: cannot read time ...",
    field "line 12.occurred_at"), not of the item's place in its batch."""
    item = re.fullmatch(r"\[(\d+)\](?:\.(.+))?", exc.field or "")
    if item is None and len(lines) > 1:  # (of the batch as a whole)
        exc.message = f"lines {lines[0]} to {lines[-1]} of {path}: {exc.message}"
    else:  # (a batch of one says no item)
        index, field = (int(item[1]), item[2]) if item else (0, exc.field)
        number = lines[index]
        exc.message = f"line {number} of {path}: {exc.message.removeprefix(f'item {index}: ')}"
        exc.field = f"line {number}" + (f".{field}" if field else "")
    exc.args = (exc.message,)
    return exc


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--batch-size", default=INGEST_BATCH, show_default=True, type=click.IntRange(min=1),
              help="Events per transaction.")
@pass_ctx
@_errors
def ingest(ctx: Context, path: Path, batch_size: int) -> None:
    """Record every event of a JSONL file (one JSON object per line; may carry "states").

    Each batch is one transaction; a bad line stops the ingest before its batch is written. Running the same
    file again writes nothing new.

    Example: graphmem ingest events.jsonl
    """
    mem = ctx.memory()
    counts = {"created": 0, "duplicate": 0, "dropped": 0}
    total = sum(1 for line in path.open(encoding="utf-8") if line.strip())
    with click.progressbar(length=total, label="ingesting", file=sys.stderr) as bar:
        for lines, batch in _batches(path, batch_size):
            try:
                results = mem.record_many(batch)
            except GraphmemError as exc:
                raise _on_its_line(exc, path, lines) from None
            for r in results:
                counts[r.status] += 1
            bar.update(len(batch))
    ctx.emit(counts, ", ".join(f"{v} {k}" for k, v in counts.items()))


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--day", default=None, help="the log's day (default: the YYYY-MM-DD in its file name)")
@click.option("--agent-id", default="unknown", show_default=True)
@click.option("--holder", default="self", show_default=True, help="who holds the O bullets' opinions")
@click.option("--scope", default="global", show_default=True)
@pass_ctx
@_errors
def retain(ctx: Context, path: Path, day: str | None, agent_id: str, holder: str, scope: str) -> None:
    """Record the '## Retain' bullets of a Markdown daily log (W/B/O/S, @mentions, O(c=0.9)).

    The file is only read. Reading it again records nothing new.

    Example: graphmem retain memory/2025-11-27.md
    """
    mem = ctx.memory()
    result = mem.retain(path.read_text(encoding="utf-8"), path=str(path), day=day, agent_id=agent_id,
                        holder=holder, scope=scope)
    counts = {s: sum(r.status == s for r in result.results) for s in ("created", "duplicate", "dropped")}
    counts["opinions"] = len(result.opinion_ids)
    ctx.emit(counts, ", ".join(f"{v} {k}" for k, v in counts.items()))


@main.command()
@click.option("--scope", "scopes", multiple=True, help="A scope to read (default: global and the agent's own).")
@click.option("--agent", "agent_id", default=None, help="Read as this agent (adds agent:<id> to the scopes).")
@click.option("--limit-recent", default=50, show_default=True)
@click.option("--include-private", is_flag=True)
@click.option("--id", "snapshot_id", default=None, help="Read the snapshot this id names again.")
@pass_ctx
@_errors
def snapshot(ctx: Context, scopes: tuple[str, ...], agent_id: str | None, limit_recent: int,
             include_private: bool, snapshot_id: str | None) -> None:
    """Pinned memory (latest event per dedupe key), recent events, ruleset stamp and a repeatable id.

    Example: graphmem snapshot --scope global --scope project:search --limit-recent 10
    """
    snap = ctx.memory().snapshot(agent_id=agent_id, scopes=list(scopes) or None, limit_recent=limit_recent,
                                 include_private=include_private, snapshot_id=snapshot_id)
    recent = "\n".join(event_line(e) for e in snap.recent) or "(no events)"
    ctx.emit(
        {"snapshot_id": snap.id, "ruleset_stamp": snap.ruleset_stamp, "pinned_md": snap.pinned_md,
         "recent_events": list(snap.recent)},
        f"{snap.pinned_md or '(nothing pinned)'}\n\n# Recent\n{recent}\n\n{snap.ruleset_stamp}\n{snap.id}",
    )


@main.command()
@click.option("--project", default=None)
@click.option("--session", default=None, help="A session's thread key (or its id without the platform).")
@click.option("--budget", "token_budget", default=1500, show_default=True, help="Approximate tokens at most.")
@click.option("--limit-recent", default=20, show_default=True)
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def resume(ctx: Context, project: str | None, session: str | None, token_budget: int, limit_recent: int,
           include_private: bool) -> None:
    """What an agent needs to continue a project or session, as Markdown within a token budget.

    Example: graphmem resume --project search --session claude:s-1 --budget 800
    """
    pack = ctx.memory().resume_pack(project, session=session, token_budget=token_budget,
                                    limit_recent=limit_recent, include_private=include_private)
    ctx.emit(pack, pack.markdown.rstrip("\n") + f"\n\n({pack.tokens}/{pack.token_budget} tokens, "
                                                f"{pack.dropped} lines left out)")


@main.command()
@click.argument("session")
@click.argument("title")
@click.argument("content")
@click.option("--tag", "tags", multiple=True)
@click.option("--scope", default="global", show_default=True)
@click.option("--agent", "agent_id", default="cli", show_default=True)
@pass_ctx
@_errors
def checkpoint(ctx: Context, session: str, title: str, content: str, tags: tuple[str, ...], scope: str,
               agent_id: str) -> None:
    """Record a named point in a session.

    Example: graphmem checkpoint claude:s-1 "Parser done" "The Retain parser passes its tests."
    """
    result = ctx.memory().checkpoint(session, title, content, tags=tags, scope=scope, agent_id=agent_id)
    ctx.emit({"id": result.id, "status": result.status}, f"{result.status} {result.id}")


@main.command()
@click.argument("session")
@pass_ctx
@_errors
def finalize(ctx: Context, session: str) -> None:
    """Record a deterministic summary of a session (again after more events; the same events: nothing new).

    Example: graphmem finalize claude:s-1
    """
    mem = ctx.memory()
    result = mem.finalize_session(session)
    summary = mem.get([result.id])[0].content if result.id else ""
    ctx.emit({"id": result.id, "status": result.status, "summary": summary},
             f"{result.status} {result.id}\n\n{summary}")


@main.command()
@click.option("--out", "directory", default=".", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              help="The workspace: pages go to <out>/bank/entities/<Slug>.md and <out>/bank/opinions.md.")
@click.option("--since", default=None, help="Only entities in events since then (7d, 2w, 'Nov 2025', a date).")
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def reflect(ctx: Context, directory: Path, since: str | None, include_private: bool) -> None:
    """Write entity pages and the opinions page as Markdown (same memory, same bytes).

    Only files under bank/ that graphmem wrote are replaced; daily logs are never touched.

    Example: graphmem reflect --since 7d --out ~/notes
    """
    result = ctx.memory().reflect(directory, since=since, include_private=include_private)
    ctx.emit({"pages": [str(p) for p in result.pages], "written": [str(p) for p in result.written]},
             f"{len(result.pages)} pages, {len(result.written)} written under {directory / 'bank'}")


@main.command()
@click.argument("entity")
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def page(ctx: Context, entity: str, include_private: bool) -> None:
    """Print an entity's Markdown page.

    Example: graphmem page Peter
    """
    text = ctx.memory().entity_page(entity, include_private=include_private)
    ctx.emit({"entity": entity, "markdown": text}, text.rstrip("\n"))


@main.command()
@click.option("--dry-run", is_flag=True, help="Report what would be closed; write nothing.")
@pass_ctx
@_errors
def tidy(ctx: Context, dry_run: bool) -> None:
    """Close (never delete) exact duplicate states; moods are never touched. Bounded per run.

    Example: graphmem tidy --dry-run
    """
    report = ctx.memory().tidy(dry_run=dry_run)
    kinds = ", ".join(f"{k} {n}" for k, n in report.by_kind.items()) or "none"
    ctx.emit(report, f"{'would close' if dry_run else 'closed'} {len(report.closed)} duplicates of "
                     f"{report.scanned} states ({kinds}); left open: {report.partial_overlaps} partial overlaps, "
                     f"{report.no_start} without a start{'; more remain, run again' if report.limited else ''} "
                     f"[{report.seconds * 1000:.0f} ms]")


@main.command()
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def promote(ctx: Context, include_private: bool) -> None:
    """List stable facts to promote into curated memory (sure, confirmed 3 times, not contradicted).

    Example: graphmem promote
    """
    offered, held = ctx.memory().promotion_candidates(include_private=include_private)
    rows = [[c.state.subject, c.state.predicate, c.state.object, f"{c.state.confidence:.2f}", c.confirmations,
             c.state.id] for c in offered]
    text = table(["subject", "predicate", "object", "confidence", "confirmed", "id"], rows)
    if held:
        text += "\n\nheld back:\n" + "\n".join(f"- {h.state.text} ({h.state.id}): {h.reason}" for h in held)
    ctx.emit({"candidates": offered, "held_back": held}, text)


@main.command()
@click.option("--dry-run", is_flag=True, help="Report everything; write nothing (no notes, no masking).")
@pass_ctx
@_errors
def janitor(ctx: Context, dry_run: bool) -> None:
    """Pins, TTL removal candidates (never removed), dedupe-key conflicts, secrets/PII masking.

    Example: graphmem janitor --dry-run
    """
    r = ctx.memory().janitor(dry_run=dry_run)
    lines = [r.pinned_md or "(nothing pinned)", "",
             f"TTL candidates (remove with: graphmem remove-events ID... --approved-by NAME --reason ...): "
             f"{len(r.ttl_candidates)}",
             *(f"- {c.event.id} expired {c.expired_at:%Y-%m-%d}: {c.event.content[:80]}" for c in r.ttl_candidates),
             f"conflicts: {len(r.conflicts)}", *(f"- warning: {w}" for w in r.warnings),
             f"masked: {len(r.masked)}" + (f" (audit {r.audit_event})" if r.audit_event else ""),
             *(f"- {event_id}: {', '.join(kinds)}" for event_id, kinds in r.masked)]
    ctx.emit(r, "\n".join(lines))


@main.command(name="remove-events")
@click.argument("event_ids", nargs=-1, required=True)
@click.option("--approved-by", required=True, help="Who approved the removal (kept in the audit event).")
@click.option("--reason", required=True, help="Why these events go.")
@click.option("--not-expired", is_flag=True, help="Also remove events that are not past their ttl_days.")
@pass_ctx
@_errors
def remove_events(ctx: Context, event_ids: tuple[str, ...], approved_by: str, reason: str, not_expired: bool) -> None:
    """Delete events a person approved for removal (by default only TTL candidates); an audit event keeps
    who, why, and each event's id and content hash.

    Example: graphmem remove-events ev_... --approved-by alice --reason "the week is over"
    """
    audit = ctx.memory().remove_events(list(event_ids), approved_by=approved_by, reason=reason,
                                       only_expired=not not_expired)
    ctx.emit({"removed": list(event_ids), "audit_event": audit.id},
             f"removed {len(event_ids)} events; audit event {audit.id}")


@main.command(name="import-claude-mem")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--verify", is_flag=True, help="Write nothing; check that every row arrived.")
@pass_ctx
@_errors
def import_claude_mem_(ctx: Context, path: Path, verify: bool) -> None:
    """Import a claude-mem database: observations and session summaries as events, sessions as threads.

    The database is opened read-only; importing again writes nothing new.

    Example: graphmem import-claude-mem ~/.claude-mem/claude-mem.db --verify
    """
    report = import_claude_mem(ctx.memory(), path, verify=verify)
    rows = ", ".join(f"{table} {n}" for table, n in sorted(report.rows.items()))
    if verify:
        text = f"read {rows}; " + (f"{len(report.missing)} rows missing: {', '.join(report.missing[:10])}"
                                   if report.missing else "every row is in memory")
    else:
        text = (f"read {rows}; {report.created} created, {report.duplicate} already there, {report.dropped} "
                f"dropped by privacy tags, {report.skipped} without text")
    ctx.emit(report, "\n".join([text, *(f"note: {n}" for n in report.notes)]))
    if verify and report.missing:
        sys.exit(1)


def _workspace_text(report: WorkspaceReport) -> str:
    root = Path(report.root)
    shown = root.relative_to(Path.cwd()) if root.is_relative_to(Path.cwd()) else root
    lines = [f"{shown}: {report.files} files, {len(report.read)} read, {report.unchanged} unchanged; "
             f"{report.created} events created, {report.held} already held, {report.opinions} opinions"]
    lines += [f"skipped (written by reflect): {p}" for p in report.generated]
    lines += [f"stale: {p} no longer holds {len(ids)} notes memory keeps ({', '.join(ids[:3])})"
              for p, ids in sorted(report.stale.items())]
    lines += [f"missing: {p} was read before and is gone" for p in report.missing]
    lines += [f"error: {p}: {message} (nothing of it written)" for p, message in sorted(report.errors.items())]
    return "\n".join(lines)


@main.command(name="ingest-workspace")
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--agent", "agent_id", default="markdown", show_default=True)
@click.option("--scope", default="global", show_default=True)
@click.option("--holder", default="self", show_default=True, help="Who holds the Retain opinions (O bullets).")
@pass_ctx
@_errors
def ingest_workspace_(ctx: Context, root: Path, agent_id: str, scope: str, holder: str) -> None:
    """Read a Markdown workspace (memory.md, memory/YYYY-MM-DD.md, bank/): what changed since the last read.

    Every note keeps path#Lnn as its source; the files are never written. Exit code 1 when a file has errors.

    Example: graphmem ingest-workspace ~/notes
    """
    report = ingest_workspace(ctx.memory(), root, agent_id=agent_id, scope=scope, holder=holder)
    ctx.emit(report.as_dict(), _workspace_text(report))
    if report.errors:
        sys.exit(1)


@main.command()
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--interval", default=2.0, show_default=True, type=click.FloatRange(min=0),
              help="Seconds between looks.")
@click.option("--rounds", type=click.IntRange(min=1), default=None,
              help="Stop after this many looks (default: until Ctrl-C).")
@click.option("--agent", "agent_id", default="markdown", show_default=True)
@click.option("--scope", default="global", show_default=True)
@pass_ctx
@_errors
def watch(ctx: Context, root: Path, interval: float, rounds: int | None, agent_id: str, scope: str) -> None:
    """Keep a Markdown workspace read: look every --interval seconds and read the files that changed.

    Example: graphmem watch ~/notes --interval 5
    """
    memory, done = ctx.memory(), 0
    try:
        while rounds is None or done < rounds:
            report = ingest_workspace(memory, root, agent_id=agent_id, scope=scope)
            if report.read or report.errors or done == 0:
                click.echo(_workspace_text(report))
            done += 1
            if rounds is None or done < rounds:
                time.sleep(interval)
    except KeyboardInterrupt:
        pass


def _tail_text(report: TailReport) -> str:
    lines = [f"{report.files} files, {report.lines} new lines: {report.created} events created, {report.held} "
             f"already held, {report.skipped} without anything to remember"]
    lines += [f"waiting: {p} ends in a line still being written" for p in report.waiting]
    lines += [f"restarted: {p} was replaced or truncated; read from the top" for p in report.restarted]
    lines += [f"error: {e['path']} line {e['line']}: {e['message']}" for e in report.errors]
    return "\n".join(lines)


@main.command(name="ingest-sessions")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--follow", is_flag=True, help="Keep tailing: look again every --interval seconds.")
@click.option("--interval", default=2.0, show_default=True)
@click.option("--agent", "agent_id", default=None, help="Agent id (default: codex for rollouts, chat otherwise).")
@click.option("--scope", default=None, help="Scope (default: project:<folder> of a rollout's cwd, else global).")
@pass_ctx
@_errors
def ingest_sessions(ctx: Context, paths: tuple[Path, ...], follow: bool, interval: float, agent_id: str | None,
                    scope: str | None) -> None:
    """Tail agent session transcripts (JSONL files, or folders of them) from where the last run stopped.

    Example: graphmem ingest-sessions ~/.codex/sessions --follow
    """
    memory = ctx.memory()
    try:
        while True:
            report = tail_sessions(memory, paths, agent_id=agent_id, scope=scope)
            if not follow or report.lines or report.errors:
                ctx.emit(report.as_dict(), _tail_text(report))
            if not follow:
                break
            time.sleep(interval)
    except KeyboardInterrupt:
        pass


@main.command()
@pass_ctx
@_errors
def mcp(ctx: Context) -> None:
    """Serve memory as MCP tools over stdio (for an agent's MCP client configuration).

    Tools: recall, timeline, get, record_event, as_of, entity, opinions, resume_pack, checkpoint,
    finalize_session, health.

    Example (an MCP client's server entry): {"command": "graphmem", "args": ["--db", "memory.kuzu", "mcp"]}
    """
    from graphmem.mcp_server import build_server

    build_server(ctx.memory()).run("stdio")


def _show_states(ctx: Context, states: list[Any], title: str) -> None:
    headers, rows = state_rows(states)
    ctx.emit(states, f"{title}\n{table(headers, rows)}")


@main.command()
@click.argument("when")
@click.option("--entity", help="Only this subject.")
@click.option("--predicate")
@click.option("--known-at", help="As memory knew it at this transaction time.")
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def asof(ctx: Context, when: str, entity: str | None, predicate: str | None, known_at: str | None,
         include_private: bool) -> None:
    """What was true at WHEN (a coarse WHEN means its end; "last week", "last summer" read relative to now).

    WHEN is any time text may say: "2025-11-27", "Nov 2025", "Q3 2025", "H2 2025", "end of 2025", "the
    '90s", "3 days ago", "3pm", "令和7年", "2025年度".

    Example: graphmem asof "Nov 2025" --entity Peter
    """
    mem = ctx.memory()
    view = mem.view()
    if known_at:
        view = view.known_at(mem.read_time(known_at, "known_at", edge="end"))
    states = view.as_of(mem.read_time(when, "when", edge="end")).states(
        subject=entity, predicate=predicate, include_private=include_private)
    _show_states(ctx, states, f"as of {when}:")


@main.command()
@click.argument("period")
@click.option("--entity", help="Only this subject.")
@click.option("--predicate")
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def during(ctx: Context, period: str, entity: str | None, predicate: str | None, include_private: bool) -> None:
    """What held at any point of PERIOD ("2025", "last month", "last summer"), marked throughout or partly.

    PERIOD may be a range ("2019-2021", "between May and July 2024", "1-5 May 2025") or a time up to now
    ("the past 3 months", "since March"), read through now.

    Example: graphmem during "2025" --entity Peter --predicate lives_in
    """
    mem = ctx.memory()
    first, through = mem.read_period(period, "period")
    states = mem.during(first, through=through).states(subject=entity, predicate=predicate,
                                                      include_private=include_private)
    _show_states(ctx, states, f"during {period}:")


@main.command()
@click.argument("subject")
@click.option("--predicate")
@click.option("--include-retracted", is_flag=True)
@pass_ctx
@_errors
def timeline(ctx: Context, subject: str, predicate: str | None, include_retracted: bool) -> None:
    """Every state of SUBJECT, in order.

    Example: graphmem timeline Peter --predicate lives_in
    """
    states = ctx.memory().timeline(subject, predicate, include_retracted=include_retracted)
    headers, rows = state_rows(states, with_subject=False)
    ctx.emit(states, f"timeline of {subject}:\n{table(headers, rows)}")


@main.command()
@click.argument("name")
@click.option("--include-private", is_flag=True)
@pass_ctx
@_errors
def entity(ctx: Context, name: str, include_private: bool) -> None:
    """An entity: aliases, what holds now, recent events.

    Example: graphmem entity Peter
    """
    view = ctx.memory().entity(name, include_private=include_private)
    e = view.entity
    headers, rows = state_rows(view.states, with_subject=False)
    events = table(["occurred", "content", "source"],
                   [[str(ev.occurred_at.at.date()), ev.content[:80], ev.source.ref or ev.id]
                    for ev in view.recent_events])
    text = (f"{e.name} ({e.type}, id {e.id})" + (f", also {', '.join(e.aliases)}" if e.aliases else "")
            + f"\n\nnow:\n{table(headers, rows)}\n\nrecent events:\n{events}")
    ctx.emit(view, text)


@main.command()
@click.argument("name")
@click.argument("alias")
@pass_ctx
@_errors
def alias(ctx: Context, name: str, alias: str) -> None:
    """Give the entity NAME another name ALIAS.

    Example: graphmem alias "New York City" NYC
    """
    e = ctx.memory().add_alias(name, alias)
    ctx.emit(e, f"{e.name} (id {e.id}), also {', '.join(e.aliases)}")


@main.command()
@click.argument("keep")
@click.argument("merge")
@click.option("--reason", default="the same entity", show_default=True, help="Why the two are one.")
@pass_ctx
@_errors
def merge(ctx: Context, keep: str, merge: str, reason: str) -> None:
    """Merge the entity MERGE into KEEP: its states, mentions and names move; nothing is deleted.

    Example: graphmem merge "Peter Smith" Pete --reason "same person"
    """
    result = ctx.memory().merge_entities(keep, merge, reason=reason)
    e = result.entity
    ctx.emit(result, f"merged {result.merged.name} ({result.merged.id}) into {e.name} ({e.id}): "
                     f"{len(result.moved_states)} states moved, {len(result.bounded_states)} bounded; "
                     f"also known as {', '.join(e.aliases)}")


@main.command(name="merge-candidates")
@click.option("--limit", default=50, show_default=True)
@pass_ctx
@_errors
def merge_candidates_(ctx: Context, limit: int) -> None:
    """Pairs of entities that may be one thing (near names; a person named by another's first name), for
    someone who knows to merge with `graphmem merge`. Nothing is merged here.

    Example: graphmem merge-candidates --limit 20
    """
    found = ctx.memory().merge_candidates(limit)
    ctx.emit(found, table(["keep", "merge", "type", "similarity", "why"],
                          [[f"{c.keep.name} ({c.keep.id})", f"{c.merge.name} ({c.merge.id})", c.keep.type,
                            f"{c.similarity:.2f}", c.reason] for c in found]))


@main.command()
@pass_ctx
@_errors
def stats(ctx: Context) -> None:
    """Counts of what memory holds.

    Example: graphmem stats --json
    """
    mem = ctx.memory()
    s, index = mem.stats(), mem.index_status()
    rows = [[k, v] for k, v in vars(s).items()] + [[f"index {k}", v] for k, v in vars(index).items()]
    ctx.emit({**vars(s), "index": index}, table(["what", "count"], rows))


@main.command()
@click.argument("query")
@click.option("--k", default=10, show_default=True, help="How many hits.")
@click.option("--since", help="Only what happened since: a time, an expression or a span such as 30d.")
@click.option("--until", help="Only what happened before this.")
@click.option("--entity", "entities", multiple=True, help="Only hits that mention this entity.")
@click.option("--kind", "kinds", multiple=True, help="Only this event or state kind.")
@click.option("--scope", "scopes", multiple=True, help="Only this scope.")
@click.option("--include-private", is_flag=True)
@click.option("--preset", default="default", show_default=True, help="default, lexical, semantic, recent, ...")
@pass_ctx
@_errors
def recall(ctx: Context, query: str, k: int, since: str | None, until: str | None, entities: tuple[str, ...],
           kinds: tuple[str, ...], scopes: tuple[str, ...], include_private: bool, preset: str) -> None:
    """Events and states that answer a question in words, best first, with their sources.

    Example: graphmem recall "When did Peter move?" --k 25 --since 30d
    """
    hits = ctx.memory().recall(
        query, k, since=since, until=until, entities=list(entities) or None, kinds=list(kinds) or None,
        scopes=list(scopes) or None, include_private=include_private, preset=preset,
    )
    ctx.emit(hits, table(
        ["score", "type", "time", "content", "source", "id"],
        [[f"{h.score:.3f}", h.type, h.time.label() if h.time else "", h.content[:80], ", ".join(h.refs), h.id]
         for h in hits],
    ))


@main.command()
@pass_ctx
@_errors
def reindex(ctx: Context) -> None:
    """Rebuild the search index (words and vectors) from the database.

    Example: graphmem reindex
    """
    status = ctx.memory().reindex()
    ctx.emit(status, table(["what", "value"], [[k, v] for k, v in vars(status).items()]))


@main.group()
def models() -> None:
    """The embedding models recall uses."""


@models.command(name="build")
@click.option("--to", "directory", type=click.Path(path_type=Path), default=None,
              help="Where to write the static model (default $GRAPHMEM_MODELS or ~/.cache/graphmem/models).")
@click.option("--if-missing", is_flag=True, help="Do nothing when the model is already there.")
@_errors
def models_build(directory: Path | None, if_missing: bool) -> None:
    """Distil the static embedder from the bundled all-MiniLM-L6-v2 weights (offline, ~20 s).

    Example: graphmem models build --if-missing
    """
    from graphmem.index import build_static_model, default_static_dir, static_model_built

    target = directory or default_static_dir()
    if if_missing and static_model_built(target):
        click.echo(f"static model already in {target}")
        return
    click.echo(f"static model written to {build_static_model(target)}")


SAMPLE_QUESTIONS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("Where did Peter live in Nov 2025?", "as_of", {"when": "Nov 2025", "subject": "Peter",
                                                    "predicate": "lives_in"}),
    ("Where did Peter live on 2025-11-01?", "as_of", {"when": "2025-11-01", "subject": "Peter",
                                                      "predicate": "lives_in"}),
    ("Who worked at Acme during Dec 2025?", "during", {"when": "Dec 2025", "predicate": "works_at",
                                                       "object": "Acme"}),
    ("What was true about Aiko at the end of 2025?", "as_of", {"when": "2025", "subject": "Aiko"}),
    ("What was Peter's role over 2025 and 2026?", "timeline", {"subject": "Peter", "predicate": "role"}),
    ("Where has Peter lived? (the workspace's daily logs add Lisbon)", "timeline",
     {"subject": "Peter", "predicate": "lives_in"}),
    ("Who worked at Globex during Feb 2026?", "during", {"when": "Feb 2026", "predicate": "works_at",
                                                         "object": "Globex"}),
)


LOOPBACK = ("127.0.0.1", "localhost", "::1")
# seconds an idle connection stays open: longer than clients keep theirs (httpx, requests and browsers drop
# an idle connection after 5-60 s), so a client never sends on a connection the server is closing at that
# instant (uvicorn's 5 s default met httpx's 5 s: about one request in a thousand failed under load)
KEEP_ALIVE_S = 75


@main.command()
@click.option("--host", default=None, help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port to listen on (default 8765).")
@click.option("--tokens", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Tokens file: agents, their scopes and roles. Without it only loopback is served.")
@click.option("--backup-dir", type=click.Path(file_okay=False), default=None,
              help="Copy the database to this folder on a schedule (GRAPHMEM_BACKUP_EVERY_H, default 24 h; "
                   "GRAPHMEM_BACKUP_KEEP copies kept, default 3).")
@pass_ctx
@_errors
def serve(ctx: Context, host: str | None, port: int | None, tokens: str | None, backup_dir: str | None) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql), /health and the compatibility routes.

    This process owns the database: other processes send their reads and writes here, and it takes the
    scheduled backups (--backup-dir).

    Example: graphmem --db memory.kuzu serve --port 8765 --tokens tokens.yaml --backup-dir backups
    """
    import logging

    import uvicorn

    from graphmem.api import AccessPolicy, create_app

    logging.basicConfig(level=logging.INFO, format="graphmem: %(message)s")

    settings = ctx.settings.model_copy(update={k: v for k, v in {"host": host, "port": port, "tokens": tokens,
                                                                 "backup_dir": backup_dir}.items() if v})
    access = AccessPolicy.from_file(settings.tokens) if settings.tokens else AccessPolicy.open()
    bind = settings.host
    if not access.enabled and bind not in LOOPBACK:
        click.echo(f"no tokens configured: serving on 127.0.0.1 only, not {bind}; pass --tokens to serve "
                   "other machines", err=True)
        bind = "127.0.0.1"
    memory = ctx.memory()
    backups = ([BackupSchedule(memory, settings.backup_dir, every_s=settings.backup_every_h * 3600,
                               keep=settings.backup_keep)] if settings.backup_dir else [])
    ctx.release()  # the server closes the database itself, after in-flight requests finish
    app = create_app(memory, access=access, max_body_bytes=settings.max_body_bytes, close_memory=True,
                     freeze_heap=True, background=backups)
    who = f"{len(access.agents)} agents with tokens" if access.enabled else "no tokens: local use only"
    click.echo(f"graphmem serving {settings.db} at http://{bind}:{settings.port}/graphql ({who})", err=True)
    uvicorn.run(app, host=bind, port=settings.port, log_level="warning", timeout_graceful_shutdown=30,
                timeout_keep_alive=KEEP_ALIVE_S)


@main.command()
@pass_ctx
@_errors
def demo(ctx: Context) -> None:
    """Load the bundled sample memory (a fictional team) and answer the sample questions.

    Example: graphmem --db /tmp/demo.kuzu demo
    """
    mem = ctx.memory()
    loaded = load_sample(mem)
    click.echo(f"loaded sample memory: {loaded.events} events, {loaded.opinions} opinions weighed against "
               f"{loaded.evidence} events, into {mem.store.stats().path}")
    notes = ingest_workspace(mem, sample_workspace())
    click.echo(f"read the sample Markdown workspace (Feb-Mar 2026): {notes.files} files, {notes.created} events, "
               f"{notes.opinions} Retain opinions")
    for question, kind, args in SAMPLE_QUESTIONS:
        if kind == "timeline":
            states = mem.timeline(args["subject"], args.get("predicate"))
        else:
            view = mem.as_of(args["when"]) if kind == "as_of" else mem.during(args["when"])
            states = view.states(subject=args.get("subject"), predicate=args.get("predicate"),
                                 object=args.get("object"))
        headers, rows = state_rows(states)
        click.echo(f"\nQ: {question}\n{table(headers, rows)}")
    question = "Who is interviewing elsewhere, and what did Aiko decide about the search index?"
    hits = mem.recall(question, k=3, include_private=True)
    click.echo(f"\nQ (recall, {mem.index_status().embedder or 'words only'}): {question}\n" + table(
        ["score", "content", "source"], [[f"{h.score:.2f}", h.content[:70], ", ".join(h.refs)] for h in hits]))
    for opinion in [*mem.opinions(about="Kuzu"), *mem.opinions(holder="self")]:
        dec = opinion.confidence_at(dt.datetime(2025, 12, 20, tzinfo=dt.UTC))
        who = "the log's writer" if opinion.holder == "self" else opinion.holder
        click.echo(f"\nQ: How sure was {who} on 20 Dec 2025 that '{opinion.statement}', and now?\n"
                   + (f"{dec:.2f} then" if dec is not None else "not held then")
                   + f", {opinion.confidence:.2f} now; steps: " + "; ".join(
                       f"{c.happened_at:%Y-%m-%d} {c.stance.value if c.action == 'reweigh' and c.stance else 'formed'} "
                       f"-> {c.after:.2f}"
                       for c in opinion.history))
    click.echo("\nQ: Peter's entity page?\n" + mem.entity_page("Peter").split("\n", 1)[1].rstrip("\n"))
