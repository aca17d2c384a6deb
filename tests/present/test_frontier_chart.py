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


def _free_runs(sample, n: int = 3):
    """Runs that cost nothing to index (every x is $0), the best near nDCG 1 so its star,
    its interval and its label sit at the top of the chart."""
    from ragdash.ranking import Ranking
    from ragdash.run import Run

    queries = sample.evaluated_queries(60)
    runs = []
    for i in range(n):
        ranking = {}
        for j, q in enumerate(queries):
            relevant = list(sample.qrels[q.id])
            others = [d.id for d in sample.documents[j:j + 12] if d.id not in relevant]
            hit = j % (i + 1) == 0  # run 0 finds every answer first, the others fewer
            order = (relevant + others)[:10] if hit else (others[:9] + relevant[:1])
            ranking[q.id] = {d: 10.0 - k for k, d in enumerate(order)}
        runs.append(Run.of_ranking(sample, Ranking.from_dict(ranking), kmax=10,
                                   name=f"bm25 {i}", retriever="bm25",
                                   config={"retriever": "bm25", "k1": 1.0 + i}))
    return runs


@pytest.mark.browser
def test_points_and_labels_stay_inside_the_chart_in_chromium(sample, tmp_path):
    """Every marker, interval and label (Best, 最良) is inside the plot, also with every x at
    $0, in the app and in the report (one figure function)."""
    import plotly.io as pio
    from browser.harness import launch
    from playwright.sync_api import sync_playwright
    from plotly.offline import get_plotlyjs

    figures = []
    for axis in ("index-cost", "memory"):
        runs = _free_runs(sample)
        if axis == "memory":  # x from 0 to 1 MB: the two ends of a linear axis
            for i, run in enumerate(runs):
                run.resources = {"index_bytes": 500_000 * i}
        frontier = build_frontier(runs, metric="ndcg@10", x=axis, n_resamples=200)
        assert frontier.best.y == 1.0
        figures += [(f"{axis} {lang}", frontier_figure(frontier, lang=lang))
                    for lang in ("ja", "en")]
    html = {name: pio.to_html(fig, include_plotlyjs=False, full_html=False,
                              default_width=640, default_height=420)
            for name, fig in figures}
    divs = "".join(f'<div class="case" title="{name}">{div}</div>' for name, div in html.items())
    path = tmp_path / "frontiers.html"
    path.write_text(f"<html><head><meta charset=\"utf-8\"><script>{get_plotlyjs()}</script></head>"
                    f"<body>{divs}</body></html>", encoding="utf-8")
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_context(viewport={"width": 700, "height": 600}).new_page()
            page.goto(path.as_uri())
            page.wait_for_function("document.querySelectorAll('.case .point').length >= 12")
            cases = page.evaluate("""() => [...document.querySelectorAll('.case')].map(c => {
                const box = e => { const r = e.getBoundingClientRect();
                                   return [r.left, r.top, r.right, r.bottom]; };
                const trace = c.querySelector('.scatterlayer .trace:last-child');
                return [c.title, box(c.querySelector('.draglayer .nsewdrag')),
                        [...trace.querySelectorAll('.point, .textpoint text, .errorbar path')]
                          .filter(e => e.getBoundingClientRect().width > 0)
                          .map(e => [e.textContent || e.tagName, box(e)])]; })""")
        finally:
            browser.close()
    assert len(cases) == 4
    for name, (left, top, right, bottom), marks in cases:
        labels = {text for text, _ in marks if text != "path"}
        assert {"最良", "Best"} & labels, (name, labels)
        for text, (x0, y0, x1, y1) in marks:
            assert left - 0.5 <= x0 and x1 <= right + 0.5, (name, text, marks)
            assert top - 0.5 <= y0 and y1 <= bottom + 0.5, (name, text, marks)
