from pathlib import Path

from graphmem.api import export_sdl

ROOT = Path(__file__).resolve().parents[2]


def test_checked_in_sdl_matches_the_schema():
    assert (ROOT / "ontology" / "schema.graphql").read_text() == export_sdl(), (
        "ontology/schema.graphql is stale; regenerate it: "
        "python -c \"from graphmem.api import export_sdl; export_sdl('ontology/schema.graphql')\""
    )


def test_every_mutation_returns_a_success_or_error_union():
    sdl = export_sdl()
    mutation = sdl[sdl.index("type Mutation {"):]
    mutation = mutation[: mutation.index("\n}\n")]
    results = [line.split(":")[-1].strip() for line in mutation.splitlines() if "(input:" in line]
    assert results, "no mutations found"
    for result in results:
        assert f"union {result.rstrip('!')} = " in sdl, result
