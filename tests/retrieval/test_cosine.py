"""top_k_cosine against a brute-force float64 oracle, on both backends and many chunkings.

The oracle computes every cosine with math.fsum (correctly rounded sums, so equal vectors give
equal scores), sorts each row by (score desc, tie key desc) with np.lexsort, and cuts at k.
float32 arithmetic cannot reproduce every float64 comparison: two different documents whose
cosines differ by less than ~1e-7 may come out in either order. The check therefore demands
exactly the oracle's documents in the oracle's order, except where the two documents' oracle
scores differ by a non-zero amount below ``TOL``. Exact ties (duplicate documents, 2x copies,
zero vectors) must follow the tie key exactly.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from ragdash.errors import Cancelled, RetrievalError
from ragdash.retrieval import cosine
from ragdash.retrieval.cosine import top_k_cosine
from ragdash.retrieval.topk import doc_id_keys, select_row, select_topk

TOL = 2e-6
BACKENDS = ["numpy", "faiss"]


def oracle_scores(queries: np.ndarray, docs: np.ndarray) -> np.ndarray:
    q = queries.astype(np.float64)
    d = docs.astype(np.float64)
    qn = [math.sqrt(math.fsum(x * x for x in row)) for row in q]
    dn = [math.sqrt(math.fsum(x * x for x in row)) for row in d]
    out = np.zeros((len(q), len(d)))
    for i, row in enumerate(q):
        if qn[i] == 0:
            continue
        prods = d * row
        for j in range(len(d)):
            if dn[j] > 0:
                out[i, j] = math.fsum(prods[j]) / (qn[i] * dn[j])
    return out


def check(queries, docs, k, indices, scores, keys=None):
    truth = oracle_scores(queries, docs)
    n = len(docs)
    kk = min(k, n)
    keys = np.arange(n - 1, -1, -1) if keys is None else keys
    assert indices.shape == (len(queries), k) and indices.dtype == np.int64
    assert scores.shape == (len(queries), k) and scores.dtype == np.float64
    assert (indices[:, kk:] == -1).all() and np.isneginf(scores[:, kk:]).all()
    assert not np.isnan(scores).any()
    for r in range(len(queries)):
        expect = np.lexsort((-keys, -truth[r]))[:kk]
        got = indices[r, :kk]
        assert len(set(got.tolist())) == kk
        np.testing.assert_allclose(scores[r, :kk], truth[r, got], atol=TOL, rtol=0)
        np.testing.assert_allclose(truth[r, got], truth[r, expect], atol=TOL, rtol=0)
        for p in np.flatnonzero(got != expect):
            gap = abs(truth[r, got[p]] - truth[r, expect[p]])
            assert 0 < gap < TOL, f"row {r} position {p}: {got[p]} instead of {expect[p]}"


def make_data(seed: int, n: int, q: int, d: int, *, zeros=0.1, copies=0.25):
    rng = np.random.default_rng(seed)
    docs = rng.standard_normal((n, d)).astype(np.float32)
    queries = rng.standard_normal((q, d)).astype(np.float32)
    docs[rng.random(n) < zeros] = 0
    queries[rng.random(q) < zeros] = 0
    m = int(n * copies)
    if m:
        src = rng.integers(0, n, size=m)
        dst = rng.integers(0, n, size=m)
        scale = rng.choice(np.array([1.0, 2.0, 0.5], dtype=np.float32), size=(m, 1))
        docs[dst] = docs[src] * scale   # exact duplicates and power-of-2 multiples
    return queries, docs


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunks", [(None, None), (7, 3), (64, 5), (1, 1)],
                         ids=["default", "chunk7", "chunk64", "chunk1"])
@pytest.mark.parametrize("seed,n,q,d,k", [
    (1, 300, 9, 12, 20),
    (2, 257, 6, 3, 100),     # k close to N; d=3 makes near-ties common
    (3, 500, 4, 24, 7),
    (4, 50, 5, 8, 80),       # k > N: padded
])
def test_matches_brute_force(backend, chunks, seed, n, q, d, k):
    queries, docs = make_data(seed, n, q, d)
    chunk, qchunk = chunks
    indices, scores = top_k_cosine(queries, docs, k, backend=backend, chunk_size=chunk,
                                   query_chunk_size=qchunk)
    check(queries, docs, k, indices, scores)


@pytest.mark.parametrize("backend", BACKENDS)
def test_doc_id_tie_rule_with_many_duplicates(backend):
    # A third of the documents are copies: equal scores straddle the cut everywhere.
    rng = np.random.default_rng(7)
    queries, docs = make_data(7, 400, 8, 6, zeros=0.2, copies=0.6)
    ids = [f"doc-{rng.integers(0, 10**6)}-{i}" for i in range(len(docs))]
    for chunk in (None, 13, 100):
        indices, scores = top_k_cosine(queries, docs, 30, backend=backend, doc_ids=ids,
                                       chunk_size=chunk)
        check(queries, docs, 30, indices, scores, keys=doc_id_keys(ids))


@pytest.mark.parametrize("backend", BACKENDS)
def test_duplicates_straddling_the_cut_follow_doc_id_descending(backend):
    base = np.array([[1.0, 0.0], [0.9, 0.1]], dtype=np.float32)
    docs = np.repeat(base, [1, 10], axis=0)  # one best doc, then ten identical ones
    ids = ["z", *[f"d{i:02d}" for i in range(10)]]
    indices, scores = top_k_cosine(np.array([[1.0, 0.0]]), docs, 4, backend=backend,
                                   doc_ids=ids)
    assert [ids[i] for i in indices[0]] == ["z", "d09", "d08", "d07"]
    assert scores[0, 1] == scores[0, 2] == scores[0, 3]
    # Without doc ids, the earlier document wins a tie.
    indices, _ = top_k_cosine(np.array([[1.0, 0.0]]), docs, 4, backend=backend)
    assert indices[0].tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_vectors_score_zero_never_nan(backend):
    docs = np.array([[0, 0], [1, 0], [0, 0], [-1, 0]], dtype=np.float32)
    indices, scores = top_k_cosine(np.array([[1.0, 0.0], [0.0, 0.0]]), docs, 4,
                                   backend=backend)
    assert indices[0].tolist() == [1, 0, 2, 3]   # zero docs tie at 0: earlier first
    assert scores[0].tolist() == [1.0, 0.0, 0.0, -1.0]
    assert indices[1].tolist() == [0, 1, 2, 3]   # a zero query ties everything at 0
    assert scores[1].tolist() == [0.0] * 4


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_query_single_document_and_k_above_n(backend):
    indices, scores = top_k_cosine(np.array([[3.0, 4.0]]), np.array([[6.0, 8.0]]), 3,
                                   backend=backend)
    assert indices.tolist() == [[0, -1, -1]]
    assert scores[0, 0] == pytest.approx(1.0, abs=1e-12)
    assert np.isneginf(scores[0, 1:]).all()


def test_empty_inputs_and_k_zero():
    i, s = top_k_cosine(np.zeros((0, 4)), np.ones((5, 4)), 3)
    assert i.shape == (0, 3) and s.shape == (0, 3)
    i, s = top_k_cosine(np.ones((2, 4)), np.zeros((0, 4)), 3)
    assert (i == -1).all() and np.isneginf(s).all()
    i, s = top_k_cosine(np.ones((2, 4)), np.ones((5, 4)), 0)
    assert i.shape == (2, 0)


def test_backends_agree_and_accept_float64_and_ints():
    queries, docs = make_data(11, 3000, 20, 16, zeros=0.0, copies=0.0)
    a_i, a_s = top_k_cosine(queries, docs, 50, backend="numpy")
    b_i, b_s = top_k_cosine(queries.astype(np.float64), docs.astype(np.float64), 50,
                            backend="faiss", chunk_size=700)
    np.testing.assert_allclose(a_s, b_s, atol=TOL)
    assert (a_i == b_i).mean() > 0.99   # order may differ only within float32 rounding
    ints = np.array([[1, 2], [2, 4], [3, -1]])
    i, s = top_k_cosine(np.array([[1, 2]]), ints, 3)
    assert i[0].tolist() == [0, 1, 2] and s[0, 0] == s[0, 1]


def test_large_input_is_processed_in_bounded_blocks(monkeypatch):
    # Never a full Q x N matrix: every score block is at most the configured budget.
    seen = []
    real = cosine.select_topk

    def spy(scores, k, keys, **kw):
        seen.append(scores.shape)
        return real(scores, k, keys, **kw)

    monkeypatch.setattr(cosine, "select_topk", spy)
    monkeypatch.setattr(cosine, "_BLOCK_ELEMENTS", 4096)
    queries, docs = make_data(5, 5000, 40, 8, zeros=0.0, copies=0.0)
    top_k_cosine(queries, docs, 10, backend="numpy", query_chunk_size=8)
    assert len(seen) > 1 and max(r * c for r, c in seen) <= 8 * 1024


def test_errors_are_retrieval_errors():
    with pytest.raises(RetrievalError, match="dimensions"):
        top_k_cosine(np.ones((1, 3)), np.ones((2, 4)), 1)
    with pytest.raises(RetrievalError, match="NaN"):
        top_k_cosine(np.ones((1, 2)), np.array([[1.0, np.nan]]), 1)
    with pytest.raises(RetrievalError, match="backend"):
        top_k_cosine(np.ones((1, 2)), np.ones((2, 2)), 1, backend="gpu")
    with pytest.raises(RetrievalError, match="2-D"):
        top_k_cosine(np.ones(3), np.ones((2, 3)), 1)
    with pytest.raises(RetrievalError, match="doc_ids"):
        top_k_cosine(np.ones((1, 2)), np.ones((2, 2)), 1, doc_ids=["a"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_cancel_between_blocks(backend):
    event = threading.Event()
    event.set()
    with pytest.raises(Cancelled):
        top_k_cosine(np.ones((2, 2)), np.ones((3, 2)), 1, backend=backend, cancel=event)


# -- the selection kernel on its own -------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_select_topk_equals_full_sort(seed):
    rng = np.random.default_rng(seed)
    r, n, k = 7, int(rng.integers(300, 3000)), int(rng.integers(1, 60))
    scores = rng.integers(0, 40, size=(r, n)).astype(np.float32)  # heavy exact ties
    scores[0] = 5.0                                                # one row all equal
    keys = rng.permutation(n).astype(np.int64)
    for floor in (None, 20.0):
        cols, vals = select_topk(scores, k, keys, floor=floor)
        for i in range(r):
            order = np.lexsort((-keys, -scores[i]))
            if floor is not None:
                order = order[scores[i, order] > floor]
            order = order[:k]
            assert cols[i, : len(order)].tolist() == order.tolist()
            assert (cols[i, len(order):] == -1).all()
            assert vals[i, : len(order)].tolist() == scores[i, order].tolist()
        c1, v1 = select_row(scores[3], k, keys, floor=floor)
        assert v1.tolist() == vals[3, : len(v1)].tolist()
        assert c1.tolist() == cols[3, : len(c1)].tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_long_runs_of_equal_scores_take_the_exact_path(backend, monkeypatch):
    # 60 identical documents and k=5: the tie reaches past what pass 1 keeps, so the query
    # is finished by the exact pass; most documents being zero vectors does the same at 0.
    calls = []
    real = cosine._exact_many
    monkeypatch.setattr(cosine, "_exact_many",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    rng = np.random.default_rng(3)
    same = np.tile(np.array([[0.6, 0.8, 0.0]], dtype=np.float32), (60, 1))
    others = rng.standard_normal((40, 3)).astype(np.float32)
    zeros = np.zeros((200, 3), dtype=np.float32)
    docs = np.concatenate([others[:20], same, zeros, others[20:]])
    ids = [f"id{int(x)}" for x in rng.permutation(len(docs))]
    queries = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 1.0], [-0.6, -0.8, 0.0]], dtype=np.float32)
    for k in (5, 50, 130):
        indices, scores = top_k_cosine(queries, docs, k, backend=backend, doc_ids=ids,
                                       chunk_size=37)
        check(queries, docs, k, indices, scores, keys=doc_id_keys(ids))
    assert calls
