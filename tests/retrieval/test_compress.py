"""Compressed-vector ranking against direct numpy computations (full score matrix, sorted by
score descending then doc id descending)."""

import numpy as np
import pytest

from ragdash.errors import RetrievalError
from ragdash.retrieval import top_k_cosine
from ragdash.retrieval.compress import (
    binary_quantize,
    compressed_top_k,
    index_bytes,
    int8_calibrate,
    int8_quantize,
    truncate,
)


def _data(nq=13, n=300, d=48, seed=0):
    rng = np.random.default_rng(seed)
    docs = rng.normal(size=(n, d)).astype(np.float32)
    docs[5] = docs[7]  # an exact duplicate: a tie broken by doc id
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    queries = rng.normal(size=(nq, d)).astype(np.float32)
    ids = np.array([f"d{i:04d}" for i in range(n)], dtype=object)
    return queries, docs, ids


def _oracle(scores, ids, k):
    """Top k per row of a full score matrix, ties by doc id descending."""
    out = []
    for row in scores:
        order = sorted(range(len(row)), key=lambda j: (-row[j], [-ord(c) for c in ids[j]]))
        out.append(order[:k])
    return np.array(out)


def _cos(q, d):
    q = np.asarray(q, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    d = d / np.linalg.norm(d, axis=1, keepdims=True)
    return q @ d.T


def test_truncate_renormalizes_and_full_is_identity():
    _, docs, _ = _data()
    t = truncate(docs, 16)
    assert t.shape == (300, 16) and t.dtype == np.float32
    expect = docs[:, :16] / np.linalg.norm(docs[:, :16].astype(np.float64), axis=1,
                                           keepdims=True)
    np.testing.assert_allclose(t, expect, rtol=1e-6)
    assert truncate(docs, 48) is docs and truncate(docs, None) is docs
    with pytest.raises(RetrievalError, match="choose a number from 1 to 48"):
        truncate(docs, 64)


def test_full_dimension_float32_is_top_k_cosine_exactly():
    q, docs, ids = _data()
    a = compressed_top_k(q, docs, 20, dimensions=48, doc_ids=ids)
    b = top_k_cosine(q, docs, 20, doc_ids=ids)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("dims", [16, 48])
def test_float16_and_int8_against_numpy(dims):
    q, docs, ids = _data()
    qt, dt = truncate(q, dims), truncate(docs, dims)
    idx, scores = compressed_top_k(q, docs, 15, precision="float16", dimensions=dims,
                                   doc_ids=ids)
    np.testing.assert_array_equal(idx, _oracle(_cos(qt, dt.astype(np.float16)), ids, 15))
    scale = np.abs(dt).max(axis=0) / 127.0
    codes = np.clip(np.rint(dt / scale), -127, 127)
    np.testing.assert_array_equal(int8_quantize(dt, int8_calibrate(dt)), codes.astype(np.int8))
    idx, scores = compressed_top_k(q, docs, 15, precision="int8", dimensions=dims,
                                   doc_ids=ids)
    full = _cos(qt, codes * scale)
    np.testing.assert_array_equal(idx, _oracle(full, ids, 15))
    np.testing.assert_allclose(scores, np.take_along_axis(full, idx, axis=1), atol=1e-6)


def test_binary_hamming_against_numpy_with_ties():
    q, docs, ids = _data(d=20)  # few dims: many equal Hamming distances
    idx, sim = compressed_top_k(q, docs, 25, precision="binary", doc_ids=ids)
    qb, db = q > 0, docs > 0
    ham = (qb[:, None, :] != db[None, :, :]).sum(axis=2)
    expect_sim = 1 - 2 * ham / 20
    np.testing.assert_array_equal(idx, _oracle(expect_sim, ids, 25))
    np.testing.assert_allclose(sim, np.take_along_axis(expect_sim, idx, axis=1), rtol=1e-12)
    assert binary_quantize(docs).shape == (300, 3)


def test_binary_rescore_against_numpy():
    q, docs, ids = _data(d=32)
    k = 5
    idx, sc = compressed_top_k(q, docs, k, precision="binary-rescore", doc_ids=ids)
    qb, db = q > 0, docs > 0
    ham_sim = 1 - 2 * (qb[:, None, :] != db[None, :, :]).sum(axis=2) / 32
    cand = _oracle(ham_sim, ids, 10 * k)
    cos = _cos(q, docs)
    for r in range(len(q)):
        c = cand[r]
        order = sorted(c, key=lambda j: (-cos[r, j], [-ord(ch) for ch in ids[j]]))[:k]
        assert list(idx[r]) == order
        np.testing.assert_allclose(sc[r], cos[r, order], rtol=1e-12)


def test_k_larger_than_corpus_and_index_bytes():
    q, docs, ids = _data(n=12)
    idx, _ = compressed_top_k(q, docs, 50, precision="binary", doc_ids=ids)
    assert idx.shape == (13, 12) and (idx >= 0).all()
    assert index_bytes(1000, 384, "float32") == 1000 * 384 * 4
    assert index_bytes(1000, 384, "float16") == 1000 * 384 * 2
    assert index_bytes(1000, 384, "int8") == 1000 * 384 + 4 * 384
    assert index_bytes(1000, 385, "binary") == 1000 * 49
    with pytest.raises(RetrievalError, match="unknown precision"):
        index_bytes(1, 1, "int4")
