import pytest
from graphql import GraphQLEnumType, GraphQLList, GraphQLNonNull, GraphQLScalarType, GraphQLUnionType
from hypothesis import strategies as st
from starlette.testclient import TestClient

from graphmem import Memory
from graphmem.api import AccessPolicy, create_app
from graphmem.samples import load_sample
from tests.conftest import FakeClock


def sample_memory(**options):
    memory = Memory.in_memory(clock=FakeClock(), extract=False, **options)
    load_sample(memory)
    return memory


class GraphQLClient:
    """Posts GraphQL to the real ASGI app in-process; ``token`` picks the caller."""

    def __init__(self, http, token=None):
        self.http = http
        self.token = token

    def as_(self, token):
        return GraphQLClient(self.http, token)

    def post(self, query, variables=None, **extra):
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return self.http.post("/graphql", json={"query": query, "variables": variables or {}, **extra},
                              headers=headers)

    def __call__(self, query, variables=None):
        response = self.post(query, variables)
        assert response.status_code == 200, response.text
        return response.json()

    def data(self, query, variables=None):
        body = self(query, variables)
        assert "errors" not in body, body["errors"]
        return body["data"]


def serve(memory, access=None):
    return TestClient(create_app(memory, access=access or AccessPolicy.open()))


@pytest.fixture(scope="module")
def sample():
    memory = sample_memory()
    yield memory
    memory.close()


@pytest.fixture(scope="module")
def gql(sample):
    with serve(sample) as http:
        yield GraphQLClient(http)


def selection(draw, type_, depth, arguments, *, most=4, deepest=3, every_member=False):
    """A generated selection set for an output type: at most ``most`` of its fields, down to leaves (fields
    with fields of their own stop at depth ``deepest``); of a union, every member or some. ``arguments(draw,
    field)`` writes a field's arguments, parentheses included (or nothing)."""
    while isinstance(type_, GraphQLNonNull | GraphQLList):
        type_ = type_.of_type
    if isinstance(type_, GraphQLScalarType | GraphQLEnumType):
        return ""
    shape = {"most": most, "deepest": deepest, "every_member": every_member}
    if isinstance(type_, GraphQLUnionType):
        members = [m for m in type_.types if every_member or draw(st.booleans())]
        return "{ " + " ".join(["__typename", *(f"... on {m.name} {selection(draw, m, depth, arguments, **shape)}"
                                                for m in members)]) + " }"
    parts = []
    for name in draw(st.lists(st.sampled_from(sorted(type_.fields)), min_size=1, max_size=most, unique=True)):
        field = type_.fields[name]
        nested = field.type
        while isinstance(nested, GraphQLNonNull | GraphQLList):
            nested = nested.of_type
        if depth < deepest or isinstance(nested, GraphQLScalarType | GraphQLEnumType):
            parts.append(field_text(draw, name, field, depth, arguments, **shape))
    return "{ " + (" ".join(parts) or "__typename") + " }"


def field_text(draw, name, field, depth, arguments, **shape):
    """One generated field: its name, arguments and selection."""
    return f"{name}{arguments(draw, field)} {selection(draw, field.type, depth + 1, arguments, **shape)}"
