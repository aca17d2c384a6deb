"""DenseRetriever: embed documents and queries through the cache, then rank by cosine.

``rank(dataset, queries, kmax)``:

1. looks every document (``Document.embed_text`` after ``document_prefix``) and query (after
   ``query_prefix``) up in the cache; identical texts are embedded once;
2. embeds what is missing — documents and queries together, so the batches are full — and
   stores each batch in the cache as soon as it arrives;
3. checks that every vector, cached or new, has one dimension;
4. ranks with :func:`ragdash.retrieval.top_k_cosine` and returns a :class:`~ragdash.Ranking`.

With a cache, the document vectors are written once to a memory-mapped ``.npy`` under
``$RAGDASH_HOME/vectors/`` (:class:`~ragdash.embeddings.cache.VectorFile`, keyed by the
embedding configuration and the dataset fingerprint; float32, or float16 on request), a chunk
of documents at a time, and ranked from there: a later run opens the file and looks up only
its queries, and neither run holds the whole matrix in memory (the search releases the pages
it has read, see :mod:`ragdash.retrieval.cosine`).

Texts are hashed a batch at a time. When the cache holds nothing for the model (a first run)
there is nothing to look up, and each batch is handed to the client (an
:class:`~ragdash.embeddings.client.EmbeddingJob`) as soon as it is hashed, so the first requests
leave while the rest are still being hashed. Otherwise every text is looked up before any
request, so that the cached vector size is known first.

``progress`` gets ``{stage, done, total, calls, tokens}`` with stage ``"documents"`` until every
document vector is ready, then ``"queries"``, then ``"ranking"``. ``cancel`` (a
``threading.Event``) stops it soon: batches in flight are cached, then
:class:`~ragdash.errors.Cancelled` is raised.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

from ..dataset import Dataset, Query
from ..embeddings.batching import DEFAULT_MAX_BATCH_TOKENS
from ..embeddings.cache import VECTOR_DTYPES, EmbeddingCache, Namespace, VectorFile, text_hashes
from ..embeddings.client import EmbeddingClient
from ..errors import Cancelled, EmbeddingError, RetrievalError
from ..i18n import error
from ..params import LOCAL, OPENAI
from ..ranking import Ranking
from ..services.retry import MAX_RETRIES

ProgressFn = Callable[[dict], None]
#: texts hashed (and looked up) at a time, when the embedder has no batch size
CHUNK = 256
#: documents embedded (or read from the SQLite cache) at a time while a vector file is
#: written: 8,192 x 1,536 float32 is 50 MB
FILE_CHUNK_DOCS = 8192


class DenseRetriever:
    """The Retriever protocol over an embedder (:class:`EmbeddingClient` or
    :class:`~ragdash.embeddings.local.LocalEmbedder`) and an :class:`EmbeddingCache`
    (None: no cache)."""

    def __init__(self, embedder, *, kind: str, query_prefix: str = "",
                 document_prefix: str = "", cache: EmbeddingCache | None = None,
                 label: str | None = None, vector_dtype: str = "float32") -> None:
        if vector_dtype not in VECTOR_DTYPES:
            raise RetrievalError(f"vector_dtype must be {' or '.join(VECTOR_DTYPES)}, not "
                                 f"{vector_dtype!r}")
        self.embedder = embedder
        #: the dtype of the document vectors' file (float16 on request)
        self.vector_dtype = vector_dtype
        self.kind = kind
        self.query_prefix = query_prefix or ""
        self.document_prefix = document_prefix or ""
        self.cache = cache
        label = label or embedder.model
        dims = getattr(embedder, "dimensions", None)
        self.name = f"{kind}:{label}" + (f"@{dims}" if dims else "")
        self._cached = 0
        #: 1/|d| of the documents of the vector file last opened (None: computed by the search)
        self._doc_norms: np.ndarray | None = None
        #: what the last ranking's index takes (see the Retriever protocol)
        self.resources: dict = {}

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
        out = {"retriever": self.kind, **self.embedder.config(),
               "query_prefix": self.query_prefix, "document_prefix": self.document_prefix,
               "cache": str(self.cache.path) if self.cache is not None else None}
        if self.vector_dtype != "float32":  # float16 documents rank a little differently
            out["vector_dtype"] = self.vector_dtype
        return out

    # -- embedding through the cache -----------------------------------------------------
    def _namespace(self, prefix: str) -> Namespace:
        e = self.embedder
        return Namespace(e.cache_base, e.model, e.dimensions, prefix)

    def uncached(self, groups: Sequence[tuple[str, Sequence[str]]]) -> int:
        """How many distinct texts of ``groups`` (each ``(prefix, texts)``) the cache does not
        hold — what embedding them would send (all of them without a cache)."""
        missing = 0
        for prefix, texts in groups:
            hashes = list(dict.fromkeys(text_hashes(texts)))
            missing += len(hashes)
            if self.cache is not None:  # the key index only: no vector is read
                missing -= self.cache.count_cached(self._namespace(prefix), hashes)
        return missing

    def uncached_vectors(self, dataset: Dataset, query_texts: Sequence[str], *,
                         fingerprint: str | None = None) -> int:
        """How many distinct texts :meth:`vectors` would embed for ``dataset`` and
        ``query_texts``: the queries the cache lacks, and the documents it lacks unless their
        vector file is complete (then none). ``fingerprint``: ``dataset``'s, when known."""
        groups = [(self.query_prefix, query_texts)]
        vf = self.vector_file(dataset, fingerprint=fingerprint)
        if vf is None or vf.open(len(dataset.documents)) is None:
            groups.insert(0, (self.document_prefix, dataset.doc_texts()))
        return self.uncached(groups)

    def uncached_state(self, dataset: Dataset, *, fingerprint: str | None = None
                       ) -> tuple | None:
        """What, besides the texts, decides :meth:`uncached_vectors`: the cache file, the
        namespaces (base URL, model, dimensions, prefixes; never the key), the cache's change
        marker (:meth:`~ragdash.embeddings.cache.EmbeddingCache.marker`: another process's
        writes and clears change it too) and the documents' vector file as ``stat`` sees it
        (written under a temporary name and renamed: a new file is a new inode); None without
        a cache. A memo of the count is keyed by it and the texts' identity (the dataset's
        fingerprint, the queries); read it before counting."""
        if self.cache is None:
            return None
        vf = self.vector_file(dataset, fingerprint=fingerprint)
        files = []
        for path in (vf.path, vf.meta_path):
            try:
                st = path.stat()
            except OSError:
                files.append(None)
            else:
                files.append((st.st_ino, st.st_size, st.st_mtime_ns))
        return (str(self.cache.path.resolve()), self.cache.marker(), tuple(files),
                tuple(self._namespace(p).params()
                      for p in (self.document_prefix, self.query_prefix)))

    def _sizes_error(self, dims: set[int]) -> EmbeddingError:
        model = self.embedder.model
        return error(EmbeddingError, "embed.sizes_differ", n=len(dims),
                     sizes=", ".join(map(str, sorted(dims))), model=repr(model),
                     name=model)

    def embed_groups(self, groups: Sequence[tuple[str, str, Sequence[str]]], *,
                     progress: ProgressFn | None = None,
                     cancel: threading.Event | None = None,
                     while_waiting: Callable[[], object] | None = None) -> list[np.ndarray]:
        """Vectors for several groups of texts, each ``(stage, prefix, texts)``, in one pass.

        Returns one (len(texts), d) float32 array per group. ``while_waiting`` is called once
        the requests are under way (when there are any), to use the wait.
        """
        if self.cache is not None:
            self.cache.check_writable()  # before the first paid request: nothing paid is lost
        return _GroupEmbedding(self, groups, progress=progress, cancel=cancel).run(
            while_waiting)

    def _look_up(self, slots: np.ndarray, prefix_of: np.ndarray, prefixes: list[str],
                 slot_hash: list[bytes], pieces: list, dims: set[int]) -> np.ndarray:
        """Cached vectors of ``slots`` go to ``pieces`` and their sizes to ``dims``; returns
        which slots were found."""
        hit = np.zeros(len(slots), dtype=bool)
        for p in np.unique(prefix_of).tolist():
            rows = np.flatnonzero(prefix_of == p)
            found = self.cache.get_many(self._namespace(prefixes[p]),
                                        [slot_hash[s] for s in slots[rows].tolist()])
            if not found:
                continue
            vecs = [found.get(slot_hash[s]) for s in slots[rows].tolist()]
            got = np.fromiter((v is not None for v in vecs), dtype=bool, count=len(vecs))
            hit[rows[got]] = True
            dims |= {len(v) for v in found.values()}
            if len(dims) == 1:
                pieces.append((slots[rows[got]], np.stack([v for v in vecs if v is not None])))
        return hit

    # -- the Retriever protocol ----------------------------------------------------------
    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        queries = list(queries)
        if not dataset.documents:
            raise error(RetrievalError, "dense.no_documents")
        doc_vecs, query_vecs = self.vectors(dataset, [q.text for q in queries],
                                            progress=progress, cancel=cancel)
        top_k_cosine = _import_ranking()
        if cancel is not None and cancel.is_set():
            raise error(Cancelled, "dense.cancelled_ranking")
        if progress is not None:
            progress({"stage": "ranking", "done": 0, "total": len(queries),
                      "calls": self.embedder.usage["requests"],
                      "tokens": self.embedder.usage["prompt_tokens"]})
        k = max(0, min(int(kmax), len(dataset.documents)))
        searching = time.perf_counter()
        norms = self._doc_norms if self._doc_norms is not None \
            and len(self._doc_norms) == len(doc_vecs) else None
        indices, scores = top_k_cosine(query_vecs, doc_vecs, k, doc_ids=dataset.doc_ids,
                                       cancel=cancel, doc_inverse_norms=norms)
        n, d = doc_vecs.shape
        self.resources = {"index_bytes": int(n) * int(d) * 4, "vectors": int(n),
                          "dimensions": int(d), "precision": "float32",
                          "search_seconds": time.perf_counter() - searching}
        if progress is not None:
            progress({"stage": "ranking", "done": len(queries), "total": len(queries),
                      "calls": self.embedder.usage["requests"],
                      "tokens": self.embedder.usage["prompt_tokens"]})
        return Ranking.from_topk([q.id for q in queries], dataset.doc_ids, indices, scores,
                                 name=self.name)

    # -- document vectors: a memory-mapped file ------------------------------------------
    def vector_file(self, dataset: Dataset, *,
                    fingerprint: str | None = None) -> VectorFile | None:
        """Where ``dataset``'s document vectors live for this configuration (None without a
        cache); ``fingerprint``: ``dataset``'s, when known (it hashes every document)."""
        if self.cache is None:
            return None
        return VectorFile(self.cache.directory, self._namespace(self.document_prefix),
                          fingerprint or dataset.fingerprint(), self.vector_dtype)

    def document_vectors(self, dataset: Dataset, *, progress: ProgressFn | None = None,
                         cancel: threading.Event | None = None) -> np.ndarray:
        """The documents' vectors in dataset order: memory-mapped from the vector file (made
        first when missing), or an in-RAM array when there is no cache."""
        return self.vectors(dataset, [], progress=progress, cancel=cancel)[0]

    def vectors(self, dataset: Dataset, query_texts: Sequence[str], *,
                progress: ProgressFn | None = None,
                cancel: threading.Event | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(document vectors, query vectors). With a cache the documents come from the
        vector file (:class:`~ragdash.embeddings.cache.VectorFile`): opened memory-mapped
        when it exists, else written once, a chunk of documents at a time (what is in the
        SQLite cache is read from it, the rest embedded and cached), so neither building nor
        ranking holds the whole matrix in memory. Without a cache: in RAM, as before."""
        query_texts = list(query_texts)
        vf = self.vector_file(dataset)
        if vf is None:
            return tuple(self.embed_groups(
                [("documents", self.document_prefix, dataset.doc_texts()),
                 ("queries", self.query_prefix, query_texts)],
                progress=progress, cancel=cancel, while_waiting=_import_ranking))
        n = len(dataset.documents)
        docs = vf.open(n)
        self._doc_norms = None
        if docs is not None:
            self._doc_norms = _file_norms(vf, docs)
            self._cached += n
            if progress is not None:
                usage = self.embedder.usage
                progress({"stage": "documents", "done": n, "total": n,
                          "calls": usage["requests"], "tokens": usage["prompt_tokens"]})
            (qvecs,) = self.embed_groups([("queries", self.query_prefix, query_texts)],
                                         progress=progress, cancel=cancel)
            self._check_sizes(docs, qvecs)
            return docs, qvecs
        qvecs = self._write_vector_file(vf, dataset, query_texts, progress, cancel)
        docs = vf.open(n)
        if docs is None:
            raise error(EmbeddingError, "dense.unreadable", path=vf.path)
        self._doc_norms = _file_norms(vf, docs)
        return docs, qvecs

    def _check_sizes(self, docs: np.ndarray, qvecs: np.ndarray) -> None:
        if len(qvecs) and qvecs.shape[1] != docs.shape[1]:
            raise self._sizes_error({int(docs.shape[1]), int(qvecs.shape[1])})

    def _write_vector_file(self, vf: VectorFile, dataset: Dataset, query_texts: list[str],
                           progress: ProgressFn | None,
                           cancel: threading.Event | None) -> np.ndarray:
        """Embed (or read from the cache) the documents a chunk at a time into ``vf``; the
        queries ride with the last chunk, so its batches are full. Returns the query
        vectors."""
        texts = dataset.doc_texts()
        n = len(texts)
        batch = max(1, int(getattr(self.embedder, "batch_size", CHUNK) or CHUNK))
        step = max(batch, FILE_CHUNK_DOCS // batch * batch)
        writer = None
        qvecs = np.empty((0, 0), dtype=np.float32)
        try:
            for lo in range(0, n, step):
                hi = min(n, lo + step)
                groups = [("documents", self.document_prefix, texts[lo:hi])]
                if hi == n:
                    groups.append(("queries", self.query_prefix, query_texts))
                out = self.embed_groups(groups, progress=_shifted(progress, lo, hi - lo, n),
                                        cancel=cancel, while_waiting=_import_ranking)
                if writer is None:
                    writer = vf.writer(n, out[0].shape[1])
                elif out[0].shape[1] != writer.dim:
                    raise self._sizes_error({writer.dim, int(out[0].shape[1])})
                writer.append(out[0])
                if hi == n:
                    qvecs = out[1]
            writer.commit()
        except BaseException:
            if writer is not None:
                writer.abort()
            raise
        return qvecs


def _shifted(progress: ProgressFn | None, lo: int, size: int, total: int) -> ProgressFn | None:
    """``progress`` for one chunk of documents ``lo:lo+size`` of ``total``: its "documents"
    events counted over the whole corpus."""
    if progress is None:
        return None

    def report(event: dict) -> None:
        if event.get("stage") == "documents":
            part = event.get("total") or 0
            done = lo + (round(size * event.get("done", 0) / part) if part else size)
            event = {**event, "done": done, "total": total}
        progress(event)

    return report


class _GroupEmbedding:
    """One :meth:`DenseRetriever.embed_groups` call, its state explicit.

    Unique (prefix, text) pairs are "slots", numbered in order of first appearance:
    ``slot_pos`` (where each first appears in ``texts_all``), ``slot_hash``, ``text_slot``
    (each text's slot). ``pieces`` collects (slots, vectors), cached or new; ``missing`` lists
    the slots sent to the embedder, in order; ``batches`` the positions in ``missing`` of each
    finished batch; ``done``/``total``/``member`` count progress per group once every text
    has been seen.
    """

    def __init__(self, retriever: DenseRetriever, groups, *, progress: ProgressFn | None,
                 cancel: threading.Event | None) -> None:
        self.retriever, self.embedder, self.cache = retriever, retriever.embedder, retriever.cache
        self.groups, self.progress, self.cancel = groups, progress, cancel
        self.prefixes = list(dict.fromkeys(prefix for _, prefix, _ in groups))
        self.texts_all = list(itertools.chain.from_iterable(texts for _, _, texts in groups))
        self.sizes = [len(texts) for _, _, texts in groups]
        self.text_prefix = np.repeat(
            np.asarray([self.prefixes.index(p) for _, p, _ in groups], dtype=np.int64),
            self.sizes)
        # When nothing of this model is cached there is nothing to look up, and the first
        # batches leave while later texts are still being hashed. Otherwise every text is
        # looked up first, so that the client knows the cached vector size before any request
        # (and stops at the first reply that disagrees).
        self.lookup = self.cache is not None and any(
            self.cache.has_any(retriever._namespace(p)) for p in self.prefixes)
        self.slot_of: dict[bytes, int] = {}
        self.slot_pos: list[int] = []
        self.slot_hash: list[bytes] = []
        self.text_slot = np.empty(len(self.texts_all), dtype=np.int64)
        self.pieces: list[tuple[np.ndarray, np.ndarray]] = []
        self.missing: list[int] = []
        self.batches: list[Sequence[int]] = []
        self.pending: list[str] = []  # looked-up texts to embed, held back until all are seen
        self.cached_dims: set[int] = set()
        self.member: np.ndarray | None = None  # slot s is in group g, once all are seen
        self.done: list[int] = []
        self.total: list[int] = []
        self.group_slots: list[np.ndarray] = []

    # -- the pass ------------------------------------------------------------------------
    def run(self, while_waiting: Callable[[], object] | None) -> list[np.ndarray]:
        embedder = self.embedder
        job = embedder.job(cancel=self.cancel, on_batch=self.store, on_pace=self.report) \
            if hasattr(embedder, "job") \
            else _WholeJob(embedder, cancel=self.cancel, on_batch=self.store)
        with job:
            chunk = getattr(embedder, "batch_size", CHUNK) + 1  # one batch leaves per chunk
            for lo in range(0, len(self.texts_all), chunk):
                self.add_chunk(job, lo, min(lo + chunk, len(self.texts_all)))
            self.use_cached_size()
            self.start_progress()
            if self.pending:  # looked up first: nothing has been sent yet
                self.check_cancel_before_sending()
                job.add(self.pending)
            job.close()
            if self.missing:
                if while_waiting is not None:
                    while_waiting()
                job.join(vectors=False)
                self.fill_unbatched()
        return self.assemble()

    def add_chunk(self, job, lo: int, hi: int) -> None:
        """Hash texts ``lo:hi``, give new slots numbers, look them up or send them."""
        hashes = text_hashes(self.texts_all[lo:hi])
        keys = hashes if len(self.prefixes) == 1 else [
            p.to_bytes(4, "little") + h for p, h in zip(self.text_prefix[lo:hi].tolist(), hashes)]
        first_new = len(self.slot_pos)
        for j, key in enumerate(keys):
            if key not in self.slot_of:
                self.slot_of[key] = len(self.slot_pos)
                self.slot_pos.append(lo + j)
                self.slot_hash.append(hashes[j])
        self.text_slot[lo:hi] = np.fromiter(map(self.slot_of.__getitem__, keys), dtype=np.int64,
                                            count=hi - lo)
        new = np.arange(first_new, len(self.slot_pos))
        new_pos = np.asarray(self.slot_pos[first_new:], dtype=np.int64)
        if self.lookup and len(new):
            hit = self.retriever._look_up(new, self.text_prefix[new_pos], self.prefixes,
                                          self.slot_hash, self.pieces, self.cached_dims)
            self.retriever._cached += int(hit.sum())
            new, new_pos = new[~hit], new_pos[~hit]
        if not len(new):
            return
        texts = [self.prefixes[p] + self.texts_all[i]
                 for p, i in zip(self.text_prefix[new_pos].tolist(), new_pos.tolist())]
        if self.lookup:
            self.pending += texts
        else:
            if not self.missing:
                self.check_cancel_before_sending()
            job.add(texts)
        self.missing += new.tolist()

    def check_cancel_before_sending(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise error(Cancelled, "dense.cancelled_sending")

    def use_cached_size(self) -> None:
        """Cached vectors of one size tell the embedder what to expect (it then stops at the
        first reply that disagrees, before paying for the rest)."""
        if len(self.cached_dims) > 1:
            raise self.retriever._sizes_error(self.cached_dims)
        if self.cached_dims and hasattr(self.embedder, "expect_dimension"):
            self.embedder.expect_dimension(next(iter(self.cached_dims)), source="the cache")

    def store(self, batch: Sequence[int], vectors: np.ndarray) -> None:
        """A finished batch: cache it, keep it, report progress."""
        self.batches.append(batch)
        slots = np.asarray([self.missing[i] for i in batch], dtype=np.int64)
        if self.cache is not None:
            prefix_of = self.text_prefix[np.asarray([self.slot_pos[s] for s in slots.tolist()],
                                                    dtype=np.int64)]
            for p in np.unique(prefix_of).tolist():
                rows = np.flatnonzero(prefix_of == p)
                self.cache.put_many(self.retriever._namespace(self.prefixes[p]),
                                    [self.slot_hash[s] for s in slots[rows].tolist()],
                                    vectors[rows])
        self.pieces.append((slots, vectors))
        if self.member is not None:
            finished = set()
            for g, k in enumerate(self.member[slots].sum(axis=0).tolist()):
                if k:
                    self.done[g] += k
                    if self.done[g] == self.total[g]:
                        finished.add(g)
            self.report(finished)

    # -- progress ------------------------------------------------------------------------
    def start_progress(self) -> None:
        """Per group, how many of its unique texts have a vector; the first events."""
        n_slots, n_groups = len(self.slot_pos), len(self.groups)
        bounds = np.cumsum([0, *self.sizes])
        self.group_slots = [self.text_slot[bounds[g]:bounds[g + 1]] for g in range(n_groups)]
        member = np.zeros((n_slots, n_groups), dtype=bool)
        for g, idx in enumerate(self.group_slots):
            member[idx, g] = True
        have = np.ones(n_slots, dtype=bool)
        have[self.missing] = False
        self.total = member.sum(axis=0).tolist()
        self.done = member[have].sum(axis=0).tolist()
        self.member = member
        self.report([g for g in range(n_groups) if self.done[g] == self.total[g]])

    def report(self, finished: Sequence[int] = ()) -> None:
        """One event for the first stage still open; before it, one for each stage that
        ``finished`` in this batch, so every stage ends with done == total."""
        if self.progress is None or not self.groups or not self.total:  # not counted yet
            return
        done, total, groups = self.done, self.total, self.groups
        current = next((g for g in range(len(groups)) if done[g] < total[g]), None)
        shown = [g for g in sorted(finished) if current is None or g < current]
        if current is not None or not shown:
            shown.append(len(groups) - 1 if current is None else current)
        usage = self.embedder.usage
        pace = self.embedder.pace.event() if hasattr(self.embedder, "pace") else {}
        for g in dict.fromkeys(shown):
            self.progress({"stage": groups[g][0], "done": done[g], "total": total[g],
                           "calls": usage["requests"], "tokens": usage["prompt_tokens"], **pace})

    # -- the result ----------------------------------------------------------------------
    def fill_unbatched(self) -> None:
        """Slots answered without a batch (empty texts) get zero vectors."""
        unbatched = np.ones(len(self.missing), dtype=bool)
        for batch in self.batches:
            unbatched[batch] = False
        rest = np.flatnonzero(unbatched)
        if len(rest):
            slots = np.asarray(self.missing, dtype=np.int64)[rest]
            self.pieces.append((slots, np.zeros((len(rest), self.embedder.dimension or 0),
                                                np.float32)))
            if self.member is not None:  # they count as done: every stage ends at N of N
                for g, k in enumerate(self.member[slots].sum(axis=0).tolist()):
                    self.done[g] += k
                self.report([g for g in range(len(self.groups))
                             if self.done[g] == self.total[g]])

    def assemble(self) -> list[np.ndarray]:
        dims = {vectors.shape[1] for _, vectors in self.pieces}
        if len(dims) > 1:
            raise self.retriever._sizes_error(dims)
        d = dims.pop() if dims else (self.embedder.dimension or 0)
        n_slots = len(self.slot_pos)
        if sum(len(slots) for slots, _ in self.pieces) != n_slots:
            raise error(EmbeddingError, "dense.fewer_vectors", model=self.embedder.model)
        table = np.empty((n_slots, d), dtype=np.float32)
        for slots, vectors in self.pieces:
            table[slots] = vectors
        return [table[idx] for idx in self.group_slots]

#: texts per request to an API, and per model call of a local model, unless given (declared
#: in ragdash.params, with their reasons)
DEFAULT_API_BATCH = OPENAI["batch_size"].default
DEFAULT_LOCAL_BATCH = LOCAL["batch_size"].default

_KNOWN_OPTIONS = frozenset({"max_batch_tokens", "session", "device", "seed"})


def _file_norms(vf: VectorFile, docs: np.ndarray) -> np.ndarray:
    """The inverse norms stored with a vector file; for a file written before they were
    stored, computed once here (one read of the file, as every search used to make) and saved
    beside it, so the next search reads them."""
    inv = vf.inverse_norms(len(docs))
    if inv is None:
        from .cosine import _inverse_norms, _page_releaser

        inv = _inverse_norms(docs, _page_releaser(docs, np.asarray(docs)))
        vf.save_inverse_norms(inv)
    return inv


def _import_ranking():
    """:func:`ragdash.retrieval.top_k_cosine`; the first import of ragdash.retrieval takes
    ~25 ms (tokenizer regexes), so rank() has it done while the first requests are out."""
    from .cosine import top_k_cosine

    return top_k_cosine


class _WholeJob:
    """The job interface of :class:`~ragdash.embeddings.client.EmbeddingJob` for an embedder
    with only ``embed`` (local models): the texts are embedded in one call at ``join()``."""

    def __init__(self, embedder, *, cancel: threading.Event | None, on_batch) -> None:
        self.embedder, self.cancel, self.on_batch = embedder, cancel, on_batch
        self.texts: list[str] = []

    def __enter__(self) -> _WholeJob:
        return self

    def __exit__(self, *exc) -> None:
        pass

    def add(self, texts: Sequence[str]) -> None:
        self.texts += texts

    def close(self) -> None:
        pass

    def join(self, *, vectors: bool = True) -> np.ndarray | None:
        result = self.embedder.embed(self.texts, cancel=self.cancel, on_batch=self.on_batch)
        return result if vectors else None


def make_dense_retriever(kind: str, *, model: str, base_url: str | None = None,
                         api_key: str | None = None, dimensions: int | None = None,
                         batch_size: int | None = None,
                         concurrency: int = OPENAI["concurrency"].default,
                         query_prefix: str = OPENAI["query_prefix"].default,
                         document_prefix: str = OPENAI["document_prefix"].default,
                         encoding_format: str = OPENAI["encoding_format"].default,
                         api_version: str | None = None, api_key_header: str | None = None,
                         cache_dir: str | os.PathLike | None = None,
                         timeout: float = OPENAI["timeout"].default,
                         max_retries: int = MAX_RETRIES, use_cache: bool = True,
                         vector_dtype: str = OPENAI["vector_dtype"].default,
                         **kw) -> DenseRetriever:
    """A DenseRetriever for ``kind`` "openai" (any OpenAI-compatible server) or "local".

    Extra options: ``max_batch_tokens``, ``session`` (a ``requests.Session``) and ``seed``
    (retry jitter) for "openai"; ``device`` for "local". Options set to None are ignored.
    The cache lives in ``cache_dir`` (default ``$RAGDASH_HOME``, else ``./.ragdash``);
    ``use_cache=False`` turns it off (and with it the memory-mapped vector file);
    ``vector_dtype="float16"`` keeps the documents' vector file in half precision.
    """
    kw = {k: v for k, v in kw.items() if v is not None}
    unknown = sorted(set(kw) - _KNOWN_OPTIONS)
    if unknown:
        raise RetrievalError(f"Unknown option(s) for a dense retriever: {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(_KNOWN_OPTIONS))}.")
    cache = EmbeddingCache(cache_dir) if use_cache else None
    if kind == "openai":
        client = EmbeddingClient(
            base_url, model, api_key=api_key, dimensions=dimensions,
            batch_size=batch_size or DEFAULT_API_BATCH,
            max_batch_tokens=kw.get("max_batch_tokens", DEFAULT_MAX_BATCH_TOKENS),
            concurrency=concurrency, encoding_format=encoding_format, api_version=api_version,
            api_key_header=api_key_header, timeout=timeout, max_retries=max_retries,
            session=kw.get("session"), seed=kw.get("seed"))
        return DenseRetriever(client, kind="openai", query_prefix=query_prefix,
                              document_prefix=document_prefix, cache=cache,
                              vector_dtype=vector_dtype)
    if kind == "local":
        from ..embeddings.local import LocalEmbedder

        embedder = LocalEmbedder(model, batch_size=batch_size or DEFAULT_LOCAL_BATCH,
                                 dimensions=dimensions,
                                 device=kw.get("device", "cpu"))
        return DenseRetriever(embedder, kind="local", query_prefix=query_prefix,
                              document_prefix=document_prefix, cache=cache,
                              label=embedder.label, vector_dtype=vector_dtype)
    raise RetrievalError(f"Unknown dense retriever {kind!r}: use openai or local.")
