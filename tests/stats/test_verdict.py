"""Verdict sentences (English and Japanese), the power estimate and number formatting."""

from __future__ import annotations

import pytest

from ragdash.stats.verdict import (
    detectable_difference,
    format_p,
    format_range,
    format_value,
    make_verdict,
    queries_needed,
)

BASE = dict(a="A", b="B", metric="nDCG@10", n=48, alpha=0.05)


def test_better():
    v = make_verdict(**BASE, mean_a=0.5, mean_b=0.542, ci_low=0.018, ci_high=0.066, p=0.001,
                     sd_diff=0.1)
    assert v.kind == "better"
    assert v.en == "B is better than A on nDCG@10 by 0.042 (95% CI 0.018–0.066, p = 0.001)."
    assert v.ja == "nDCG@10 で B は A より 0.042 高いです（95% 信頼区間 0.018〜0.066、p = 0.001）。"


def test_worse_after_correction():
    v = make_verdict(**BASE, mean_a=0.6, mean_b=0.55, ci_low=-0.08, ci_high=-0.02,
                     p=0.0004, sd_diff=0.1, n_comparisons=3)
    assert v.kind == "worse"
    assert v.en == ("B is worse than A on nDCG@10 by 0.050 "
                    "(95% CI 0.020–0.080, p < 0.001 after correction for 3 comparisons).")
    assert v.ja == ("nDCG@10 で B は A より 0.050 低いです"
                    "（95% 信頼区間 0.020〜0.080、3 組の比較で補正後の p < 0.001）。")


def test_no_difference_with_queries_needed():
    # n = ((1.959964 + 0.841621) * 0.1 / 0.02)^2 = 14.00792^2 = 196.22 -> 197
    v = make_verdict(**BASE, mean_a=0.50, mean_b=0.52, ci_low=-0.008, ci_high=0.048, p=0.17,
                     sd_diff=0.1)
    assert v.kind == "no_difference"
    assert v.en == ("No detectable difference between A and B on nDCG@10 with 48 queries "
                    "(B − A = +0.020, 95% CI −0.008 to +0.048, p = 0.17); about 197 queries "
                    "would be needed to detect a difference of 0.020 (rough estimate).")
    assert v.ja == ("クエリ 48 件では、A と B の nDCG@10 に検出できる差はありません"
                    "（B − A = +0.020、95% 信頼区間 −0.008〜+0.048、p = 0.17）。"
                    "差 0.020 を検出するには、およそ 197 件のクエリが必要です（概算）。")


def test_no_difference_zero_mean_gives_detectable_size():
    v = make_verdict(**BASE, mean_a=0.5, mean_b=0.5, ci_low=-0.02, ci_high=0.02, p=1.0,
                     sd_diff=0.1)
    # 2.801585 * 0.1 / sqrt(48) = 0.0404
    assert v.en.endswith("with 48 queries only differences of about 0.040 or more can be "
                         "detected (rough estimate).")
    assert "およそ 0.040 以上の差です（概算）。" in v.ja


def test_no_difference_because_of_correction():
    v = make_verdict(**BASE, mean_a=0.5, mean_b=0.56, ci_low=0.02, ci_high=0.1, p=0.09,
                     sd_diff=0.1, n_comparisons=6)
    assert v.kind == "no_difference"
    assert v.en.endswith("the evidence is too weak to call a winner once corrected for 6 "
                         "comparisons.")
    assert "6 組の比較で補正すると、どちらが優れているとは言えません。" in v.ja


def test_identical():
    v = make_verdict(**BASE, mean_a=0.5, mean_b=0.5, ci_low=0, ci_high=0, p=1.0, sd_diff=0.0,
                     identical=True)
    assert v.kind == "identical"
    assert v.en == "A and B score the same on nDCG@10 for every one of the 48 queries."
    assert v.ja == "A と B の nDCG@10 は、48 件すべてのクエリで同じです。"
    assert v.text("ja") == v.ja and v.text("en") == v.en


def test_queries_needed_hand_worked():
    assert queries_needed(1.0, 1.0) == 8  # (1.96 + 0.8416)^2 = 7.85
    assert queries_needed(0.1, 0.02) == 197
    assert queries_needed(0.1, -0.02) == 197
    assert queries_needed(0.1, 0.0) is None
    assert queries_needed(0.0, 0.3) == 2
    assert detectable_difference(1.0, 1) == pytest.approx(2.801585, abs=1e-6)


@pytest.mark.parametrize("x,text", [
    (0.5, "0.500"), (0.04249, "0.042"), (-0.012, "−0.012"), (0.00042, "0.00042"),
    (0.000042, "0.000042"), (0, "0"), (12.345, "12.3"), (4442, "4,442"),
    (float("nan"), "n/a"),
])
def test_format_value(x, text):
    assert format_value(x) == text


@pytest.mark.parametrize("p,text", [
    (0.0, "p < 0.001"), (0.00049, "p < 0.001"), (0.001, "p = 0.001"), (0.0012, "p = 0.0012"),
    (0.041, "p = 0.041"), (0.0496, "p = 0.0496"), (0.05, "p = 0.05"), (0.4123, "p = 0.41"),
    (1.0, "p = 1"),
])
def test_format_p(p, text):
    assert format_p(p) == text


def test_format_range():
    assert format_range(0.018, 0.066) == "0.018–0.066"
    assert format_range(-0.012, 0.032) == "−0.012 to 0.032"
    assert format_range(-0.012, 0.032, signed=True) == "−0.012 to +0.032"
    assert format_range(-0.012, 0.032, lang="ja") == "−0.012〜0.032"
