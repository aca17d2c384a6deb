"""The frontier figure and the report's "quality against cost" section: what is drawn is what
ragdash.stats.build_frontier computed; names are escaped; log axes when values span decades."""

from __future__ import annotations

import dataclasses

import pytest
from markupsafe import escape

from ragdash.pipeline import run_evaluation
from ragdash.present.charts import frontier_figure
from ragdash.present.report import build_report
from ragdash.retrieval import make_retriever
from ragdash.stats import build_frontier

HOSTILE = "<img src=x onerror=alert(1)> bm25"


@pytest.fixture(scope="module")
def runs(sample):
    a = run_evaluation(sample, make_retriever("bm25"), kmax=20)
    b = run_evaluation(sample, make_retriever("bm25", k1=0.3, b=0.1), kmax=20)
    a.name, b.name = HOSTILE, "bm25 flat"
    # a third run whose index is 1,000x smaller (as a binary sweep point would be)
    c = dataclasses.replace(b, name="tiny", resources={**b.resources,
                            "index_bytes": b.resources["index_bytes"] // 1000},
                            _table=None)
    return [a, b, c]


def test_figure_draws_the_frontier_it_is_given(runs):
    frontier = build_frontier(runs, metric="ndcg@10", x="memory")
    fig = frontier_figure(frontier, lang="en")
    line, points = fig.data
    assert line.meta["kind"] == "pareto" and points.meta["kind"] == "points"
    assert list(points.y) == pytest.approx([p.y for p in frontier.points])
    assert list(points.x) == [p.x for p in frontier.points]
    pareto = sorted((p.x, p.y) for p in frontier.points if p.pareto)
    assert list(zip(line.x, line.y)) == pareto
    assert [list(c) for c in points.customdata] == [[p.run_id or "", p.name]
                                                   for p in frontier.points]
    # intervals as error bars
    assert list(points.error_y.array) == pytest.approx(
        [p.ci_high - p.y for p in frontier.points])
    # 1,000x apart: a log axis
    assert fig.layout.xaxis.type == "log"
    hover = " ".join(points.hovertext)
    assert "<img" not in hover and "&lt;img" in hover
    assert "retriever: bm25" in hover and "k1: 0.3" in hover  # the whole config


def test_linear_axis_when_values_are_close_and_japanese_labels(runs):
    frontier = build_frontier(runs[:2], metric="ndcg@10", x="memory")
    fig = frontier_figure(frontier, lang="ja")
    assert fig.layout.xaxis.type == "linear"
    assert "索引のメモリ" in fig.layout.xaxis.title.text
    assert "nDCG@10" in fig.layout.title.text


def test_report_has_the_section_with_the_sentence_in_its_language(runs):
    for lang, heading in (("en", "Quality against cost"), ("ja", "品質と費用")):
        page = build_report(runs, lang=lang, include_text=False, n_resamples=200)
        assert heading in page
        frontier = build_frontier(runs, metric="ndcg@10", x="memory",
                                  names=[r.name for r in runs], n_resamples=200)
        sentence = frontier.recommendation(lang)
        assert str(escape(sentence)) in page
        assert "<img src=x" not in page
    single = build_report(runs[:1], lang="en", include_text=False, n_resamples=200)
    assert "Quality against cost" not in single
