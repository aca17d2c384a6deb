"""Plotly figures for the app and the HTML report (plotly.graph_objects, no streamlit).

Every function returns a :class:`plotly.graph_objects.Figure` whose trace data hold the plotted
numbers, so tests (and the app) can read them back: in :func:`curve_figure` the run lines come
first, in the order given, so ``fig.data[0].y`` is the first run's first curve.

Text is taken from :mod:`ragdash.i18n` (``lang="en"`` or ``"ja"``); the font family list
starts with fonts that have Japanese glyphs so titles, ticks and hover labels render in both
languages. Names and texts from users are escaped before they go into hover labels (plotly
renders a few HTML tags there), and never become part of a hover *template*.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from ..cost import format_money
from ..i18n import t
from ..metrics import family, metric_label
from ..stats.frontier import format_x

if TYPE_CHECKING:
    import pandas as pd

    from ..metrics import MetricTable
    from ..retrieval.fusion import WeightSweep
    from ..stats import Bands, CurveBands, Frontier, FrontierPoint

    #: one run's curves: a MetricTable, or ``{family: (kmax,) values}``
    CurveSource = MetricTable | Mapping[str, Sequence[float]]
    #: rows of a cost chart: a DataFrame, or one mapping per row
    CostRows = pd.DataFrame | Iterable[Mapping[str, object]]

__all__ = ["CJK_FONT", "K_TICKS", "PALETTE", "PLOTLY_CONFIG", "cost_bar_figure",
           "cost_quality_figure", "curve_figure", "frontier_figure", "histogram_figure",
           "k_axis",
           "scatter_figure", "sweep_figure"]

#: each frontier axis (ragdash.stats.frontier.X_AXES): its noun in a sentence, its axis title
NOUN_KEYS = {"index-cost": "fr.noun.index-cost", "query-cost": "fr.noun.query-cost",
             "memory": "fr.noun.memory", "latency": "fr.noun.latency"}
AXIS_KEYS = {"index-cost": "fr.axis.index-cost", "query-cost": "fr.axis.query-cost",
             "memory": "fr.axis.memory", "latency": "fr.axis.latency"}

#: fonts with Japanese glyphs first (Linux, macOS, Windows), then a generic fallback
CJK_FONT = ("Noto Sans CJK JP, Noto Sans JP, Hiragino Sans, Hiragino Kaku Gothic ProN, "
            "Yu Gothic, Meiryo, IPAexGothic, sans-serif")
#: ticks of the K axis (those ≤ Kmax are shown)
K_TICKS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)
#: Okabe–Ito: distinguishable with the common colour-vision deficiencies
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
#: pass to st.plotly_chart(config=...) / fig.to_html(config=...): no plotly logo or links
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True,
                 "toImageButtonOptions": {"format": "png", "scale": 2}}


def _esc(text: object) -> str:
    return html.escape(str(text), quote=False)


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _layout(fig: go.Figure, lang: str, title: str | None = None, **extra: object) -> go.Figure:
    fig.update_layout(
        template="plotly_white",
        font={"family": CJK_FONT, "size": 13},
        hoverlabel={"font": {"family": CJK_FONT}},
        title={"text": _esc(title)} if title else None,
        margin={"l": 60, "r": 20, "t": 60 if title else 30, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        meta={"lang": lang},
        **extra,
    )
    return fig


def k_axis(kmax: int, *, log: bool = True, lang: str = "en") -> dict:
    """The x axis for K = 1..kmax: logarithmic with ticks at 1, 3, 5, 10, 20, 50, 100 (and
    Kmax), or linear; K is a whole number either way."""
    kmax = max(1, int(kmax))
    ticks = [k for k in K_TICKS if k <= kmax]
    if kmax not in ticks:
        ticks.append(kmax)
    axis: dict[str, object] = {"title": {"text": _esc(t("chart.k_axis", lang))}, "tickvals": ticks,
                            "ticktext": [str(k) for k in ticks], "showgrid": True}
    if log and kmax > 1:
        axis.update(type="log", range=[-0.03, math.log10(kmax) + 0.03])
    else:
        axis.update(type="linear", range=[0.5, kmax + 0.5])
    return axis


# -- curves across K ------------------------------------------------------------------------------
def _curve_of(source: CurveSource, fam: str, drop_no_relevant: bool) -> np.ndarray:
    if hasattr(source, "curve"):
        return np.asarray(source.curve(fam, drop_no_relevant=drop_no_relevant), dtype=float)
    if isinstance(source, Mapping):
        return np.asarray(source[fam], dtype=float)
    raise TypeError(f"a curve source must be a MetricTable or a mapping family -> values, "
                    f"not {type(source).__name__}")


def _check_bands(bands: object) -> None:
    from ..stats import CurveBands

    if bands is not None and not isinstance(bands, CurveBands):
        raise TypeError(f"bands must be a ragdash.stats.CurveBands (from "
                        f"ragdash.stats.table_bands) or None, not {type(bands).__name__}")


def curve_figure(curves: Mapping[str, CurveSource], families: str | Sequence[str] = "ndcg", *,
                 bands: CurveBands | None = None, lang: str = "en", log_x: bool = True,
                 drop_no_relevant: bool = False, title: str | None = None) -> go.Figure:
    """Mean metric against K, one line per run and family.

    ``curves``: ``{run name: MetricTable}`` or ``{run name: {family: (kmax,) array}}``.
    ``families``: one family name or several (``"ndcg"``, ``["recall", "mrr"]``).
    ``bands``: ``None`` (no bands) or the :class:`ragdash.stats.CurveBands` the caller
    computed with :func:`ragdash.stats.table_bands` (same runs, families and
    ``drop_no_relevant``); a line whose ``(run, family)`` has no band is drawn without one.
    This function draws; it computes no statistics.

    Trace order: every line first (run by run, family by family), then one filled band per
    line that has one (``fill="toself"``, no legend entry, no hover).
    """
    _check_bands(bands)
    fams = [families] if isinstance(families, str) else list(families)
    fams = [family(f).name for f in fams]
    runs = [str(r) for r in curves]
    labels = {f: metric_label(f) for f in fams}
    fig = go.Figure()
    band_traces = []
    kmax = 1
    for ri, (run, source) in enumerate(curves.items()):
        run = str(run)
        for fi, fam in enumerate(fams):
            y = _curve_of(source, fam, drop_no_relevant)
            x = np.arange(1, len(y) + 1)
            kmax = max(kmax, len(y))
            if len(runs) > 1 and len(fams) > 1:
                name, color, dash = f"{run} · {labels[fam]}", PALETTE[ri % len(PALETTE)], \
                    _DASHES[fi % len(_DASHES)]
            elif len(fams) > 1:
                name, color, dash = labels[fam], PALETTE[fi % len(PALETTE)], "solid"
            else:
                name, color, dash = run, PALETTE[ri % len(PALETTE)], "solid"
            fig.add_trace(go.Scatter(
                x=x, y=y, mode="lines+markers" if len(y) <= 20 else "lines", name=_esc(name),
                line={"color": color, "dash": dash, "width": 2.5}, marker={"size": 5},
                legendgroup=f"{ri}-{fi}", meta={"run": run, "family": fam, "kind": "curve"},
                hovertemplate=f"%{{fullData.name}}<br>K=%{{x}}<br>{_esc(labels[fam])}@%{{x}}: "
                              f"%{{y:.4f}}<extra></extra>"))
            band = bands.get(run, fam) if bands is not None else None
            if band is not None:
                level = round(bands.confidence * 100)
                band_traces.append(_band_trace(x, band.low, band.high, color, f"{ri}-{fi}",
                                               t("chart.band", lang, name=name, level=level),
                                               {"run": run, "family": fam}))
    for trace in band_traces:
        fig.add_trace(trace)
    metric_names = " / ".join(labels[f] for f in fams)
    _layout(fig, lang, title if title is not None else t("chart.curve_title", lang,
                                                          metrics=metric_names),
            hovermode="closest")
    fig.update_xaxes(**k_axis(kmax, log=log_x, lang=lang))
    fig.update_yaxes(title={"text": _esc(t("chart.mean_axis", lang))}, range=[0, 1.02],
                     rangemode="tozero")
    return fig


def _band_trace(x: np.ndarray, low: Sequence[float], high: Sequence[float], color: str,
                group: str, name: str, meta: dict[str, str]) -> go.Scatter:
    """A filled band from ``high`` (left to right) back along ``low`` (right to left)."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]), y=np.concatenate([high, low[::-1]]), fill="toself",
        fillcolor=_rgba(color, 0.15), line={"width": 0}, mode="lines", hoverinfo="skip",
        showlegend=False, legendgroup=group, name=_esc(name),
        meta={**meta, "kind": "band", "low": low.tolist(), "high": high.tolist()})


# -- per-query distributions ----------------------------------------------------------------------
def histogram_figure(values: Sequence[float] | Mapping[str, Sequence[float]], *,
                     metric: str = "ndcg@10", lang: str = "en", bin_size: float = 0.05,
                     title: str | None = None) -> go.Figure:
    """How per-query values of ``metric`` are spread: ``values`` is one array, or
    ``{run name: array}`` for overlaid runs. Bins of ``bin_size`` centred on 0, bin_size,
    ..., 1, so a value of exactly 1 (the commonest for a good retriever) and of exactly 0
    each get a bar inside the axis."""
    series = values if isinstance(values, Mapping) else {"": values}
    label = metric_label(metric)
    fig = go.Figure()
    n = 0
    for i, (run, vals) in enumerate(series.items()):
        v = np.asarray(vals, dtype=float)
        n = max(n, len(v))
        fig.add_trace(go.Histogram(
            x=v, name=_esc(run) or label, marker={"color": PALETTE[i % len(PALETTE)]},
            opacity=0.75 if len(series) > 1 else 1.0,
            xbins={"start": -bin_size / 2, "end": 1.0 + bin_size / 2, "size": bin_size},
            hovertemplate=f"{_esc(label)}: %{{x}}<br>{_esc(t('chart.hist_y', lang))}: "
                          f"%{{y}}<extra>%{{fullData.name}}</extra>"))
    _layout(fig, lang, title if title is not None else t("chart.hist_title", lang,
                                                          metric=label, n=f"{n:,}"),
            barmode="overlay", showlegend=len(series) > 1, bargap=0.05)
    fig.update_xaxes(title={"text": _esc(t("chart.hist_x", lang, metric=label))},
                     range=[-bin_size, 1.0 + bin_size])
    fig.update_yaxes(title={"text": _esc(t("chart.hist_y", lang))})
    return fig


#: Above this many queries the scatter jitters its points and draws them faint.
SCATTER_DENSE_AT = 1000
#: Half-width of that jitter, in metric units.
SCATTER_JITTER = 0.012


def scatter_figure(a_values: Sequence[float], b_values: Sequence[float],
                   query_ids: Sequence[str], texts: Sequence[str] | None = None, *,
                   metric: str = "ndcg@10", names: tuple[str, str] = ("A", "B"),
                   lang: str = "en", title: str | None = None) -> go.Figure:
    """Run A (x) against run B (y), one point per query, with the diagonal y = x.

    ``fig.data[0]`` holds the points; its ``customdata`` is the query ids, so a click in
    Streamlit (``st.plotly_chart(..., on_select="rerun", selection_mode="points")``) tells
    which query to open.
    ``texts`` (query texts) appear in the hover label, escaped. Above
    :data:`SCATTER_DENSE_AT` queries the markers are jittered and faint (the hover keeps the
    true values), so thousands of queries on the same few values do not hide each other.
    """
    a = np.asarray(a_values, dtype=float)
    b = np.asarray(b_values, dtype=float)
    qids = [str(q) for q in query_ids]
    if not len(a) == len(b) == len(qids):
        raise ValueError("a_values, b_values and query_ids must have the same length")
    label = metric_label(metric)
    hover_text = [_esc(_short(x)) for x in texts] if texts is not None else None
    colors = np.where(b > a, PALETTE[1], np.where(b < a, PALETTE[0], "#888888"))
    query_word = _esc(t("chart.query", lang))
    dense = len(a) > SCATTER_DENSE_AT
    if dense:
        # thousands of queries pile up on a few values (0, 1, 1/log2(3), ...): points are
        # spread by a small fixed jitter and drawn faint, so a pile reads darker than a lone
        # point; the hover gives the true values (the jitter only moves the marker)
        rng = np.random.default_rng(0)
        x = np.clip(a + rng.uniform(-SCATTER_JITTER, SCATTER_JITTER, len(a)), -0.02, 1.02)
        y = np.clip(b + rng.uniform(-SCATTER_JITTER, SCATTER_JITTER, len(b)), -0.02, 1.02)
        values = [f"{_esc(names[0])}: {va:.4f}<br>{_esc(names[1])}: {vb:.4f}"
                  for va, vb in zip(a.tolist(), b.tolist())]
        hover_text = [f"{h}<br>{v}" for h, v in zip(hover_text, values)] if hover_text \
            else values
        template = f"{query_word}: %{{customdata}}<br>%{{text}}<extra></extra>"
        marker = {"size": 5, "opacity": max(0.08, min(0.35, 400 / len(a))),
                  "color": colors.tolist(), "line": {"width": 0}}
    else:
        x, y = a, b
        template = (f"{query_word}: %{{customdata}}<br>" + ("%{text}<br>" if hover_text else "")
                    + f"{_esc(names[0])}: %{{x:.4f}}<br>{_esc(names[1])}: %{{y:.4f}}"
                    "<extra></extra>")
        marker = {"size": 8, "opacity": 0.6, "color": colors.tolist(),
                  "line": {"width": 0.5, "color": "white"}}
    fig = go.Figure()
    # thousands of points: WebGL (one canvas instead of an SVG element each), and arrays
    # that plotly takes as they are instead of checking 10,000 strings one by one
    trace = go.Scattergl if dense else go.Scatter
    if dense:  # the same three colours, as numbers on a three-step scale
        marker.update(color=np.sign(b - a), cmin=-1, cmax=1, colorscale=[
            [0, PALETTE[0]], [0.5, "#888888"], [1, PALETTE[1]]])
        hover_text = np.asarray(hover_text, dtype=object)
    fig.add_trace(trace(
        x=x, y=y, mode="markers", customdata=np.asarray(qids, dtype=object) if dense else qids,
        text=hover_text, name=_esc(t("chart.scatter_points", lang)), marker=marker,
        hovertemplate=template))
    fig.add_trace(go.Scatter(
        x=[0, 1], y=[0, 1], mode="lines", name=_esc(t("chart.scatter_diagonal", lang)),
        line={"color": "#999999", "dash": "dash", "width": 1}, hoverinfo="skip"))
    _layout(fig, lang, title if title is not None else t("chart.scatter_title", lang,
                                                          a=names[0], b=names[1]),
            # zoom, not lasso: in lasso mode a click starts a lasso and selects nothing
            # (Streamlit 1.67); in zoom mode a click selects the point under it, and dragging
            # still zooms into dense corners.
            showlegend=False, clickmode="event+select", dragmode="zoom")
    fig.update_layout(margin={"b": 95})
    x_title = t("chart.scatter_axis", lang, run=names[0], metric=label)
    y_title = t("chart.scatter_axis", lang, run=names[1], metric=label)
    fig.update_xaxes(title={"text": _esc(x_title)}, range=[-0.03, 1.03], constrain="domain")
    fig.update_yaxes(title={"text": _esc(y_title)}, range=[-0.03, 1.03], scaleanchor="x",
                     scaleratio=1)
    fig.add_annotation(text=_esc(t("chart.scatter_hint", lang, a=names[0], b=names[1])),
                       xref="paper", yref="paper", x=0, y=0, yshift=-78, showarrow=False,
                       font={"size": 11, "color": "#666666"}, xanchor="left")
    return fig


def _short(text: object, limit: int = 80) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


# -- cost -----------------------------------------------------------------------------------------
def _rows(rows: CostRows) -> list[dict]:
    if hasattr(rows, "to_dict"):  # a DataFrame
        return list(rows.to_dict("records"))
    return [dict(r) for r in rows]


def money_ticks(largest: float, currency: str = "USD", *, n: int = 5
                ) -> tuple[list[float], list[str]]:
    """Tick values from 0 to about ``largest`` at a 1-2-5 step, labelled with
    :func:`format_money` (``$0.0001``, ``¥4.58``), for a money axis: plotly's own labels
    are SI-prefixed (``100µ``), which no one reads as money."""
    top = float(largest) if largest and math.isfinite(largest) and largest > 0 else 1.0
    raw = top / max(1, n - 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    count = math.ceil(top / step - 1e-9)
    values = [round(i * step, 12) for i in range(count + 1)]
    return values, [format_money(v, currency) for v in values]


def _money_axis(fig: go.Figure, values: Sequence[float | None], currency: str,
                axis: str = "x") -> None:
    known = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    ticks, texts = money_ticks(max(known, default=0.0), currency)
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    update(tickmode="array", tickvals=ticks, ticktext=texts)


def cost_bar_figure(rows: CostRows, *, currency: str = "USD", value_key: str = "cost",
                    actual_key: str | None = None, label_keys: Sequence[str] = ("provider",
                                                                               "model"),
                    lang: str = "en", title: str | None = None,
                    text_key: str | None = None) -> go.Figure:
    """Providers side by side: one horizontal bar per row (cheapest at the top).

    ``rows``: dicts / objects / a DataFrame, each with ``label_keys`` (joined with " · ") and
    ``value_key`` (the cost in ``currency``). With ``actual_key`` a second bar shows the actual
    figure where a row has one. ``fig.data[0].x`` holds the values in row order after sorting.
    ``text_key``: each bar's label from that field (default: the value in ``currency``).
    """
    items = _rows(rows)
    items.sort(key=lambda r: (float(r.get(value_key) or 0.0),
                              " · ".join(str(r.get(k, "")) for k in label_keys)))
    labels = [" · ".join(str(r.get(k, "")) for k in label_keys if r.get(k) not in (None, ""))
              for r in items]
    values = [float(r.get(value_key) or 0.0) for r in items]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        y=[_esc(x) for x in labels], x=values, orientation="h",
        name=_esc(t("chart.estimated", lang)), marker={"color": PALETTE[0]},
        text=[str(r.get(text_key, "")) if text_key else format_money(v, currency)
              for r, v in zip(items, values)], textposition="auto",
        textangle=0, cliponaxis=False,
        hovertemplate="%{y}<br>%{text}<extra></extra>"))
    if actual_key:
        actual = [r.get(actual_key) for r in items]
        if any(v is not None for v in actual):
            fig.add_trace(go.Bar(
                y=[_esc(x) for x in labels], x=[float(v) if v is not None else None
                                                for v in actual],
                orientation="h", name=_esc(t("chart.actual", lang)),
                marker={"color": PALETTE[1]},
                text=[format_money(v, currency) if v is not None else "" for v in actual],
                textposition="auto", textangle=0, cliponaxis=False,
                hovertemplate="%{y}<br>%{text}<extra></extra>"))
    _layout(fig, lang, title if title is not None else t("chart.cost_title", lang,
                                                          currency=currency.upper()),
            barmode="group", showlegend=len(fig.data) > 1,
            height=max(260, 60 + 34 * len(items) * len(fig.data)))
    fig.update_xaxes(title={"text": _esc(t("chart.cost_y", lang, currency=currency.upper()))},
                     rangemode="tozero")
    _money_axis(fig, [*values, *(v for tr in fig.data[1:] for v in tr.x)], currency)
    # plotly draws the first category at the bottom: reversed, the cheapest row is on top
    fig.update_yaxes(title={"text": _esc(t("chart.cost_x", lang))}, automargin=True,
                     autorange="reversed")
    return fig


def cost_quality_figure(runs: CostRows, *, metric: str = "ndcg@10", currency: str = "USD",
                        cost_key: str = "cost", value_key: str = "value",
                        name_key: str = "name", id_key: str = "id", lang: str = "en",
                        title: str | None = None) -> go.Figure:
    """Cost (x) against quality (y), one labelled point per run. ``runs``: dicts / a
    DataFrame with ``name``, ``cost`` (in ``currency``), ``value`` (the metric) and ``id``;
    ``fig.data[0].customdata`` holds the ids. Runs without a cost are left out."""
    items = [r for r in _rows(runs) if r.get(cost_key) is not None
             and r.get(value_key) is not None]
    label = metric_label(metric)
    x = [float(r[cost_key]) for r in items]
    y = [float(r[value_key]) for r in items]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="markers+text", text=[_esc(_short(r.get(name_key, ""), 30))
                                             for r in items],
        # neighbours by cost take turns above and below their point, so the labels of runs
        # that cost about the same do not sit on top of each other
        textposition=_alternating(x), cliponaxis=False,
        customdata=[str(r.get(id_key, "")) for r in items],
        marker={"size": 12, "color": [PALETTE[i % len(PALETTE)] for i in range(len(items))]},
        hovertext=[f"{_esc(r.get(name_key, ''))}<br>{format_money(r[cost_key], currency)}"
                   for r in items],
        hovertemplate=f"%{{hovertext}}<br>{_esc(label)}: %{{y:.4f}}<extra></extra>",
        name=_esc(label)))
    _layout(fig, lang, title if title is not None else t("chart.cost_quality_title", lang),
            showlegend=False)
    fig.update_xaxes(title={"text": _esc(t("chart.cost_y", lang, currency=currency.upper()))},
                     rangemode="tozero")
    _money_axis(fig, x, currency)
    fig.update_yaxes(title={"text": _esc(label)}, range=[0, 1.05])
    return fig


#: a chart title's line, in columns (a wide Japanese character takes two): what a chart
#: 700 pixels wide holds in plotly's title font, beside the axis's margin
TITLE_COLUMNS = 60
#: where a title's line may end: after a space or a comma (ASCII, or the Japanese U+3001 and
#: U+FF0C, written by code point: no Japanese text lives outside the catalog)
_BREAK_AFTER = re.compile(f"(?<=[\\s,{chr(0x3001)}{chr(0xFF0C)}])")
#: the height of one line of a chart title (plotly's title font: 1.4 × 13 px)
TITLE_LINE_PX = 24


def _width(text: str) -> int:
    """Columns ``text`` takes: a wide (CJK) character two, any other one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wrapped(title: str, columns: int = TITLE_COLUMNS) -> str:
    """``title`` escaped, with ``<br>`` where it would run past ``columns``: plotly draws a
    title on one line, cut at the chart's edge. Lines break at spaces and after commas (the
    Japanese ones, U+3001 and U+FF0C, too), never inside a word."""

    pieces = [p for p in _BREAK_AFTER.split(title) if p]
    lines, line = [], ""
    for piece in pieces:
        if line and _width(line + piece.rstrip()) > columns:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    lines.append(line.rstrip())
    return "<br>".join(_esc(x) for x in lines if x)


def _alternating(x: Sequence[float]) -> list[str]:
    order = sorted(range(len(x)), key=lambda i: x[i])
    where = [""] * len(x)
    for rank, i in enumerate(order):
        where[i] = "top center" if rank % 2 == 0 else "bottom center"
    return where


def sweep_figure(sweep: WeightSweep, band: Bands | None = None, *, lang: str = "en",
                 confidence: float = 0.95) -> go.Figure:
    """The weight sweep: metric against α, the held-out half's mean with its bootstrap band
    (``band``, computed by the caller with :func:`ragdash.stats.curve_bands` over the
    held-out rows of ``sweep.values``), the tuning half's mean, and the chosen α marked.
    This function draws; it computes no statistics.

    Trace order: held-out mean, tuning mean, the band (when given), the chosen point."""
    alphas = np.asarray(sweep.alphas, dtype=float)
    label = metric_label(sweep.metric)
    fig = go.Figure()
    test, tune = sweep.test_means, sweep.tune_means
    fig.add_trace(go.Scatter(
        x=alphas, y=test, mode="lines+markers",
        name=_esc(t("sweep.test", lang, n=f"{sweep.n_test:,}")),
        line={"color": PALETTE[0], "width": 2.5}, meta={"kind": "test"},
        hovertemplate=f"α=%{{x}}<br>{_esc(label)}: %{{y:.4f}}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=alphas, y=tune, mode="lines+markers",
        name=_esc(t("sweep.tune", lang, n=f"{sweep.n_tune:,}")),
        line={"color": PALETTE[1], "width": 1.5, "dash": "dash"}, meta={"kind": "tune"},
        hovertemplate=f"α=%{{x}}<br>{_esc(label)}: %{{y:.4f}}<extra></extra>"))
    if band is not None:
        fig.add_trace(_band_trace(alphas, band.low, band.high, PALETTE[0], "test",
                                  t("sweep.band", lang, level=round(confidence * 100)),
                                  {"kind": "band"}))
    j = sweep.chosen
    fig.add_trace(go.Scatter(
        x=[alphas[j]], y=[test[j]], mode="markers+text",
        name=_esc(t("sweep.chosen", lang, alpha=f"{sweep.chosen_alpha:g}")),
        marker={"size": 13, "symbol": "star", "color": PALETTE[2]},
        text=[f"{test[j]:.4f}"], textposition="top center", meta={"kind": "chosen"},
        cliponaxis=False,  # at α = 0 or 1 the value is drawn half outside the plot
        hovertemplate=f"α=%{{x}}<br>{_esc(label)}: %{{y:.4f}}<extra></extra>"))
    a, b = sweep.names
    title = _wrapped(t("sweep.title", lang, metric=label, a=a, b=b))
    _layout(fig, lang, None, hovermode="closest")
    # Two run names make a long title, and four legend entries wrap: a legend above the plot
    # grew up into the title. The title sits above the plot in as many lines as it takes
    # (broken here: plotly does not wrap) and pushes the top margin; the legend goes below
    # the α axis, where more rows push the bottom margin.
    # (plotly anchors a title of several lines by its first line: the pad lifts the rest)
    more = title.count("<br>") * TITLE_LINE_PX
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left", "xref": "paper", "y": 1,
               "yref": "paper", "yanchor": "bottom", "pad": {"b": 12 + more}},
        margin={"t": 24 + TITLE_LINE_PX + more, "b": 40},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.12, "yref": "paper",
                "yanchor": "top"})
    fig.update_xaxes(title={"text": _esc(t("sweep.alpha_axis", lang)), "standoff": 6},
                     range=[-0.03, 1.03], tickvals=list(alphas),
                     ticktext=[f"{x:g}" for x in alphas])
    fig.update_yaxes(title={"text": _esc(label)}, rangemode="tozero")
    return fig


# -- the decision view ---------------------------------------------------------------------------
#: a log x axis when the drawn values span more than this ratio (two decades)
FRONTIER_LOG_RATIO = 100.0
_X_FORMAT = {"index-cost": {"tickformat": "$.2~g"}, "query-cost": {"tickformat": "$.2~g"},
             "memory": {"tickformat": ".3~s", "ticksuffix": "B"},
             "latency": {"tickformat": ".3~g", "ticksuffix": " ms"}}


def _config_text(config: Mapping[str, object], limit: int = 14) -> str:
    """The run's whole config as hover lines (escaped), nested parts flattened one level."""
    lines = []
    for key, value in config.items():
        if key == "parent_config" or value in (None, "", [], {}):
            continue
        if isinstance(value, Mapping):
            value = ", ".join(f"{k}={v}" for k, v in value.items() if v not in (None, ""))
        lines.append(f"{_esc(key)}: {_esc(_short(value, 70))}")
    if len(lines) > limit:
        lines = [*lines[:limit], "…"]
    return "<br>".join(lines)


def frontier_figure(frontier: Frontier, *, lang: str = "en",
                    log_x: bool | None = None) -> go.Figure:
    """The frontier: one point per run with x known — y the metric's mean with its interval as
    error bars, filled when not distinguishable from the best, open when worse; the
    Pareto-optimal points joined by a line; the best and the recommended run labelled. A log
    x axis when the positive values span more than two decades (``log_x`` forces it; zero
    values are then drawn at the smallest positive one's tenth, their hover saying 0).
    This function draws; the statistics come from :func:`ragdash.stats.build_frontier`.

    Traces: the Pareto line (``meta.kind == "pareto"``), then the points
    (``meta.kind == "points"``, ``customdata`` = [run id, run name]).
    """
    axis = frontier.x_axis
    drawn = [p for p in frontier.points if p.x is not None]
    xs = [float(p.x) for p in drawn]
    positive = [x for x in xs if x > 0]
    if log_x is None:
        log_x = len(positive) >= 2 and max(positive) / min(positive) > FRONTIER_LOG_RATIO
    floor = (min(positive) / 10 if positive else 1.0) if log_x else 0.0
    plot_x = [x if (x > 0 or not log_x) else floor for x in xs]
    recommended = frontier.recommended
    fig = go.Figure()
    pareto = sorted((px, p.y) for px, p in zip(plot_x, drawn) if p.pareto)
    fig.add_trace(go.Scatter(
        x=[a for a, _ in pareto], y=[b for _, b in pareto], mode="lines",
        line={"color": PALETTE[0], "width": 2, "shape": "hv"}, name=_esc(t("fr.pareto", lang)),
        hoverinfo="skip", meta={"kind": "pareto"}))

    def label(p: FrontierPoint) -> str:
        if p.best:
            return _esc(t("fr.best", lang))
        if recommended is not None and p.name == recommended.name:
            return _esc(t("fr.recommended", lang))
        return ""

    symbols = ["star" if p.best else "circle" if p.indistinguishable_from_best
               else "circle-open" for p in drawn]
    colors = [PALETTE[1] if p.best else PALETTE[2] if p.indistinguishable_from_best
              else PALETTE[6] for p in drawn]
    hover = []
    for x, p in zip(xs, drawn):
        verdict = (t("fr.best", lang) if p.best else t("fr.same", lang)
                   if p.indistinguishable_from_best else t("fr.worse", lang))
        p_text = "" if p.p_vs_best is None else f" (p = {p.p_vs_best:.3g})"
        hover.append(f"<b>{_esc(_short(p.name, 80))}</b><br>"
                     f"{_esc(frontier.metric_label)}: {p.y:.4f} "
                     f"[{p.ci_low:.4f}, {p.ci_high:.4f}]<br>"
                     f"{_esc(t(NOUN_KEYS[axis], lang))}: {_esc(format_x(axis, x))}<br>"
                     f"{_esc(verdict)}{_esc(p_text)}<br>{_config_text(p.config)}")
    fig.add_trace(go.Scatter(
        x=plot_x, y=[p.y for p in drawn], mode="markers+text",
        text=[label(p) for p in drawn],
        textposition=["top center" if p.best else "bottom center" for p in drawn],
        error_y={"type": "data", "symmetric": False,
                 "array": [p.ci_high - p.y for p in drawn],
                 "arrayminus": [p.y - p.ci_low for p in drawn],
                 "color": "rgba(0,0,0,0.25)", "thickness": 1.2, "width": 3},
        marker={"size": [16 if p.best else 12 for p in drawn], "symbol": symbols,
                "color": colors, "line": {"width": 1.5, "color": colors}},
        customdata=[[p.run_id or "", p.name] for p in drawn], hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>", name=_esc(frontier.metric_label),
        showlegend=False, meta={"kind": "points"}))
    title = t("fr.title", lang, metric=frontier.metric_label,
              x=t(NOUN_KEYS[axis], lang))
    _layout(fig, lang, title, hovermode="closest")
    projected = next((p.operating.project_to for p in drawn
                      if p.operating.project_to is not None), None)
    x_title = (t("fr.axis.memory_projected", lang, n=f"{projected:,}")
               if axis == "memory" and projected else t(AXIS_KEYS[axis], lang))
    # log: one labelled tick per decade (plotly's default labels every digit, unreadable)
    fig.update_xaxes(title={"text": _esc(x_title)}, type="log" if log_x else "linear",
                     **({"dtick": 1} if log_x else {}), **_X_FORMAT[axis],
                     **_frontier_x_range(plot_x, log_x))
    fig.update_yaxes(title={"text": _esc(frontier.metric_label)},
                     range=_frontier_y_range(drawn or frontier.points))
    return fig


#: room around the frontier's points, as a share of the span they cover: a marker, its
#: interval and its label ("Best", 最良) drawn at an end stay inside the plot
_FRONTIER_PAD = 0.12


def _frontier_x_range(xs: list[float], log_x: bool) -> dict:
    """The x range with room on both sides of the outermost points. Every point at one x
    (every run free: all at $0) puts them in the middle, with one tick there."""
    if not xs:
        return {}
    if log_x:
        lo, hi = math.log10(min(xs)), math.log10(max(xs))
        pad = _FRONTIER_PAD * (hi - lo) or 0.5
        return {"range": [lo - pad, hi + pad]}
    lo, hi = min(xs), max(xs)
    if hi == lo:
        half = abs(hi) / 2 or 1.0
        return {"range": [lo - half, hi + half], "tickvals": [lo]}
    pad = _FRONTIER_PAD * (hi - lo)
    return {"range": [lo - pad, hi + pad]}


def _frontier_y_range(points) -> list[float]:
    """From 0 (or below the lowest interval) to above the highest interval, with room for the
    label drawn above the best point."""
    top = max([p.ci_high for p in points] + [p.y for p in points] + [0.0])
    bottom = min([p.ci_low for p in points] + [0.0])
    pad = _FRONTIER_PAD * ((top - bottom) or 1.0)
    return [bottom - pad if bottom < pad else 0.0, top + 1.5 * pad]
