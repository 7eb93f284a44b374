"""Generated GraphQL against the real app: whatever arrives, the answer is a typed error or data, never a crash.

Documents are built from the schema itself (every root field, its arguments filled with valid, odd and hostile
values, nested selections down to leaf fields), plus raw garbage. No answer may carry ``internal_error``.
"""

import json
import string

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.api import build_schema
from tests.api.conftest import GraphQLClient, field_text, sample_memory, serve

SCHEMA = build_schema()._schema
CASES = 2000
WORDS = ["Peter", "peter", "@peter", "Aiko", "Acme", "Nov 2025", "2025-11-27", "2025-11", "2025", "last week",
         "3 days ago", "先週", "2025年11月27日", "from May to July 2024", "since March", "9999-99-99", "-1",
         "ev_0b4beeb5b9551c896059d231", "global", "project:search", "agent:claude", "lives_in", "works_at",
         "observation", "decision", "", " ", "null", "Ω" * 3, "x" * 300, "'; DROP TABLE Event; --",
         "MATCH (n) DETACH DELETE n", "{{}}", "\\", "\u0000", "2025-11-27T10:00:00+14:00", "10000-01-01"]

strings = st.one_of(st.sampled_from(WORDS), st.text(max_size=40))
ints = st.one_of(st.integers(-3, 60), st.integers(-(2**31), 2**31 - 1))
floats = st.one_of(st.floats(-2, 2, allow_nan=False, allow_infinity=False), st.sampled_from([0.0, 1.0, 1e300]))


def literal(draw, type_, depth=0, required=False):
    """A GraphQL value literal for ``type_`` (sometimes null where nullable)."""
    if isinstance(type_, GraphQLNonNull):
        return literal(draw, type_.of_type, depth, required=True)
    if not required and draw(st.integers(0, 9)) == 0:
        return "null"
    if isinstance(type_, GraphQLList):
        items = [literal(draw, type_.of_type, depth + 1) for _ in range(draw(st.integers(0, 3)))]
        return "[" + ", ".join(items) + "]"
    if isinstance(type_, GraphQLEnumType):
        return draw(st.sampled_from(sorted(type_.values)))
    if isinstance(type_, GraphQLInputObjectType):
        fields = []
        for name, field in type_.fields.items():
            if isinstance(field.type, GraphQLNonNull) or (depth < 2 and draw(st.booleans())):
                fields.append(f"{name}: {literal(draw, field.type, depth + 1)}")
        return "{" + ", ".join(fields) + "}"
    assert isinstance(type_, GraphQLScalarType)
    if type_.name == "Int":
        return str(draw(ints))
    if type_.name == "Float":
        return repr(draw(floats))
    if type_.name == "Boolean":
        return draw(st.sampled_from(["true", "false"]))
    return json.dumps(draw(strings))


def arguments(draw, field):
    """Its required arguments and some others, each a valid, odd or hostile literal."""
    args = [f"{name}: {literal(draw, arg.type)}" for name, arg in field.args.items()
            if isinstance(arg.type, GraphQLNonNull) or draw(st.booleans())]
    return f"({', '.join(args)})" if args else ""


@st.composite
def documents(draw):
    operation = draw(st.sampled_from(["query", "query", "query", "mutation"]))
    root = SCHEMA.query_type if operation == "query" else SCHEMA.mutation_type
    name = draw(st.sampled_from(sorted(root.fields)))
    return f"{operation} {{ {field_text(draw, name, root.fields[name], 0, arguments)} }}"


garbage = st.one_of(
    st.text(alphabet=string.printable, max_size=80),
    st.sampled_from(["{", "}", "{ entity(name: \"x\") { name ", "query { __schema { types { name } } }",
                     "subscription { x }", "mutation { recordEvent }", "{ a: stats { events } b: stats { events } }"]),
)


def check(response):
    assert response.status_code in (200, 400), response.text
    body = response.json()
    for error in body.get("errors") or []:
        assert error.get("extensions", {}).get("code") not in (None, "internal_error"), (error, body)
    return body


def test_generated_documents_never_crash_the_server():
    memory = sample_memory()
    seen = {"cases": 0, "data": 0}
    try:
        with serve(memory) as http:
            client = GraphQLClient(http)

            @settings(max_examples=CASES, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(documents())
            def run(document):
                body = check(client.post(document))
                seen["cases"] += 1
                seen["data"] += body.get("data") is not None

            run()

            @settings(max_examples=300, deadline=None, database=None)
            @given(garbage)
            def run_garbage(text):
                check(client.post(text))
                seen["cases"] += 1

            run_garbage()
    finally:
        memory.close()
    assert seen["cases"] >= CASES
    assert seen["data"] > CASES // 10  # a fair share of documents got past validation into the resolvers
    print(f"fuzzed {seen['cases']} documents, {seen['data']} executed")
