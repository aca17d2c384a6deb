"""BM25, the default retriever: no key, no network, Japanese and English.

The index stores, for every (document, term) pair (bm25s's formulas, built vectorized here)

    idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))                    (tf part, Lucene)
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))                           (Lucene's idf)

with N documents, df the number of documents containing t, |d| the document's length in
tokens and avgdl the mean length. A query's score for a document is the sum over its tokens
(a token repeated in the query counts each time, as bm25s and Lucene's BooleanQuery do).
``method`` picks bm25s's other variants: ``"robertson"`` (idf ln((N-df+0.5)/(df+0.5)),
floored at 0) and ``"atire"`` (idf ln(N/df), tf part multiplied by k1+1).

Scoring is ours, not ``bm25s.retrieve``: the index is a sparse (terms x documents) matrix, a
block of queries becomes a sparse (queries x terms) count matrix, and one sparse product gives
their scores; :func:`ragdash.retrieval.topk.select_topk` then picks the top k with trec_eval's
tie rule (score descending, doc id descending) instead of bm25s's arbitrary order among equal
scores.

Indexing streams the corpus in chunks of documents: tokens become int32 ids at once, so the
token strings of the whole corpus never sit in memory together
(:func:`ragdash.retrieval.tokenize.code_texts` finds and codes them with array operations and
makes a string only per distinct token of a chunk). Large corpora are tokenized by two or more
threads, and the matrix is built in a few vectorized numpy / scipy passes with bm25s's
formulas rather than by bm25s's loop per document.

Which documents are retrieved. A document is returned only when its score is above 0, which
with the Lucene idf means exactly "it shares at least one token with the query". bm25s itself
pads the k results with arbitrary documents scoring 0; a search engine (Lucene, Elasticsearch)
returns only matching documents, and keeping zero-score padding would change Precision@K,
MRR and MAP by the luck of the draw. A query with no tokens (or none in the index) gets an
empty list and scores 0 on every metric.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import chain, count, repeat

import numpy as np

from .. import params
from ..dataset import Dataset, Query
from ..errors import Cancelled, RetrievalError
from ..i18n import error
from ..memory import collector_paused
from ..ranking import Ranking
from .tokenize import TOKENIZER_NAME, code_texts, tokenize
from .topk import doc_id_keys, select_topk

METHODS = params.BM25_METHODS

#: dense scores per block (queries x documents, float32): 1M = 4 MB. The product costs each
#: posting of the block's terms once per query of the block, so small blocks are cheaper
#: (1,000 queries, measured: 100k documents 0.68 s with 8M a block, 0.48 s with 1M; a
#: million documents 5.1-5.3 s with 8M, 3.8-4.0 s with 1M, one query a block)
_BLOCK_ELEMENTS = 1 << 20

ProgressFn = Callable[[dict], None]


class TokenIds:
    """The corpus as token ids: one flat int32 array per chunk of documents and each
    document's length, so that the token strings of the whole corpus never sit in memory at
    once (as Python strings they take ~80 bytes each; an id takes 4). Ids are given in order
    of first appearance."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self._ids: list[np.ndarray] = []
        self._lengths: list[np.ndarray] = []

    def add(self, doc_tokens: Sequence[Sequence[str]]) -> None:
        """Documents given as token lists."""
        self.add_coded(*code_tokens(doc_tokens))

    def add_coded(self, distinct: Sequence[str], codes: np.ndarray,
                  lengths: np.ndarray) -> None:
        """Documents given as :func:`code_tokens` gives them (codes into ``distinct``)."""
        vocab = self.vocab
        # One dict lookup per distinct token of the chunk, not per token; the chunk's new
        # tokens get the next ids, in the chunk's first-seen order.
        mapping = np.fromiter(map(vocab.get, distinct, repeat(-1)), dtype=np.int32,
                              count=len(distinct))
        fresh = np.flatnonzero(mapping < 0)
        if len(fresh):
            mapping[fresh] = np.arange(len(vocab), len(vocab) + len(fresh), dtype=np.int32)
            vocab.update(zip(map(distinct.__getitem__, fresh.tolist()),
                             mapping[fresh].tolist()))
        self._ids.append(mapping[codes] if len(codes) else np.empty(0, dtype=np.int32))
        self._lengths.append(np.asarray(lengths, dtype=np.int64))

    def __len__(self) -> int:
        return sum(len(x) for x in self._lengths)

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """(every token id in corpus order, each document's length)."""
        ids = np.concatenate(self._ids) if self._ids else np.empty(0, dtype=np.int32)
        lengths = (np.concatenate(self._lengths) if self._lengths
                   else np.empty(0, dtype=np.int64))
        return ids, lengths


def code_tokens(doc_tokens: Sequence[Sequence[str]]) -> tuple[list[str], np.ndarray,
                                                               np.ndarray]:
    """Token lists as (distinct tokens in first-seen order, int32 codes into them, lengths)."""
    lengths = np.fromiter(map(len, doc_tokens), dtype=np.int64, count=len(doc_tokens))
    total = int(lengths.sum())
    # One pass at C speed: each token's first position in the flat list (setdefault keeps
    # the first), the dict's keys in first-seen order; positions become codes by a lookup.
    first: dict[str, int] = {}
    pos = np.fromiter(map(first.setdefault, chain.from_iterable(doc_tokens), count()),
                      dtype=np.int64, count=total)
    distinct = list(first)
    lut = np.empty(total, dtype=np.int32)
    lut[np.fromiter(first.values(), dtype=np.int64, count=len(first))] = np.arange(
        len(distinct), dtype=np.int32)
    return distinct, lut[pos], lengths


#: documents per chunk tokenized at once (measured at a million 60-word documents on 2 cores:
#: 20,000 a chunk took 5.7 s with 0.55 GB of temporaries, 50,000 5.1 s with 0.8 GB)
CHUNK_DOCS = 20_000
#: below this many documents one thread tokenizes
PARALLEL_MIN_DOCS = 40_000


#: characters per chunk at most (a chunk's arrays take ~50 bytes a token): long documents
#: make chunks of fewer documents, so memory does not grow with the documents' length
CHUNK_CHARS = 10_000_000


def chunk_spans(texts: Sequence[str], docs: int = CHUNK_DOCS,
                chars: int = CHUNK_CHARS) -> list[tuple[int, int]]:
    """(start, end) of each chunk: at most ``docs`` texts and, unless one text alone is
    longer, at most ``chars`` characters."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    spans = []
    lo, total = 0, len(texts)
    ends = np.cumsum(lengths)
    while lo < total:
        before = ends[lo - 1] if lo else 0
        fit = int(np.searchsorted(ends, before + chars, side="right"))
        hi = min(total, lo + docs, max(fit, lo + 1))
        spans.append((lo, hi))
        lo = hi
    return spans


def tokenize_corpus(texts: Sequence[str], *, workers: int | None = None,
                    chunk: int = CHUNK_DOCS, chunk_chars: int = CHUNK_CHARS,
                    progress: ProgressFn | None = None,
                    cancel: threading.Event | None = None) -> TokenIds:
    """The texts as :class:`TokenIds`, tokenized by ``workers`` threads (default: one per
    core, at most 4, for large corpora; else this thread), in chunks of at most ``chunk``
    texts and ``chunk_chars`` characters. The result does not depend on ``workers`` or the
    chunks: chunks are merged in corpus order.

    Threads, not processes: :func:`code_texts` spends most of its time in numpy and pandas,
    which release the GIL, so two threads use both cores, with no texts pickled to workers
    and back and no process started (measured at a million documents: 5.7 s with two threads
    against 9.3 s with two spawned worker processes, whose parent spent 3.4 s pickling and
    merging)."""
    total = len(texts)
    if workers is None:
        workers = min(os.cpu_count() or 1, 4) if total >= PARALLEL_MIN_DOCS else 1
    ids = TokenIds()
    _report(progress, "tokenizing", 0, total)
    spans = chunk_spans(texts, chunk, chunk_chars)
    if workers > 1 and len(spans) > 1:
        _tokenize_in_threads(texts, spans, workers, ids, progress, cancel)
        return ids
    for lo, hi in spans:
        _check(cancel)
        ids.add_coded(*code_texts(texts[lo:hi]))
        _report(progress, "tokenizing", hi, total)
    _check(cancel)
    return ids


def _tokenize_in_threads(texts, spans, workers, ids, progress, cancel) -> None:
    # A window of chunks in flight, each future dropped once merged (a finished chunk holds
    # its distinct strings and codes until it is merged).
    total = len(texts)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        todo = iter(spans)
        pending: deque = deque()

        def submit_next() -> None:
            span = next(todo, None)
            if span is not None:
                lo, hi = span
                pending.append((hi, pool.submit(code_texts, texts[lo:hi])))

        for _ in range(workers + 1):
            submit_next()
        try:
            while pending:
                _check(cancel)
                hi, future = pending.popleft()
                result = future.result()
                del future
                submit_next()
                ids.add_coded(*result)
                del result
                _report(progress, "tokenizing", hi, total)
        finally:
            for _, future in pending:
                future.cancel()


#: idf of each term from its document frequency ``df`` among ``n`` documents (bm25s's)
_IDF = {
    "lucene": lambda df, n: np.log(1 + (n - df + 0.5) / (df + 0.5)),
    "robertson": lambda df, n: np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0)),
    "atire": lambda df, n: np.log(n / df),
}


class BM25Index:
    """A BM25 index over tokenized documents, with vectorized scoring of query blocks.

    Built with numpy and scipy in a few vectorized passes; the matrix is the one bm25s builds
    (the same formulas, float64 arithmetic in the same order, stored as float32: tested equal
    to bm25s's, entry by entry), without bm25s's Python loop per document.
    """

    def __init__(self, doc_tokens: Sequence[Sequence[str]] | TokenIds, *, k1: float, b: float,
                 method: str, progress: ProgressFn | None = None) -> None:
        if not isinstance(doc_tokens, TokenIds):
            ids = TokenIds()
            ids.add(doc_tokens)
            doc_tokens = ids
        self.n_docs = len(doc_tokens)
        self.vocab: dict[str, int] = {}
        self.matrix = None  # scipy CSR (terms x documents)
        if not doc_tokens.vocab:
            return
        self.vocab = doc_tokens.vocab
        # consumes doc_tokens' id arrays, block by block, to keep the peak low
        self.matrix = _score_matrix(doc_tokens, len(self.vocab), k1=k1, b=b, method=method,
                                    progress=progress)

    def nbytes(self) -> int:
        """Bytes the index holds: the sparse score matrix (values, indices, pointers) and
        the vocabulary's strings."""
        m = self.matrix
        size = 0 if m is None else int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)
        return size + sum(len(t.encode("utf-8")) for t in self.vocab)

    def query_matrix(self, query_tokens: Sequence[Sequence[str]]):
        """Sparse (queries x terms) counts; tokens unknown to the index are dropped."""
        from scipy.sparse import csr_matrix

        vocab = self.vocab
        ids = [[vocab[t] for t in q if t in vocab] for q in query_tokens]
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        cols = np.fromiter((i for x in ids for i in x), dtype=np.int64, count=int(indptr[-1]))
        data = np.ones(len(cols), dtype=np.float32)
        n_terms = self.matrix.shape[0] if self.matrix is not None else 0
        m = csr_matrix((data, cols, indptr), shape=(len(ids), n_terms))
        m.sum_duplicates()
        return m

    def scores(self, query_tokens: Sequence[Sequence[str]]) -> np.ndarray:
        """Dense (queries x documents) float32 scores for a block of tokenized queries."""
        if self.matrix is None or not len(query_tokens):
            return np.zeros((len(query_tokens), self.n_docs), dtype=np.float32)
        # Only the rows of the block's terms, then a dense (queries x terms) times sparse
        # (terms x documents) product: scipy adds each term's postings into the dense result
        # in term order, the same float32 additions as the sparse x sparse product (tested
        # equal), without building a sparse result and densifying it (0.62 vs 1.06 s CPU for
        # 1,000 queries at 100k documents).
        qm = self.query_matrix(query_tokens)
        terms = np.unique(qm.indices)
        if not len(terms):
            return np.zeros((len(query_tokens), self.n_docs), dtype=np.float32)
        product = qm[:, terms].toarray() @ self.matrix[terms]
        return _row_major(product.astype(np.float32, copy=False))


def _row_major(a: np.ndarray) -> np.ndarray:
    """``a`` in C order. scipy's dense x sparse product comes out in Fortran order; numpy's
    own copy of it walks memory badly (27-80 ms for 80 x 100,000 float32 here), a copy of
    64k elements' worth of columns at a time stays in cache (7 ms)."""
    if a.flags.c_contiguous:
        return a
    out = np.empty(a.shape, dtype=a.dtype)
    step = max(64, 2**16 // max(1, a.shape[0]))
    for lo in range(0, a.shape[1], step):
        out[:, lo:lo + step] = a[:, lo:lo + step]
    return out


#: documents per block while the matrix is built (bounds the temporaries to ~0.1 GB)
BUILD_BLOCK_DOCS = 50_000


def _score_matrix(ids: TokenIds, n_terms: int, *, k1: float, b: float, method: str,
                  progress: ProgressFn | None = None):
    """The (terms x documents) CSR matrix of idf(t) * tf-part(t, d), float32.

    Two passes over blocks of documents, so that memory stays near the final matrix's size
    (float32 data + int32 document indices per stored entry): the first counts term
    frequencies per block (one COO -> CSR conversion, duplicates summed) and document
    frequencies; the second turns counts into scores and scatters each block's rows into the
    final arrays. The arithmetic follows bm25s 0.3 (``_score_tfc_*``, ``_score_idf_*``):
    float32 term frequencies, a float64 length normalization, a float32 idf, the product
    rounded to float32 once.
    """
    from scipy.sparse import coo_matrix, csr_matrix

    lengths = (np.concatenate(ids._lengths) if ids._lengths
               else np.empty(0, dtype=np.int64))
    n_docs = len(lengths)
    blocks: list[tuple[int, object]] = []  # (first document, tf counts: terms x block docs)
    df = np.zeros(n_terms, dtype=np.int64)
    first = 0
    # progress: the first pass counts for the first half of the documents, the second for
    # the second half
    _report(progress, "indexing", 0, n_docs)
    for tokens, lens in _blocks(ids):
        nd = len(lens)
        docs = np.repeat(np.arange(nd, dtype=np.int32), lens)
        tf = coo_matrix((np.ones(len(tokens), dtype=np.float32), (tokens, docs)),
                        shape=(n_terms, nd)).tocsr()
        del docs, tokens
        tf.sum_duplicates()
        tf.sort_indices()
        df += np.diff(tf.indptr)
        # counts kept as uint16 until the second pass when they fit (they nearly always do):
        # the blocks and the final arrays are alive together, and this is the peak
        if tf.nnz and tf.data.max() < 2**16:
            tf.data = tf.data.astype(np.uint16)
        blocks.append((first, tf))
        first += nd
        _report(progress, "indexing", first // 2, n_docs)
    idf = _IDF[method](df.astype(np.float64), float(n_docs)).astype(np.float32)
    avg = lengths.mean()  # float64, as bm25s's np.array(lengths).mean()
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    data = np.empty(int(indptr[-1]), dtype=np.float32)
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    filled = indptr[:-1].copy()  # next free slot of each term row
    while blocks:
        first, tf = blocks.pop(0)
        counts = np.diff(tf.indptr)
        tfd = tf.data.astype(np.float32)
        norm = k1 * ((1 - b) + b * lengths[first + tf.indices] / avg)  # float64
        if method == "atire":
            part = (tfd * (k1 + 1)) / (tfd + norm)
        else:  # lucene and robertson share the tf part
            part = tfd / (norm + tfd)
        del tfd, norm
        rows = np.repeat(np.arange(n_terms, dtype=np.int32), counts)
        dest = np.repeat(filled - tf.indptr[:-1], counts) + np.arange(tf.nnz)
        data[dest] = (idf[rows] * part).astype(np.float32)
        del rows, part
        indices[dest] = tf.indices + first
        filled += counts
        _report(progress, "indexing", (n_docs + first + tf.shape[1]) // 2, n_docs)
        del tf, dest
    return csr_matrix((data, indices, indptr), shape=(n_terms, n_docs))


def _blocks(ids: TokenIds):
    """(token ids, lengths) of about BUILD_BLOCK_DOCS documents at a time, in corpus order.
    Each chunk is released from ``ids`` as it is handed out (the index consumes it)."""
    tokens: list[np.ndarray] = []
    lens: list[np.ndarray] = []
    size = 0
    while ids._ids:
        tokens.append(ids._ids.pop(0))
        lens.append(ids._lengths.pop(0))
        size += len(lens[-1])
        if size >= BUILD_BLOCK_DOCS or not ids._ids:
            yield np.concatenate(tokens), np.concatenate(lens)
            tokens, lens, size = [], [], 0


class BM25Retriever:
    """The Retriever protocol for BM25 (see the module docstring)."""

    name = "bm25"

    def __init__(self, *, k1: float = params.BM25["k1"].default,
                 b: float = params.BM25["b"].default,
                 method: str = params.BM25["method"].default) -> None:
        if method not in METHODS:
            raise error(RetrievalError, "bm25.method", method=method,
                        methods=", ".join(METHODS))
        if not (np.isfinite(k1) and k1 >= 0):
            raise error(RetrievalError, "bm25.k1", value=k1)
        if not (np.isfinite(b) and 0 <= b <= 1):
            raise error(RetrievalError, "bm25.b", value=b)
        self.k1 = float(k1)
        self.b = float(b)
        self.method = method
        self.usage = {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0, "cached_texts": 0}
        self._index: BM25Index | None = None
        #: the documents the index was built from (the same objects, in order: Documents are
        #: frozen, so the same objects mean the same texts; cheaper than a fingerprint)
        self._index_docs: list | None = None
        #: threads ranking query blocks (None: one per core, at most 4)
        self.threads: int | None = None
        #: what the last ranking's index takes (see the Retriever protocol)
        self.resources: dict = {}

    def config(self) -> dict:
        return {"retriever": "bm25", "k1": self.k1, "b": self.b, "method": self.method,
                "tokenizer": TOKENIZER_NAME, "bm25s": _bm25s_version()}

    def index(self, dataset: Dataset, *, progress: ProgressFn | None = None,
              cancel: threading.Event | None = None) -> BM25Index:
        """The index for ``dataset``'s documents (kept for the next call on the same documents).

        Progress: ``"tokenizing"`` (documents tokenized), then ``"indexing"`` (documents whose
        index rows are written)."""
        docs = dataset.documents
        # list equality tests identity first: for the same objects this is one pointer
        # comparison per document (milliseconds at a million), where a fingerprint of the
        # dataset takes seconds
        if self._index is not None and self._index_docs == docs:
            return self._index
        with collector_paused():  # the vocabulary and the chunks' lists are no cycles
            texts = dataset.doc_texts()
            ids = tokenize_corpus(texts, progress=progress, cancel=cancel)
            del texts
            _check(cancel)
            self._index = BM25Index(ids, k1=self.k1, b=self.b, method=self.method,
                                    progress=progress)
        self._index_docs = list(docs)
        return self._index

    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        """Top ``kmax`` documents with a score above 0 for each query."""
        kmax = int(kmax)
        if kmax < 1:
            raise error(RetrievalError, "bm25.kmax", value=kmax)
        index = self.index(dataset, progress=progress, cancel=cancel)
        searching = time.perf_counter()
        queries = list(queries)
        nq = len(queries)
        q_tokens = tokenize(q.text for q in queries)
        doc_ids = np.asarray(dataset.doc_ids, dtype=object)
        keys = doc_id_keys(doc_ids) if len(doc_ids) else np.empty(0, dtype=np.int64)
        indices = np.full((nq, kmax), -1, dtype=np.int64)
        scores = np.full((nq, kmax), -np.inf)
        block = max(1, _BLOCK_ELEMENTS // max(1, index.n_docs))
        _report(progress, "retrieving", 0, nq)

        def one_block(lo: int) -> int:
            _check(cancel)
            part = q_tokens[lo:lo + block]
            cols, vals = select_topk(index.scores(part), kmax, keys, floor=0.0)
            indices[lo:lo + len(part)] = cols
            scores[lo:lo + len(part)] = vals
            return lo + len(part)

        # scipy's sparse product and numpy's partition release the GIL: two blocks at once
        # use both cores (each block holds block x documents float32 scores).
        starts = range(0, nq, block)
        threads = min(self.threads or os.cpu_count() or 1, 4, len(starts))
        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                for end in pool.map(one_block, starts):
                    _report(progress, "retrieving", end, nq)
        else:
            for lo in starts:
                _report(progress, "retrieving", one_block(lo), nq)
        self.resources = {"index_bytes": index.nbytes(), "vectors": index.n_docs,
                          "search_seconds": time.perf_counter() - searching}
        return Ranking.from_topk([q.id for q in queries], doc_ids, indices, scores,
                                 name=self.name)


def _bm25s_version() -> str:
    """bm25s's version from its installed metadata: importing bm25s to read
    ``__version__`` imports numba too (0.3-0.8 s of a run), and nothing else of it is used
    when ranking."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bm25s")
    except PackageNotFoundError:  # a source checkout on the path: ask the module itself
        import bm25s

        return bm25s.__version__


def _report(progress: ProgressFn | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress({"stage": stage, "done": done, "total": total, "calls": 0, "tokens": 0})


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise error(Cancelled, "retrieval.cancelled")
