"""Exact cosine top-k over embedding matrices, in bounded memory.

``top_k_cosine(Q, D, k)`` returns, for each query row, the ``k`` documents with the largest
cosine similarity, computed exactly (no approximate index):

    cos(q, d) = q·d / (|q| |d|),   and 0 when q or d is the zero vector (never NaN).

Memory: the document matrix is read in place (a float32 C-contiguous input is never copied;
other dtypes are converted one chunk of at most 64 MB at a time). Document norms are applied to
each block of scores (numpy) or to a reused 64 MB normalized chunk (faiss; none at all when the
rows are float32 unit vectors already). Scores live in blocks of about 8M float32 and each block
keeps only its top k, merged into a running top k: there is never a full queries x documents
matrix, in float64 or otherwise. Measured: ranking 1,000 queries against 100,000 x 1,536
documents (614 MB) grows the process by 0.17-0.24x the matrix (bench/bench_memory.py).

Two backends compute the same thing:

- ``"numpy"``: a float32 matrix product per block, then :func:`ragdash.retrieval.topk.select_topk`
  (a threshold from group maxima, then an exact sort of the few candidates).
- ``"faiss"``: ``faiss.knn`` (the kernel behind ``IndexFlatIP.search``: BLAS blocks and a heap
  per query) on each block of documents, the blocks' results merged in faiss's own heaps
  (``faiss.ResultHeap``), with as many OpenMP threads as numpy's BLAS uses. ``"auto"`` picks
  faiss when it can be imported, numpy otherwise.

Norms. A vector file stores 1/|d| of every row when it is written
(:class:`~ragdash.embeddings.cache.VectorFile`, computed by
:func:`ragdash.embeddings.norms.inverse_norms`, the function the search uses for any other
matrix), and ``doc_inverse_norms`` hands them in: the search then reads the documents once,
and not at all beyond that when the rows are unit vectors already (they are searched in
place, with no normalized copy). Doc ids are ranked for the tie rule only for the few
candidates that need it, not for the whole corpus.

Ties. The order is score descending, then tie key descending: with ``doc_ids`` the key is the
doc id's string order, trec_eval's rule, so the k returned are the first k of the canonical
ranking (:mod:`ragdash.ranking`) even when equal scores straddle the cut; without ``doc_ids``
the earlier document wins. float32 products are not enough to see a tie (the same vector
scores differently by an ulp depending on where BLAS meets it), so:

1. the first pass keeps the top ``k + max(8, k/4)`` by float32 score;
2. scores within ``TIE_MARGIN`` (1e-5) of a neighbour, chains of them included, are recomputed
   in float64 with the same arithmetic for every pair (exact products, one summation order),
   so equal vectors tie exactly, then re-sorted with the tie key;
3. when the last kept score is still within the margin of the k-th, documents not kept could
   tie with it: that query is redone exactly over all documents (rare: long runs of duplicates,
   or most documents being zero vectors).

float32 errors of cosines are about 1e-7 (measured at most 1.4e-7 at 384 and 1,536 dims), far
below the margin; two different documents whose true cosines differ by less than that may still
come out in either order. Returned scores are float64: exact where recomputed, the float32
value elsewhere.

Results shorter than ``k`` (k > N) are padded with index -1 and score -inf.

Memory-mapped documents (``np.load(path, mmap_mode="r")``, as the dense retriever's vector
file is opened): the pages of each block are handed back to the kernel once the block is
scored (``madvise(MADV_DONTNEED)``; they stay in the page cache, so a second pass costs no
disk read), and the faiss backend works in 64 MB blocks as for any other input, so the
process's peak RSS is that of the search, not the size of the file.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import threading
from typing import Literal

import numpy as np

from ..embeddings.norms import inverse_norms
from ..errors import Cancelled, RetrievalError
from ..i18n import error
from .topk import doc_id_keys, merge_topk, select_topk

Backend = Literal["auto", "numpy", "faiss"]

#: scores per block (float32): 8M = 32 MB
_BLOCK_ELEMENTS = 1 << 23
#: documents per norm computation (float64 scratch of this many rows)
_NORM_ROWS = 2048
#: float32 scores closer than this are recomputed in float64 before ties are broken; float32
#: cosines of unit vectors are off by about 1e-7 (measured up to 1.4e-7 at 384 and 1536 dims)
TIE_MARGIN = 1e-5
#: documents whose norms are all within this of 1 are used as they are (no normalized copy)
_UNIT_TOLERANCE = 2.0 ** -20
#: the most document bytes (float32) converted or normalized at once
_CHUNK_BYTES = 64 << 20

_numpy_threads_cache: int | None = None


def faiss_available() -> bool:
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


def numpy_threads() -> int:
    """How many threads numpy's BLAS uses (threadpoolctl when installed, else the environment)."""
    global _numpy_threads_cache
    if _numpy_threads_cache is None:
        n = None
        try:
            from threadpoolctl import threadpool_info
            blas = [i for i in threadpool_info()
                    if i.get("user_api") == "blas" and "numpy" in i.get("filepath", "")]
            if blas:
                n = int(blas[0]["num_threads"])
        except Exception:
            n = None
        if n is None:
            for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
                if os.environ.get(var, "").isdigit():
                    n = int(os.environ[var])
                    break
        _numpy_threads_cache = max(1, n or os.cpu_count() or 1)
    return _numpy_threads_cache


def top_k_cosine(query_vecs, doc_vecs, k: int, *, backend: Backend = "auto",
                 chunk_size: int | None = None, query_chunk_size: int | None = None,
                 doc_ids=None, threads: int | None = None,
                 cancel: threading.Event | None = None,
                 doc_inverse_norms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` cosine neighbours of each query among the documents.

    ``query_vecs`` (Q, d) and ``doc_vecs`` (N, d): any real dtype, any norm. ``chunk_size``
    documents and ``query_chunk_size`` queries per block (default: blocks of about 8M scores).
    ``doc_ids`` (N,) turns on trec_eval's tie rule (see the module docstring). ``cancel``
    is checked between blocks. ``doc_inverse_norms`` (N,) float64: 1/|d| of every document
    as :func:`ragdash.embeddings.norms.inverse_norms` computes it, when known (a vector file
    stores them), so the documents are not read once more just to normalize them. Returns
    ``(indices, scores)``: int64 (Q, k) with -1 for no hit and float64 (Q, k), in order.
    """
    queries = _as_matrix(query_vecs, "query vectors")
    docs = _as_matrix(doc_vecs, "document vectors")
    k, backend = _checked(queries, docs, k, backend)
    nq, n = len(queries), len(docs)
    out_idx = np.full((nq, k), -1, dtype=np.int64)
    out_val = np.full((nq, k), -np.inf, dtype=np.float64)
    if nq == 0 or n == 0 or k == 0:
        return out_idx, out_val

    ties = _TieKeys(doc_ids, n)
    q64 = _normalized_f64(queries)
    release = _page_releaser(doc_vecs, docs)
    inv64 = _given_norms(doc_inverse_norms, n)
    if inv64 is None:
        inv64 = _inverse_norms(docs, release)
    inv32 = inv64.astype(np.float32)
    kk = min(k, n)

    # A zero query scores 0 against every document: the first k by tie key.
    zero = ~q64.any(axis=1)
    if zero.any():
        by_key = np.argsort(-ties.all(), kind="stable")[:kk]
        out_idx[zero, :kk] = by_key
        out_val[zero, :kk] = 0.0
    live = np.flatnonzero(~zero)
    if len(live) == 0:
        return out_idx, out_val

    # Pass 1 keeps a few more than k, so that equal scores straddling the cut are seen.
    keep = min(n, kk + max(8, kk // 4))
    row_cap = max(1, _CHUNK_BYTES // (4 * docs.shape[1]))
    qc = max(1, min(len(live), query_chunk_size or 1024))
    if backend == "faiss":
        first_pass = _faiss_pass(docs, inv64, inv32, keep, chunk_size=chunk_size,
                                 row_cap=row_cap, threads=threads, mapped=release is not None,
                                 cancel=cancel, release=release)
    else:
        first_pass = _numpy_pass(docs, ties.all(), inv32, keep, chunk_size=chunk_size,
                                 row_cap=row_cap, qc=qc, cancel=cancel, release=release)
    for b0 in range(0, len(live), qc):
        rows = live[b0:b0 + qc]
        q64b = q64[rows]
        best_i, best_v = first_pass(q64b.astype(np.float32))
        best_k = ties.of(best_i)
        idx, val, overflow = _refine(q64b, docs, inv64, best_i, best_v, best_k, kk, keep < n,
                                     release)
        redo = np.flatnonzero(overflow)
        if len(redo):
            floors = best_v[redo, kk - 1].astype(np.float64) - TIE_MARGIN
            idx[redo], val[redo] = _exact_many(q64b[redo], docs, inv64, inv32, ties.all(), kk,
                                               floors, row_cap, cancel, release)
        out_idx[rows, :kk] = idx
        out_val[rows, :kk] = val
        if release is not None:  # the rows rescored above were read at random, and each
            release(0, n)        # fault maps its neighbours too (fault-around): drop them
    return out_idx, out_val


class _TieKeys:
    """Tie keys: larger wins among equal scores. With doc ids, a document's rank in doc-id
    string order (trec_eval's rule); without, the earlier document wins.

    Ranking a million doc ids takes a second, and only a few candidates per query ever tie,
    so :meth:`of` ranks just the documents it is asked about (ranks that agree with the
    global ones within one call) and :meth:`all` ranks every document only when a path needs
    them all (the numpy backend, a zero query, a query redone over every document)."""

    def __init__(self, doc_ids, n: int) -> None:
        self.doc_ids, self.n = doc_ids, n
        self._all: np.ndarray | None = None
        if doc_ids is not None and len(doc_ids) != n:
            raise RetrievalError(f"doc_ids has {len(doc_ids)} entries for {n} document vectors")

    def all(self) -> np.ndarray:
        if self._all is None:
            self._all = (np.arange(self.n - 1, -1, -1, dtype=np.int64) if self.doc_ids is None
                         else doc_id_keys(self.doc_ids))
        return self._all

    def of(self, idx: np.ndarray) -> np.ndarray:
        """Keys of the documents ``idx`` (any shape; -1, padding, gets -1), comparable with
        each other."""
        valid = idx >= 0
        if self._all is not None or self.doc_ids is None:
            keys = self.all() if self._all is not None else None
            out = (keys[np.maximum(idx, 0)] if keys is not None
                   else self.n - 1 - idx)
            return np.where(valid, out, -1)
        wanted = np.unique(idx[valid])
        ids = self.doc_ids
        picked = ids[wanted] if isinstance(ids, np.ndarray) else [ids[i] for i in wanted.tolist()]
        _, rank = np.unique(np.asarray(picked, dtype=object).astype(str), return_inverse=True)
        out = rank.ravel().astype(np.int64)[np.searchsorted(wanted, np.maximum(idx, 0))]
        return np.where(valid, out, -1)


def _given_norms(inv, n: int) -> np.ndarray | None:
    """Stored inverse norms when they fit the documents (else None: computed again)."""
    if inv is None:
        return None
    inv = np.asarray(inv)
    if inv.shape != (n,) or inv.dtype != np.float64 or not np.isfinite(inv).all():
        return None
    return inv


def _checked(queries: np.ndarray, docs: np.ndarray, k, backend: str) -> tuple[int, str]:
    """``k`` as an int and the backend to use ("auto" resolved); a RetrievalError if not."""
    if queries.shape[1] != docs.shape[1]:
        raise error(RetrievalError, "cosine.dims_differ", queries=queries.shape[1],
                    docs=docs.shape[1])
    k = int(k)
    if k < 0:
        raise RetrievalError(f"k must be at least 0, got {k}")
    if backend not in ("auto", "numpy", "faiss"):
        raise error(RetrievalError, "cosine.unknown_backend", backend=backend)
    if backend == "auto":
        backend = "faiss" if faiss_available() else "numpy"
    elif backend == "faiss" and not faiss_available():
        raise error(RetrievalError, "cosine.no_faiss")
    return k, backend


def _faiss_pass(docs: np.ndarray, inv64: np.ndarray, inv32: np.ndarray, keep: int, *,
                chunk_size: int | None, row_cap: int, threads: int | None, mapped: bool,
                cancel, release):
    """``pass_(q32)``: the float32 top ``keep`` of a query block over every document,
    (global indices, scores), by ``faiss.knn`` (the kernel of ``IndexFlatIP.search``) per
    block of documents, the blocks' results merged in faiss's own heaps."""
    import faiss
    faiss.omp_set_num_threads(threads or numpy_threads())
    n = len(docs)
    # Unit float32 rows are searched as they are; others through a reused normalized copy.
    unit = (docs.dtype == np.float32 and docs.flags.c_contiguous
            and bool(np.all(np.abs(inv64 - 1.0) <= _UNIT_TOLERANCE)))
    nc = max(1, chunk_size or (n if unit and not mapped else row_cap))
    buffer = None if unit else np.empty((min(nc, n), docs.shape[1]), dtype=np.float32)

    def pass_(q32: np.ndarray):
        heap = faiss.ResultHeap(len(q32), keep, keep_max=True)
        for d0 in range(0, n, nc):
            _check_cancel(cancel)
            d1 = min(n, d0 + nc)
            if unit:
                chunk = _f32_rows(docs, d0, d1)
            else:
                chunk = buffer[: d1 - d0]
                np.multiply(_f32_rows(docs, d0, d1), inv32[d0:d1, None], out=chunk)
            dist, idx = faiss.knn(q32, chunk, min(keep, d1 - d0),
                                  metric=faiss.METRIC_INNER_PRODUCT)
            np.add(idx, d0, out=idx, where=idx >= 0)
            heap.add_result(dist, idx)
            if release is not None:
                release(d0, d1)
        heap.finalize()
        best_v = heap.D
        best_v[heap.I < 0] = -np.inf
        return heap.I, best_v

    return pass_


def _numpy_pass(docs: np.ndarray, keys: np.ndarray, inv32: np.ndarray, keep: int, *,
                chunk_size: int | None, row_cap: int, qc: int, cancel, release):
    """``pass_(q32)`` as :func:`_faiss_pass`, by a float32 matrix product per block of
    documents and :func:`~ragdash.retrieval.topk.select_topk`, merged block by block."""
    n = len(docs)
    nc = max(1, chunk_size or min(max(1024, _BLOCK_ELEMENTS // qc), row_cap))

    def pass_(q32: np.ndarray):
        best = None
        for d0 in range(0, n, nc):
            _check_cancel(cancel)
            d1 = min(n, d0 + nc)
            scores = q32 @ _f32_rows(docs, d0, d1).T
            scores *= inv32[d0:d1]
            cols, vals = select_topk(scores, keep, keys[d0:d1])
            if release is not None:
                release(d0, d1)
            gidx = np.where(cols >= 0, cols + d0, -1)
            gkeys = np.where(cols >= 0, keys[np.maximum(gidx, 0)], -1)
            part = (gidx, vals.astype(np.float32, copy=False), gkeys)
            best = part if best is None else merge_topk(*best, *part, keep)
        return best[0], best[1]

    return pass_


def _check_cancel(cancel) -> None:
    if cancel is not None and cancel.is_set():
        raise error(Cancelled, "retrieval.cancelled")


def _refine(q64, docs, inv64, best_i, best_v, best_k, k, partial, release=None):
    """Exact order among near-equal float32 scores; flag rows whose cut needs a full pass.

    Scores closer than ``TIE_MARGIN`` (chains of them) are recomputed in float64 and re-sorted
    with the tie key; float32 errors are far below the margin, so scores farther apart are
    already in the right order. A row is flagged when the last kept score is within the
    margin of the k-th, as then a document not kept could still belong in the top k.
    """
    v = best_v.astype(np.float64)
    valid = best_i >= 0
    close = (v[:, :-1] - v[:, 1:] <= TIE_MARGIN) & valid[:, 1:]
    near = np.zeros_like(valid)
    near[:, :-1] |= close
    near[:, 1:] |= close
    rr, cc = np.nonzero(near)
    if len(rr):
        v[rr, cc] = _cosine64(q64, rr, docs, inv64, best_i[rr, cc], release)
    order = np.lexsort((-best_k, -v), axis=1)[:, :k]
    idx = np.take_along_axis(best_i, order, axis=1)
    val = np.take_along_axis(v, order, axis=1)
    val[idx < 0] = -np.inf
    overflow = np.zeros(len(v), dtype=bool)
    if partial:
        overflow = best_v[:, k - 1].astype(np.float64) - v[:, -1] <= TIE_MARGIN
        overflow &= valid[:, -1]
    return idx, val, overflow


def _exact_many(q64, docs, inv64, inv32, keys, k, floors, row_cap, cancel, release=None):
    """Queries whose cut pass 1 could not settle, against every document.

    Every document whose float32 score reaches the query's floor (its k-th float32 score minus
    the margin) is rescored in float64; the top k by (score, tie key) are kept as the
    documents stream by, so memory stays bounded however many documents tie.
    """
    m, n = len(q64), len(docs)
    q32 = q64.astype(np.float32)
    best_i = np.full((m, k), -1, dtype=np.int64)
    best_v = np.full((m, k), -np.inf)
    best_k = np.full((m, k), -1, dtype=np.int64)
    step = max(1, min(row_cap, _BLOCK_ELEMENTS // m))
    width = np.arange(k)
    for d0 in range(0, n, step):
        _check_cancel(cancel)
        d1 = min(n, d0 + step)
        s32 = (q32 @ _f32_rows(docs, d0, d1).T) * inv32[d0:d1]
        if release is not None:
            release(d0, d1)
        rows, cols = np.nonzero(s32 >= floors[:, None])
        if not len(rows):
            continue
        cols = cols + d0
        vals = _cosine64(q64, rows, docs, inv64, cols, release)
        order = np.lexsort((-keys[cols], -vals, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        starts = np.searchsorted(rows, np.arange(m))
        ends = np.searchsorted(rows, np.arange(m), side="right")
        take = starts[:, None] + width
        ok = take < ends[:, None]
        take = np.where(ok, take, 0)
        part_i = np.where(ok, cols[take], -1)
        part_v = np.where(ok, vals[take], -np.inf)
        part_k = np.where(ok, keys[np.maximum(part_i, 0)], -1)
        best_i, best_v, best_k = merge_topk(best_i, best_v, best_k, part_i, part_v, part_k, k)
    return best_i, best_v


def _cosine64(q64, q_rows, docs, inv64, doc_idx, release=None):
    """Cosine of each pair (``q64[q_rows[i]]``, ``docs[doc_idx[i]]``) in float64, with the
    same arithmetic for every pair.

    Every pair goes through the same operations in the same order (elementwise products, then
    numpy's pairwise sum over a row of the same length), so equal vectors give equal scores
    wherever they sit in the matrix, unlike a BLAS product whose kernels depend on position.
    """
    out = np.empty(len(doc_idx))
    step = max(1, (1 << 21) // max(1, docs.shape[1]))
    for lo in range(0, len(doc_idx), step):
        sel = doc_idx[lo:lo + step]
        rows = (np.asarray(docs[sel], dtype=np.float64) if release is None
                else _mapped_rows(docs, sel, release))
        rows *= q64[q_rows[lo:lo + step]]
        out[lo:lo + step] = rows.sum(axis=1) * inv64[sel]
    return out


#: bytes around a row read at random from a mapped file that are handed back after it (a
#: fault maps the whole page-cache folio holding the row, up to 2 MB on recent kernels)
_AROUND_BYTES = 4 << 20


def _mapped_rows(docs: np.ndarray, sel: np.ndarray, release) -> np.ndarray:
    """``docs[sel]`` as float64, read one row at a time from a memory-mapped matrix, the
    pages around each dropped at once: read at random, every row would otherwise leave its
    folio mapped (measured on Linux 6.18: 256 random rows of 1.5 KB mapped 261 MB)."""
    out = np.empty((len(sel), docs.shape[1]), dtype=np.float64)
    window = max(1, _AROUND_BYTES // max(1, docs.strides[0]))
    for t, j in enumerate(sel.tolist()):
        out[t] = docs[j]
        release(j - window, j + window + 1)
    return out


def _as_matrix(x, what: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, 0)
    if arr.ndim != 2:
        raise RetrievalError(f"{what} must be a 2-D array (rows x dimensions), got shape "
                             f"{arr.shape}")
    if arr.dtype.kind not in "fiu":
        raise RetrievalError(f"{what} must be numbers, got dtype {arr.dtype}")
    return arr


def _f32_rows(m: np.ndarray, lo: int, hi: int) -> np.ndarray:
    part = m[lo:hi]
    if part.dtype == np.float32 and part.flags.c_contiguous:
        return part
    return np.ascontiguousarray(part, dtype=np.float32)


def _normalized_f64(m: np.ndarray) -> np.ndarray:
    out = np.empty(m.shape, dtype=np.float64)
    for lo in range(0, len(m), _NORM_ROWS):
        part = np.asarray(m[lo:lo + _NORM_ROWS], dtype=np.float64)
        _check_finite(part, "query vectors", lo)
        norms = np.sqrt(np.einsum("ij,ij->i", part, part))
        inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        out[lo:lo + _NORM_ROWS] = part * inv[:, None]
    return out


def _inverse_norms(m: np.ndarray, release=None) -> np.ndarray:
    """1/|d| per row (float64, :func:`~ragdash.embeddings.norms.inverse_norms`); 0 for a zero
    row, so its scores are exactly 0; a row that is not finite is refused."""
    inv = np.empty(len(m), dtype=np.float64)
    step = _NORM_ROWS
    for lo in range(0, len(m), step):
        inv[lo:lo + step] = inverse_norms(m[lo:lo + step])
        if release is not None:
            release(lo, lo + step)
    bad = np.isnan(inv)
    if bad.any():
        raise error(RetrievalError, "cosine.not_finite", what="document vectors",
                    row=int(np.flatnonzero(bad)[0]))
    return inv


def _page_releaser(given, docs: np.ndarray):
    """For a matrix memory-mapped from a file (``np.memmap``, ``np.load(mmap_mode="r")``):
    ``release(lo, hi)`` drops rows ``lo:hi``'s pages from this process's memory
    (``MADV_DONTNEED``: the kernel keeps them in its page cache, and reading them again
    maps them back). None for anything else. ``given`` is what the caller passed (the
    memmap: ``np.asarray`` of it, ``docs``, no longer knows its mapping)."""
    mm = getattr(given, "_mmap", None)
    if (mm is None or not isinstance(mm, mmap.mmap) or not hasattr(mm, "madvise")
            or not hasattr(mmap, "MADV_DONTNEED") or docs.ndim != 2 or not len(docs)):
        return None
    whole = np.frombuffer(mm, dtype=np.uint8)
    start = docs.ctypes.data - whole.ctypes.data  # byte offset of row 0 in the mapping
    del whole  # no buffer export may outlive this (the mapping must stay closable)
    row, size, page = docs.strides[0], len(mm), mmap.PAGESIZE
    if row <= 0 or start < 0:
        return None
    if hasattr(mmap, "MADV_SEQUENTIAL"):  # blocks are read in order: let the kernel read ahead
        with contextlib.suppress(OSError, ValueError):
            mm.madvise(mmap.MADV_SEQUENTIAL)

    def release(lo: int, hi: int) -> None:
        a = start + max(0, lo) * row
        b = min(size, start + min(len(docs), hi) * row)
        a -= a % page
        if b > a:
            with contextlib.suppress(OSError, ValueError):  # advice only
                mm.madvise(mmap.MADV_DONTNEED, a, b - a)

    return release


def _check_finite(part: np.ndarray, what: str, offset: int) -> None:
    bad = ~np.isfinite(part).all(axis=1)
    if bad.any():
        row = offset + int(np.flatnonzero(bad)[0])
        raise error(RetrievalError, "cosine.not_finite", what=what, row=row)
