"""One evaluation: dataset + retriever -> ranking -> metric table, with what it cost.

    result = run_evaluation(dataset, make_retriever("bm25"), kmax=100)
    result.table.mean("ndcg@10"), result.ranking, result.usage, result.seconds

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
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .dataset import Dataset
from .errors import RetrievalError
from .metrics import evaluate
from .ranking import Ranking

ProgressFn = Callable[[dict], None]


@dataclass
class EvaluationResult:
    """What one run produced. The ranking is the data; the table is derived from it."""

    dataset: Dataset
    ranking: Ranking
    table: object  # ragdash.metrics.MetricTable
    retriever_name: str
    config: dict
    usage: dict
    seconds: float
    kmax: int
    query_ids: list[str]
    relevance_level: float | None = None
    gain: str = "linear"
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(
        timespec="seconds"))
    dataset_fingerprint: str = ""

    @property
    def dataset_name(self) -> str:
        return self.dataset.name

    def dataset_info(self) -> dict:
        """Name, source, fingerprint and sizes of the dataset (JSON-safe)."""
        return {"name": self.dataset.name, "source": self.dataset.source,
                "fingerprint": self.dataset_fingerprint or self.dataset.fingerprint(),
                "documents": len(self.dataset.documents),
                "queries": len(self.dataset.queries),
                "evaluated_queries": len(self.query_ids)}

    def summary(self, ks=None) -> dict[str, float]:
        """Mean of every metric at each K (default: the table's usual Ks)."""
        return self.table.summary(ks)


def run_evaluation(dataset: Dataset, retriever, *, kmax: int = 100,
                   limit_queries: int | None = None, progress: ProgressFn | None = None,
                   cancel: threading.Event | None = None,
                   relevance_level: float | None = None,
                   gain: str = "linear") -> EvaluationResult:
    """Retrieve the top ``kmax`` for the evaluated queries and score them at K = 1..kmax."""
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
    query_ids = [q.id for q in queries]
    table = evaluate(ranking, dataset.qrels, kmax=kmax, queries=query_ids,
                     relevance_level=relevance_level, gain=gain)
    return EvaluationResult(
        dataset=dataset, ranking=ranking, table=table, retriever_name=retriever.name,
        config=dict(retriever.config()), usage=dict(retriever.usage), seconds=seconds,
        kmax=kmax, query_ids=query_ids, relevance_level=relevance_level, gain=gain,
        dataset_fingerprint=fingerprint)


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
