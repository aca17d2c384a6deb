"""The metric kernels: every cutoff K = 1..Kmax at once, for every query at once.

Each kernel takes a :class:`Judged` — the retrieved documents' relevance, laid out as a
queries × Kmax matrix — and returns a float64 matrix of the same shape whose column ``k - 1``
is the metric at cutoff ``k``. Everything is a cumulative sum along the rank axis, so the
whole curve costs about as much as one cutoff.

Terms used in the formulas below, for one query:

- ``rel_i``  1 if the document at rank ``i`` is relevant (grade > 0, or grade ≥ the relevance
  level when one is set), else 0. Ranks past the end of the run count as not relevant.
- ``R``      the number of relevant documents in the qrels, retrieved or not.
- ``gain_i`` the gain of the document at rank ``i``: its grade (linear, trec_eval's) or
  ``2^grade − 1`` (exponential); unjudged and negative grades give 0.
- ``igain_i`` the ``i``-th largest gain over *all* judged documents of the query (the ideal
  ranking), 0 past the last one.
- ``judged_i`` 1 if the document at rank ``i`` has any judgement (grade 0 included), else 0.
- ``N``      the number of judged documents of the query that are not relevant.

Edge case, decided here once: a query with ``R = 0`` (no relevant document) scores 0 on every
metric, as in trec_eval; callers decide whether such queries count in a mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Judged:
    """The retrieved documents of Q queries, judged, cut at Kmax.

    ``relevant`` (Q, Kmax) bool; ``gains`` (Q, Kmax) float64; ``ideal_gains`` (Q, Kmax)
    float64, each row sorted descending; ``num_relevant`` (Q,) float64 (R); ``judged``
    (Q, Kmax) bool, the documents that have a judgement; ``num_nonrelevant`` (Q,) float64 (N);
    ``coverage`` (Q, Kmax) bool, what Judged@K counts: ``judged`` of the ranking as retrieved
    (for a condensed list, where every kept document is judged, the list before condensing).
    """

    relevant: np.ndarray
    gains: np.ndarray
    ideal_gains: np.ndarray
    num_relevant: np.ndarray
    judged: np.ndarray
    num_nonrelevant: np.ndarray
    coverage: np.ndarray

    @property
    def kmax(self) -> int:
        return self.relevant.shape[1]


def _ranks(kmax: int) -> np.ndarray:
    return np.arange(1, kmax + 1, dtype=np.float64)


def _over_num_relevant(x: np.ndarray, num_relevant: np.ndarray) -> np.ndarray:
    """``x / R`` row-wise, 0 where ``R = 0``."""
    denom = np.where(num_relevant > 0, num_relevant, 1.0)[:, None]
    out = x / denom
    out[num_relevant == 0] = 0.0
    return out


def relevant_so_far(j: Judged) -> np.ndarray:
    """``Σ_{i≤K} rel_i`` for every K (the shared first step of the binary metrics)."""
    return np.cumsum(j.relevant, axis=1, dtype=np.float64)


def recall(j: Judged, found: np.ndarray | None = None) -> np.ndarray:
    """Recall@K = Σ_{i≤K} rel_i / R   (0 when R = 0)."""
    found = relevant_so_far(j) if found is None else found
    return _over_num_relevant(found, j.num_relevant)


def precision(j: Judged, found: np.ndarray | None = None) -> np.ndarray:
    """P@K = Σ_{i≤K} rel_i / K — divided by K even when fewer than K were retrieved."""
    found = relevant_so_far(j) if found is None else found
    return found / _ranks(j.kmax)


def hit_rate(j: Judged, found: np.ndarray | None = None) -> np.ndarray:
    """Hit@K = 1 if Σ_{i≤K} rel_i > 0 else 0   (trec_eval's success@K)."""
    found = relevant_so_far(j) if found is None else found
    return (found > 0).astype(np.float64)


def mrr(j: Judged) -> np.ndarray:
    """RR@K = 1 / r₁ if r₁ ≤ K else 0, where r₁ is the rank of the first relevant document.

    The mean over queries is MRR@K. At K = Kmax (and a run no deeper than Kmax) this is
    trec_eval's ``recip_rank``.
    """
    any_rel = j.relevant.any(axis=1)
    first = np.argmax(j.relevant, axis=1) + 1  # rank of the first relevant (1 if none: masked)
    rr = np.where(any_rel, 1.0 / first, 0.0)
    reached = _ranks(j.kmax)[None, :] >= first[:, None]
    return np.where(reached, rr[:, None], 0.0)


def average_precision(j: Judged, found: np.ndarray | None = None) -> np.ndarray:
    """AP@K = Σ_{i≤K} rel_i · P@i / R   (trec_eval's map_cut; 0 when R = 0).

    The denominator is all relevant documents, not the relevant ones retrieved: missing a
    relevant document costs as much as ranking it last.
    """
    found = relevant_so_far(j) if found is None else found
    precision_at_hits = np.where(j.relevant, found / _ranks(j.kmax), 0.0)
    return _over_num_relevant(np.cumsum(precision_at_hits, axis=1), j.num_relevant)


def ndcg(j: Judged) -> np.ndarray:
    """nDCG@K = DCG@K / IDCG@K   (0 when IDCG@K = 0), with

    DCG@K  = Σ_{i≤K} gain_i  / log2(i + 1)
    IDCG@K = Σ_{i≤K} igain_i / log2(i + 1)

    The ideal ranking comes from all judged documents with a positive gain, retrieved or not
    (trec_eval's ndcg_cut), so a run that misses a relevant document cannot reach 1.
    """
    discount = 1.0 / np.log2(_ranks(j.kmax) + 1.0)
    dcg = np.cumsum(j.gains * discount, axis=1)
    idcg = np.cumsum(j.ideal_gains * discount, axis=1)
    out = np.zeros_like(dcg)
    np.divide(dcg, idcg, out=out, where=idcg > 0)
    return out


def bpref(j: Judged) -> np.ndarray:
    """bpref@K = Σ_{i≤K, rel_i} (1 − min(n_i, R) / min(R, N)) / R   (0 when R = 0),

    where ``n_i`` is the number of judged non-relevant documents ranked above ``i``
    (trec_eval's ``bpref``; a relevant document with none above it adds 1, also when N = 0).
    Unjudged documents are skipped, which is the point of the measure: it does not fall when
    a run retrieves documents nobody judged. At K = Kmax (and a run no deeper than Kmax) this
    is trec_eval's ``bpref``.
    """
    nonrel = j.judged & ~j.relevant
    above = np.cumsum(nonrel, axis=1, dtype=np.float64) - nonrel  # n_i, strictly above i
    r = j.num_relevant[:, None]
    denom = np.minimum(r, j.num_nonrelevant[:, None])
    penalty = np.zeros_like(above)
    np.divide(np.minimum(above, r), denom, out=penalty, where=denom > 0)
    return _over_num_relevant(np.cumsum(np.where(j.relevant, 1.0 - penalty, 0.0), axis=1),
                              j.num_relevant)


def judged_at(j: Judged) -> np.ndarray:
    """Judged@K = Σ_{i≤K} judged_i / K   (ir_measures' Judged@k: P@K with every judged
    document counted relevant; divided by K even when fewer than K were retrieved).

    Not a quality metric: it says how much of the top K the labels cover, so how far the
    other numbers can be trusted. Counted on the ranking as retrieved, also when the others
    are scored on the condensed list.
    """
    return np.cumsum(j.coverage, axis=1, dtype=np.float64) / _ranks(j.kmax)


def compute_all(j: Judged) -> dict[str, np.ndarray]:
    """Every family, keyed by registry name, sharing the cumulative relevant count."""
    found = relevant_so_far(j)
    return {
        "recall": recall(j, found),
        "precision": precision(j, found),
        "hit_rate": hit_rate(j, found),
        "mrr": mrr(j),
        "ndcg": ndcg(j),
        "map": average_precision(j, found),
        "bpref": bpref(j),
        "judged": judged_at(j),
    }
