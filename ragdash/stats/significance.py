"""Paired significance tests on per-query metric values of two runs.

All three tests are two-sided and work on the per-query differences ``d = b - a`` of two runs
scored on the same queries (paired design: each query is its own control).

- **paired t-test** (``scipy.stats.ttest_rel``): assumes the mean difference is roughly
  normal, which holds for a few dozen queries or more. All differences zero -> p = 1 (scipy
  gives NaN). Every difference equal and nonzero -> scipy's t = inf, p = 0, kept.
- **Wilcoxon signed-rank** (``scipy.stats.wilcoxon``) with scipy's defaults:
  ``zero_method="wilcox"`` drops queries whose difference is zero (common for IR metrics:
  both runs miss); ``method="auto"`` is exact for n <= 50 without ties or zeros, exhaustive
  permutation for n <= 13 with ties or zeros, the normal approximation otherwise. All
  differences zero -> p = 1.
- **paired randomization (sign-flip) test**, Fisher's randomization test as in Smucker et al.
  (CIKM 2007) and ranx: under the null hypothesis the two runs are exchangeable on every query,
  so each difference's sign is a fair coin. The statistic is ``|mean(d)|``; p is the share of
  sign patterns whose statistic is at least the observed one. When all ``2^n`` patterns fit in
  ``n_permutations`` they are enumerated (exact p); otherwise ``n_permutations`` random patterns
  are drawn and p = count / n_permutations, without a +1 term, which is ranx's convention
  (``ranx.statistical_tests.fisher_randomization_test``), so the two agree within Monte Carlo
  error. Such an estimate can be 0; it then means p < 1 / n_permutations.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as sps

from ..errors import StatsError
from ..i18n import error

#: default number of random sign patterns in the randomization test
DEFAULT_PERMUTATIONS = 10_000
_CHUNK_ELEMENTS = 4_000_000


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise StatsError(f"paired values must be two 1-D arrays of the same length "
                         f"(got shapes {a.shape} and {b.shape})")
    if len(a) < 2:
        raise error(StatsError, "stats.paired_two", n=len(a))
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise error(StatsError, "stats.not_finite_values")
    return a, b


def _scipy_p(test, a: np.ndarray, b: np.ndarray, *quiet: type[Warning]) -> float:
    """The p-value of the scipy paired test ``test(b, a)``: 1.0 when b == a or when scipy
    gives NaN; warnings of the ``quiet`` categories (degenerate data) are not shown."""
    a, b = _pair(a, b)
    if np.array_equal(a, b):
        return 1.0
    with warnings.catch_warnings():
        for category in quiet:
            warnings.simplefilter("ignore", category)
        p = float(test(b, a).pvalue)
    return 1.0 if np.isnan(p) else p


def paired_ttest(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided paired t-test p-value (``scipy.stats.ttest_rel(b, a)``); 1.0 when b == a."""
    return _scipy_p(sps.ttest_rel, a, b, RuntimeWarning)


def wilcoxon_test(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value (scipy defaults); 1.0 when b == a."""
    return _scipy_p(sps.wilcoxon, a, b, RuntimeWarning, UserWarning)


#: what a randomization test's alternative hypothesis says about the mean difference
ALTERNATIVES = ("two-sided", "less", "greater")


def randomization_tests(differences: np.ndarray, *, n_permutations: int = DEFAULT_PERMUTATIONS,
                        seed: int | np.random.Generator | None = 0,
                        alternative: str = "two-sided") -> np.ndarray:
    """Sign-flip randomization p-values for every column of ``differences`` ``(n, P)``.

    All columns share the same sign patterns (one matrix product per chunk), so testing many
    pairs costs about as much as testing one; a single column gives exactly what
    :func:`randomization_test` gives with the same seed.

    ``alternative``: ``"two-sided"`` compares ``|sum(d)|`` (the default); ``"less"`` gives the
    share of sign patterns whose sum is at most the observed one (evidence that the mean is
    below 0), ``"greater"`` at least. To test against a margin ``m`` (is the mean below
    ``-m``?), pass ``d + m``: under the null hypothesis at its boundary the shifted differences
    are symmetric around 0.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, not {alternative!r}")
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    if d.ndim != 2 or d.shape[0] < 2:
        raise error(StatsError, "stats.paired_two_plain")
    if not np.isfinite(d).all():
        raise error(StatsError, "stats.diffs_not_finite")
    if int(n_permutations) < 1:
        raise error(StatsError, "stats.permutations", n_permutations=n_permutations)
    n, n_pairs = d.shape
    total = d.sum(axis=0)
    # Flipping the signs of the set F turns sum(d) into sum(d) - 2 * sum(d[F]). Values that
    # are equal in exact arithmetic can differ in the last bits, so "at least as extreme as
    # the observed" allows a relative slack far below any real difference.
    slack = 1e-9 * np.abs(d).sum(axis=0)

    def extreme(flipped_sums: np.ndarray) -> np.ndarray:
        if alternative == "less":
            return flipped_sums <= total + slack
        if alternative == "greater":
            return flipped_sums >= total - slack
        return np.abs(flipped_sums) >= np.abs(total) - slack

    if n < 63 and 2 ** n <= n_permutations:
        patterns = np.arange(2 ** n)[:, None] >> np.arange(n)  # all 2^n sign patterns
        flips = (patterns & 1).astype(np.float64)
        return extreme(total - 2.0 * (flips @ d)).mean(axis=0)
    rng = np.random.default_rng(seed)
    hits = np.zeros(n_pairs, dtype=np.int64)
    per_chunk = max(1, _CHUNK_ELEMENTS // n)
    done = 0
    while done < n_permutations:
        b = min(per_chunk, n_permutations - done)
        flips = rng.random((b, n)) < 0.5
        hits += extreme(total - 2.0 * (flips.astype(np.float64) @ d)).sum(axis=0)
        done += b
    return hits / float(n_permutations)


def randomization_test(a: np.ndarray, b: np.ndarray, *,
                       n_permutations: int = DEFAULT_PERMUTATIONS,
                       seed: int | np.random.Generator | None = 0) -> float:
    """Two-sided paired randomization (sign-flip) test p-value on the mean difference."""
    a, b = _pair(a, b)
    return float(randomization_tests(b - a, n_permutations=n_permutations, seed=seed)[0])
