"""Dimension and precision sweeps of a dense run, from its vectors, at no API cost.

    result = sweep(dataset, make_retriever("openai", model="text-embedding-3-small"),
                   dims=[256, 512, None], precisions=["float32", "int8", "binary"])
    result.parent                      # the full-size float32 run (a Run)
    runs = result.runs()               # one derived Run per point, parents=[parent.id]

The corpus and the evaluated queries are embedded once, through the embeddings cache (so a
sweep after an evaluation of the same model sends no request at all); each point then ranks
the same vectors transformed (:mod:`ragdash.retrieval.compress`):

- **dimensions**: the first d components of every vector, re-normalized. Valid for models
  trained for it (Matryoshka representation learning); the price catalog's ``truncatable``
  column says which, and a point that truncates any other model carries a warning. ``None``
  (``full`` on the command line) keeps the model's size: that point's ranking is the parent's.
- **precision**: ``float32`` (as embedded), ``float16``, ``int8`` (per-dimension scale
  ``max|x| / 127`` calibrated on the corpus vectors), ``binary`` (sign bits, Hamming ranking)
  and ``binary-rescore`` (the binary top 10 x K rescored with the float vectors).

Each point is a :class:`~ragdash.run.Run` derived from the parent (``source="sweep"``, its
transform in ``config["transform"]``) with what it takes to serve in ``resources``:
``index_bytes`` (vectors x dimensions x bytes per value, :func:`compress.index_bytes`),
``vectors``, ``dimensions``, ``precision``, ``search_seconds`` and ``ms_per_query``
(``binary-rescore`` adds ``rescore_bytes``: the float vectors it rescores with, which can stay
on disk). Its
cost is the parent's: the corpus is embedded once, at the model's size.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..cost import load_catalog
from ..dataset import Dataset
from ..errors import Cancelled, CostError, RetrievalError
from ..i18n import error, text
from ..ranking import Ranking
from ..run import Run
from . import compress
from .dense import DenseRetriever

__all__ = [
    "DEFAULT_DIMS",
    "SweepPoint",
    "SweepResult",
    "catalog_truncatable",
    "dense_retriever_for",
    "parse_dims",
    "parse_precisions",
    "sweep",
    "sweep_rankings",
]

#: the dimensions a sweep tries by default (those above the model's size are skipped)
DEFAULT_DIMS = (64, 128, 256, 512, 768, 1024, None)

ProgressFn = Callable[[dict], None]


@dataclass(frozen=True)
class SweepPoint:
    """One setting of a sweep: ``dimensions`` (None: the model's own) and ``precision``."""

    dimensions: int | None
    precision: str

    def label(self, full: int) -> str:
        """``"256 dims, int8"`` (or ``"1536 dims (full), float32"``)."""
        d = self.dimensions or full
        return f"{d} dims{' (full)' if d == full else ''}, {self.precision}"

    def transform(self, full: int) -> dict:
        d = self.dimensions or full
        return {"kind": "sweep", "dimensions": int(d), "full_dimensions": int(full),
                "precision": self.precision, "truncated": d < full}


@dataclass
class SweepResult:
    """The parent run and each point's ranking; :meth:`runs` makes the derived runs (call
    it after saving the parent, so they name it as their parent)."""

    parent: Run
    points: list[SweepPoint]
    rankings: list[Ranking]
    resources: list[dict]
    full_dimensions: int
    warnings: list[str] = field(default_factory=list)

    def runs(self) -> list[Run]:
        out = []
        full = self.full_dimensions
        for point, ranking, resources in zip(self.points, self.rankings, self.resources):
            transform = point.transform(full)
            label = point.label(full)
            base = self.parent.name or self.parent.retriever
            run = self.parent.derive(
                ranking, transform=transform, source="sweep",
                retriever=f"{self.parent.retriever}@{transform['dimensions']}/"
                          f"{point.precision}",
                name=f"{base} · {label}", resources=dict(resources),
                seconds=resources.get("search_seconds"),
                timings={"search": resources.get("search_seconds")},
                usage={"requests": 0, "prompt_tokens": 0}, cost=self.parent.cost)
            out.append(run)
        return out


# -- parsing the command line's lists ---------------------------------------------------------
def parse_dims(text: str | Sequence) -> list[int | None]:
    """``"64,128,full"`` → ``[64, 128, None]``; each a whole number ≥ 1 or ``full``."""
    items = text.split(",") if isinstance(text, str) else list(text)
    out: list[int | None] = []
    for raw in items:
        item = str(raw).strip().lower() if raw is not None else "full"
        if not item:
            continue
        if item in ("full", "none", "all"):
            value = None
        else:
            try:
                value = int(item)
            except ValueError:
                raise error(RetrievalError, "sweep.dim_not_whole", raw=raw) from None
            if value < 1:
                raise error(RetrievalError, "sweep.dim_below_one", value=value)
        if value not in out:
            out.append(value)
    if not out:
        raise error(RetrievalError, "sweep.no_dims")
    return out


def parse_precisions(text: str | Sequence[str]) -> list[str]:
    """``"float32,int8"`` → ``["float32", "int8"]``, each one of :data:`compress.PRECISIONS`."""
    items = text.split(",") if isinstance(text, str) else list(text)
    out: list[str] = []
    for raw in items:
        item = str(raw).strip().lower()
        if not item:
            continue
        if item not in compress.PRECISIONS:
            raise error(RetrievalError, "sweep.unknown_precision", raw=raw,
                        names=", ".join(compress.PRECISIONS))
        if item not in out:
            out.append(item)
    if not out:
        raise error(RetrievalError, "sweep.no_precision")
    return out


# -- the sweep -------------------------------------------------------------------------------
def sweep_rankings(query_vecs: np.ndarray, doc_vecs: np.ndarray, points: Sequence[SweepPoint],
                   k: int, *, query_ids: Sequence[str], doc_ids: Sequence[str], name: str = "",
                   cancel: threading.Event | None = None
                   ) -> list[tuple[Ranking, dict]]:
    """Each point's ranking of the given vectors, with what its index takes."""
    n, full = doc_vecs.shape
    out = []
    for point in points:
        if cancel is not None and cancel.is_set():
            raise error(Cancelled, "sweep.cancelled")
        d = point.dimensions or full
        started = time.perf_counter()
        indices, scores = compress.compressed_top_k(
            query_vecs, doc_vecs, k, precision=point.precision,
            dimensions=None if d == full else d, doc_ids=doc_ids)
        seconds = time.perf_counter() - started
        label = name if (d, point.precision) == (full, "float32") else \
            f"{name}@{d}/{point.precision}"
        ranking = Ranking.from_topk(list(query_ids), list(doc_ids), indices, scores,
                                    name=label)
        resources = {"index_bytes": compress.index_bytes(n, d, point.precision),
                     **({"rescore_bytes": compress.index_bytes(n, d, "float32")}
                        if point.precision == "binary-rescore" else {}),
                     "vectors": int(n), "dimensions": int(d), "full_dimensions": int(full),
                     "precision": point.precision, "search_seconds": seconds,
                     "ms_per_query": 1000.0 * seconds / max(1, len(query_ids))}
        out.append((ranking, resources))
    return out


def sweep(dataset: Dataset, retriever: DenseRetriever, *,
          dims: Sequence[int | None] = DEFAULT_DIMS,
          precisions: Sequence[str] = ("float32",), kmax: int = 100,
          limit_queries: int | None = None, query_ids: Sequence[str] | None = None,
          truncatable: bool | None = None,
          relevance_level: float | None = None, gain: str = "linear",
          progress: ProgressFn | None = None,
          cancel: threading.Event | None = None) -> SweepResult:
    """Embed ``dataset`` once with ``retriever`` (cached) and rank it at every
    (dimension, precision) point. ``truncatable``: whether the model was trained for
    truncation (the price catalog's column; None: not known) — truncating a model not marked
    True adds a warning. Dimensions above the model's size are skipped (with a warning)."""
    if not isinstance(retriever, DenseRetriever):
        raise error(RetrievalError, "sweep.needs_dense")
    kmax = int(kmax)
    if kmax < 1:
        raise error(RetrievalError, "sweep.kmax", kmax=kmax)
    if not dataset.documents:
        raise error(RetrievalError, "sweep.no_documents")
    if query_ids is not None:
        wanted = set(map(str, query_ids))
        queries = [q for q in dataset.queries if q.id in wanted]
    else:
        queries = dataset.evaluated_queries(limit_queries)
    if not queries:
        raise error(RetrievalError, "sweep.no_judged")
    precisions = parse_precisions(precisions)
    started = time.perf_counter()
    # the documents' vectors as a run reads them: the memory-mapped vector file (written
    # once from the cache), so a sweep holds no more than a search does
    doc_vecs, query_vecs = retriever.vectors(dataset, [q.text for q in queries],
                                             progress=progress, cancel=cancel)
    embed_seconds = time.perf_counter() - started
    full = int(doc_vecs.shape[1])
    points, warnings = _points(parse_dims(dims), precisions, full, truncatable,
                               retriever.embedder.model)
    if (None, "float32") not in {(p.dimensions, p.precision) for p in points}:
        parent_point = [SweepPoint(None, "float32")]
    else:
        parent_point = []
    k = min(kmax, len(dataset.documents))
    query_ids = [q.id for q in queries]
    ranked = sweep_rankings(query_vecs, doc_vecs, parent_point + points, k,
                            query_ids=query_ids, doc_ids=dataset.doc_ids,
                            name=retriever.name, cancel=cancel)
    by_point = dict(zip(parent_point + points, ranked))
    parent_ranking, parent_resources = by_point[SweepPoint(None, "float32")]
    config = dict(retriever.config())
    parent_resources = dict(parent_resources)
    parent = Run(dataset=dataset, ranking=parent_ranking,
                 query_ids=query_ids, kmax=kmax, retriever=retriever.name,
                 model=config.get("model"), config=config, usage=dict(retriever.usage),
                 seconds=embed_seconds + parent_resources["search_seconds"],
                 timings={"embedding": embed_seconds,
                          "search": parent_resources["search_seconds"]},
                 resources=parent_resources, relevance_level=relevance_level, gain=gain,
                 source="evaluation")
    return SweepResult(parent=parent, points=points,
                       rankings=[by_point[p][0] for p in points],
                       resources=[by_point[p][1] for p in points], full_dimensions=full,
                       warnings=warnings)


def _points(dims: list[int | None], precisions: list[str], full: int,
            truncatable: bool | None, model: str) -> tuple[list[SweepPoint], list[str]]:
    warnings = []
    kept = []
    too_big = [d for d in dims if d is not None and d > full]
    if too_big:
        warnings.append(text("sweep.skipped_dims", dims=", ".join(map(str, too_big)),
                             model=model, full=full))
    for d in dims:
        if d is None or d == full:
            d = None
        elif d > full:
            continue
        if d not in kept:
            kept.append(d)
    if any(d is not None for d in kept) and truncatable is not True:
        warnings.append(text("sweep.not_truncatable", model=model) if truncatable is False
                        else text("sweep.unknown_truncatable", model=model))
    return [SweepPoint(d, p) for d in kept for p in precisions], warnings


def catalog_truncatable(model: str, provider: str | None = None) -> bool | None:
    """The price catalog's word on whether ``model`` was trained for truncation (None: not
    known, or not in the catalog)."""
    try:
        return load_catalog().find(model or "", provider).truncatable
    except CostError:
        return None


def dense_retriever_for(run: Run, *, api_key: str | None = None,
                        cache_dir=None) -> DenseRetriever:
    """The dense retriever that made ``run``, rebuilt from its config (never holding a key
    unless one is given): with the same embeddings cache it finds the run's vectors without
    a request."""
    from .dense import make_dense_retriever

    config = dict(run.config)
    kind = str(config.get("retriever") or "").lower()
    if kind not in ("openai", "local") or not config.get("model"):
        raise error(RetrievalError, "sweep.not_dense",
                    run=run.name or run.retriever)
    options = {"model": config["model"], "dimensions": config.get("dimensions"),
               "batch_size": config.get("batch_size"),
               "query_prefix": config.get("query_prefix") or "",
               "document_prefix": config.get("document_prefix") or "",
               "cache_dir": cache_dir}
    if kind == "openai":
        options.update(base_url=config.get("base_url"), api_key=api_key or None,
                       encoding_format=config.get("encoding_format"),
                       api_version=config.get("api_version"),
                       api_key_header=config.get("api_key_header"),
                       concurrency=config.get("concurrency"), timeout=config.get("timeout"))
    return make_dense_retriever(kind, **{k: v for k, v in options.items() if v is not None})
