"""The notebooks run top to bottom on the bundled sample, and are kept in git without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["explore_memory.ipynb", "opinions_over_time.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_is_stored_without_outputs(path, tmp_path):
    book = nbformat.read(path, as_version=4)
    code = [c for c in book.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), "clear the outputs before committing"
    NotebookClient(book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "\n".join(o.get("text", "") for c in code for o in c.outputs if o.output_type == "stream")
    images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 1 and not [o for c in code for o in c.outputs if o.output_type == "error"]
    if path.stem == "explore_memory":
        assert "Peter  lives_in  Marrakesh" in text and "('Peter', 'lives_in', 'Marrakesh')" in text
        assert "Peter Lisbon 2026-02-23 now" in text and len(images) == 2
    else:
        assert "on 20 Dec 2025:" in text and "contradicts" in text
