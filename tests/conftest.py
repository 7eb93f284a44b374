import datetime as dt
import itertools

import pytest

from graphmem import Memory, NotFound


class FakeClock:
    """Transaction time under the test's control: each call advances one second."""

    def __init__(self, start=dt.datetime(2026, 1, 1, tzinfo=dt.UTC)):
        self._ticks = itertools.count()
        self.start = start
        self.last = start

    def __call__(self):
        self.last = self.start + dt.timedelta(seconds=next(self._ticks))
        return self.last


def knows(memory, name):
    """Whether ``memory`` holds an entity of that name (one no write named yet is not found)."""
    try:
        memory.resolve_entity(name)
    except NotFound:
        return False
    return True


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def mem(clock):
    memory = Memory.in_memory(clock=clock)
    yield memory
    memory.close()
