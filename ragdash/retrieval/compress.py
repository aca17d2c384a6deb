"""Ranking over compressed document vectors: truncation, float16, int8, binary, rescoring.

A dimension or precision sweep re-ranks vectors a dense run already has (from the embeddings
cache, no API call). Every transform here is vectorized numpy over whole matrices (no Python
loop per document), and every ranking follows trec_eval's order (score descending, ties by doc
id descending: :mod:`ragdash.ranking`), as :func:`ragdash.retrieval.top_k_cosine` does.

- :func:`truncate` keeps the first ``d`` dimensions and re-normalizes each row (valid for
  models trained for it, "Matryoshka" models); at the full dimension the vectors are returned
  unchanged, so the ranking is the parent's exactly.
- ``float16``: documents stored as float16; ranked by exact cosine of those values.
- ``int8``: one scale per dimension, calibrated on the corpus (``max |x_j| / 127``), codes
  ``round(x / scale)`` in [-127, 127]; ranked by exact cosine of the dequantized documents.
- ``binary``: one sign bit per dimension (``x > 0``), packed 8 per byte; ranked by Hamming
  distance, reported as the similarity ``1 - 2 h / d`` (the cosine of the ±1 vectors), which
  is computed exactly as a ±1 matrix product (``d - 2h = a·b``; integers, exact in float32).
- ``binary-rescore``: the top ``10 × k`` by Hamming, rescored by float64 cosine of the float
  vectors (query and document), keeping the top ``k``.

:func:`index_bytes` is the memory of the stored document vectors for each precision.
"""

from __future__ import annotations

import numpy as np

from ..errors import RetrievalError
from ..i18n import error
from .cosine import top_k_cosine
from .topk import doc_id_keys

#: precisions a sweep accepts, in the order they are listed
PRECISIONS = ("float32", "float16", "int8", "binary", "binary-rescore")
#: bytes per stored value (binary: one bit)
BYTES_PER_VALUE = {"float32": 4.0, "float16": 2.0, "int8": 1.0, "binary": 0.125,
                   "binary-rescore": 0.125}
#: how many Hamming candidates per wanted result ``binary-rescore`` rescores
RESCORE_FACTOR = 10
#: score elements per block (float32): 8M = 32 MB
_BLOCK_ELEMENTS = 1 << 23


def truncate(vectors: np.ndarray, dimensions: int | None) -> np.ndarray:
    """The first ``dimensions`` columns, each row re-normalized to length 1 (float32).

    ``None`` or the full width returns ``vectors`` itself (no copy, no re-normalization).
    A zero row stays zero."""
    vectors = np.asarray(vectors)
    full = vectors.shape[1] if vectors.ndim == 2 else 0
    if dimensions is None or int(dimensions) == full:
        return vectors
    d = int(dimensions)
    if not 1 <= d <= full:
        raise error(RetrievalError, "compress.cannot_truncate", full=full, d=d)
    part = np.asarray(vectors[:, :d], dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", part, part))
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return (part * inv[:, None]).astype(np.float32)


def int8_calibrate(doc_vecs: np.ndarray) -> np.ndarray:
    """Per-dimension scale (float32, (d,)) so the corpus's largest |value| maps to 127."""
    top = np.abs(np.asarray(doc_vecs, dtype=np.float32)).max(axis=0) if len(doc_vecs) else \
        np.ones(np.shape(doc_vecs)[1], dtype=np.float32)
    return np.where(top > 0, top / 127.0, 1.0).astype(np.float32)


def int8_quantize(vectors: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """int8 codes ``round(x / scale)`` clipped to [-127, 127]."""
    codes = np.rint(np.asarray(vectors, dtype=np.float32) / scale)
    return np.clip(codes, -127, 127).astype(np.int8)


def binary_quantize(vectors: np.ndarray) -> np.ndarray:
    """Sign bits (``x > 0`` is 1), packed 8 per byte: uint8 (n, ceil(d / 8))."""
    return np.packbits(np.asarray(vectors) > 0, axis=1)


def _signs(packed: np.ndarray, d: int) -> np.ndarray:
    """±1 float32 (n, d) from packed sign bits."""
    bits = np.unpackbits(packed, axis=1, count=d).astype(np.float32)
    return bits * 2.0 - 1.0


def hamming_top_k(query_bits: np.ndarray, doc_bits: np.ndarray, d: int, k: int, *,
                  doc_ids=None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` documents by Hamming distance (smallest first; ties by doc id descending).

    Returns ``(indices, similarity)``, similarity ``1 - 2 h / d``; -1 / -inf pad past N.
    Blocks of documents are unpacked to ±1 and multiplied (``a·b = d - 2h``, exact)."""
    nq, n = len(query_bits), len(doc_bits)
    out_i = np.full((nq, k), -1, dtype=np.int64)
    out_v = np.full((nq, k), -np.inf, dtype=np.float64)
    if nq == 0 or n == 0 or k == 0:
        return out_i, out_v
    keys = doc_id_keys(doc_ids) if doc_ids is not None else np.arange(n - 1, -1, -1)
    # Scores are exact integers d - 2h in [-d, d]: score and tie rank (larger key first) fold
    # into one int64, so the top k is one argpartition, not a two-key sort.
    by_rank = np.argsort(keys, kind="stable")  # document index of each tie rank
    rank = np.empty(n, dtype=np.int64)
    rank[by_rank] = np.arange(n)
    q = _signs(query_bits, d)
    kk = min(k, n)
    step = max(1024, _BLOCK_ELEMENTS // max(1, nq))
    best = np.empty((nq, 0), dtype=np.int64)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        dots = q @ _signs(doc_bits[lo:hi], d).T  # d - 2h, exact integers
        comb = dots.astype(np.int64)
        comb += d
        comb *= n
        comb += rank[lo:hi]
        comb = np.concatenate([best, comb], axis=1) if best.shape[1] else comb
        if comb.shape[1] > kk:
            comb = np.partition(comb, comb.shape[1] - kk, axis=1)[:, -kk:]
        best = comb
    best = -np.sort(-best, axis=1)
    out_i[:, :kk] = by_rank[best % n]
    out_v[:, :kk] = (best // n - d) / d
    return out_i, out_v


def rescore(query_vecs: np.ndarray, doc_vecs: np.ndarray, candidates: np.ndarray, k: int, *,
            doc_ids=None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` of each row of ``candidates`` (indices, -1 = none) by float64 cosine."""
    nq = len(candidates)
    out_i = np.full((nq, k), -1, dtype=np.int64)
    out_v = np.full((nq, k), -np.inf, dtype=np.float64)
    if nq == 0 or k == 0 or candidates.shape[1] == 0:
        return out_i, out_v
    n = len(doc_vecs)
    keys = doc_id_keys(doc_ids) if doc_ids is not None else np.arange(n - 1, -1, -1)
    q = np.asarray(query_vecs, dtype=np.float64)
    qn = np.sqrt(np.einsum("ij,ij->i", q, q))
    q = q * np.divide(1.0, qn, out=np.zeros_like(qn), where=qn > 0)[:, None]
    dn = np.sqrt(np.einsum("ij,ij->i", *(2 * [np.asarray(doc_vecs, dtype=np.float64)])))
    dinv = np.divide(1.0, dn, out=np.zeros_like(dn), where=dn > 0)
    c = candidates.shape[1]
    kk = min(k, c)
    # Few documents for many candidates (c a sizeable share of n): one BLAS product per block
    # of queries beats gathering (queries x candidates x d) values; else gather.
    dense = n <= 32 * c
    d64 = np.asarray(doc_vecs, dtype=np.float64) if dense else None
    per = (1 << 22) // max(1, n if dense else c * doc_vecs.shape[1])
    rows_per = max(1, per)
    for lo in range(0, nq, rows_per):
        hi = min(nq, lo + rows_per)
        cand = candidates[lo:hi]
        safe = np.maximum(cand, 0)
        if dense:
            s = np.take_along_axis(q[lo:hi] @ d64.T, safe, axis=1) * dinv[safe]
        else:
            docs = np.asarray(doc_vecs[safe], dtype=np.float64)  # (r, c, d)
            docs *= q[lo:hi, None, :]
            s = docs.sum(axis=2) * dinv[safe]
        s = np.where(cand >= 0, s, -np.inf)
        ck = np.where(cand >= 0, keys[safe], -1)
        order = np.lexsort((-ck, -s), axis=1)[:, :kk]
        out_i[lo:hi, :kk] = np.take_along_axis(cand, order, axis=1)
        out_v[lo:hi, :kk] = np.take_along_axis(s, order, axis=1)
    out_v[out_i < 0] = -np.inf
    return out_i, out_v


def index_bytes(n_vectors: int, dimensions: int, precision: str) -> int:
    """Bytes of ``n_vectors`` stored vectors: n × d × bytes per value (binary: n × ceil(d/8));
    int8 adds its d float32 scales."""
    precision = _check_precision(precision)
    n, d = int(n_vectors), int(dimensions)
    if precision in ("binary", "binary-rescore"):
        return n * ((d + 7) // 8)
    extra = 4 * d if precision == "int8" else 0
    return int(n * d * BYTES_PER_VALUE[precision]) + extra


def _check_precision(precision: str) -> str:
    p = str(precision).strip().lower()
    if p not in PRECISIONS:
        raise error(RetrievalError, "compress.unknown_precision", precision=precision,
                    names=", ".join(PRECISIONS))
    return p


def compressed_top_k(query_vecs: np.ndarray, doc_vecs: np.ndarray, k: int, *,
                     precision: str = "float32", dimensions: int | None = None,
                     doc_ids=None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` documents per query after truncating to ``dimensions`` and storing the
    documents at ``precision`` (see the module docstring). Returns ``(indices, scores)``
    as :func:`top_k_cosine` does."""
    precision = _check_precision(precision)
    queries = truncate(query_vecs, dimensions)
    docs = truncate(doc_vecs, dimensions)
    k = max(0, min(int(k), len(docs)))
    if precision == "float32":
        return top_k_cosine(queries, docs, k, doc_ids=doc_ids)
    if precision == "float16":
        # the values float16 stores, searched in float32 (BLAS has no float16 product here)
        stored = np.asarray(docs, dtype=np.float16).astype(np.float32)
        return top_k_cosine(queries, stored, k, doc_ids=doc_ids)
    if precision == "int8":
        scale = int8_calibrate(docs)
        codes = int8_quantize(docs, scale)
        return top_k_cosine(queries, codes.astype(np.float32) * scale, k, doc_ids=doc_ids)
    d = docs.shape[1]
    qbits, dbits = binary_quantize(queries), binary_quantize(docs)
    if precision == "binary":
        return hamming_top_k(qbits, dbits, d, k, doc_ids=doc_ids)
    cand, _ = hamming_top_k(qbits, dbits, d, min(len(docs), RESCORE_FACTOR * k),
                            doc_ids=doc_ids)
    return rescore(queries, docs, cand, k, doc_ids=doc_ids)
