"""Embedders are shared by the background indexer and the queries: they must take calls from many threads."""

from __future__ import annotations

import threading

from graphmem.index.embed import embedder_named


def test_the_static_embedder_takes_calls_from_many_threads_at_once():
    embedder = embedder_named("static")
    assert embedder is not None
    errors: list[str] = []

    def work() -> None:
        try:
            for _ in range(200):
                embedder.embed(["Kuzu answered the 1M as-of query fast."] * 3)
        except Exception as exc:  # the tokenizer's "Already borrowed" when two threads meet
            errors.append(repr(exc))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
