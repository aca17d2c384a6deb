"""A deployed collection as a retriever.

ragdash embeds the queries itself (through the embeddings cache, with the embedding config
the collection was built with), asks the engine for the top K in batches, and maps each hit
to a dataset document id: the value of ``id_field`` in the hit's payload, optionally through
``id_map`` (engine value → dataset id). A hit whose id is not in the dataset is counted in
``usage["unmapped_ids"]`` (with a few examples in :attr:`EngineRetriever.notes`) and left out
of the ranking — never silently. A collection of chunks (several hits with one document id)
folds to the document's best hit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...dataset import Dataset, Query
from ...errors import Cancelled, EngineError
from ...i18n import error, text
from ...ranking import Ranking
from .base import SearchResult, VectorEngine

if TYPE_CHECKING:
    from ..dense import DenseRetriever

ProgressFn = Callable[[dict], None]
#: queries sent to the engine per request
SEARCH_BATCH = 64


#: how many ids not in the dataset a run names (the command line's table and JSON, the notes)
UNMAPPED_EXAMPLES = 5


class EngineRetriever:
    """The Retriever protocol over ``engine``'s ``collection``; ``queries`` (a
    :class:`~ragdash.retrieval.dense.DenseRetriever`) embeds the query texts."""

    def __init__(self, engine: VectorEngine, collection: str, *, id_field: str,
                 queries: DenseRetriever, vector_field: str | None = None,
                 filter: str | None = None, id_map: Mapping[str, str] | None = None,
                 batch: int = SEARCH_BATCH) -> None:
        if not str(id_field or "").strip():
            raise error(EngineError, "engine.need_id_field")
        self.engine = engine
        self.collection = collection
        self.id_field = id_field
        self.vector_field = vector_field
        self.filter = filter or None
        self.id_map = dict(id_map) if id_map else None
        self.batch = int(batch)
        self.dense = queries
        self.name = f"{engine.kind}:{collection}"
        self.unmapped = 0
        self.unmapped_examples: list[str] = []
        self.search_seconds: list[float] = []
        self._requests = 0
        #: close the engine's connection once ranked (the app: a Milvus Lite file is opened
        #: by one client at a time)
        self.close_after_rank = False

    @property
    def usage(self) -> dict:
        usage = dict(self.dense.usage)
        usage["engine_requests"] = self._requests
        usage["unmapped_ids"] = self.unmapped
        return usage

    @property
    def notes(self) -> list[str]:
        notes = list(getattr(self.dense, "notes", []))
        if self.unmapped:
            notes.append(text("engine.note_unmapped", n=self.unmapped, field=self.id_field,
                              examples=", ".join(map(repr, self.unmapped_examples))))
        return notes

    def config(self) -> dict:
        return {"retriever": self.engine.kind, **self.engine.config(),
                "collection": self.collection, "id_field": self.id_field,
                "vector_field": self.vector_field, "filter": self.filter,
                "id_map": len(self.id_map) if self.id_map else None,
                "query_embedding": self.dense.config()}

    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        try:
            return self._rank(dataset, list(queries), kmax, progress, cancel)
        finally:
            if self.close_after_rank:
                self.engine.close()

    def _rank(self, dataset: Dataset, queries: list[Query], kmax: int,
              progress: ProgressFn | None, cancel: threading.Event | None) -> Ranking:
        info = self.engine.describe(self.collection, self.vector_field)
        if info.fields and not info.open_schema and self.id_field not in info.fields:
            raise error(EngineError, "engine.no_id_field", collection=repr(self.collection),
                        field=repr(self.id_field), fields=", ".join(info.fields))
        (qvecs,) = self.dense.embed_groups([("queries", self.dense.query_prefix,
                                             [q.text for q in queries])],
                                           progress=progress, cancel=cancel)
        if qvecs.shape[1] != info.dimension:
            raise error(EngineError, "engine.dim_mismatch", collection=repr(self.collection),
                        dim=info.dimension, model=self.dense.name, got=qvecs.shape[1])
        if cancel is not None and cancel.is_set():
            raise error(Cancelled, "engine.cancelled_before")
        if progress is not None:
            progress({"stage": "searching", "done": 0, "total": len(queries)})
        result = self._search(qvecs, int(kmax), info.vector_field, progress, cancel)
        return self._to_ranking(dataset, queries, result)

    def _search(self, qvecs: np.ndarray, k: int, vector_field: str,
                progress: ProgressFn | None, cancel: threading.Event | None) -> SearchResult:
        ids: list[list[str | None]] = []
        scores: list[list[float]] = []
        n = len(qvecs)
        for start in range(0, n, self.batch):
            if cancel is not None and cancel.is_set():
                raise error(Cancelled, "engine.cancelled_while")
            t0 = time.perf_counter()
            end = min(n, start + self.batch)
            try:
                part = self.engine.search(self.collection, qvecs[start:end], k,
                                          vector_field=vector_field, id_field=self.id_field,
                                          filter=self.filter, batch=self.batch)
            except EngineError as exc:
                raise error(EngineError, "engine.at_queries", error=exc, first=f"{start + 1:,}",
                            last=f"{end:,}", n=f"{n:,}") from None
            self.search_seconds.append(time.perf_counter() - t0)
            self._requests += 1
            if start == 0:
                self._check_id_field(part)
            ids += part.ids
            scores += part.scores
            if progress is not None:
                progress({"stage": "searching", "done": min(start + self.batch, len(qvecs)),
                          "total": len(qvecs)})
        return SearchResult(ids=ids, scores=scores)

    def _check_id_field(self, part: SearchResult) -> None:
        """Hits that all lack the id field: the field name is wrong, not the data."""
        hits = [i for row in part.ids for i in row]
        if hits and all(i is None for i in hits):
            raise error(EngineError, "engine.hits_no_id_field",
                        collection=repr(self.collection), field=repr(self.id_field))

    def _to_ranking(self, dataset: Dataset, queries: Sequence[Query],
                    result: SearchResult) -> Ranking:
        known = set(dataset.doc_ids)
        id_map = self.id_map
        q_out: list[str] = []
        offsets = [0]
        docs: list[str] = []
        vals: list[float] = []
        for query, hit_ids, hit_scores in zip(queries, result.ids, result.scores):
            seen: set[str] = set()
            for raw, score in zip(hit_ids, hit_scores):
                doc = id_map.get(raw, raw) if id_map is not None and raw is not None else raw
                if doc is None or doc not in known:
                    self.unmapped += 1
                    if len(self.unmapped_examples) < UNMAPPED_EXAMPLES:
                        self.unmapped_examples.append(f"no {self.id_field}" if raw is None
                                                      else raw)
                    continue
                if doc in seen:  # a second chunk of one document: keep the best (first)
                    continue
                seen.add(doc)
                docs.append(doc)
                vals.append(float(score))
            q_out.append(query.id)
            offsets.append(len(docs))
        return Ranking(q_out, np.asarray(offsets), np.asarray(docs, dtype=object),
                       np.asarray(vals, dtype=np.float64), name=self.name)
