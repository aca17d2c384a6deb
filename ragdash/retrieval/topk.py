"""Exact top-k selection over blocks of scores, with a deterministic tie rule.

Every selector here orders by (score descending, tie key descending) and returns exactly the
first k of that order, so the result never depends on how ``np.argpartition`` happened to
split a group of equal scores at the cut. Callers choose the tie key: a document's rank in
doc-id order gives trec_eval's rule (ties by doc id descending), so the k documents selected
are the first k of the full canonical ranking (see :mod:`ragdash.ranking`).

Results of width ``k`` are padded with index -1 and score -inf where fewer than k documents
qualify.
"""

from __future__ import annotations

import numpy as np

#: a row with more candidates than ``_CANDIDATE_FACTOR * k`` above its threshold (many equal
#: scores, e.g. a zero query vector) is selected on its own, to keep memory bounded
_CANDIDATE_FACTOR = 8


def select_topk(scores: np.ndarray, k: int, keys: np.ndarray, *,
                floor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` columns of each row of ``scores`` (r, n).

    ``keys`` (n,) int64 breaks ties: larger key first. With ``floor``, only scores strictly
    above it qualify. Returns ``(cols, vals)`` of shape (r, k): column indices into ``scores``
    (-1 for padding) and their scores (-inf for padding), in order.
    """
    r, n = scores.shape
    cols = np.full((r, k), -1, dtype=np.int64)
    vals = np.full((r, k), -np.inf, dtype=scores.dtype if scores.dtype.kind == "f"
                   else np.float64)
    if r == 0 or n == 0 or k == 0:
        return cols, vals
    kk = min(k, n)
    if n <= max(4 * kk, 256):
        order = np.lexsort((-np.broadcast_to(keys, scores.shape), -scores), axis=1)[:, :kk]
        c = order
        v = np.take_along_axis(scores, order, axis=1)
        if floor is not None:
            bad = ~(v > floor)
            c = np.where(bad, -1, c)
            v = np.where(bad, -np.inf, v)
        cols[:, :kk] = c
        vals[:, :kk] = v
        return cols, vals

    # Threshold: the k-th largest of the group maxima is <= the row's k-th largest score (the
    # k largest maxima are k distinct entries of the row), so every entry of the true top k,
    # ties included, is >= it. Usually only a little over k entries are.
    group = max(1, n // (4 * kk))
    starts = np.arange(0, n, group)
    maxima = np.maximum.reduceat(scores, starts, axis=1)
    g = maxima.shape[1]
    threshold = np.partition(maxima, g - kk, axis=1)[:, g - kk]
    if floor is not None:
        threshold = np.maximum(threshold, np.nextafter(np.asarray(floor, scores.dtype),
                                                       np.asarray(np.inf, scores.dtype)))
    mask = scores >= threshold[:, None]
    counts = mask.sum(axis=1)
    crowded = counts > _CANDIDATE_FACTOR * kk
    for i in np.flatnonzero(crowded):
        c, v = select_row(scores[i], kk, keys, floor=floor)
        cols[i, : len(c)] = c
        vals[i, : len(v)] = v
    if crowded.all():
        return cols, vals
    if crowded.any():
        mask[crowded] = False
        counts = np.where(crowded, 0, counts)
    # Candidates into a small dense (r, widest) matrix, padded with -inf, then one sort per row.
    rows, cand = np.nonzero(mask)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(len(rows)) - first[rows]
    width = max(int(counts.max()), 1)
    dense_v = np.full((r, width), -np.inf, dtype=vals.dtype)
    dense_c = np.full((r, width), -1, dtype=np.int64)
    dense_v[rows, pos] = scores[rows, cand]
    dense_c[rows, pos] = cand
    dense_k = np.where(dense_c >= 0, keys[np.maximum(dense_c, 0)], -1)
    order = np.lexsort((-dense_k, -dense_v), axis=1)[:, :kk]
    c = np.take_along_axis(dense_c, order, axis=1)
    v = np.take_along_axis(dense_v, order, axis=1)
    ok = ~crowded
    cols[ok, : c.shape[1]] = c[ok]
    vals[ok, : v.shape[1]] = v[ok]
    return cols, vals


def select_row(row: np.ndarray, k: int, keys: np.ndarray, *,
               floor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` of one row by (score desc, key desc); shorter when fewer qualify."""
    if floor is not None:
        idx = np.flatnonzero(row > floor)
        sub = row[idx]
    else:
        idx = None
        sub = row
    n = len(sub)
    kk = min(k, n)
    if kk == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=row.dtype)
    kth = np.partition(sub, n - kk)[n - kk]
    above = np.flatnonzero(sub > kth)
    tied = np.flatnonzero(sub == kth)
    need = kk - len(above)
    sub_keys = keys if idx is None else keys[idx]
    if len(tied) > need:
        tied = tied[np.argpartition(-sub_keys[tied], need - 1)[:need]]
    chosen = np.concatenate([above, tied])
    chosen = chosen[np.lexsort((-sub_keys[chosen], -sub[chosen]))]
    cols = chosen if idx is None else idx[chosen]
    return cols.astype(np.int64), row[cols]


def merge_topk(a_idx: np.ndarray, a_vals: np.ndarray, a_keys: np.ndarray,
               b_idx: np.ndarray, b_vals: np.ndarray, b_keys: np.ndarray,
               k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge two per-row top lists (padding: index -1, score -inf) into the top ``k``."""
    idx = np.concatenate([a_idx, b_idx], axis=1)
    vals = np.concatenate([a_vals, b_vals], axis=1)
    keys = np.concatenate([a_keys, b_keys], axis=1)
    order = np.lexsort((-keys, -vals), axis=1)[:, :k]
    return (np.take_along_axis(idx, order, axis=1), np.take_along_axis(vals, order, axis=1),
            np.take_along_axis(keys, order, axis=1))


def doc_id_keys(doc_ids) -> np.ndarray:
    """Tie keys for trec_eval's rule: each doc id's rank in string order (larger wins)."""
    ids = np.asarray(doc_ids, dtype=object).astype(str)
    _, inverse = np.unique(ids, return_inverse=True)
    return inverse.astype(np.int64).ravel()
