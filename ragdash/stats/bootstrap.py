"""Bootstrap confidence intervals for mean metric values (percentile method).

A bootstrap resample draws ``n`` queries with replacement from the ``n`` evaluated queries;
the mean over the resample is one draw from the sampling distribution of the mean. After
``B`` resamples the percentile interval is the ``(1 - c) / 2`` and ``(1 + c) / 2`` quantiles
of those ``B`` means (``c`` the confidence level, 0.95 by default).

Resamples are drawn as an index matrix ``(B, n)`` (in chunks, to bound memory), turned into
per-query counts ``w`` and applied to every column at once as ``w @ X / n``. The draws depend
only on ``(seed, n, B)``, so with the same seed every column, every K of a curve, every run and
every paired difference sees the *same* resamples: bands across K are coherent and a run's
interval agrees with the intervals of the differences built from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from ..errors import StatsError
from ..i18n import error

#: default number of bootstrap resamples (percentile method needs >= 1,000; 10,000 is fast)
DEFAULT_RESAMPLES = 10_000
#: upper bound on elements in one chunk of the resample matrix (~32 MB as float64)
_CHUNK_ELEMENTS = 4_000_000


class Interval(NamedTuple):
    """A mean with its bootstrap percentile interval; unpacks as ``mean, low, high``."""

    mean: float
    low: float
    high: float


class Bands(NamedTuple):
    """Means and interval bounds per column (per K for a curve), each an array ``(kmax,)``."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise error(StatsError, "stats.confidence", confidence=confidence)


def _check_resamples(n_resamples: int) -> None:
    if int(n_resamples) < 1:
        raise error(StatsError, "stats.resamples", n_resamples=n_resamples)


def resample_counts(n: int, n_resamples: int, seed: int | np.random.Generator | None
                    ) -> Iterator[np.ndarray]:
    """Yield chunks of bootstrap count matrices ``(b, n)``, ``b`` rows summing to ``n`` each.

    Row ``r`` counts how often each query was drawn in resample ``r``. The chunks together
    have ``n_resamples`` rows; the sequence depends only on ``(seed, n, n_resamples)``.
    """
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_ELEMENTS // max(n, 1))
    done = 0
    while done < n_resamples:
        b = min(per_chunk, n_resamples - done)
        idx = rng.integers(0, n, size=(b, n))
        idx += (np.arange(b) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)
        yield counts.astype(np.float64)
        done += b


def bootstrap_means(matrix: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                    seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Means of every column over ``n_resamples`` bootstrap resamples of the rows.

    ``matrix`` is ``(n, c)`` (or ``(n,)``); returns ``(n_resamples, c)`` (or ``(n_resamples,)``).
    """
    x = np.asarray(matrix, dtype=np.float64)
    vector = x.ndim == 1
    if vector:
        x = x[:, None]
    if x.ndim != 2:
        raise StatsError(f"expected per-query values as a vector or a (queries, K) matrix, "
                         f"got an array with {x.ndim} dimensions")
    n = x.shape[0]
    if n == 0:
        raise error(StatsError, "stats.no_common")
    if not np.isfinite(x).all():
        raise error(StatsError, "stats.not_finite")
    _check_resamples(n_resamples)
    parts = [counts @ x for counts in resample_counts(n, int(n_resamples), seed)]
    means = np.concatenate(parts, axis=0) / n
    return means[:, 0] if vector else means


def _percentile_bounds(means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    return low, high


def bootstrap_ci(values: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                 confidence: float = 0.95,
                 seed: int | np.random.Generator | None = 0) -> Interval:
    """Mean of ``values`` and its bootstrap percentile interval.

    ``values`` is one number per query (e.g. nDCG@10 of every query). The mean is the plain
    sample mean; ``low``/``high`` are the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
    quantiles of the means of ``n_resamples`` resamples. For a paired comparison pass the
    per-query differences ``b - a`` (see :func:`paired_difference_ci`).
    """
    _check_confidence(confidence)
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1:
        raise StatsError("bootstrap_ci takes one value per query (a 1-D array); "
                         "use curve_bands for a (queries, K) matrix")
    means = bootstrap_means(v, n_resamples=n_resamples, seed=seed)
    low, high = _percentile_bounds(means, confidence)
    return Interval(float(v.mean()), float(low), float(high))


def paired_difference_ci(a: np.ndarray, b: np.ndarray, *,
                         n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                         seed: int | np.random.Generator | None = 0) -> Interval:
    """Mean of the per-query differences ``b - a`` with its bootstrap percentile interval.

    Queries are resampled as pairs, so the interval reflects the paired design: it is much
    narrower than the two runs' separate intervals when the runs agree on which queries are
    hard.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise StatsError(f"paired values must be two 1-D arrays of the same length "
                         f"(got shapes {a.shape} and {b.shape})")
    return bootstrap_ci(b - a, n_resamples=n_resamples, confidence=confidence, seed=seed)


def curve_bands(matrix: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                confidence: float = 0.95,
                seed: int | np.random.Generator | None = 0) -> Bands:
    """Mean curve and bootstrap band of a ``(queries, kmax)`` matrix (column ``k-1`` is @k).

    Every K uses the same resampled query sets, so the band is a band of whole curves (a
    resample that drew hard queries is low at every K), not ``kmax`` unrelated intervals.
    """
    _check_confidence(confidence)
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        raise StatsError("curve_bands takes a (queries, K) matrix; use bootstrap_ci for a "
                         "single value per query")
    means = bootstrap_means(x, n_resamples=n_resamples, seed=seed)
    low, high = _percentile_bounds(means, confidence)
    return Bands(x.mean(axis=0), low, high)
