import pytest
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
