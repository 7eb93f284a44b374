import threading
import time

import pytest

from graphmem import Memory
from graphmem.errors import InvalidInput
from graphmem.store.group_commit import GroupCommit


def run_all(target, args_list) -> None:
    """Run ``target(*args)`` for each args in threads started together, and wait for all."""
    threads = [threading.Thread(target=target, args=args) for args in args_list]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_concurrent_requests_share_commits_and_each_gets_its_own_outputs():
    calls: list[list[int]] = []

    def write(items: list[int]) -> list[int]:
        calls.append(items)
        time.sleep(0.01)  # a commit takes a while: others queue meanwhile
        return [i * 10 for i in items]

    group = GroupCommit(write)
    results: dict[int, list[int]] = {}

    def worker(n: int) -> None:
        results[n] = group.submit([n, n + 1000])

    run_all(worker, [(n,) for n in range(16)])
    assert results == {n: [n * 10, (n + 1000) * 10] for n in range(16)}
    assert sorted(i for c in calls for i in c) == sorted([*range(16), *range(1000, 1016)])
    assert len(calls) < 16  # some requests were committed together


def test_a_failing_request_does_not_fail_the_others_in_its_group():
    def write(items: list[int]) -> list[int]:
        time.sleep(0.005)
        if any(i < 0 for i in items):
            raise ValueError("negative")
        return items

    group = GroupCommit(write)
    outcomes: dict[int, object] = {}

    def worker(n: int) -> None:
        try:
            outcomes[n] = group.submit([n if n != 3 else -3])
        except ValueError as exc:
            outcomes[n] = exc

    run_all(worker, [(n,) for n in range(8)])
    assert isinstance(outcomes.pop(3), ValueError)
    assert outcomes == {n: [n] for n in range(8) if n != 3}


def test_many_agents_recording_at_once_on_disk_lose_and_duplicate_nothing(tmp_path):
    with Memory.open(tmp_path / "m.kuzu") as mem:
        ids: dict[tuple[int, int], str] = {}
        errors: list[BaseException] = []

        def agent(a: int) -> None:
            try:
                for i in range(25):
                    r = mem.record(content=f"agent {a} note {i}", agent_id=f"agent-{a}", thread=f"t{a % 3}",
                                   entities=[f"Person {i % 5}"], occurred_at="2025-11-27")
                    assert r.status == "created"
                    ids[(a, i)] = r.id
                # a replay of an acknowledged event is a duplicate, never a second copy
                again = mem.record(content=f"agent {a} note 0", agent_id=f"agent-{a}", thread=f"t{a % 3}",
                                   entities=["Person 0"], occurred_at="2025-11-27")
                assert again.status == "duplicate" and again.id == ids[(a, 0)]
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                errors.append(exc)

        run_all(agent, [(a,) for a in range(8)])
        assert not errors
        assert mem.stats().events == 200
        assert len(mem.get(list(ids.values()))) == 200
        assert mem.stats().entities == 5


def test_a_bad_event_among_concurrent_good_ones_is_refused_alone(tmp_path):
    with Memory.open(tmp_path / "m.kuzu") as mem:
        outcomes: dict[int, object] = {}

        def agent(a: int) -> None:
            try:
                links = {"reply_to": "ev_missing"} if a == 2 else None
                outcomes[a] = mem.record(content=f"note {a}", links=links).status
            except (InvalidInput, Exception) as exc:  # noqa: BLE001
                outcomes[a] = exc

        run_all(agent, [(a,) for a in range(6)])
        assert getattr(outcomes.pop(2), "field", None) == "links"
        assert outcomes == {a: "created" for a in range(6) if a != 2}
        assert mem.stats().events == 5


@pytest.mark.parametrize("max_items", [1, 3])
def test_groups_respect_their_size_limit(max_items):
    sizes: list[int] = []

    def write(items: list[int]) -> list[int]:
        sizes.append(len(items))
        time.sleep(0.005)
        return items

    group = GroupCommit(write, max_items=max_items)
    run_all(group.submit, [([n],) for n in range(10)])
    assert sum(sizes) == 10 and max(sizes) <= max_items
