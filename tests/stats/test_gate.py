"""The regression gate's statistics (ragdash.stats.gate): decisions on paired per-query values,
the one-sided randomization test it rests on, the detectable drop, Holm over metrics, words."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from ragdash.errors import StatsError
from ragdash.i18n import message
from ragdash.stats.gate import decide, format_markdown, resolution
from ragdash.stats.significance import randomization_tests

QUERIES = [f"q{i}" for i in range(120)]


def values(seed: int, n: int = len(QUERIES)) -> np.ndarray:
    return np.random.default_rng(seed).beta(2, 2, n)


def gate(base, cand, **kw):
    kw.setdefault("n_resamples", 2000)
    kw.setdefault("n_permutations", 2000)
    base = base if isinstance(base, dict) else {"ndcg@10": base}
    cand = cand if isinstance(cand, dict) else {"ndcg@10": cand}
    n = len(next(iter(base.values())))
    return decide(base, cand, query_ids=[f"q{i}" for i in range(n)], **kw)


# -- the one-sided randomization test -------------------------------------------------
def test_one_sided_p_values_by_hand():
    d = np.array([1.0, 2.0, 3.0])
    # the 8 sign patterns give sums 6, 4, 2, 0, 0, -2, -4, -6
    assert randomization_tests(d, alternative="greater")[0] == pytest.approx(1 / 8)
    assert randomization_tests(d, alternative="less")[0] == pytest.approx(1.0)
    assert randomization_tests(-d, alternative="less")[0] == pytest.approx(1 / 8)
    assert randomization_tests(d)[0] == pytest.approx(2 / 8)  # two-sided is unchanged
    with pytest.raises(ValueError):
        randomization_tests(d, alternative="sideways")


def test_one_sided_p_values_halve_the_two_sided_one_on_symmetric_data():
    d = np.random.default_rng(3).normal(0.05, 0.2, 14)  # 2^14 patterns: exact
    two = randomization_tests(d, n_permutations=20_000)[0]
    greater = randomization_tests(d, alternative="greater", n_permutations=20_000)[0]
    less = randomization_tests(d, alternative="less", n_permutations=20_000)[0]
    assert greater < less
    # the observed pattern counts in both tails; other exact ties are rare
    assert 1.0 < greater + less <= 1.0 + 2 ** -12
    assert min(greater, less) == pytest.approx(two / 2, abs=1e-9)


# -- decisions ------------------------------------------------------------------------------
def test_identical_runs_pass_every_time():
    base = values(1)
    passed = [gate(base, base.copy(), seed=s).passed for s in range(100)]
    assert passed.count(True) == 100


def test_a_clear_drop_fails_and_a_better_candidate_passes():
    base = values(2)
    noise = np.random.default_rng(5).normal(0, 0.05, base.size)
    worse = np.clip(base - 0.08 + noise, 0, 1)
    better = np.clip(base + 0.08 + noise, 0, 1)
    failed = gate(base, worse)
    assert not failed.passed and failed.exit_code == 1
    assert failed.metrics[0].ci_high < -0.01 and failed.metrics[0].p_holm < 0.05
    assert "FAIL" in failed.sentence()
    ok = gate(base, better)
    assert ok.passed and ok.exit_code == 0
    assert ok.metrics[0].diff > 0


def test_a_drop_within_the_margin_passes_not_worse_but_fails_non_inferior_with_few_queries():
    base = values(4, 30)
    cand = base - 0.005  # within the margin of 0.01 on every query
    assert gate(base, cand, margin=0.01).passed
    # 30 queries with no spread at all: the shift d + margin is positive on every query, so
    # non-inferiority is shown
    assert gate(base, cand, margin=0.01, rule="non-inferior").passed
    noisy = base - 0.005 + np.random.default_rng(1).normal(0, 0.2, base.size)
    shown = gate(base, noisy, margin=0.01, rule="non-inferior")
    assert not shown.passed  # too few, too noisy queries to show it
    assert "non-inferiority not shown" in shown.sentence()


def test_holm_over_metrics_fails_on_the_worse_metric_and_says_so():
    base = values(6)
    noise = np.random.default_rng(7).normal(0, 0.05, base.size)
    decision = gate({"ndcg@10": base, "recall@100": base},
                    {"ndcg@10": np.clip(base + 0.05 + noise, 0, 1),
                     "recall@100": np.clip(base - 0.06 + noise, 0, 1)})
    by = {m.metric: m for m in decision.metrics}
    assert by["ndcg@10"].passed and not by["recall@100"].passed
    assert not decision.passed
    # Holm: the smallest p is multiplied by the number of metrics (capped by the next step)
    assert by["recall@100"].p_holm == pytest.approx(min(1.0, 2 * by["recall@100"].p))
    said = decision.sentence()
    assert "Recall@100" in said and "Holm's correction over 2 metrics" in said


def test_the_same_inputs_give_the_same_decision_and_the_seed_is_said():
    base, cand = values(8), values(9)
    a = gate(base, cand, seed=42).to_json_obj()
    b = gate(base, cand, seed=42).to_json_obj()
    assert a == b and a["settings"]["seed"] == 42


def test_the_detectable_drop_is_the_margin_plus_the_resolution():
    base = values(10)
    cand = base + np.random.default_rng(11).normal(0, 0.1, base.size)
    d = gate(base, cand, margin=0.02)
    m = d.metrics[0]
    sd = float(np.std(cand - base, ddof=1))
    expected = (norm.ppf(0.95) + norm.ppf(0.8)) * sd / math.sqrt(base.size)
    assert m.resolution == pytest.approx(expected)
    assert m.detectable == pytest.approx(0.02 + expected)
    assert f"{len(QUERIES)} queries this gate catches a drop of" in d.sentence()
    # two metrics: Holm's first step (alpha / 2) decides the figure
    two = gate({"a@1": base, "b@1": base}, {"a@1": cand, "b@1": cand})
    assert two.metrics[0].resolution == pytest.approx(resolution(sd, base.size, alpha=0.025))
    assert two.metrics[0].resolution > expected


def test_a_margin_finer_than_the_query_set_resolves_is_warned():
    base = values(12, 25)
    cand = base + np.random.default_rng(13).normal(0, 0.15, base.size)
    said = [message(w) for w in gate(base, cand, margin=0.001).warnings()]
    assert any("below what 25 queries can resolve" in s for s in said)
    wide = [message(w) for w in gate(base, cand, margin=0.5).warnings()]
    assert not any("can resolve" in s for s in wide)
    same = [message(w) for w in gate(base, base.copy()).warnings()]
    assert any("cannot be estimated" in s for s in same)


def test_coverage_gap_is_said():
    base = values(14)
    d = gate(base, base - 0.05, coverage={"baseline": 0.9, "candidate": 0.55})
    said = " ".join(message(w) for w in d.warnings())
    assert "55% unjudged" not in said and "45% unjudged against 10%" in said
    assert "ragdash judge" in said
    close = gate(base, base, coverage={"baseline": 0.9, "candidate": 0.85})
    assert not any("unjudged" in message(w) for w in close.warnings())


def test_markdown_and_json_carry_every_figure():
    base = values(15)
    cand = np.clip(base - 0.1, 0, 1)
    d = gate(base, cand, baseline_name="v1", candidate_name="v2")
    md = format_markdown(d, report="report.html")
    assert md.startswith("### ❌ Retrieval gate failed: `v2` vs `v1`")
    assert "| nDCG@10 |" in md and "report.html" in md
    obj = d.to_json_obj()
    assert obj["decision"] == "fail"
    metric = obj["metrics"][0]
    assert set(metric) >= {"baseline", "candidate", "difference", "ci", "p", "p_corrected",
                           "decision", "detectable_effect"}
    assert metric["difference"] == pytest.approx(float((cand - base).mean()))
    ja = format_markdown(d, lang="ja")
    assert "不合格" in ja and "Retrieval gate" not in ja


@pytest.mark.parametrize("kw, words", [
    ({"rule": "strict"}, "unknown rule"),
    ({"margin": -0.1}, "margin"),
    ({"margin": float("nan")}, "margin"),
    ({"alpha": 1.5}, "alpha"),
])
def test_bad_settings_are_one_sentence(kw, words):
    with pytest.raises(StatsError, match=words):
        gate(values(1), values(2), **kw)


def test_non_finite_values_are_refused():
    base = values(1)
    bad = base.copy()
    bad[3] = np.nan
    with pytest.raises(StatsError):
        gate(base, bad)
