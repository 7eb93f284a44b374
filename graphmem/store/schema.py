"""The graph's shape, declared once: node and edge tables with typed columns, and named migrations.

The shape follows the ontology's concepts (events, entities, threads, states with bi-temporal validity on the
``HAS_STATE`` edges, evidence, revisions). :func:`render_cypher` turns it into DDL; the generated text is
checked in as ``ontology/schema.cypher`` and a test regenerates it to catch drift.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIGRATIONS", "NODES", "RELS", "Migration", "Table", "render_cypher"]


@dataclass(frozen=True)
class Table:
    """A node or edge table. ``added`` are columns later migrations appended (``ALTER TABLE ... ADD``)."""

    name: str
    initial: tuple[tuple[str, str], ...]
    endpoints: tuple[str, str] | None = None  # (FROM, TO) for edge tables
    doc: str = ""
    added: tuple[tuple[str, str], ...] = ()

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        """Every column, in storage order (the initial ones, then the added ones)."""
        return self.initial + self.added

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.columns)

    def ddl(self, *, initial: bool = False) -> str:
        """``CREATE`` for the table's current shape, or for its shape when it was first created."""
        cols = ", ".join(f"{c} {t}" for c, t in (self.initial if initial else self.columns))
        if self.endpoints is None:
            return f"CREATE NODE TABLE {self.name}({cols}, PRIMARY KEY({self.columns[0][0]}))"
        src, dst = self.endpoints
        sep = ", " if cols else ""
        return f"CREATE REL TABLE {self.name}(FROM {src} TO {dst}{sep}{cols})"


_TS = "TIMESTAMP"
_S = "STRING"

NODES: tuple[Table, ...] = (
    Table("Migration", (("name", _S), ("applied_at", _TS)), doc="named migrations applied to this database"),
    Table(
        "Event",
        (
            ("id", _S), ("recorded_at", _TS), ("occurred_at", _TS), ("occurred_g", _S),
            ("occurred_end", _TS), ("occurred_end_g", _S),
            ("source_system", _S), ("source_ref", _S), ("source_thread_id", _S), ("source_session_id", _S),
            ("source_message_id", _S), ("source_run_id", _S),
            ("agent_id", _S), ("scope", _S), ("kind", _S), ("thread", _S), ("content", _S),
            ("tags", "STRING[]"), ("privacy", "STRING[]"), ("entities", "STRING[]"), ("redactions", "STRING[]"),
            ("private", "BOOLEAN"), ("dedupe_key", _S), ("content_hash", _S), ("confidence", "DOUBLE"),
            ("supersedes", _S), ("ttl_days", "INT64"),
            ("affect_valence", "DOUBLE"), ("affect_arousal", "DOUBLE"), ("affect_dominance", "DOUBLE"),
        ),
        doc="immutable record of something observed or said",
    ),
    Table(
        "Entity",
        (("id", _S), ("name", _S), ("type", _S), ("aliases", "STRING[]"), ("created_at", _TS)),
        doc="one node per real thing",
        added=(("merged_into", _S), ("merged_at", _TS)),
    ),
    Table("Alias", (("key", _S), ("entity_id", _S)), doc="name key -> entity, for resolution by primary key"),
    Table("Thread", (("key", _S), ("title", _S), ("created_at", _TS)), doc="a conversation, session or topic"),
    Table(
        "State",
        (
            ("id", _S), ("kind", _S), ("subject_id", _S), ("predicate", _S), ("object_id", _S), ("object", _S),
            ("text", _S), ("valid_from", _TS), ("valid_from_g", _S), ("valid_to", _TS), ("valid_to_g", _S),
            ("stated_end", _TS), ("stated_end_g", _S), ("created_at", _TS), ("recorded_at", _TS),
            ("retracted_at", _TS), ("last_confirmed_at", _TS), ("confidence", "DOUBLE"), ("status", _S),
            ("scope", _S), ("private", "BOOLEAN"), ("holder", _S), ("done", "BOOLEAN"),
        ),
        doc="a state's current version; its history is on its HAS_STATE edges and revisions",
        added=(("payload", _S),),  # 0002: JSON details (a preference's domain and note, a plan's payload)
    ),
    Table(
        "Revision",
        (
            ("id", _S), ("state_id", _S), ("at", _TS), ("action", _S), ("reason", _S),
            ("valid_from", _TS), ("valid_from_g", _S), ("valid_to", _TS), ("valid_to_g", _S),
            ("status", _S), ("confidence", "DOUBLE"), ("evidence_ids", "STRING[]"),
        ),
        doc="one change of a state, with its reason",
    ),
    Table("DefinedPredicate", (("name", _S), ("definition", _S)), doc="predicates defined at run time (JSON)"),
    Table(
        "Annotation",
        (
            ("event_id", _S), ("recorded_at", _TS), ("about_start", _TS), ("about_start_g", _S),
            ("about_end", _TS), ("about_end_g", _S), ("about_confidence", "DOUBLE"), ("life_stage", _S),
            ("affect_text", _S), ("affect_labels", "STRING[]"), ("affect_valence", "DOUBLE"),
            ("affect_arousal", "DOUBLE"), ("affect_dominance", "DOUBLE"), ("affect_confidence", "DOUBLE"),
        ),
        doc="what a write plan added to an event: the time it is about, the affect of the moment",
    ),
    Table(
        "SourceCursor",
        (("key", _S), ("digest", _S), ("offset", "INT64"), ("line", "INT64"), ("updated_at", _TS), ("detail", _S)),
        doc="how far a reader got in one source file (a workspace page, a session log), to resume from",
    ),
    Table(
        "JournalMark",
        (("key", _S), ("applied", "INT64")),
        doc="the number of the last write-journal record applied, set in the transaction that applies it",
    ),
)

RELS: tuple[Table, ...] = (
    Table(
        "HAS_STATE",
        (
            ("predicate", _S), ("valid_from", _TS), ("valid_from_g", _S), ("valid_to", _TS), ("valid_to_g", _S),
            ("status", _S), ("confidence", "DOUBLE"), ("recorded_at", _TS), ("replaced_at", _TS),
            ("retracted_at", _TS),
        ),
        endpoints=("Entity", "State"),
        doc="one version of a state: valid time and transaction time",
    ),
    Table("OBJECT", (), endpoints=("State", "Entity"), doc="the entity a state points at"),
    Table("EVIDENCE", (("stance", _S), ("at", _TS)), endpoints=("Event", "State"), doc="supports / contradicts"),
    Table("MENTIONS", (), endpoints=("Event", "Entity")),
    Table("IN_THREAD", (), endpoints=("Event", "Thread")),
    Table("LINK", (("label", _S),), endpoints=("Event", "Event")),
    Table("SUPERSEDES", (("at", _TS),), endpoints=("State", "State")),
    Table("HAS_REVISION", (), endpoints=("State", "Revision")),
    Table("ABOUT", (), endpoints=("State", "Entity"), doc="the entities an opinion or a noted state is about"),
)

_INITIAL = ("Event", "Entity", "Alias", "Thread", "State", "Revision", "DefinedPredicate", "HAS_STATE", "OBJECT",
            "EVIDENCE", "MENTIONS", "IN_THREAD", "LINK", "SUPERSEDES", "HAS_REVISION")
_BY_NAME = {t.name: t for t in (*NODES, *RELS)}


@dataclass(frozen=True)
class Migration:
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_initial", tuple(_BY_NAME[name].ddl(initial=True) for name in _INITIAL)),
    Migration(
        "0002_opinions_and_plans",
        (
            "ALTER TABLE State ADD payload STRING DEFAULT ''",
            _BY_NAME["Annotation"].ddl(),
            _BY_NAME["ABOUT"].ddl(),
        ),
    ),
    Migration("0003_source_cursors", (_BY_NAME["SourceCursor"].ddl(),)),
    # no "DEFAULT NULL": the engine cannot replay that from its write-ahead log after a crash (an untyped
    # NULL); a column added without a default is NULL already
    Migration("0004_entity_merges", ("ALTER TABLE Entity ADD merged_into STRING", "ALTER TABLE Entity ADD merged_at TIMESTAMP")),
    Migration("0005_write_journal", (_BY_NAME["JournalMark"].ddl(), "CREATE (:JournalMark {key: 'applied', applied: 0})")),
)


def render_cypher() -> str:
    """The whole schema as Cypher DDL, as checked in under ``ontology/schema.cypher``."""
    lines = ["// graphmem graph schema, generated by graphmem.store.schema.render_cypher(); do not edit.", ""]
    for table in (*NODES, *RELS):
        if table.doc:
            lines.append(f"// {table.name}: {table.doc}")
        lines.append(table.ddl() + ";")
    for migration in MIGRATIONS:
        lines.append(f"// migration {migration.name}: {len(migration.statements)} statements")
    return "\n".join(lines) + "\n"
