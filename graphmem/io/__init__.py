"""Readers of memory other tools and people keep (Markdown workspaces, session transcripts, claude-mem), and
scheduled backups, each going through the public :class:`~graphmem.Memory` API."""

from graphmem.io.backups import BackupSchedule
from graphmem.io.claude_mem import ImportReport, import_claude_mem
from graphmem.io.sessions import TailReport, tail_sessions
from graphmem.io.workspace import WorkspaceReport, ingest_workspace

__all__ = ["BackupSchedule", "ImportReport", "TailReport", "WorkspaceReport", "import_claude_mem", "ingest_workspace", "tail_sessions"]
