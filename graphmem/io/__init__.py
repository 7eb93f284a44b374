"""Importers: memory other tools keep, read into graphmem through the public :class:`~graphmem.Memory` API."""

from graphmem.io.claude_mem import ImportReport, import_claude_mem

__all__ = ["ImportReport", "import_claude_mem"]
