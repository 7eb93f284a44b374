"""Every operation in queries/ runs against the sample memory and must answer exactly its expected JSON.

Regenerate after an intended change: GRAPHMEM_UPDATE_GOLDEN=1 pytest tests/api/test_queries_golden.py
"""

import json
import os
from pathlib import Path

import pytest

from tests.api.conftest import GraphQLClient, sample_memory, serve

QUERIES = Path(__file__).resolve().parents[2] / "queries"
OPERATIONS = sorted(QUERIES.glob("*.graphql"))


def test_there_are_operations_for_each_kind_of_question():
    names = {p.stem for p in OPERATIONS}
    assert {"entity_page", "what_was_true_in", "during_period", "recent_events", "record_event"} <= names


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda p: p.stem)
def test_golden(operation):
    variables_file = operation.with_suffix(".variables.json")
    variables = json.loads(variables_file.read_text()) if variables_file.exists() else {}
    memory = sample_memory()  # fresh per operation: mutations must not leak into other answers
    try:
        with serve(memory) as http:
            answer = GraphQLClient(http)(operation.read_text(), variables)
    finally:
        memory.close()
    expected_file = operation.with_suffix(".expected.json")
    rendered = json.dumps(answer, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("GRAPHMEM_UPDATE_GOLDEN"):
        expected_file.write_text(rendered)
    assert expected_file.exists(), f"no {expected_file.name}; run with GRAPHMEM_UPDATE_GOLDEN=1 and review it"
    assert rendered == expected_file.read_text()
