"""Group commit: writers that arrive while a transaction is committing share the next one.

A durable commit costs one or two disk syncs (milliseconds), whatever it holds. When several threads write
at once (a server with many agents), the first to arrive becomes the leader and commits its own request;
requests that queue up meanwhile are committed together by the next leader, in one transaction. Each
caller returns only after the transaction holding its request has committed, so nothing is acknowledged
before it is durable. A lone writer sees no delay: it is its own leader.

If a combined transaction fails, its requests are retried one by one, so one caller's bad request never
fails another caller's good one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["GroupCommit"]

Item = TypeVar("Item")
Out = TypeVar("Out")


@dataclass
class _Request(Generic[Item, Out]):
    items: list[Item]
    done: bool = False
    result: list[Out] = field(default_factory=list)
    error: BaseException | None = None


class GroupCommit(Generic[Item, Out]):
    """Runs ``write(items) -> outputs`` (one output per item, in order) for concurrent callers in groups."""

    def __init__(self, write: Callable[[list[Item]], list[Out]], *, max_items: int = 10_000) -> None:
        self._write = write
        self._max_items = max_items
        self._cv = threading.Condition()
        self._pending: list[_Request[Item, Out]] = []
        self._leading = False

    def submit(self, items: Sequence[Item]) -> list[Out]:
        request: _Request[Item, Out] = _Request(list(items))
        with self._cv:
            self._pending.append(request)
        while True:
            with self._cv:
                while not request.done and self._leading:
                    self._cv.wait()
                if request.done:
                    break
                self._leading = True  # lead one round: the oldest pending requests, ours among them or ahead
                group = self._take()
            try:
                self._commit(group)
            finally:
                with self._cv:
                    self._leading = False
                    self._cv.notify_all()
        if request.error is not None:
            raise request.error
        return request.result

    def _take(self) -> list[_Request[Item, Out]]:
        """The oldest pending requests, up to ``max_items`` items (always at least one request)."""
        group: list[_Request[Item, Out]] = []
        size = 0
        while self._pending and (not group or size + len(self._pending[0].items) <= self._max_items):
            request = self._pending.pop(0)
            group.append(request)
            size += len(request.items)
        return group

    def _commit(self, group: list[_Request[Item, Out]]) -> None:
        if len(group) > 1:
            try:
                outputs = self._write([item for r in group for item in r.items])
            except Exception:  # noqa: BLE001 - retried one by one below, each caller gets its own outcome
                pass
            else:
                start = 0
                for r in group:
                    r.result, r.done = outputs[start : start + len(r.items)], True
                    start += len(r.items)
                return
        for r in group:
            try:
                r.result = self._write(r.items)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller that made the request
                r.error = exc
            r.done = True
