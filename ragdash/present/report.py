"""One standalone HTML report: opens offline, in English or Japanese, safe to share.

:func:`build_report` returns the HTML of a list of :class:`ragdash.run.Run` as a string. Each
section is built by a small function (``_dataset_section``, ``_runs_section``, ...) into
plain data — headings, paragraphs, tables of cells, charts — and the Jinja2 template
``templates/report.html.j2`` draws them, with ``templates/report.css`` inlined. Both ship as
package data.

The file holds everything it needs: plotly.js is inlined once (``<script>`` in the head) and
every chart is a ``<div>`` plus a small script; there is no external URL to fetch — no CDN, no
web fonts (a system font stack with Japanese fonts is named instead). The template escapes
every value (autoescaping on): dataset and run names, configuration values, query and
document texts can hold any markup and are shown as text; only the stylesheet, plotly.js and
plotly's chart divs (JSON with ``<``, ``>`` and ``/`` escaped by plotly) are inserted as
they are. API keys never appear: the configuration is scrubbed again here
(:func:`ragdash.secrets.scrub_secrets`), and strings passed as ``secrets`` are masked anywhere in
the output.

With ``include_text=False`` the report holds ids only — no query or document text — for
sharing outside the team.

Sections: title; dataset (name, sizes, fingerprint); runs and their configuration; curves
across K (with bootstrap bands from :func:`ragdash.stats.table_bands`); the summary table at
:data:`ragdash.metrics.DEFAULT_KS`; the worst queries of each run; the comparison (with two or
more runs: the significance table and verdict sentences of
:func:`ragdash.stats.compare_tables`, the queries where the runs disagree most, the per-query
scatter); the cost in USD and JPY (an estimate given by the caller, and each run's usage).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, ClassVar

import jinja2
import pandas as pd
from markupsafe import Markup

from .. import __version__
from ..cost import actual_cost, format_money
from ..dataset import synthetic_note
from ..errors import RagdashError
from ..i18n import isolate, message, normalize_lang, t
from ..judgments.coverage import caveat, coverage_k_of, labels_said
from ..metrics import DEFAULT_KS, family, metric_label, parse_metric
from ..retrieval.own.retriever import own_notes
from ..run import distinct_rankings, merged_notes
from ..secrets import scrub_secrets
from ..stats import Frontier, build_frontier, compare_tables, table_bands
from ..stats.verdict import format_p
from .charts import (
    PLOTLY_CONFIG,
    cost_bar_figure,
    curve_figure,
    frontier_figure,
    scatter_figure,
)
from .tables import disagreement, drilldown, per_query_frame, summary_frame

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from ..cost import CostEstimate
    from ..dataset import Dataset
    from ..metrics import MetricTable
    from ..run import Run
    from ..stats import Comparison

__all__ = ["ReportCost", "build_report"]

#: the currencies every money figure is shown in, as on the Cost page
CURRENCIES = ("USD", "JPY")
#: retrievers that cost nothing to run
_FREE = frozenset({"bm25", "trec", "local"})


# -- what the template draws ----------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One table cell: plain text (escaped by the template), a CSS class (``num``: right
    aligned figures, ``text``: a long text), shown in monospace (ids) or bold (the best)."""

    text: str = ""
    cls: str = ""
    mono: bool = False
    strong: bool = False


def _num_cell(x: object, digits: int = 4, *, strong: bool = False) -> Cell:
    return Cell(_num(x, digits), "num", strong=strong)


def _id_cell(x: object) -> Cell:
    return Cell(str(x), mono=True)


@dataclass(frozen=True)
class Heading:
    text: str
    kind: ClassVar[str] = "heading"


@dataclass(frozen=True)
class Para:
    """A paragraph; ``cls``: ``""``, ``"muted"``, ``"note"`` (a caveat) or ``"verdict"``."""

    text: str
    cls: str = ""
    kind: ClassVar[str] = "para"


@dataclass(frozen=True)
class Table:
    head: list[str]
    rows: list[list[Cell]]
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class KeyValues:
    rows: list[tuple[str, Cell]]
    kind: ClassVar[str] = "key_values"


@dataclass(frozen=True)
class ConfigList:
    items: list[tuple[str, str]]
    kind: ClassVar[str] = "config"


@dataclass(frozen=True)
class Chart:
    html: Markup  # plotly's div and script, trusted
    kind: ClassVar[str] = "chart"


@dataclass(frozen=True)
class Details:
    """A folded drill-down: the query in the summary line, then tables."""

    query_id: str
    query_text: str
    tail: str
    tables: list[Table]
    kind: ClassVar[str] = "details"


Block = Heading | Para | Table | KeyValues | ConfigList | Chart | Details


@dataclass
class Section:
    anchor: str
    heading: str
    blocks: list[Block] = field(default_factory=list)


# -- inputs ---------------------------------------------------------------------------------------
@dataclass
class ReportCost:
    """The cost section's estimate; build it with :meth:`from_estimate` from a
    :class:`ragdash.cost.CostEstimate`, or by hand.

    ``rows``: one dict per provider / model with ``provider``, ``model``, ``usd`` and ``jpy``
    (the cost of one evaluation). Tables show both currencies; the chart is drawn in
    ``currency`` ("USD" or "JPY").
    """

    tokens: int | None = None
    method: str | None = None
    currency: str = "USD"
    rows: list[dict] = field(default_factory=list)

    @classmethod
    def from_estimate(cls, estimate: CostEstimate, currency: str = "USD") -> ReportCost:
        """From :func:`ragdash.cost.estimate_evaluation`'s result: its token count and
        method, and every provider's price for those tokens (``per_provider``)."""
        rows = [{"provider": p.provider, "model": p.model, "usd": p.usd, "jpy": p.jpy}
                for p in estimate.per_provider]
        return cls(tokens=int(estimate.tokens), method=estimate.token_method,
                   currency=_currency(currency), rows=rows)


def _currency(code: str) -> str:
    code = str(code).upper()
    if code not in CURRENCIES:
        raise ValueError(f'currency "{code}": use USD or JPY')
    return code


@dataclass
class _Entry:
    """A run as the report shows it: under a name no other run in the report has."""

    name: str
    run: Run
    table: MetricTable


@dataclass
class _Report:
    """Everything the section builders share."""

    entries: list[_Entry]
    dataset: Dataset | None
    lang: str
    include_text: bool
    metric: str  # the per-query metric, cut to the runs' Kmax
    kmax: int
    secrets: tuple[str, ...]
    n_resamples: int
    drop_no_relevant: bool
    figures: _FigureWriter
    #: runs left out because they rank exactly as a shown one ({shown name: [names]})
    merged: dict[str, list[str]] = field(default_factory=dict)
    #: every run given, twins included (the frontier chooses which twin is its point)
    all_entries: list[_Entry] = field(default_factory=list)

    @property
    def tables(self) -> dict[str, MetricTable]:
        return {e.name: e.table for e in self.entries}

    def t(self, key: str, **kwargs: object) -> str:
        return t(key, self.lang, **kwargs)


def build_report(runs: Sequence[Run], *, dataset: Dataset | None = None, lang: str = "en",
                 include_text: bool = True, title: str | None = None,
                 ks: Sequence[int] = DEFAULT_KS, families: Sequence[str] | None = None,
                 curve_families: Sequence[str] = ("ndcg", "recall", "mrr"),
                 metric: str = "ndcg@10", n_worst: int = 10, n_drilldowns: int = 3,
                 n_disagree: int = 15, bands: bool = True, compare: bool = True,
                 cost: ReportCost | None = None, drop_no_relevant: bool = False,
                 secrets: Iterable[str] = (), generated_at: dt.datetime | str | None = None,
                 n_resamples: int = 2000, frontier_x: str | None = "auto",
                 project_to: int | None = None, frontier: Frontier | None = None,
                 table_of: Callable[[Run], MetricTable] | None = None) -> str:
    """The HTML report for ``runs``.

    ``dataset``: the Dataset the runs were made on (default: the first run's).
    ``metric``: the per-query metric for the worst queries, the comparison and the scatter
    (cut to the runs' Kmax). ``n_drilldowns``: how many of each run's worst queries get a
    folded drill-down (relevant documents and where they landed, the top K).
    ``bands``: bootstrap bands around the curves. ``secrets``: strings (an API key) masked
    wherever they would appear. ``frontier_x``: the x axis of the "quality against cost"
    section (``"index-cost"``, ``"query-cost"``, ``"memory"``, ``"latency"``; ``"auto"``:
    memory when every run knows its index size, else indexing cost; None: no such section).
    ``frontier``: the frontier as a page built it (its metric, axis, projection and names),
    so the report says what the page said; it replaces ``frontier_x`` and ``project_to``.
    ``table_of``: each run's metric table when not its own — on the labels the page shows
    (human + filled judgment sets, condensed lists); the report says which labels it shows.
    """
    if not runs:
        raise ValueError("a report needs at least one run")
    every = _entries(runs, table_of)
    keep, same = distinct_rankings(runs)  # a ranking saved twice is one run, not two
    merged = {every[k].name: [every[i].name for i in others] for k, others in same.items()}
    entries = [every[i] for i in keep]
    kmax = min(e.table.kmax for e in entries)
    rep = _Report(entries=entries, dataset=dataset if dataset is not None else runs[0].dataset,
                  lang=normalize_lang(lang), include_text=include_text,
                  metric=_clip(metric, kmax), kmax=kmax,
                  secrets=tuple(s for s in secrets if s), n_resamples=n_resamples,
                  drop_no_relevant=drop_no_relevant, figures=_FigureWriter(),
                  merged=merged, all_entries=every)
    sections = [
        _dataset_section(rep),
        _runs_section(rep),
        _curves_section(rep, curve_families, bands),
        _summary_section(rep, ks, families),
        _worst_section(rep, n_worst, n_drilldowns),
        _comparison_section(rep, n_disagree, enabled=compare),
        _frontier_section(rep, frontier_x, project_to, frontier),
        _cost_section(rep, cost),
    ]
    page = _render(rep, [s for s in sections if s is not None], title, generated_at)
    for s in rep.secrets:
        page = page.replace(s, "***").replace(html.escape(s), "***")
    return page


def _entries(runs: Sequence[Run], table_of=None) -> list[_Entry]:
    """Each run under a unique name (a repeated name gets " (2)", " (3)", ...)."""
    seen: dict[str, int] = {}
    out = []
    for run in runs:
        name = run.name or run.retriever or "run"
        n = seen.get(name, 0)
        seen[name] = n + 1
        # isolated: a name with a right-to-left override must not reverse the report's words
        out.append(_Entry(name=isolate(f"{name} ({n + 1})" if n else name), run=run,
                          table=run.table() if table_of is None else table_of(run)))
    return out


# -- the page -------------------------------------------------------------------------------------
@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("ragdash.present", "templates"),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True)


def stylesheet() -> str:
    """The report's CSS (package data beside the template), as it is inlined."""
    return _environment().loader.get_source(_environment(), "report.css")[0]


def _render(rep: _Report, sections: list[Section], title: str | None,
            generated_at: dt.datetime | str | None) -> str:
    notes = [] if rep.include_text else [rep.t("report.texts_omitted")]
    return _environment().get_template("report.html.j2").render(
        lang=rep.lang, title=title or rep.t("report.title"), css=Markup(stylesheet()),
        plotly_js=rep.figures.library(), notes=notes, sections=sections,
        generated=rep.t("report.generated", when=_when(generated_at), version=__version__),
        offline=rep.t("report.offline"), contents=rep.t("report.contents"),
        footer=rep.t("report.footer"))


class _FigureWriter:
    """Inline plotly.js once; each figure becomes a div and a newPlot call."""

    def __init__(self) -> None:
        self.count = 0

    def add(self, fig: go.Figure) -> Chart:
        self.count += 1
        div = fig.to_html(full_html=False, include_plotlyjs=False, config=PLOTLY_CONFIG,
                          div_id=f"chart-{self.count}", default_height="460px")
        return Chart(Markup(div))

    def library(self) -> Markup | None:
        if not self.count:
            return None
        from plotly.offline import get_plotlyjs

        return Markup(get_plotlyjs().replace("</script", "<\\/script"))


# -- sections -------------------------------------------------------------------------------------
def _dataset_section(rep: _Report) -> Section | None:
    ds = rep.dataset
    if ds is None:
        return None
    sizes = ds.sizes()
    rows = [(rep.t("report.dataset_name"), Cell(ds.name))]
    rows += [(rep.t(label), Cell(f"{sizes[size]:,}"))
             for size, label in (("documents", "report.documents"), ("queries", "report.queries"),
                                 ("queries_with_qrels", "report.queries_with_qrels"),
                                 ("judgements", "report.judgements"))]
    synthetic = synthetic_note(ds)
    if synthetic is not None:  # a generated set says so wherever its metrics are shown
        rows.append((rep.t("report.synthetic"), Cell(message(synthetic, rep.lang), strong=True)))
    rows.append((rep.t("report.fingerprint"), _id_cell(ds.fingerprint())))
    shown = rep.entries[0].table
    rows.append((rep.t("judgments.report.labels"),
                 Cell(message(labels_said(shown.labels, shown.judged_only), rep.lang))))
    return Section("dataset", rep.t("report.dataset"), [KeyValues(rows)])


def _runs_section(rep: _Report) -> Section:
    head = [rep.t(k) for k in ("report.run", "report.retriever", "report.model", "report.created",
                               "report.n_queries", "report.kmax", "report.seconds")]
    rows = [[Cell(e.name), Cell(e.run.retriever), Cell(e.run.model or "—"),
             Cell(e.run.created_at or "—"), Cell(f"{len(e.table):,}", "num"),
             Cell(str(e.table.kmax), "num"), _num_cell(e.run.seconds, 1)]
            for e in rep.entries]
    blocks: list[Block] = [Table(head, rows)]
    for e in rep.entries:
        config = scrub_secrets(e.run.config, rep.secrets)
        if config:
            blocks += [Heading(f"{e.name} — {rep.t('report.settings')}"), _config_list(config)]
    blocks += [Para(note) for note in merged_notes(rep.merged, rep.lang)]
    for e in rep.entries:  # a team's own search: its latency, mapping and failures
        said = own_notes(e.run.resources, rep.lang)
        if said:
            blocks += [Heading(f"{e.name} — {rep.t('ownsearch.report_heading')}"),
                       *(Para(s) for s in said)]
    blocks.append(Para(rep.t("report.no_key"), "muted"))
    return Section("runs", rep.t("report.runs"), blocks)


def _config_list(config: Mapping[str, object]) -> ConfigList:
    return ConfigList([(str(k), v if isinstance(v, str) else
                        json.dumps(v, ensure_ascii=False, sort_keys=True))
                       for k, v in config.items()])


def _curves_section(rep: _Report, curve_families: Sequence[str], bands: bool) -> Section:
    blocks: list[Block] = []
    first = rep.entries[0].table
    n_empty = int(first.no_relevant.sum())
    if n_empty:
        blocks.append(Para(rep.t("report.no_relevant", n=f"{n_empty:,}",
                                      total=f"{len(first):,}"), "note"))
    tables = rep.tables
    for fam in dict.fromkeys(family(f).name for f in curve_families):
        if not all(fam in tb.values for tb in tables.values()):
            continue
        band = table_bands(tables, fam, drop_no_relevant=rep.drop_no_relevant,
                           n_resamples=rep.n_resamples) if bands else None
        blocks.append(rep.figures.add(curve_figure(
            tables, fam, bands=band, lang=rep.lang, drop_no_relevant=rep.drop_no_relevant)))
    return Section("curves", rep.t("report.curves"), blocks)


def _summary_section(rep: _Report, ks: Sequence[int],
                     families: Sequence[str] | None) -> Section:
    ks_used = [k for k in ks if 1 <= k <= rep.kmax] or [rep.kmax]
    frame = summary_frame(rep.tables, ks_used, families, drop_no_relevant=rep.drop_no_relevant)
    blocks: list[Block] = []
    warn = _coverage_caveat(rep)
    if warn is not None:  # read before any number: how thinly the top K is judged
        blocks.append(Para(message(warn, rep.lang), "note"))
    for fam in dict.fromkeys(c.split("@")[0] for c in frame.columns):
        blocks += [Heading(metric_label(fam)), _summary_table(rep, frame, fam, ks_used)]
    heading = rep.t("report.summary", ks=", ".join(map(str, ks_used)))
    return Section("summary", heading, blocks)


def _coverage_caveat(rep: _Report):
    """The coverage sentence over every run, at the K of the report's metric."""
    k = coverage_k_of(rep.metric, rep.kmax)
    first = rep.entries[0].table
    return caveat({e.name: e.table.mean(f"judged@{k}") for e in rep.entries}, k=k,
                  metric=metric_label(rep.metric), judged_only=first.judged_only)


def _summary_table(rep: _Report, frame: pd.DataFrame, fam: str, ks: Sequence[int]) -> Table:
    """One family's means, run by run; with several runs the best at each K in bold."""
    best = [max(frame[f"{fam}@{k}"].dropna(), default=None) for k in ks]
    rows = []
    for run_name, row in frame.iterrows():
        values = [row[f"{fam}@{k}"] for k in ks]
        rows.append([Cell(str(run_name))] + [
            _num_cell(v, strong=len(frame) > 1 and b is not None and v == b)
            for v, b in zip(values, best)])
    return Table([rep.t("report.run")] + [f"@{k}" for k in ks], rows)


def _worst_section(rep: _Report, n_worst: int, n_drilldowns: int) -> Section:
    blocks: list[Block] = []
    if rep.dataset is not None:
        for e in rep.entries:
            blocks += _worst_queries(rep, e, n_worst, n_drilldowns)
    return Section("worst", rep.t("report.worst"), blocks)


def _worst_queries(rep: _Report, e: _Entry, n_worst: int, n_drilldowns: int) -> list[Block]:
    """The run's ``n_worst`` lowest queries on the report's metric, and drill-downs of the
    first ``n_drilldowns`` of them that have a relevant document."""
    metric, text = rep.metric, rep.include_text
    worst = per_query_frame(e.table, rep.dataset, e.run.ranking, [metric],
                            include_text=text).head(n_worst).to_dict("records")
    head = [rep.t("col.query_id"), *([rep.t("col.query")] if text else []),
            rep.t("col.n_relevant"), rep.t("col.first_relevant_rank"), metric_label(metric)]
    rows = []
    for rec in worst:
        first = rec["first_relevant_rank"]
        rows.append([_id_cell(rec["query_id"]),
                     *([Cell(rec.get("query", ""), "text")] if text else []),
                     Cell(str(rec["n_relevant"]), "num"),
                     Cell(rep.t("views.not_retrieved") if _is_na(first) else str(int(first)),
                          "num"),
                     _num_cell(rec[metric])])
    caption = rep.t("report.worst_for", run=e.name, n=len(worst), metric=metric_label(metric))
    shown = [rec for rec in worst if not rec["no_relevant"]][:n_drilldowns]
    return [Heading(caption), Table(head, rows), *(_drilldown(rep, e, rec) for rec in shown)]


def _drilldown(rep: _Report, e: _Entry, rec: Mapping[str, object]) -> Details:
    """Where one query's relevant documents landed, and what its top K held."""
    metric, text = rep.metric, rep.include_text
    k = parse_metric(metric)[1] or e.table.kmax
    d = drilldown(rep.dataset, e.run.ranking, rep.dataset.qrels, rec["query_id"], k,
                  relevance_level=e.table.relevance_level, include_text=text, lang=rep.lang)
    text_cols = [rep.t("col.title"), rep.t("col.snippet")] if text else []

    def texts(x: Mapping[str, object]) -> list[Cell]:
        return [Cell(x["title"]), Cell(x["snippet"], "text")] if text else []

    relevant = Table(
        [rep.t("col.doc_id"), *text_cols, rep.t("col.grade"), rep.t("col.rank_got")],
        [[_id_cell(x["doc_id"]), *texts(x), _num_cell(x["grade"], 1),
          Cell(x["rank_label"], "num")] for x in d.relevant.to_dict("records")])
    top = Table(
        [rep.t("col.rank"), rep.t("col.doc_id"), *text_cols, rep.t("col.score"),
         rep.t("col.grade"), rep.t("col.relevant")],
        [[Cell(str(x["rank"]), "num"), _id_cell(x["doc_id"]), *texts(x),
          _num_cell(x["score"]),
          Cell("" if math.isnan(x["grade"]) else _num(x["grade"], 1), "num"),
          Cell("✓" if x["relevant"] else "")] for x in d.top.to_dict("records")])
    return Details(query_id=d.query_id, query_text=d.query_text if text else "",
                   tail=f"{metric_label(metric)} {_num(rec[metric])}", tables=[relevant, top])


def _comparison_section(rep: _Report, n_disagree: int, *, enabled: bool) -> Section:
    heading = rep.t("report.comparison")
    if len(rep.entries) < 2 or not enabled:
        return Section("comparison", heading, [Para(rep.t("report.comparison_needs_two"),
                                                    "muted")])
    try:
        cmp = compare_tables(rep.tables, rep.metric, n_resamples=rep.n_resamples)
    except RagdashError as exc:
        reason = rep.t("report.comparison_unavailable", reason=str(exc))
        return Section("comparison", heading, [Para(reason, "note")])
    a, b = rep.entries[0], rep.entries[1]
    return Section("comparison", heading, [*_significance(rep, cmp),
                                           *_disagreement(rep, a, b, n_disagree),
                                           _pair_scatter(rep, a, b)])


def _significance(rep: _Report, cmp: Comparison) -> list[Block]:
    """Each run's mean with its interval, every pair's difference, test and verdict."""
    conf = round(cmp.confidence * 100)
    ci = rep.t("report.ci", level=conf)
    means = Table([rep.t("report.run"), rep.t("report.mean"), ci],
                  [[Cell(r.name), _num_cell(r.mean),
                    Cell(f"{_num(r.ci_low)} – {_num(r.ci_high)}", "num")] for r in cmp.runs])
    pairs = Table(
        ["A", "B", rep.t("report.diff"), ci, rep.t("report.p_holm"),
         rep.t("report.wins_ties_losses")],
        [[Cell(p.a), Cell(p.b), Cell(f"{p.diff:+.4f}", "num"),
          Cell(f"{p.ci_low:+.4f} – {p.ci_high:+.4f}", "num"),
          Cell(format_p(p.p_holm, alpha=cmp.alpha), "num"),
          Cell(f"{p.wins} / {p.ties} / {p.losses}", "num")] for p in cmp.pairs])
    heading = f"{metric_label(rep.metric)} — {rep.t('report.n_queries')}: {cmp.n_queries:,}"
    return [Heading(heading), means, pairs,
            *(Para(v, "verdict") for v in cmp.verdicts(rep.lang)),
            *(Para(message(n, rep.lang), "muted") for n in cmp.notes)]


def _disagreement(rep: _Report, a: _Entry, b: _Entry, n: int) -> list[Block]:
    """The queries where the first two runs differ most."""
    dis = disagreement(a.table, b.table, rep.metric, n=n, dataset=rep.dataset,
                       include_text=rep.include_text, names=(a.name, b.name))
    with_text = "query" in dis
    head = [rep.t("col.query_id"), *([rep.t("col.query")] if with_text else []),
            a.name, b.name, rep.t("col.delta"), rep.t("col.winner")]
    rows = [[_id_cell(r["query_id"]), *([Cell(r["query"], "text")] if with_text else []),
             _num_cell(r["a"]), _num_cell(r["b"]), Cell(f"{r['delta']:+.4f}", "num"),
             Cell(r["winner"])] for r in dis.to_dict("records")]
    heading = rep.t("report.disagreement", a=a.name, b=b.name, metric=metric_label(rep.metric))
    return [Heading(heading), Table(head, rows)]


def _pair_scatter(rep: _Report, a: _Entry, b: _Entry) -> Chart:
    """Run A against run B, one point per query both have."""
    pa = {q: i for i, q in enumerate(a.table.query_ids)}
    pb = {q: i for i, q in enumerate(b.table.query_ids)}
    common = [q for q in a.table.query_ids if q in pb]
    va, vb = a.table.value(rep.metric), b.table.value(rep.metric)
    texts = None
    if rep.include_text and rep.dataset is not None:
        texts = [(rep.dataset.query(q).text if rep.dataset.query(q) else "") for q in common]
    return rep.figures.add(scatter_figure(
        [va[pa[q]] for q in common], [vb[pb[q]] for q in common], common, texts,
        metric=rep.metric, names=(a.name, b.name), lang=rep.lang))


def _frontier_section(rep: _Report, axis: str | None, project_to: int | None,
                      given: Frontier | None = None) -> Section | None:
    """Quality against cost, memory or latency, with the recommendation sentence (two or
    more runs of one dataset); ``given``: the frontier a page showed, as it showed it."""
    if given is not None:
        return _frontier_blocks(rep, given)
    if axis is None or len(rep.entries) < 2:
        return None
    every = rep.all_entries or rep.entries  # the frontier picks who stands for a twin
    runs = [e.run for e in every]
    if axis == "auto":
        axis = ("memory" if all(r.resources.get("index_bytes") is not None for r in runs)
                else "index-cost")
    heading = rep.t("report.frontier")
    try:
        frontier = build_frontier(runs, metric=rep.metric, x=axis,
                                  tables=[e.table for e in every],
                                  names=[e.name for e in every], project_to=project_to,
                                  drop_no_relevant=rep.drop_no_relevant,
                                  n_resamples=rep.n_resamples)
    except RagdashError as exc:
        return Section("frontier", heading, [Para(message(exc, rep.lang), "note")])
    return _frontier_blocks(rep, frontier)


def _frontier_blocks(rep: _Report, frontier: Frontier) -> Section:
    heading = rep.t("report.frontier")
    notes = sorted({n for p in frontier.points for n in p.operating.notes})
    return Section("frontier", heading, [
        Para(frontier.recommendation(rep.lang), "verdict"),
        rep.figures.add(frontier_figure(frontier, lang=rep.lang)),
        # a twin the frontier drew as another run than the runs section did
        *(Para(note, "muted") for note in frontier.merged_notes(rep.lang)
          if note not in merged_notes(rep.merged, rep.lang)),
        *(Para(message(n, rep.lang), "muted") for n in notes)])


def _cost_section(rep: _Report, cost: ReportCost | None) -> Section:
    blocks: list[Block] = []
    if cost is not None and (cost.rows or cost.tokens):
        blocks += _cost_estimate(rep, cost)
    blocks += _cost_actual(rep)
    if not blocks:
        blocks.append(Para(rep.t("report.cost_none"), "muted"))
    return Section("cost", rep.t("report.cost"), blocks)


def _money_heads(rep: _Report, key: str) -> list[str]:
    return [rep.t(key, currency=c) for c in CURRENCIES]


def _money_cells(figures: Mapping[str, float | None]) -> list[Cell]:
    return [Cell(format_money(figures.get(c.lower()), c), "num") for c in CURRENCIES]


def _cost_estimate(rep: _Report, cost: ReportCost) -> list[Block]:
    """Tokens of one evaluation and every provider's price for them, in USD and JPY, and
    a bar chart in the report's chart currency."""
    blocks: list[Block] = [Heading(rep.t("report.cost_estimate"))]
    if cost.tokens is not None:
        line = f"{rep.t('report.tokens')}: {int(cost.tokens):,}"
        if cost.method:
            line += f" · {rep.t('report.token_method', method=cost.method)}"
        blocks.append(Para(line))
    if cost.rows:
        rows = sorted(cost.rows, key=lambda r: float(r.get("usd") or 0))
        blocks.append(Table(
            [rep.t("chart.cost_x"), *_money_heads(rep, "chart.cost_y")],
            [[Cell(" · ".join(str(r[k]) for k in ("provider", "model") if r.get(k))),
              *_money_cells(r)] for r in rows]))
        currency = _currency(cost.currency)
        # the bars in the report's currency, each labelled in both (like the table)
        bars = [{**r, "cost": r.get(currency.lower()),
                 "both": " · ".join(format_money(r.get(c.lower()), c) for c in CURRENCIES)}
                for r in rows]
        blocks.append(rep.figures.add(cost_bar_figure(bars, currency=currency,
                                                      lang=rep.lang, text_key="both")))
    return blocks


def _cost_actual(rep: _Report) -> list[Block]:
    """Each run's API usage, with its estimated and actual cost in USD and JPY."""
    with_usage = [e for e in rep.entries if e.run.usage or e.run.cost]
    if not with_usage:
        return []
    head = [rep.t("report.run"), rep.t("report.requests"), rep.t("report.tokens"),
            *_money_heads(rep, "report.estimated_in"), *_money_heads(rep, "report.actual_in")]
    rows = []
    for e in with_usage:
        estimated, actual = _run_costs(e.run)
        rows.append([Cell(e.name), Cell(str(e.run.usage.get("requests", "—")), "num"),
                     Cell(_int(e.run.usage.get("prompt_tokens")), "num"),
                     *_money_cells(estimated), *_money_cells(actual)])
    return [Heading(rep.t("report.cost_actual")), Table(head, rows)]


def _run_costs(run: Run) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """(estimated, actual), each ``{"usd": ..., "jpy": ...}``: the estimate saved with the
    run; the actual figure saved with it, else priced from the API's usage with
    :func:`ragdash.cost.actual_cost` (free retrievers cost 0; unknown models give None)."""
    saved = dict(run.cost or {})
    estimated = {c: _float(saved.get(f"estimated_{c}")) for c in ("usd", "jpy")}
    actual = {c: _float(saved.get(f"actual_{c}")) for c in ("usd", "jpy")}
    if run.retriever in _FREE:
        actual = {c: 0.0 if v is None else v for c, v in actual.items()}
    if None in actual.values() and run.usage.get("prompt_tokens") is not None:
        try:
            figure = actual_cost(run.usage, model=saved.get("model") or run.model,
                                 provider=saved.get("provider"))
        except RagdashError:
            return estimated, actual
        priced = {"usd": figure.usd, "jpy": figure.jpy}
        actual = {c: priced[c] if v is None else v for c, v in actual.items()}
    return estimated, actual


# -- small formatting helpers --------------------------------------------------------------------
def _num(x: object, digits: int = 4) -> str:
    if x is None:
        return "—"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not math.isfinite(v):
        return "—"
    return f"{v:.{digits}f}"


def _float(x: object) -> float | None:
    return None if x is None else float(x)


def _int(x: object) -> str:
    try:
        return f"{int(x):,}"
    except (TypeError, ValueError):
        return "—"


def _clip(metric: str, kmax: int) -> str:
    fam, k = parse_metric(metric)
    return f"{fam}@{min(k or kmax, kmax)}"


def _is_na(x: object) -> bool:
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def _when(value: dt.datetime | str | None) -> str:
    if value is None:
        value = dt.datetime.now(dt.UTC)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return str(value)
