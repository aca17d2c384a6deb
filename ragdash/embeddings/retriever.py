"""DenseRetriever: embed documents and queries through the cache, then rank by cosine.

``rank(dataset, queries, kmax)``:

1. looks every document (``Document.embed_text`` after ``document_prefix``) and query (after
   ``query_prefix``) up in the cache; identical texts are embedded once;
2. embeds what is missing — documents and queries together, so the batches are full — and
   stores each batch in the cache as soon as it arrives;
3. checks that every vector, cached or new, has one dimension;
4. ranks with :func:`ragdash.retrieval.top_k_cosine` and returns a :class:`~ragdash.Ranking`.

``progress`` gets ``{stage, done, total, calls, tokens}`` with stage ``"documents"`` until every
document vector is ready, then ``"queries"``, then ``"ranking"``. ``cancel`` (a
``threading.Event``) stops it soon: batches in flight are cached, then
:class:`~ragdash.errors.Cancelled` is raised.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ..dataset import Dataset, Query
from ..errors import Cancelled, EmbeddingError, RetrievalError
from ..ranking import Ranking
from .batching import DEFAULT_MAX_BATCH_TOKENS
from .cache import EmbeddingCache, Namespace, text_hash
from .client import EmbeddingClient
from .retry import MAX_RETRIES

ProgressFn = Callable[[dict], None]


class DenseRetriever:
    """The Retriever protocol over an embedder (:class:`EmbeddingClient` or
    :class:`~ragdash.embeddings.local.LocalEmbedder`) and an :class:`EmbeddingCache`
    (None: no cache)."""

    def __init__(self, embedder, *, kind: str, query_prefix: str = "",
                 document_prefix: str = "", cache: EmbeddingCache | None = None,
                 label: str | None = None) -> None:
        self.embedder = embedder
        self.kind = kind
        self.query_prefix = query_prefix or ""
        self.document_prefix = document_prefix or ""
        self.cache = cache
        label = label or embedder.model
        dims = getattr(embedder, "dimensions", None)
        self.name = f"{kind}:{label}" + (f"@{dims}" if dims else "")
        self._cached = 0

    @property
    def usage(self) -> dict:
        usage = dict(self.embedder.usage)
        usage["cached_texts"] = self._cached
        return usage

    @property
    def notes(self) -> list[str]:
        return list(self.embedder.notes)

    def config(self) -> dict:
        """Everything that decides the vectors and the run; JSON-safe, never the key."""
        return {"retriever": self.kind, **self.embedder.config(),
                "query_prefix": self.query_prefix, "document_prefix": self.document_prefix,
                "cache": str(self.cache.path) if self.cache is not None else None}

    # -- embedding through the cache -----------------------------------------------------
    def _namespace(self, prefix: str) -> Namespace:
        e = self.embedder
        return Namespace(e.cache_base, e.model, e.dimensions, prefix)

    def _sizes_error(self, dims: set[int]) -> EmbeddingError:
        model = self.embedder.model
        return EmbeddingError(
            f"Vectors of {len(dims)} different sizes ({', '.join(map(str, sorted(dims)))}) "
            f"for {model!r} between the cache and the model: run `python -m ragdash cache "
            f"clear --model {model}` and run again.")

    def embed_groups(self, groups: Sequence[tuple[str, str, Sequence[str]]], *,
                     progress: ProgressFn | None = None,
                     cancel: threading.Event | None = None) -> list[np.ndarray]:
        """Vectors for several groups of texts, each ``(stage, prefix, texts)``, in one pass.

        Returns one (len(texts), d) float32 array per group.
        """
        embedder = self.embedder
        slots: dict[tuple[str, bytes], int] = {}   # unique (prefix, text hash) -> slot
        slot_text: list[str] = []
        group_slots: list[np.ndarray] = []
        for _, prefix, texts in groups:
            idx = np.empty(len(texts), dtype=np.int64)
            for j, text in enumerate(texts):
                key = (prefix, text_hash(text))
                slot = slots.get(key)
                if slot is None:
                    slot = slots[key] = len(slot_text)
                    slot_text.append(prefix + text)
                idx[j] = slot
            group_slots.append(idx)
        keys = list(slots)
        vectors: list[np.ndarray | None] = [None] * len(keys)

        if self.cache is not None:
            for prefix, ss in _by_prefix(keys, range(len(keys))).items():
                found = self.cache.get_many(self._namespace(prefix), [keys[s][1] for s in ss])
                for s in ss:
                    vectors[s] = found.get(keys[s][1])
        missing = [s for s, v in enumerate(vectors) if v is None]
        hits = len(keys) - len(missing)
        self._cached += hits
        if hits:
            dims = {len(v) for v in vectors if v is not None}
            if len(dims) > 1:
                raise self._sizes_error(dims)
            if embedder.dimension is None:  # the client then stops at the first reply that
                embedder.dimension = dims.pop()  # disagrees, before paying for the rest
                embedder.dimension_source = "the cache"

        # Progress: per stage, how many of its unique texts have a vector.
        slot_groups: list[list[int]] = [[] for _ in keys]
        for g, idx in enumerate(group_slots):
            for s in set(idx.tolist()):
                slot_groups[s].append(g)
        stage_total = [len(set(idx.tolist())) for idx in group_slots]
        stage_done = [0] * len(groups)
        for s, v in enumerate(vectors):
            if v is not None:
                for g in slot_groups[s]:
                    stage_done[g] += 1

        def report(finished: Sequence[int] = ()) -> None:
            """One event for the first stage still open; before it, one for each stage that
            ``finished`` in this batch, so every stage ends with done == total."""
            if progress is None or not groups:
                return
            current = next((g for g in range(len(groups)) if stage_done[g] < stage_total[g]),
                           None)
            shown = [g for g in sorted(finished) if current is None or g < current]
            if current is not None or not shown:
                shown.append(len(groups) - 1 if current is None else current)
            for g in dict.fromkeys(shown):
                progress({"stage": groups[g][0], "done": stage_done[g],
                          "total": stage_total[g], "calls": embedder.usage["requests"],
                          "tokens": embedder.usage["prompt_tokens"]})

        def on_batch(batch: Sequence[int], batch_vectors: np.ndarray) -> None:
            slots_done = [missing[i] for i in batch]
            if self.cache is not None:
                by_prefix = _by_prefix([keys[s] for s in slots_done], range(len(slots_done)))
                for prefix, positions in by_prefix.items():
                    self.cache.put_many(self._namespace(prefix),
                                        [keys[slots_done[p]][1] for p in positions],
                                        batch_vectors[positions])
            finished = set()
            for s, v in zip(slots_done, batch_vectors):
                vectors[s] = v
                for g in slot_groups[s]:
                    stage_done[g] += 1
                    if stage_done[g] == stage_total[g]:
                        finished.add(g)
            report(finished)

        report([g for g in range(len(groups)) if stage_done[g] == stage_total[g]])
        if missing:
            if cancel is not None and cancel.is_set():
                raise Cancelled("Cancelled before embedding; nothing was sent.")
            result = embedder.embed([slot_text[s] for s in missing], cancel=cancel,
                                    on_batch=on_batch)
            for i, s in enumerate(missing):  # answered without a batch: empty texts
                if vectors[s] is None:
                    vectors[s] = result[i]
        dims = {len(v) for v in vectors}
        if len(dims) > 1:
            raise self._sizes_error(dims)
        d = dims.pop() if dims else (embedder.dimension or 0)
        table = np.stack(vectors) if vectors else np.zeros((0, d), dtype=np.float32)
        return [table[idx] if len(idx) else np.zeros((0, d), dtype=np.float32)
                for idx in group_slots]

    # -- the Retriever protocol ----------------------------------------------------------
    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        from ..retrieval import top_k_cosine

        queries = list(queries)
        if not dataset.documents:
            raise RetrievalError("The dataset has no documents to retrieve from.")
        doc_vecs, query_vecs = self.embed_groups(
            [("documents", self.document_prefix, dataset.doc_texts()),
             ("queries", self.query_prefix, [q.text for q in queries])],
            progress=progress, cancel=cancel)
        if cancel is not None and cancel.is_set():
            raise Cancelled("Cancelled before ranking; every vector is cached.")
        if progress is not None:
            progress({"stage": "ranking", "done": 0, "total": len(queries),
                      "calls": self.embedder.usage["requests"],
                      "tokens": self.embedder.usage["prompt_tokens"]})
        k = max(0, min(int(kmax), len(dataset.documents)))
        indices, scores = top_k_cosine(query_vecs, doc_vecs, k, doc_ids=dataset.doc_ids,
                                       cancel=cancel)
        if progress is not None:
            progress({"stage": "ranking", "done": len(queries), "total": len(queries),
                      "calls": self.embedder.usage["requests"],
                      "tokens": self.embedder.usage["prompt_tokens"]})
        return Ranking.from_topk([q.id for q in queries], dataset.doc_ids, indices, scores,
                                 name=self.name)


def _by_prefix(keys: Sequence[tuple[str, bytes]], positions) -> dict[str, list[int]]:
    """Positions grouped by the prefix of their key (one cache namespace per prefix)."""
    out: dict[str, list[int]] = {}
    for pos in positions:
        out.setdefault(keys[pos][0], []).append(pos)
    return out


_KNOWN_OPTIONS = frozenset({"max_batch_tokens", "session", "device", "seed"})


def make_dense_retriever(kind: str, *, model: str, base_url: str | None = None,
                         api_key: str | None = None, dimensions: int | None = None,
                         batch_size: int = 256, concurrency: int = 4, query_prefix: str = "",
                         document_prefix: str = "", encoding_format: str = "float",
                         api_version: str | None = None, api_key_header: str | None = None,
                         cache_dir: str | os.PathLike | None = None, timeout: float = 60.0,
                         max_retries: int = MAX_RETRIES, use_cache: bool = True,
                         **kw) -> DenseRetriever:
    """A DenseRetriever for ``kind`` "openai" (any OpenAI-compatible server) or "local".

    Extra options: ``max_batch_tokens``, ``session`` (a ``requests.Session``) and ``seed``
    (retry jitter) for "openai"; ``device`` for "local". Options set to None are ignored.
    The cache lives in ``cache_dir`` (default ``$RAGDASH_HOME``, else ``./.ragdash``);
    ``use_cache=False`` turns it off.
    """
    kw = {k: v for k, v in kw.items() if v is not None}
    unknown = sorted(set(kw) - _KNOWN_OPTIONS)
    if unknown:
        raise RetrievalError(f"Unknown option(s) for a dense retriever: {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(_KNOWN_OPTIONS))}.")
    cache = EmbeddingCache(cache_dir) if use_cache else None
    if kind == "openai":
        client = EmbeddingClient(
            base_url, model, api_key=api_key, dimensions=dimensions, batch_size=batch_size,
            max_batch_tokens=kw.get("max_batch_tokens", DEFAULT_MAX_BATCH_TOKENS),
            concurrency=concurrency, encoding_format=encoding_format, api_version=api_version,
            api_key_header=api_key_header, timeout=timeout, max_retries=max_retries,
            session=kw.get("session"), seed=kw.get("seed"))
        return DenseRetriever(client, kind="openai", query_prefix=query_prefix,
                              document_prefix=document_prefix, cache=cache)
    if kind == "local":
        from .local import LocalEmbedder

        embedder = LocalEmbedder(model, batch_size=batch_size, dimensions=dimensions,
                                 device=kw.get("device", "cpu"))
        return DenseRetriever(embedder, kind="local", query_prefix=query_prefix,
                              document_prefix=document_prefix, cache=cache,
                              label=embedder.label)
    raise RetrievalError(f"Unknown dense retriever {kind!r}: use openai or local.")
