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


def test_the_static_embedder_gives_the_models_own_vectors_to_the_bit(monkeypatch):
    """Printable ASCII is split by the embedder itself (a word's pieces asked of the tokenizer once); every
    other text goes through the model whole. Either way a vector is the one the model's encode gives."""
    import random
    import string

    import numpy as np
    import pytest

    from graphmem.index import static_model_built
    from graphmem.index.embed import WORD_PIECES_KEPT
    from tests.fixtures.extraction_corpus import corpus

    if not static_model_built():
        pytest.skip("the static model is not built; `make test` builds it with `graphmem models build`")
    static = embedder_named("static")
    rng = random.Random(5)
    texts = [example.text for example in corpus()]
    texts += ["".join(rng.choice(string.printable) for _ in range(rng.choice([1, 8, 60, 300, 4000])))
              for _ in range(300)]
    texts += [
        "", "   \t\n", "!!! 42 ...", "snake_case and CamelCase, e-mail: a.b@example.com (v1.2.3) #42 [x]",
        "a" * 150 + " longer than a word may be",  # (the tokenizer's unknown piece, left out of the mean)
        "word " * 700,  # more pieces than the model keeps
        "[UNK] [CLS] [SEP] [MASK] [PAD] are the tokenizer's own marks",
        "Café naïve résumé", "東京で2025年11月27日に会議", "a vertical\x0btab", "DEL\x7f and NUL\x00",
    ]
    model = static._model  # type: ignore[attr-defined]
    for batch in (texts, texts[:1], texts[-4:], texts[3:9]):
        assert np.array_equal(static._encode(list(batch))[0], model.encode(list(batch)))  # type: ignore[attr-defined]
    assert 0 < len(static._pieces) <= WORD_PIECES_KEPT  # type: ignore[attr-defined]
    monkeypatch.setattr("graphmem.index.embed.SUMMED_ROWS", 7)  # texts of one length summed a few at a time
    assert np.array_equal(static._encode(texts[:120])[0], model.encode(texts[:120]))  # type: ignore[attr-defined]
    monkeypatch.setattr("graphmem.index.embed.WORD_PIECES_KEPT", 50)  # when full, the words kept start over
    fresh = [f"zq{i}x and wv{i}y" for i in range(30)]  # 60 words not seen before, and "and"
    assert np.array_equal(static._encode(fresh)[0], model.encode(fresh))  # type: ignore[attr-defined]
    assert len(static._pieces) == 61  # type: ignore[attr-defined]
    # embedded with their words: the same vectors, and the words word_rows finds in the whole text (a text longer
    # than the model reads is embedded cut, its words found in all of it)
    for batch in (texts, fresh, ["covid19 and h1n1, x2y3z: " * 5, "café 42", "b" * 9000 + " gardening"]):
        vectors, (rows, sizes) = static.embed_with_words(batch)
        assert np.array_equal(vectors, static.embed(batch))
        alone = static.word_rows(batch)
        assert np.array_equal(rows, alone[0]) and np.array_equal(sizes, alone[1])
