"""Agreement statistics: hand-worked cases from the literature, and independent implementations
(scikit-learn's cohen_kappa_score, statsmodels' fleiss_kappa, the krippendorff package, scipy's
kendalltau) on random ratings."""

from __future__ import annotations

import math

import numpy as np
import pytest
from krippendorff import alpha as kripp_alpha
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from ragdash.errors import StatsError
from ragdash.stats.agreement import (
    cohen_kappa,
    confusion_counts,
    fleiss_kappa,
    kendall_tau,
    krippendorff_alpha,
)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders × 12 units
# example with missing values: α nominal 0.743, ordinal 0.815, interval 0.849.
_N = np.nan
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _N, _N, _N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _N, 3],
    [_N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _N],
]).T  # items × raters

# Fleiss (1971) as on Wikipedia's "Fleiss' kappa": 10 items, 14 raters, 5 categories, κ 0.210
FLEISS_COUNTS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                 [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                 [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def _ratings_from_counts(counts):
    return np.array([np.repeat(np.arange(len(row)), row) for row in counts], dtype=float)


def _random_pair(seed, n=300, agree=0.6):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < agree, a, rng.integers(0, 4, n))
    return a, b


def test_cohen_kappa_by_hand():
    # 2×2 table [[20, 5], [10, 15]]: p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    cats, c = confusion_counts(a, b)
    assert cats.tolist() == [0, 1]
    assert c.tolist() == [[15, 10], [5, 20]]
    k = cohen_kappa(a, b)
    assert k.value == pytest.approx(0.4)
    assert k.low < 0.4 < k.high and k.items == 50


def test_weighted_kappa_by_hand():
    # three items on 0..2, one off by two: quadratic weight 1 there, linear weight 1 too;
    # observed disagreement 1/3, expected from margins a=(1,1,1)/3, b=(2,1,0)/3 ...
    a, b = [0, 1, 2], [0, 1, 0]
    cats = [0, 1, 2]
    expected = {None: 1 - (1 / 3) / (1 - (2 / 9 + 1 / 9 + 0)),
                "linear": 1 - (1 / 3) / ((2 * 0 + 1 * 0.5 + 0 * 1 + 2 * 0.5 + 1 * 0 + 0 * 0.5
                                          + 2 * 1 + 1 * 0.5 + 0) / 9),
                "quadratic": 1 - (1 / 3) / ((0 + 0.25 + 0 + 2 * 0.25 + 0 + 0
                                             + 2 * 1 + 0.25 + 0) / 9)}
    for weights, want in expected.items():
        assert cohen_kappa(a, b, weights=weights, categories=cats).value == pytest.approx(want)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cohen_kappa_matches_sklearn(weights, seed):
    a, b = _random_pair(seed)
    got = cohen_kappa(a, b, weights=weights, n_resamples=200)
    assert got.value == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-12)


def test_kappa_interval_is_a_bootstrap_over_items():
    a, b = _random_pair(4, n=400)
    k = cohen_kappa(a, b, n_resamples=2000, seed=7)
    rng = np.random.default_rng(11)
    draws = []
    for _ in range(400):  # an independent bootstrap with sklearn: the same interval, roughly
        i = rng.integers(0, len(a), len(a))
        draws.append(cohen_kappa_score(a[i], b[i]))
    lo, hi = np.quantile(draws, [0.025, 0.975])
    assert k.low == pytest.approx(lo, abs=0.03) and k.high == pytest.approx(hi, abs=0.03)
    assert k.low < k.value < k.high
    assert cohen_kappa(a, b, n_resamples=500, seed=7) == cohen_kappa(a, b, n_resamples=500,
                                                                    seed=7)


def test_kappa_undefined_when_one_category():
    k = cohen_kappa([1, 1, 1], [1, 1, 1])
    assert math.isnan(k.value) and math.isnan(k.low)
    assert k.to_dict()["value"] is None


def test_fleiss_kappa_by_hand_and_statsmodels():
    r = _ratings_from_counts(FLEISS_COUNTS)
    got = fleiss_kappa(r, n_resamples=200)
    assert round(got.value, 3) == 0.210
    assert got.value == pytest.approx(sm_fleiss(np.array(FLEISS_COUNTS)), abs=1e-12)
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 4, (150, 1))
    r = np.where(rng.random((150, 4)) < 0.5, truth, rng.integers(0, 4, (150, 4))).astype(float)
    assert fleiss_kappa(r, n_resamples=200).value == pytest.approx(
        sm_fleiss(aggregate_raters(r.astype(int))[0]), abs=1e-12)


def test_fleiss_kappa_leaves_out_incomplete_items():
    r = _ratings_from_counts(FLEISS_COUNTS)
    with_gap = np.vstack([r, np.r_[[np.nan], np.zeros(13)]])
    got = fleiss_kappa(with_gap, n_resamples=100)
    assert got.items == 10 and round(got.value, 3) == 0.210


@pytest.mark.parametrize("level,want", [("nominal", 0.743), ("ordinal", 0.815),
                                        ("interval", 0.849)])
def test_krippendorff_alpha_by_hand(level, want):
    got = krippendorff_alpha(KRIPPENDORFF_2011, level=level, n_resamples=200)
    assert round(got.value, 3) == want
    assert got.items == 11  # unit 12 has one rating: no pairable value


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_matches_package(level):
    rng = np.random.default_rng(6)
    truth = rng.integers(0, 4, (200, 1))
    r = np.where(rng.random((200, 5)) < 0.5, truth, rng.integers(0, 4, (200, 5))).astype(float)
    r[rng.random(r.shape) < 0.3] = np.nan
    got = krippendorff_alpha(r, level=level, n_resamples=200)
    assert got.value == pytest.approx(kripp_alpha(reliability_data=r.T,
                                                  level_of_measurement=level), abs=1e-12)
    assert got.low < got.value < got.high


def test_two_raters_alpha_and_kappa_close():
    a, b = _random_pair(8, n=500)
    alpha = krippendorff_alpha(np.column_stack([a, b]), level="nominal", n_resamples=100)
    kappa = cohen_kappa(a, b, n_resamples=100)
    assert alpha.value == pytest.approx(kappa.value, abs=0.01)  # α ≈ κ for large n


def test_kendall_tau_matches_scipy_with_ties():
    rng = np.random.default_rng(9)
    for _ in range(20):
        x = rng.integers(0, 6, 9).astype(float)
        y = x + rng.integers(-2, 3, 9)
        want = kendalltau(x, y).statistic
        got = kendall_tau(x, y)
        assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert math.isnan(kendall_tau([1.0], [2.0]))


def test_bad_input_is_a_sentence():
    with pytest.raises(StatsError, match="same items"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(StatsError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(StatsError, match="categories"):
        cohen_kappa([1, 5], [1, 2], categories=[0, 1, 2, 3])
    with pytest.raises(StatsError, match="two raters"):
        fleiss_kappa([[1], [2]])
    with pytest.raises(StatsError, match="level"):
        krippendorff_alpha([[1, 2]], level="ratio")
