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


def test_word_match_finds_related_words_a_whole_text_vector_dilutes():
    import pytest

    from graphmem.index import static_model_built

    if not static_model_built():
        pytest.skip("the static model is not built; `make test` builds it with `graphmem models build`")
    static = embedder_named("static")

    def match(text, texts):
        return static.word_match(text, *static.word_rows(texts))

    texts = [
        "Deborah: Yesterday me and my neighbour ran a free gardening class for the community!",
        "Deborah: Thanks for asking, the quarterly budget review is on Friday.",
        "!!! 42 ...",  # no word of the vocabulary: matches nothing
    ]
    gardening, budget, nothing = match("What activities does Deborah pursue besides yoga?", texts)
    assert gardening > budget > nothing == 0.0
    # each of the query's words scores its best match in the text, averaged: a text holding the query's own
    # words matches fully
    assert match("gardening class", ["a gardening class", "class"]).tolist() == pytest.approx(
        [1.0, 0.5 * (1.0 + float(match("gardening", ["class"])[0]))], abs=1e-5)
    assert match("what is it?", texts) is None  # only function words: nothing to match
    rows, sizes = static.word_rows(texts)
    assert sizes.tolist()[2] == 0 and len(rows) == sum(sizes)
