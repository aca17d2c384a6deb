"""BM25, the default retriever: no key, no network, Japanese and English.

bm25s builds the index: for every (document, term) pair it stores

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

Indexing streams the corpus in chunks of 5,000 documents: tokens become int32 ids at once, so
100,000 jsquad-sized passages (22M tokens) index in about 20 s with a peak of about 0.9 GB on
the 2-core test machine (3 GB when every token was kept as a Python string).

Which documents are retrieved. A document is returned only when its score is above 0, which
with the Lucene idf means exactly "it shares at least one token with the query". bm25s itself
pads the k results with arbitrary documents scoring 0; a search engine (Lucene, Elasticsearch)
returns only matching documents, and keeping zero-score padding would change Precision@K,
MRR and MAP by the luck of the draw. A query with no tokens (or none in the index) gets an
empty list and scores 0 on every metric.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np

from ..dataset import Dataset, Query
from ..errors import Cancelled, RetrievalError
from ..ranking import Ranking
from .tokenize import TOKENIZER_NAME, tokenize
from .topk import doc_id_keys, select_topk

METHODS = ("lucene", "robertson", "atire")

#: dense scores per block (queries x documents, float32): 8M = 32 MB
_BLOCK_ELEMENTS = 1 << 23

ProgressFn = Callable[[dict], None]


class TokenIds:
    """Documents as arrays of token ids, built chunk by chunk so that the token strings of the
    whole corpus never sit in memory at once (as Python strings they take ~80 bytes each; an
    id takes 4)."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.docs: list[array] = []

    def add(self, doc_tokens: Sequence[Sequence[str]]) -> None:
        vocab = self.vocab
        # New tokens get the next ids (dict.fromkeys keeps first-seen order, at C speed).
        fresh = [t for t in dict.fromkeys(chain.from_iterable(doc_tokens)) if t not in vocab]
        vocab.update(zip(fresh, range(len(vocab), len(vocab) + len(fresh))))
        get = vocab.__getitem__
        self.docs.extend(array("i", map(get, tokens)) for tokens in doc_tokens)


class BM25Index:
    """A bm25s index over tokenized documents, with vectorized scoring of query blocks."""

    def __init__(self, doc_tokens: Sequence[Sequence[str]] | TokenIds, *, k1: float, b: float,
                 method: str) -> None:
        import bm25s

        if not isinstance(doc_tokens, TokenIds):
            ids = TokenIds()
            ids.add(doc_tokens)
            doc_tokens = ids
        self.n_docs = len(doc_tokens.docs)
        self.vocab: dict[str, int] = {}
        self.matrix = None  # scipy CSR (terms x documents)
        if not doc_tokens.vocab:
            return
        # Handed to bm25s as (ids, vocab): its own string-to-id pass is a Python loop per token.
        model = bm25s.BM25(k1=k1, b=b, method=method)
        model.index((doc_tokens.docs, doc_tokens.vocab), create_empty_token=False,
                    show_progress=False)
        self.model = model
        self.vocab = doc_tokens.vocab
        scores = model.scores
        n_terms = len(scores["indptr"]) - 1
        from scipy.sparse import csr_matrix

        # bm25s keeps a CSC (documents x terms) matrix: the same arrays are CSR (terms x docs).
        self.matrix = csr_matrix((scores["data"], scores["indices"], scores["indptr"]),
                                 shape=(n_terms, self.n_docs))

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
        out = np.zeros((len(query_tokens), self.n_docs), dtype=np.float32)
        if self.matrix is None or not len(query_tokens):
            return out
        product = self.query_matrix(query_tokens) @ self.matrix
        product.toarray(out=out)
        return out


class BM25Retriever:
    """The Retriever protocol for BM25 (see the module docstring)."""

    name = "bm25"

    def __init__(self, *, k1: float = 1.2, b: float = 0.75, method: str = "lucene") -> None:
        if method not in METHODS:
            raise RetrievalError(f"unknown BM25 method {method!r}; use one of "
                                 f"{', '.join(METHODS)}")
        if not (np.isfinite(k1) and k1 >= 0):
            raise RetrievalError(f"BM25 k1 must be a number >= 0, got {k1!r}")
        if not (np.isfinite(b) and 0 <= b <= 1):
            raise RetrievalError(f"BM25 b must be between 0 and 1, got {b!r}")
        self.k1 = float(k1)
        self.b = float(b)
        self.method = method
        self.usage = {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0, "cached_texts": 0}
        self._index: BM25Index | None = None
        self._index_key: str | None = None

    def config(self) -> dict:
        import bm25s

        return {"retriever": "bm25", "k1": self.k1, "b": self.b, "method": self.method,
                "tokenizer": TOKENIZER_NAME, "bm25s": bm25s.__version__}

    def index(self, dataset: Dataset, *, progress: ProgressFn | None = None,
              cancel: threading.Event | None = None) -> BM25Index:
        """The index for ``dataset``'s documents (kept for the next call on the same data)."""
        key = dataset.fingerprint()
        if self._index is not None and self._index_key == key:
            return self._index
        texts = dataset.doc_texts()
        total = len(texts)
        _report(progress, "documents", 0, total)
        ids = TokenIds()
        step = 5000
        for lo in range(0, total, step):
            _check(cancel)
            ids.add(tokenize(texts[lo:lo + step]))
            _report(progress, "documents", min(total, lo + step), total)
        _check(cancel)
        self._index = BM25Index(ids, k1=self.k1, b=self.b, method=self.method)
        self._index_key = key
        return self._index

    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        """Top ``kmax`` documents with a score above 0 for each query."""
        kmax = int(kmax)
        if kmax < 1:
            raise RetrievalError(f"kmax must be at least 1, got {kmax}")
        index = self.index(dataset, progress=progress, cancel=cancel)
        queries = list(queries)
        nq = len(queries)
        _report(progress, "queries", 0, nq)
        q_tokens = tokenize(q.text for q in queries)
        _report(progress, "queries", nq, nq)
        doc_ids = np.asarray(dataset.doc_ids, dtype=object)
        keys = doc_id_keys(doc_ids) if len(doc_ids) else np.empty(0, dtype=np.int64)
        indices = np.full((nq, kmax), -1, dtype=np.int64)
        scores = np.full((nq, kmax), -np.inf)
        block = max(1, _BLOCK_ELEMENTS // max(1, index.n_docs))
        _report(progress, "ranking", 0, nq)
        for lo in range(0, nq, block):
            _check(cancel)
            part = q_tokens[lo:lo + block]
            dense = index.scores(part)
            cols, vals = select_topk(dense, kmax, keys, floor=0.0)
            indices[lo:lo + len(part)] = cols
            scores[lo:lo + len(part)] = vals
            _report(progress, "ranking", min(nq, lo + block), nq)
        return Ranking.from_topk([q.id for q in queries], doc_ids, indices, scores,
                                 name=self.name)


def _report(progress: ProgressFn | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress({"stage": stage, "done": done, "total": total, "calls": 0, "tokens": 0})


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("cancelled")
