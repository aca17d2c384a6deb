"""Index a candidate's vectors into an engine and measure ANN against exact search.

``ann_experiment`` takes the document and query vectors of a dense configuration (from the
embeddings cache; only what is missing is embedded and paid for), ranks exactly with
:func:`ragdash.retrieval.top_k_cosine`, pushes the document vectors into a new collection with
the index asked for, searches it, and reports:

- ``ann_recall@K``: mean over queries of |ANN top K ∩ exact top K| / |exact top K|;
- the metrics of both runs and the paired test on the chosen metric (nDCG@10 by default),
  as ``compare`` computes it;
- query latency p50 / p95 in milliseconds (single-query requests, after a warm-up);
- the index's memory: what the engine reports, else an estimate from the formula
  (vectors × dimensions × 4 bytes, plus HNSW's links: vectors × 2M × 4 bytes), marked so.

Both are :class:`ragdash.run.Run`; the ANN run is derived from the exact one
(``config["transform"] = {"kind": "ann", "engine": ..., "index": ...}``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...dataset import Dataset
from ...errors import EngineError, RetrievalError
from ...i18n import error
from ...ranking import Ranking
from ...run import Run
from ..cosine import top_k_cosine
from .base import IndexSpec, VectorEngine

if TYPE_CHECKING:
    from ..dense import DenseRetriever

ProgressFn = Callable[[dict], None]
#: single-query searches timed for the latency figures
LATENCY_PROBES = 50


@dataclass
class AnnReport:
    exact: Run
    ann: Run
    k: int
    recall_at_k: float
    metric: str
    p_value: float
    latency_ms: dict
    index_bytes: int
    index_bytes_source: str  # "engine" or "estimate"
    seconds: dict = field(default_factory=dict)

    def to_json_obj(self, ks=(1, 5, 10, 20, 100)) -> dict:
        exact, ann = self.exact.table(), self.ann.table()
        ks = sorted({*ks, int(self.metric.rsplit("@", 1)[-1])} if "@" in self.metric else ks)
        shown = [k for k in ks if k <= min(exact.kmax, ann.kmax)]
        return {
            f"ann_recall@{self.k}": self.recall_at_k,
            "exact": exact.summary(shown),
            "ann": ann.summary(shown),
            "metric": self.metric,
            "difference": ann.mean(self.metric) - exact.mean(self.metric),
            "p_value": self.p_value,
            "latency_ms": self.latency_ms,
            "index_bytes": self.index_bytes,
            "index_bytes_source": self.index_bytes_source,
            "index": self.ann.config.get("transform", {}).get("index"),
            "engine": self.ann.config.get("transform", {}).get("engine"),
            "seconds": self.seconds,
            "queries": len(self.exact.query_ids),
        }


def ann_recall(exact: Ranking, ann: Ranking, k: int) -> float:
    """Mean over the exact run's queries of |ANN top k ∩ exact top k| / |exact top k|."""
    values = []
    for qid in exact.query_ids:
        truth, _ = exact.get(qid)
        truth = set(truth[:k])
        if not truth:
            continue
        got = set(ann.get(qid)[0][:k]) if qid in ann else set()
        values.append(len(truth & got) / len(truth))
    return float(np.mean(values)) if values else float("nan")


def estimate_index_bytes(n: int, dimension: int, index: IndexSpec) -> int:
    """Vectors × dimensions × 4 bytes (float32), plus HNSW's links (n × 2M × 4 bytes)."""
    size = int(n) * int(dimension) * 4
    if index.kind == "hnsw":
        size += int(n) * 2 * index.m * 4
    return size


@dataclass
class AnnRankings:
    """What one ANN experiment measured, before it becomes runs."""

    exact: Ranking
    ann: Ranking
    recall_at_k: float
    latency_ms: dict
    index_bytes: int
    index_bytes_source: str
    collection: str
    seconds: dict


def ann_rankings(dataset: Dataset, queries, dense: DenseRetriever, engine: VectorEngine,
                 index: IndexSpec, *, collection: str | None = None, kmax: int = 100,
                 k: int = 10, keep: bool = True, progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None) -> AnnRankings:
    """Exact and ANN rankings of ``queries`` for ``dense``'s vectors of ``dataset``."""
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    dvecs, qvecs = dense.vectors(dataset, [q.text for q in queries], progress=progress,
                                 cancel=cancel)  # documents memory-mapped when cached
    seconds["embed"] = time.perf_counter() - t0
    _check(cancel)
    kk = min(int(kmax), len(dataset.documents))
    qids = [q.id for q in queries]

    t0 = time.perf_counter()
    idx, sc = top_k_cosine(qvecs, dvecs, kk, doc_ids=dataset.doc_ids, cancel=cancel)
    exact_ranking = Ranking.from_topk(qids, dataset.doc_ids, idx, sc, name=dense.name)
    seconds["exact_search"] = time.perf_counter() - t0

    name = collection or f"ragdash_{dataset.fingerprint()[:12]}_{index.kind}"
    t0 = time.perf_counter()
    engine.create(name, dvecs.shape[1], index)
    if progress is not None:
        progress({"stage": "indexing", "done": 0, "total": len(dvecs)})
    engine.insert(name, dataset.doc_ids, dvecs)
    seconds["index"] = time.perf_counter() - t0
    if progress is not None:
        progress({"stage": "indexing", "done": len(dvecs), "total": len(dvecs)})
    _check(cancel)
    try:
        if progress is not None:
            progress({"stage": "searching", "done": 0, "total": len(qids)})
        t0 = time.perf_counter()
        found = engine.search(name, qvecs, kk, vector_field="vector", id_field="doc_id",
                              index=index)
        seconds["ann_search"] = time.perf_counter() - t0
        latency = _latency(engine, name, qvecs, kk, index)
        reported = engine.memory_bytes(name)
        if progress is not None:
            progress({"stage": "searching", "done": len(qids), "total": len(qids)})
    finally:
        if not keep:
            engine.drop(name)
    ann_ranking = _ranking(qids, found.ids, found.scores, name=f"{dense.name} ({engine.kind} "
                                                               f"{index.kind})")
    index_bytes = reported if reported is not None else estimate_index_bytes(
        len(dvecs), dvecs.shape[1], index)
    return AnnRankings(exact=exact_ranking, ann=ann_ranking,
                       recall_at_k=ann_recall(exact_ranking, ann_ranking, int(k)),
                       latency_ms=latency, index_bytes=int(index_bytes),
                       index_bytes_source="engine" if reported is not None else "estimate",
                       collection=name, seconds=seconds)


def ann_experiment(dataset: Dataset, dense: DenseRetriever, engine: VectorEngine,
                   index: IndexSpec, *, collection: str | None = None, kmax: int = 100,
                   k: int = 10, metric: str = "ndcg@10", limit_queries: int | None = None,
                   relevance_level: float | None = None, gain: str = "linear",
                   keep: bool = True, progress: ProgressFn | None = None,
                   cancel: threading.Event | None = None) -> AnnReport:
    """Exact vs ANN on ``engine`` for ``dense``'s vectors of ``dataset`` (see module doc)."""
    if k > kmax:
        raise error(RetrievalError, "engine.recall_kmax", k=k)
    queries = dataset.evaluated_queries(limit_queries)
    if not queries:
        raise error(RetrievalError, "engine.no_evaluated_queries")
    got = ann_rankings(dataset, queries, dense, engine, index, collection=collection,
                       kmax=kmax, k=k, keep=keep, progress=progress, cancel=cancel)
    kk = min(int(kmax), len(dataset.documents))
    common = {"dataset": dataset, "query_ids": [q.id for q in queries], "kmax": kk,
              "relevance_level": relevance_level, "gain": gain}
    exact = Run(ranking=got.exact, retriever=dense.name,
                model=getattr(dense.embedder, "model", None), config=dense.config(),
                usage=dict(dense.usage), seconds=got.seconds["exact_search"], **common)
    transform = {"kind": "ann", "engine": engine.config(), "index": index.config(),
                 "collection": got.collection}
    ann = exact.derive(got.ann, transform=transform, retriever=got.ann.name,
                       source="engine", seconds=got.seconds["ann_search"],
                       resources={"index_bytes": got.index_bytes,
                                  "index_bytes_source": got.index_bytes_source,
                                  "latency_ms": got.latency_ms})
    return AnnReport(exact=exact, ann=ann, k=int(k), recall_at_k=got.recall_at_k,
                     metric=metric, p_value=_paired_p(exact, ann, metric),
                     latency_ms=got.latency_ms, index_bytes=got.index_bytes,
                     index_bytes_source=got.index_bytes_source, seconds=got.seconds)


class AnnRetriever:
    """"Test ANN settings" as a retriever (the app's Run page): its ranking is the engine's
    ANN answer for the dense configuration's vectors, pushed into a new collection with
    ``index``; :meth:`config` carries the transform and what was measured against exact
    search (ANN recall@K, latency, index memory), and the exact ranking stays in
    :attr:`exact` (the same as a dense run of that configuration)."""

    def __init__(self, dense: DenseRetriever, engine: VectorEngine, index: IndexSpec, *,
                 collection: str | None = None, k: int = 10) -> None:
        self.dense, self.engine, self.index = dense, engine, index
        self.collection, self.k = collection, int(k)
        self.name = f"{dense.name} ({engine.kind} {index.kind})"
        self.exact: Ranking | None = None
        self.measured: AnnRankings | None = None

    @property
    def usage(self) -> dict:
        return dict(self.dense.usage)

    @property
    def notes(self) -> list[str]:
        return list(getattr(self.dense, "notes", []))

    def config(self) -> dict:
        transform = {"kind": "ann", "engine": self.engine.config(),
                     "index": self.index.config(), "collection": self.collection}
        m = self.measured
        if m is not None:
            transform.update({"collection": m.collection, f"ann_recall@{self.k}": m.recall_at_k,
                              "latency_ms": m.latency_ms, "index_bytes": m.index_bytes,
                              "index_bytes_source": m.index_bytes_source})
        return {**self.dense.config(), "transform": transform}

    def rank(self, dataset: Dataset, queries, kmax: int, *, progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        try:
            self.measured = ann_rankings(dataset, list(queries), self.dense, self.engine,
                                         self.index, collection=self.collection, kmax=kmax,
                                         k=min(self.k, int(kmax)), progress=progress,
                                         cancel=cancel)
        finally:
            self.engine.close()
        self.exact = self.measured.exact
        return self.measured.ann


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        from ...errors import Cancelled

        raise error(Cancelled, "engine.cancelled")


def _ranking(qids, ids, scores, *, name: str) -> Ranking:
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in ids])]).astype(np.int64)
    docs = np.asarray([d for r in ids for d in r], dtype=object)
    vals = np.asarray([s for r in scores for s in r], dtype=np.float64)
    if len(ids) != len(qids):
        raise error(EngineError, "engine.answered_some", got=len(ids), n=len(qids))
    return Ranking(qids, offsets, docs, vals, name=name)


def _latency(engine: VectorEngine, name: str, qvecs: np.ndarray, k: int,
             index: IndexSpec) -> dict:
    """p50 / p95 of single-query searches in ms (the first one, a warm-up, not counted)."""
    n = min(LATENCY_PROBES, len(qvecs))
    times = []
    for i in range(n + 1):
        t0 = time.perf_counter()
        engine.search(name, qvecs[i % len(qvecs):i % len(qvecs) + 1], k, vector_field="vector",
                      id_field="doc_id", index=index, batch=1)
        if i:
            times.append((time.perf_counter() - t0) * 1000)
    return {"p50": float(np.percentile(times, 50)), "p95": float(np.percentile(times, 95)),
            "probes": len(times)}


def _paired_p(exact: Run, ann: Run, metric: str) -> float:
    from ...stats import compare_tables

    cmp = compare_tables({"exact": exact.table(), "ann": ann.table()}, metric)
    return float(cmp.pair("exact", "ann").p_holm)
