"""Agreement between raters: Cohen's κ (plain and weighted), Fleiss' κ, Krippendorff's α, with
bootstrap intervals; Kendall's τ between two orderings.

Every statistic here is a function of a sum over items (a pair, a unit) of a small per-item
vector, so a bootstrap resample is a weighted sum: the count matrix of
:func:`ragdash.stats.bootstrap.resample_counts` ``(B, n)`` times the per-item matrix ``(n, d)``
gives all ``B`` resampled sums at once, and the statistic is computed row-wise. The draws depend
only on ``(seed, n, B)``, as everywhere in :mod:`ragdash.stats`.

**Cohen's κ** (two raters, the same items)::

    κ = (p_o − p_e) / (1 − p_e)
    p_o = Σ_i C_ii / n                     observed agreement (C: the confusion counts)
    p_e = Σ_i (r_i / n)(c_i / n)           chance agreement from the two margins

**Weighted κ** (Cohen 1968), for ordered grades, with disagreement weights ``w_ij``::

    κ_w = 1 − Σ w_ij C_ij / Σ w_ij E_ij     E_ij = r_i c_j / n
    quadratic: w_ij = (i − j)² / (k − 1)²    linear: w_ij = |i − j| / (k − 1)

over the categories' positions ``i, j`` in sorted order. Quadratic is the default here (a 0 read
as a 3 costs nine times a 0 read as a 1), as in scikit-learn's ``weights="quadratic"``.

**Fleiss' κ** (m raters per item, every item rated by all)::

    P_i = (Σ_j n_ij² − m) / (m (m − 1))    agreement on item i (n_ij: raters giving category j)
    p_j = Σ_i n_ij / (N m)
    κ = (P̄ − P̄_e) / (1 − P̄_e),   P̄ = mean P_i,   P̄_e = Σ_j p_j²

**Krippendorff's α** (any number of raters, missing ratings allowed)::

    α = 1 − D_o / D_e = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck
    o_ck = Σ_u (number of c-k pairs in unit u) / (m_u − 1)     the coincidence matrix
    n_c = Σ_k o_ck,  n = Σ_c n_c

over units with at least two ratings; ``δ²`` is the level's distance: nominal (0 if equal, else
1), interval ((c − k)²), ordinal (the squared sum of the n_g from c to k, minus half the ends'
counts, Krippendorff 2011).

A statistic with no chance disagreement to beat (every rating the same category) is undefined
and is returned as ``nan``; a bootstrap interval takes the quantiles of the defined resamples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import StatsError
from ..i18n import error
from .bootstrap import _check_confidence, _check_resamples, resample_counts

#: resamples for an agreement interval (each is a handful of arithmetic on a small vector)
AGREEMENT_RESAMPLES = 2_000
WEIGHTS = ("linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval")

__all__ = [
    "AGREEMENT_RESAMPLES",
    "Agreement",
    "cohen_kappa",
    "confusion_counts",
    "fleiss_kappa",
    "kendall_tau",
    "krippendorff_alpha",
]


@dataclass(frozen=True)
class Agreement:
    """A statistic with its bootstrap percentile interval over items (``low``/``high`` nan
    when too few resamples are defined); ``items``: how many items it was computed on."""

    value: float
    low: float
    high: float
    items: int

    def to_dict(self) -> dict:
        return {"value": _num(self.value), "ci": [_num(self.low), _num(self.high)],
                "items": self.items}


def _num(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


# -- helpers ---------------------------------------------------------------------------------
def _codes(values: Sequence, categories: Sequence | None) -> tuple[np.ndarray, np.ndarray]:
    """(sorted categories, the code of each value) — values not in ``categories`` refused."""
    v = np.asarray(values)
    cats = np.unique(v) if categories is None else np.asarray(sorted(categories))
    codes = np.searchsorted(cats, v)
    codes = np.minimum(codes, len(cats) - 1) if len(cats) else codes
    if len(v) and (len(cats) == 0 or not np.array_equal(cats[codes], v)):
        raise error(StatsError, "stats.agree_unknown_category")
    return cats, codes


def _bootstrap(per_item: np.ndarray, stat: Callable[[np.ndarray], np.ndarray], *,
               n_resamples: int, confidence: float, seed) -> tuple[float, float, float]:
    """(statistic, low, high): ``stat`` maps sums over items ``(B, d)`` to values ``(B,)``."""
    _check_confidence(confidence)
    _check_resamples(n_resamples)
    n = per_item.shape[0]
    value = float(stat(per_item.sum(axis=0, keepdims=True))[0])
    if n == 0:
        return value, float("nan"), float("nan")
    draws = np.concatenate([stat(w @ per_item) for w in
                            resample_counts(n, int(n_resamples), seed)])
    draws = draws[np.isfinite(draws)]
    if len(draws) < max(2, n_resamples // 2):  # mostly undefined: no interval worth showing
        return value, float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return value, float(low), float(high)


# -- two raters ------------------------------------------------------------------------------
def confusion_counts(a: Sequence, b: Sequence, categories: Sequence | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(categories, C) with ``C[i, j]`` = items rater ``a`` put in category ``i`` and rater
    ``b`` in ``j`` (categories sorted; by default those either rater used)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise error(StatsError, "stats.agree_pairs", a=a.size, b=b.size)
    cats = np.unique(np.concatenate([a, b])) if categories is None else categories
    cats, ca = _codes(a, cats)
    _, cb = _codes(b, cats)
    k = len(cats)
    counts = np.bincount(ca * k + cb, minlength=k * k).reshape(k, k) if k else \
        np.zeros((0, 0), dtype=np.int64)
    return cats, counts


def _weight_matrix(k: int, weights: str | None) -> np.ndarray:
    i, j = np.indices((k, k))
    if weights is None:
        return (i != j).astype(np.float64)
    if weights not in WEIGHTS:
        raise error(StatsError, "stats.agree_weights", weights=weights,
                    choices=", ".join(WEIGHTS))
    d = np.abs(i - j).astype(np.float64) / max(k - 1, 1)
    return d if weights == "linear" else d * d


def _kappa_from_counts(flat: np.ndarray, w: np.ndarray) -> np.ndarray:
    """κ for each row of flattened confusion counts ``(B, k·k)``; nan where undefined."""
    k = w.shape[0]
    c = flat.reshape(-1, k, k).astype(np.float64)
    n = c.sum(axis=(1, 2))
    rows, cols = c.sum(axis=2), c.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = rows[:, :, None] * cols[:, None, :] / n[:, None, None]
        observed_d = (w * c).sum(axis=(1, 2))
        expected_d = (w * expected).sum(axis=(1, 2))
        out = 1.0 - observed_d / expected_d
    out[~(expected_d > 1e-12 * np.maximum(n, 1))] = np.nan
    return out


def cohen_kappa(a: Sequence, b: Sequence, *, weights: str | None = None,
                categories: Sequence | None = None, n_resamples: int = AGREEMENT_RESAMPLES,
                confidence: float = 0.95, seed=0) -> Agreement:
    """Cohen's κ of two raters over the same items (``a[i]``, ``b[i]`` rate item ``i``);
    ``weights`` ``None`` (plain), ``"linear"`` or ``"quadratic"``; with a bootstrap interval
    over items. ``categories`` fixes the ordered scale (e.g. 0–3) for weighted κ."""
    cats, counts = confusion_counts(a, b, categories)
    k = len(cats)
    w = _weight_matrix(k, weights)
    a_codes = _codes(np.asarray(a), cats)[1]
    b_codes = _codes(np.asarray(b), cats)[1]
    per_item = np.zeros((len(a_codes), k * k))
    per_item[np.arange(len(a_codes)), a_codes * k + b_codes] = 1.0
    value, low, high = _bootstrap(per_item, lambda s: _kappa_from_counts(s, w),
                                  n_resamples=n_resamples, confidence=confidence, seed=seed)
    return Agreement(value, low, high, int(counts.sum()))


# -- more raters -----------------------------------------------------------------------------
def _ratings_matrix(ratings) -> np.ndarray:
    r = np.asarray(ratings, dtype=np.float64)
    if r.ndim != 2:
        raise error(StatsError, "stats.agree_matrix", ndim=r.ndim)
    return r


def fleiss_kappa(ratings, *, n_resamples: int = AGREEMENT_RESAMPLES, confidence: float = 0.95,
                 seed=0) -> Agreement:
    """Fleiss' κ of an ``(items, raters)`` matrix of categories (nan = not rated). Fleiss'
    κ needs the same raters on every item: items some rater left out are not counted (see
    :func:`krippendorff_alpha` for incomplete data)."""
    r = _ratings_matrix(ratings)
    r = r[~np.isnan(r).any(axis=1)] if r.size else r.reshape(0, r.shape[1] if r.ndim == 2 else 0)
    m = r.shape[1]
    if m < 2:
        raise error(StatsError, "stats.agree_raters", n=m)
    cats, codes = _codes(r.ravel(), None)
    k = len(cats)
    n_ij = np.zeros((r.shape[0], k))
    if r.size:
        np.add.at(n_ij, (np.repeat(np.arange(r.shape[0]), m), codes), 1.0)
    # per item: the category counts and the pairs that agree (Σ n_ij² − m)
    per_item = np.column_stack([n_ij, (n_ij ** 2).sum(axis=1) - m, np.ones(len(n_ij))])

    def stat(s: np.ndarray) -> np.ndarray:
        counts, agree, items = s[:, :k], s[:, k], s[:, k + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            p_bar = agree / (items * m * (m - 1))
            p_j = counts / (items * m)[:, None]
            p_e = (p_j ** 2).sum(axis=1)
            out = (p_bar - p_e) / (1.0 - p_e)
        out[~(1.0 - p_e > 1e-12)] = np.nan
        return out

    value, low, high = _bootstrap(per_item, stat, n_resamples=n_resamples,
                                  confidence=confidence, seed=seed)
    return Agreement(value, low, high, int(r.shape[0]))


def _distances(level: str, cats: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """δ² between category positions for a level of measurement (``totals``: n_c)."""
    if level == "nominal":
        return 1.0 - np.eye(len(cats))
    if level == "interval":
        return (cats[:, None] - cats[None, :]) ** 2
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(totals)])
        i, j = np.indices((len(cats), len(cats)))
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        span = cum[hi + 1] - cum[lo] - (totals[lo] + totals[hi]) / 2.0
        return span ** 2
    raise error(StatsError, "stats.agree_level", level=level, choices=", ".join(LEVELS))


def krippendorff_alpha(ratings, *, level: str = "ordinal",
                       n_resamples: int = AGREEMENT_RESAMPLES, confidence: float = 0.95,
                       seed=0) -> Agreement:
    """Krippendorff's α of an ``(items, raters)`` matrix (nan = not rated; any number of
    raters); ``level`` ``"nominal"``, ``"ordinal"`` (the default, for grades) or
    ``"interval"``. Items with fewer than two ratings carry no information and are left out.
    The ordinal distances use the whole data's category totals, in every resample."""
    r = _ratings_matrix(ratings)
    if level not in LEVELS:
        raise error(StatsError, "stats.agree_level", level=level, choices=", ".join(LEVELS))
    rated = ~np.isnan(r)
    m_u = rated.sum(axis=1)
    r, rated, m_u = r[m_u >= 2], rated[m_u >= 2], m_u[m_u >= 2]
    cats, codes = _codes(r[rated], None)
    k = len(cats)
    counts = np.zeros((r.shape[0], k))
    if r.size and k:
        np.add.at(counts, (np.nonzero(rated)[0], codes), 1.0)
    # o_ck contributed by a unit: (n_uc n_uk − [c = k] n_uc) / (m_u − 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = counts[:, :, None] * counts[:, None, :]
        pairs -= counts[:, :, None] * np.eye(k)[None]
        per_item = (pairs / (m_u - 1)[:, None, None]).reshape(len(counts), k * k)
    totals = per_item.sum(axis=0).reshape(k, k).sum(axis=1)
    delta = _distances(level, cats.astype(np.float64), totals)

    def stat(s: np.ndarray) -> np.ndarray:
        o = s.reshape(-1, k, k)
        n_c = o.sum(axis=2)
        n = n_c.sum(axis=1)
        d_o = (o * delta).sum(axis=(1, 2))
        d_e = (n_c[:, :, None] * n_c[:, None, :] * delta).sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            out = 1.0 - (n - 1) * d_o / d_e
        out[~(d_e > 1e-12)] = np.nan
        return out

    value, low, high = _bootstrap(per_item, stat, n_resamples=n_resamples,
                                  confidence=confidence, seed=seed)
    return Agreement(value, low, high, int(r.shape[0]))


# -- orderings -------------------------------------------------------------------------------
def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's τ-b between two scorings of the same systems (ties counted as ties): 1 when
    both order the systems alike, −1 when reversed; nan with fewer than two systems or when
    one scoring ties them all."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise error(StatsError, "stats.agree_pairs", a=x.size, b=y.size)
    if len(x) < 2:
        return float("nan")
    i, j = np.triu_indices(len(x), k=1)
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    concordance = float((dx * dy).sum())
    untied_x, untied_y = float((dx != 0).sum()), float((dy != 0).sum())
    if untied_x == 0 or untied_y == 0:
        return float("nan")
    return concordance / np.sqrt(untied_x * untied_y)
