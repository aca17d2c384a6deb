"""ragdash.stats: tests against scipy, ranx and hand-worked cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ranx.statistical_tests import fisher_randomization_test
from scipy import stats as sps

from ragdash.errors import StatsError
from ragdash.stats import (
    align_queries,
    align_tables,
    bootstrap_ci,
    bootstrap_means,
    compare_runs,
    compare_tables,
    curve_bands,
    holm,
    paired_difference_ci,
    paired_ttest,
    randomization_test,
    randomization_tests,
    wilcoxon_test,
)


def _runs(seed: int, n: int, shift: float = 0.0, noise: float = 0.15, discrete: bool = False):
    """Two runs that look like metric values: in [0, 1], correlated per query."""
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 3, n)
    b = np.clip(a + shift + rng.normal(0, noise, n), 0, 1)
    if discrete:  # e.g. MRR@5 / hit rate: few distinct values, many ties and zero differences
        a, b = np.round(a * 4) / 4, np.round(b * 4) / 4
    return a, b


# -- the paired tests against scipy ------------------------------------------------------
@pytest.mark.parametrize("seed,n,shift,discrete", [
    (0, 5, 0.0, False), (1, 30, 0.05, False), (2, 200, -0.02, False),
    (3, 40, 0.1, True), (4, 60, 0.0, True), (5, 12, 0.2, True),
])
def test_ttest_and_wilcoxon_equal_scipy(seed, n, shift, discrete):
    a, b = _runs(seed, n, shift, discrete=discrete)
    assert paired_ttest(a, b) == pytest.approx(sps.ttest_rel(b, a).pvalue, rel=1e-12)
    assert paired_ttest(a, b) == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-12)
    # (two-sided: the order of the runs does not matter; one scipy call keeps n = 12 fast,
    # where scipy enumerates all 2^12 sign patterns because of ties)
    assert wilcoxon_test(a, b) == pytest.approx(sps.wilcoxon(a, b).pvalue, rel=1e-12)


def test_compare_runs_reports_scipy_p_values():
    a, b = _runs(7, 50, 0.03, discrete=True)
    pair = compare_runs({"a": a, "b": b}, metric_name="mrr@5", n_resamples=1000).pairs[0]
    assert pair.p_ttest == pytest.approx(sps.ttest_rel(b, a).pvalue, rel=1e-12)
    assert pair.p_wilcoxon == pytest.approx(sps.wilcoxon(b, a).pvalue, rel=1e-12)


# -- randomization test --------------------------------------------------------------
def test_randomization_exact_hand_worked():
    # d = [1, 2, 3]: the 8 sign patterns give |sum| = 6, 4, 2, 0, 0, 2, 4, 6; observed 6 -> 2/8
    assert randomization_test(np.zeros(3), np.array([1.0, 2.0, 3.0])) == 0.25
    # d = [1, -1, 2]: |sum| over patterns = 2, 0, 4, 2, 2, 4, 0, 2; observed 2 -> 6/8
    assert randomization_test(np.zeros(3), np.array([1.0, -1.0, 2.0])) == 0.75


def test_randomization_exact_equals_scipy_permutation_test():
    a, b = _runs(11, 11, 0.08)

    def mean_diff(x, y, axis):
        return np.mean(x - y, axis=axis)

    ref = sps.permutation_test((b, a), mean_diff, permutation_type="samples",
                               alternative="two-sided", n_resamples=np.inf).pvalue
    assert randomization_test(a, b) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed,n,shift", [(21, 30, 0.04), (22, 50, 0.03), (23, 80, 0.0),
                                          (24, 10, 0.1), (25, 120, 0.02)])
def test_randomization_agrees_with_ranx_fisher(seed, n, shift):
    a, b = _runs(seed, n, shift)
    n_perm = 10_000
    ours = randomization_test(a, b, n_permutations=n_perm, seed=seed)
    theirs, _ = fisher_randomization_test(a, b, n_perm, 0.05, 42)
    p = max((ours + theirs) / 2, 1.0 / n_perm)
    # two independent Monte Carlo estimates (or one exact value) of the same p
    assert abs(ours - theirs) < 4 * math.sqrt(2 * p * (1 - p) / n_perm) + 1e-3


def test_randomization_is_seeded_and_batched_consistently():
    a, b = _runs(31, 70, 0.02)
    _, c = _runs(32, 70, 0.05)
    p1 = randomization_test(a, b, seed=5)
    assert p1 == randomization_test(a, b, seed=5)
    batch = randomization_tests(np.column_stack([b - a, c - a]), seed=5)
    assert batch[0] == p1
    assert batch[1] == randomization_test(a, c, seed=5)


# -- identical and clearly different runs ----------------------------------------------
def test_identical_runs_give_p_one_and_no_wins():
    a, _ = _runs(41, 48)
    cmp = compare_runs({"A": a, "B": a.copy() + 1e-15 * (a > 0.5)}, metric_name="ndcg@10",
                       n_resamples=1000)
    pair = cmp.pairs[0]
    assert (pair.p_ttest, pair.p_wilcoxon, pair.p_randomization, pair.p_holm) == (1, 1, 1, 1)
    assert (pair.wins, pair.ties, pair.losses) == (0, 48, 0)
    assert pair.diff == 0 and pair.ci_low == 0 and pair.ci_high == 0
    assert pair.verdict.kind == "identical"
    assert not pair.significant


@pytest.mark.parametrize("direction", [1, -1])
def test_planted_difference_is_detected(direction):
    a, b = _runs(42, 50, 0.0, noise=0.05)
    b = np.clip(a + direction * 0.2 + np.random.default_rng(1).normal(0, 0.05, 50), 0, 1)
    cmp = compare_runs({"A": a, "B": b}, metric_name="ndcg@10", n_resamples=2000)
    pair = cmp.pairs[0]
    assert max(pair.p_ttest, pair.p_wilcoxon, pair.p_randomization, pair.p_holm) < 0.001
    if direction > 0:
        assert pair.verdict.kind == "better" and pair.ci_low > 0
        assert pair.verdict.en.startswith("B is better than A on nDCG@10 by ")
        assert pair.wins > pair.losses
    else:
        assert pair.verdict.kind == "worse" and pair.ci_high < 0
        assert pair.verdict.en.startswith("B is worse than A on nDCG@10 by ")
        assert pair.losses > pair.wins


# -- bootstrap -------------------------------------------------------------------------
def test_bootstrap_coverage_close_to_95_percent():
    rng = np.random.default_rng(2024)
    true_mean = 2 / 7  # Beta(2, 5)
    reps, n = 400, 80
    data = rng.beta(2, 5, size=(reps, n))
    hits = 0
    for r in range(reps):
        _, low, high = bootstrap_ci(data[r], n_resamples=1000, seed=r)
        hits += low <= true_mean <= high
    assert 0.92 <= hits / reps <= 0.98


def test_paired_difference_coverage_close_to_95_percent():
    rng = np.random.default_rng(7)
    reps, n, delta = 400, 60, 0.03
    a = rng.beta(2, 3, size=(reps, n))
    b = a + delta + rng.normal(0, 0.1, size=(reps, n))
    hits = sum(
        (lambda ci: ci.low <= delta <= ci.high)(
            paired_difference_ci(a[r], b[r], n_resamples=1000, seed=r))
        for r in range(reps))
    assert 0.92 <= hits / reps <= 0.98


def test_bootstrap_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(9)
    x = rng.beta(2, 3, 100)
    mean, low, high = bootstrap_ci(x, n_resamples=20_000, seed=1)
    ref = sps.bootstrap((x,), np.mean, n_resamples=20_000, method="percentile",
                        confidence_level=0.95, rng=np.random.default_rng(2)).confidence_interval
    assert mean == pytest.approx(x.mean())
    se = x.std(ddof=1) / math.sqrt(len(x))
    assert abs(low - ref.low) < 0.05 * se and abs(high - ref.high) < 0.05 * se


def test_bootstrap_is_seeded_and_brackets_the_mean():
    x = np.random.default_rng(3).random(30)
    assert bootstrap_ci(x, seed=4) == bootstrap_ci(x, seed=4)
    assert bootstrap_ci(x, seed=4) != bootstrap_ci(x, seed=5)
    mean, low, high = bootstrap_ci(x, n_resamples=1000, confidence=0.9)
    assert low < mean < high
    _, low99, high99 = bootstrap_ci(x, n_resamples=1000, confidence=0.99)
    assert low99 <= low and high <= high99


def test_bootstrap_resample_rows_sum_to_n():
    # a column of ones has mean 1 in every resample; a one-hot column counts one query's draws
    x = np.column_stack([np.ones(7), np.eye(7)[0]])
    means = bootstrap_means(x, n_resamples=5000, seed=0)
    assert np.allclose(means[:, 0], 1.0)
    draws = means[:, 1] * 7
    assert np.allclose(draws, np.round(draws))
    assert draws.mean() == pytest.approx(1.0, abs=0.05)  # Binomial(7, 1/7) has mean 1


def test_curve_bands_are_coherent_across_k():
    rng = np.random.default_rng(5)
    # per-query cumulative curves (like Recall@K): non-decreasing in K
    matrix = np.cumsum(rng.random((40, 20)) < 0.1, axis=1) / 5.0
    bands = curve_bands(matrix, n_resamples=2000, seed=8)
    assert np.allclose(bands.mean, matrix.mean(axis=0))
    # same resamples at every K: each column equals its own bootstrap_ci with the same seed
    for k in (0, 7, 19):
        _, low, high = bootstrap_ci(matrix[:, k], n_resamples=2000, seed=8)
        assert (bands.low[k], bands.high[k]) == pytest.approx((low, high), abs=1e-12)
    # every resampled curve is non-decreasing, so the quantile curves are too
    assert (np.diff(bands.low) >= -1e-12).all() and (np.diff(bands.high) >= -1e-12).all()
    assert (bands.low <= bands.mean + 1e-12).all() and (bands.mean <= bands.high + 1e-12).all()


@pytest.mark.parametrize("bad,msg", [
    (np.array([]), "no queries"),
    (np.array([0.1, np.nan]), "NaN"),
    (np.ones((2, 2, 2)), "dimensions"),
])
def test_bootstrap_bad_input(bad, msg):
    with pytest.raises(StatsError, match=msg):
        bootstrap_means(bad)


def test_bootstrap_bad_confidence():
    with pytest.raises(StatsError, match="confidence"):
        bootstrap_ci(np.ones(3), confidence=95)


# -- Holm ------------------------------------------------------------------------------
def test_holm_hand_worked():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # capped at 1; the running max carries the cap to the larger raw value
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    assert holm([0.2]) == pytest.approx([0.2])
    assert holm([]).size == 0


def test_holm_properties():
    p = np.random.default_rng(0).random(12) ** 3
    adj = holm(p)
    assert (adj >= p).all() and (adj <= 1).all()
    order = np.argsort(p)
    assert (np.diff(adj[order]) >= 0).all()  # a smaller raw p never gets a larger adjusted p
    assert adj.min() == pytest.approx(min(1.0, p.min() * len(p)))  # Bonferroni on the smallest


def test_holm_rejects_non_probabilities():
    with pytest.raises(StatsError):
        holm([0.1, 1.5])


# -- compare_runs ----------------------------------------------------------------------
def test_compare_runs_hand_worked_counts_and_effect_size():
    a = np.array([0.0, 0.5, 1.0, 0.2, 0.3])
    b = np.array([0.5, 0.5, 0.5, 0.4, 0.6])
    pair = compare_runs({"A": a, "B": b}, metric_name="ndcg@10", n_resamples=1000).pairs[0]
    d = b - a  # [0.5, 0, -0.5, 0.2, 0.3]
    assert (pair.wins, pair.ties, pair.losses) == (3, 1, 1)
    assert pair.diff == pytest.approx(0.1)
    assert pair.effect_size == pytest.approx(0.1 / d.std(ddof=1))
    assert pair.relative_change == pytest.approx(0.1 / 0.4)
    # 5 queries: all 32 sign patterns are enumerated -> the randomization p is exact
    assert pair.p_randomization * 32 == pytest.approx(round(pair.p_randomization * 32))


def test_compare_runs_pairs_and_holm_over_all_pairs():
    rng = np.random.default_rng(12)
    base = rng.beta(2, 3, 60)
    runs = {"bm25": base,
            "small": np.clip(base + rng.normal(0.01, 0.1, 60), 0, 1),
            "large": np.clip(base + 0.15 + rng.normal(0, 0.05, 60), 0, 1)}
    cmp = compare_runs(runs, metric_name="recall@10", n_resamples=1000)
    assert [(p.a, p.b) for p in cmp.pairs] == [("bm25", "small"), ("bm25", "large"),
                                                ("small", "large")]
    assert [p.p_holm for p in cmp.pairs] == pytest.approx(
        list(holm([p.p_randomization for p in cmp.pairs])))
    by_t = compare_runs(runs, metric_name="recall@10", n_resamples=1000, test="ttest")
    assert [p.p_holm for p in by_t.pairs] == pytest.approx(
        list(holm([p.p_ttest for p in by_t.pairs])))
    # run intervals and difference intervals come from the same resamples as bootstrap_ci
    for r, name in zip(cmp.runs, runs):
        assert (r.mean, r.ci_low, r.ci_high) == pytest.approx(
            tuple(bootstrap_ci(runs[name], n_resamples=1000, seed=0)), abs=1e-12)
    p = cmp.pairs[1]
    assert (p.diff, p.ci_low, p.ci_high) == pytest.approx(tuple(paired_difference_ci(
        runs["bm25"], runs["large"], n_resamples=1000, seed=0)), abs=1e-12)
    assert cmp.pairs[1].verdict.kind == "better"
    assert "after correction for 3 comparisons" in cmp.pairs[1].verdict.en
    # the same pair asked the other way round
    swapped = cmp.pair("large", "bm25")
    assert swapped.diff == pytest.approx(-p.diff)
    assert (swapped.wins, swapped.losses) == (p.losses, p.wins)
    assert swapped.verdict.kind == "worse"
    assert swapped.verdict.en.startswith("bm25 is worse than large")


def test_compare_runs_is_deterministic_for_a_seed():
    a, b = _runs(3, 40, 0.02)
    one = compare_runs({"a": a, "b": b}, metric_name="ndcg@10", seed=9, n_resamples=1000)
    two = compare_runs({"a": a, "b": b}, metric_name="ndcg@10", seed=9, n_resamples=1000)
    assert one.to_json_obj() == two.to_json_obj()


@pytest.mark.parametrize("runs,msg", [
    ({"a": np.ones(5)}, "at least two runs"),
    ({"a": np.ones(5), "b": np.ones(4)}, "aligned"),
    ({"a": np.ones(1), "b": np.ones(1)}, "at least 2"),
    ({"a": np.array([0.1, np.nan]), "b": np.ones(2)}, "NaN"),
])
def test_compare_runs_bad_input(runs, msg):
    with pytest.raises(StatsError, match=msg):
        compare_runs(runs, metric_name="ndcg@10")


def test_compare_runs_json_contract():
    a, b = _runs(8, 30, 0.05)
    obj = compare_runs({"a": a, "b": b}, metric_name="ndcg@10", n_resamples=1000).to_json_obj()
    assert obj["metric"] == "ndcg@10" and obj["queries"] == 30
    assert set(obj["runs"][0]) == {"name", "mean", "ci_low", "ci_high"}
    required = {"a", "b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_ttest",
                "p_wilcoxon", "p_randomization", "p_holm", "wins", "ties", "losses"}
    assert required <= set(obj["pairs"][0])


# -- alignment -------------------------------------------------------------------------
def test_align_queries_reports_what_each_source_lacks():
    al = align_queries({"qrels": ["q1", "q2", "q3", "q4"], "A": ["q2", "q1", "q3", "q9"],
                        "B": ["q3", "q1", "q2"]})
    assert al.common == ["q1", "q2", "q3"]
    assert al.missing == {"qrels": ["q9"], "A": ["q4"], "B": ["q4", "q9"]}
    assert al.dropped == ["q4", "q9"]
    assert not al.complete


def _table(run: dict, qrels: dict):
    from ragdash.metrics import evaluate
    from ragdash.ranking import Ranking

    return evaluate(Ranking.from_dict(run), qrels, kmax=10)


def test_compare_tables_aligns_on_shared_queries():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 2}, "q3": {"d9": 0}, "q4": {"d4": 1},
             "q5": {"d5": 1}}
    # A: q1..q4 (q3 has no relevant document); B: q2..q5, in another order
    run_a = {"q1": {"d1": 1.0}, "q2": {"x": 2.0, "d2": 1.0}, "q3": {"d3": 1.0},
             "q4": {"x": 3.0, "y": 2.0, "d4": 1.0}}
    run_b = {"q4": {"d4": 1.0}, "q3": {"d3": 1.0}, "q2": {"d2": 1.0}, "q5": {"d5": 1.0}}
    ta, tb = _table(run_a, qrels), _table(run_b, qrels)
    cmp = compare_tables({"A": ta, "B": tb}, "ndcg@10", n_resamples=500)
    assert cmp.query_ids == ["q2", "q3", "q4"]
    # nDCG by hand: relevant doc at rank 2 -> 1/log2(3); rank 3 -> 1/log2(4) = 0.5
    assert cmp.per_query["A"] == pytest.approx([1 / math.log2(3), 0.0, 0.5])
    assert cmp.per_query["B"] == pytest.approx([1.0, 0.0, 1.0])
    assert cmp.alignment.missing == {"A": ["q5"], "B": ["q1"]}
    assert cmp.to_json_obj()["mismatches"]["dropped"] == 2
    assert any("not in every run" in note for note in cmp.notes)
    assert (cmp.pairs[0].wins, cmp.pairs[0].ties, cmp.pairs[0].losses) == (2, 1, 0)
    dropped = compare_tables({"A": ta, "B": tb}, "ndcg@10", drop_no_relevant=True,
                             n_resamples=500)
    assert dropped.query_ids == ["q2", "q4"]


def test_align_tables_gives_curves_on_shared_queries():
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(6)}
    run_a = {f"q{i}": {f"d{i}": 1.0, "x": 2.0} for i in range(5)}
    run_b = {f"q{i}": {f"d{i}": 1.0} for i in range(1, 6)}
    alignment, aligned = align_tables({"A": _table(run_a, qrels), "B": _table(run_b, qrels)})
    assert alignment.common == ["q1", "q2", "q3", "q4"]
    bands = curve_bands(aligned["A"].values["recall"], n_resamples=500)
    assert bands.mean[0] == 0.0 and bands.mean[1] == 1.0  # found at rank 2 everywhere
    assert aligned["B"].query_ids == alignment.common
