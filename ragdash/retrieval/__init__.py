"""Retrieval: from a Dataset and its queries to a Ranking.

    make_retriever("bm25")                          -> BM25Retriever (no key, the default)
    make_retriever("openai", model=..., ...)        -> DenseRetriever (ragdash.embeddings)
    make_retriever("local", model=...)              -> DenseRetriever (sentence-transformers)
    top_k_cosine(query_vecs, doc_vecs, k)           -> exact cosine top-k, bounded memory
    tokenize(texts)                                 -> CJK-aware tokens (BM25's)

Every retriever follows the :class:`Retriever` protocol, so the pipeline, the command line and
the app treat them alike.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ..dataset import Dataset, Query
from ..errors import RetrievalError
from ..i18n import error
from ..params import BM25, ENGINE_KINDS, RETRIEVER_KINDS
from ..ranking import Ranking
from .bm25 import BM25Retriever
from .cosine import top_k_cosine
from .tokenize import TOKENIZER_NAME, tokenize

#: names accepted by :func:`make_retriever`, in the order help texts list them (the first
#: stages of ragdash.params that are not a vector engine's collection)
RETRIEVERS = tuple(k for k in RETRIEVER_KINDS if k not in ENGINE_KINDS)

ProgressFn = Callable[[dict], None]


@runtime_checkable
class Retriever(Protocol):
    """What every retriever provides.

    - ``name``: a short label for tables and run files (``"bm25"``,
      ``"openai:text-embedding-3-small"``).
    - ``usage``: ``{"requests", "prompt_tokens", "embedded_texts", "cached_texts"}`` so far
      (all 0 for BM25).
    - ``config()``: a JSON-safe dict of everything that decides the ranking; never a key.
    - ``rank(dataset, queries, kmax, progress=, cancel=)``: the top ``kmax`` documents per
      query. ``progress(event)`` gets ``{stage, done, total, calls, tokens}`` with stage
      ``"documents"``, ``"queries"`` then ``"ranking"``; when ``cancel`` (a
      ``threading.Event``) is set the retriever stops soon and raises
      :class:`ragdash.errors.Cancelled`.
    - ``resources`` (optional): after ``rank``, what its index takes — ``index_bytes``
      (vectors x dimensions x bytes per value, or BM25's sparse matrix as built), ``vectors``,
      ``search_seconds`` (the search alone, without embedding or indexing).
    """

    name: str

    @property
    def usage(self) -> dict: ...

    def config(self) -> dict: ...

    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking: ...


def make_retriever(name: str, **options) -> Retriever:
    """The retriever called ``name`` ("bm25", "openai" or "local") with ``options``.

    BM25 takes ``k1``, ``b`` and ``method``. "openai" and "local" take the options of
    :func:`ragdash.retrieval.dense.make_dense_retriever` (``model``, ``base_url``,
    ``api_key``, ``dimensions``, ...). Options set to None are left at their defaults.
    """
    options = {k: v for k, v in options.items() if v is not None}
    key = str(name).strip().lower()
    if key == "bm25":
        allowed = set(BM25.names)
        unknown = sorted(set(options) - allowed)
        if unknown:
            raise error(RetrievalError, "retr.bm25_options", unknown=", ".join(unknown),
                        allowed=", ".join(sorted(allowed)))
        return BM25Retriever(**options)
    if key in ("openai", "local"):
        if not options.get("model"):
            raise error(RetrievalError, "retr.needs_model", key=key)
        from .dense import make_dense_retriever

        return make_dense_retriever(key, **options)
    if key in ("engine", "ann"):  # a deployed collection; ANN settings tested (the app)
        from .engines import make_engine_retriever

        return make_engine_retriever(key, **options)
    if key == "http":  # a team's search service (the app's Run page)
        from .own.http import http_retriever

        return http_retriever(options.pop("url", ""), **options)
    if key == "python":  # a team's own search, its entry from a setup file
        from .own.search import own_retriever

        return own_retriever(**options)
    raise error(RetrievalError, "retr.unknown", name=name,
                names=", ".join(RETRIEVERS))


__all__ = ["RETRIEVERS", "TOKENIZER_NAME", "BM25Retriever", "Retriever", "make_retriever",
           "tokenize", "top_k_cosine"]
