"""Search indexes of a memory: words (BM25), vectors (faiss, the only home of it) and embedders.

:class:`SearchIndex` holds one memory's documents; :func:`embedder_named` picks an embedder by name.
faiss and the embedding models load only when vectors are asked for.
"""

from graphmem.index.embed import (
    Embedder,
    build_static_model,
    default_static_dir,
    embedder_named,
    static_model_built,
)
from graphmem.index.search import IndexStatus, SearchIndex
from graphmem.index.text import tokens

__all__ = [
    "Embedder",
    "IndexStatus",
    "SearchIndex",
    "build_static_model",
    "default_static_dir",
    "embedder_named",
    "static_model_built",
    "tokens",
]
