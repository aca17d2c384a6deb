"""One evaluation: dataset + retriever -> a :class:`ragdash.run.Run` (ranking, what it cost
and took; its metric table derived on demand).

    run = run_evaluation(dataset, make_retriever("bm25"), kmax=100)
    run.table().mean("ndcg@10"), run.ranking, run.usage, run.seconds

The queries evaluated are the dataset's queries that have qrels, in file order (the first
``limit_queries`` of them). The metric table is computed over exactly those queries, so a
query that has relevant documents but got no results (an empty BM25 match, say) counts as 0
rather than disappearing from the mean.

Used by the command line (``python -m ragdash evaluate``) and the app (the Run page).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from .dataset import Dataset, Query
from .errors import RetrievalError
from .ranking import Ranking
from .run import Run

__all__ = ["ProgressFn", "Retriever", "run_evaluation"]

ProgressFn = Callable[[dict], None]


class Retriever(Protocol):
    """What :func:`run_evaluation` needs of a retriever (BM25, dense, an engine, ...)."""

    name: str
    usage: dict

    def config(self) -> dict: ...

    def rank(self, dataset: Dataset, queries: list[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking: ...


def run_evaluation(dataset: Dataset, retriever: Retriever, *, kmax: int = 100,
                   limit_queries: int | None = None, progress: ProgressFn | None = None,
                   cancel: threading.Event | None = None,
                   relevance_level: float | None = None,
                   gain: str = "linear") -> Run:
    """Retrieve the top ``kmax`` for the evaluated queries; the run's table scores them at
    K = 1..kmax (computed when first asked for)."""
    kmax = _positive_int(kmax, "kmax")
    if limit_queries is not None:
        limit_queries = _positive_int(limit_queries, "limit_queries")
    if not dataset.documents:
        raise RetrievalError("the dataset has no documents to retrieve from")
    queries = dataset.evaluated_queries(limit_queries)
    if not queries:
        raise RetrievalError("no query has relevance judgements (qrels), so there is nothing "
                             "to evaluate; check that the qrels use the queries' ids")
    fingerprint = dataset.fingerprint()
    started = time.perf_counter()
    ranking = retriever.rank(dataset, queries, kmax, progress=progress, cancel=cancel)
    seconds = time.perf_counter() - started
    config = dict(retriever.config())
    # a chunked retriever says which chunk matched (the drill-down shows it)
    resources = dict(getattr(retriever, "resources", None) or {})
    return Run(dataset=dataset, ranking=ranking, query_ids=[q.id for q in queries], kmax=kmax,
               retriever=retriever.name, model=config.get("model"), config=config,
               usage=dict(retriever.usage), seconds=seconds,
               timings={"retrieval": seconds}, resources=resources,
               relevance_level=relevance_level, gain=gain,
               source="evaluation", dataset_fingerprint=fingerprint)


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool):
        raise RetrievalError(f"{what} must be a whole number >= 1, not {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise RetrievalError(f"{what} must be a whole number >= 1, not {value!r}") from None
    if number != value or number < 1:
        raise RetrievalError(f"{what} must be a whole number >= 1, not {value!r}")
    return number
