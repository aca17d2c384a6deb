"""One standalone HTML report: opens offline, in English or Japanese, safe to share.

:func:`build_report` returns the HTML as a string. The file holds everything it needs:
plotly.js is inlined once (``<script>`` in the head) and every chart is a ``<div>`` plus a
small script; there is no external URL to fetch — no CDN, no web fonts (a system font stack
with Japanese fonts is named instead). Every piece of user text (dataset and run names,
configuration values, query and document texts) is escaped with :func:`html.escape`; chart
data is JSON with ``<``, ``>`` and ``/`` escaped by plotly. API keys never appear: the
configuration is scrubbed again here (:func:`ragdash.runs.scrub_secrets`), and strings passed
as ``secrets`` are masked anywhere in the output.

With ``include_text=False`` the report holds ids only — no query or document text — for
sharing outside the team.

Sections: title; dataset (name, sizes, fingerprint); runs and their configuration; curves
across K; the summary table at K = 1, 3, 5, 10, 20, 50, 100; the worst queries of each run;
the comparison (with two or more runs: the significance table and verdict sentences of
:func:`ragdash.stats.compare_tables`, the queries where the runs disagree most, the per-query
scatter); the cost (an estimate given by the caller, and each run's actual usage).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cost import format_money
from ..i18n import normalize_lang, t
from ..metrics import DEFAULT_KS, metric_label

__all__ = ["ReportCost", "ReportRun", "build_report"]

_CSS = """
:root { --fg: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --accent: #0072B2; --bad: #D55E00; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans CJK JP", "Noto Sans JP", "Hiragino Sans",
       "Hiragino Kaku Gothic ProN", "Yu Gothic", Meiryo, IPAexGothic, system-ui, sans-serif;
       color: var(--fg); margin: 0 auto; max-width: 1100px; padding: 24px 28px 60px;
       line-height: 1.55; font-size: 15px; }
h1 { font-size: 1.7em; margin: 0 0 4px; }
h2 { font-size: 1.3em; border-bottom: 2px solid var(--line); padding-bottom: 4px;
     margin-top: 2.2em; }
h3 { font-size: 1.05em; margin: 1.4em 0 0.4em; }
p.meta, .muted { color: var(--muted); font-size: 0.92em; }
nav ol { columns: 2; margin: 0.4em 0; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left;
         vertical-align: top; }
th { background: #f3f5f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 520px; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
              font-size: 0.9em; word-break: break-all; }
details { margin: 0.2em 0 0.6em; }
summary { cursor: pointer; }
.verdict { border-left: 4px solid var(--accent); padding: 4px 12px; margin: 6px 0;
           background: #f5f9fc; }
.note { border-left: 4px solid #E69F00; padding: 4px 12px; background: #fffaf0; }
.chart { margin: 0.5em 0 1.2em; }
dl.config { display: grid; grid-template-columns: max-content auto; gap: 2px 14px;
            margin: 0.3em 0 1em; font-size: 0.9em; }
dl.config dt { color: var(--muted); }
dl.config dd { margin: 0; }
footer { margin-top: 3em; color: var(--muted); font-size: 0.85em; }
@media print { .chart { break-inside: avoid; } }
"""


def _e(value: Any) -> str:
    """Escape any value for HTML text or a quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "—"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return _e(x)
    if not math.isfinite(v):
        return "—"
    return f"{v:.{digits}f}"


@dataclass
class ReportRun:
    """What the report needs of one run; build with :meth:`of` from a
    :class:`ragdash.runs.SavedRun` or a :class:`ragdash.pipeline.EvaluationResult`."""

    name: str
    table: Any  # ragdash.metrics.MetricTable
    ranking: Any  # ragdash.Ranking
    retriever: str = ""
    model: str | None = None
    config: dict = field(default_factory=dict)
    usage: dict = field(default_factory=dict)
    cost: dict | None = None
    created_at: str | None = None
    seconds: float | None = None
    run_id: str | None = None

    @classmethod
    def of(cls, run: Any, name: str | None = None) -> ReportRun:
        if isinstance(run, ReportRun):
            return run
        table = run.table() if callable(getattr(run, "table", None)) else run.table
        config = dict(getattr(run, "config", None) or {})
        retriever = getattr(run, "retriever", None) or getattr(run, "retriever_name", "") or ""
        created = getattr(run, "created_at", None)
        return cls(
            name=str(name or getattr(run, "name", None) or retriever or "run"),
            table=table, ranking=run.ranking, retriever=str(retriever),
            model=getattr(run, "model", None) or config.get("model"), config=config,
            usage=dict(getattr(run, "usage", None) or {}), cost=getattr(run, "cost", None),
            created_at=None if created is None else str(created),
            seconds=getattr(run, "seconds", None), run_id=getattr(run, "id", None))


@dataclass
class ReportCost:
    """The cost section's estimate; build it with :meth:`from_estimate` from a
    :class:`ragdash.cost.CostEstimate`, or by hand.

    ``rows``: one dict per provider / model with ``provider``, ``model`` and ``cost`` (in
    ``currency``, "USD" or "JPY").
    """

    tokens: int | None = None
    method: str | None = None
    currency: str = "USD"
    rows: list[dict] = field(default_factory=list)

    @classmethod
    def from_estimate(cls, estimate: Any, currency: str = "USD") -> ReportCost:
        """From :func:`ragdash.cost.estimate_evaluation`'s result: its token count and
        method, and every provider's price for those tokens (``per_provider``)."""
        jpy = currency.upper() == "JPY"
        rows = [{"provider": p.provider, "model": p.model, "cost": p.jpy if jpy else p.usd}
                for p in getattr(estimate, "per_provider", None) or []]
        return cls(tokens=int(estimate.tokens), method=estimate.token_method,
                   currency="JPY" if jpy else "USD", rows=rows)


def build_report(runs: Sequence[Any], *, dataset: Any = None, lang: str = "en",
                 include_text: bool = True, title: str | None = None,
                 ks: Sequence[int] = DEFAULT_KS,
                 families: Sequence[str] | None = None,
                 curve_families: Sequence[str] = ("ndcg", "recall", "mrr"),
                 metric: str = "ndcg@10", n_worst: int = 10, n_drilldowns: int = 3,
                 n_disagree: int = 15,
                 bands: bool = True, compare: bool = True, cost: ReportCost | None = None,
                 drop_no_relevant: bool = False, secrets: Iterable[str] = (),
                 generated_at: Any = None, n_resamples: int = 2000) -> str:
    """The HTML report for ``runs`` (SavedRun / EvaluationResult / :class:`ReportRun`).

    ``dataset``: the Dataset the runs were made on (default: the first run's ``dataset``).
    ``metric``: the per-query metric for the worst queries, the comparison and the scatter
    (cut to the runs' Kmax). ``n_drilldowns``: how many of each run's worst queries get a
    folded drill-down (relevant documents and where they landed, the top K).
    ``bands``: bootstrap bands around the curves. ``secrets``:
    strings (an API key) masked wherever they would appear.
    """
    from .. import __version__
    from ..runs import scrub_secrets
    from ..stats import table_bands
    from .charts import PLOTLY_CONFIG, cost_bar_figure, curve_figure, scatter_figure
    from .tables import disagreement, per_query_frame, summary_frame

    lang = normalize_lang(lang)
    secrets = tuple(s for s in secrets if s)
    if not runs:
        raise ValueError("a report needs at least one run")
    if dataset is None:
        dataset = getattr(runs[0], "dataset", None)
    items = _unique_names([ReportRun.of(r) for r in runs])
    kmax = min(r.table.kmax for r in items)
    metric = _clip(metric, kmax)
    tables = {r.name: r.table for r in items}
    figures = _FigureWriter(PLOTLY_CONFIG)
    body: list[str] = []
    toc: list[tuple[str, str]] = []

    def section(anchor: str, heading: str) -> None:
        toc.append((anchor, heading))
        body.append(f'<h2 id="{anchor}">{_e(heading)}</h2>')

    # -- dataset --------------------------------------------------------------------------
    if dataset is not None:
        section("dataset", t("report.dataset", lang))
        sizes = dataset.sizes()
        body.append(_kv_table([
            (t("report.dataset_name", lang), _e(dataset.name)),
            (t("report.documents", lang), f"{sizes['documents']:,}"),
            (t("report.queries", lang), f"{sizes['queries']:,}"),
            (t("report.queries_with_qrels", lang), f"{sizes['queries_with_qrels']:,}"),
            (t("report.judgements", lang), f"{sizes['judgements']:,}"),
            (t("report.fingerprint", lang), f'<span class="mono">{_e(dataset.fingerprint())}'
                                            f"</span>"),
        ]))

    # -- runs -----------------------------------------------------------------------------
    section("runs", t("report.runs", lang))
    head = [t("report.run", lang), t("report.retriever", lang), t("report.model", lang),
            t("report.created", lang), t("report.n_queries", lang), t("report.kmax", lang),
            t("report.seconds", lang)]
    rows = [[_e(r.name), _e(r.retriever), _e(r.model or "—"), _e(r.created_at or "—"),
             (f"{len(r.table):,}", "num"), (str(r.table.kmax), "num"),
             (_num(r.seconds, 1) if r.seconds is not None else "—", "num")] for r in items]
    body.append(_table(head, rows))
    for r in items:
        config = scrub_secrets(r.config, secrets)
        if config:
            body.append(f"<h3>{_e(r.name)} — {_e(t('report.settings', lang))}</h3>")
            body.append(_config_list(config))
    body.append(f'<p class="muted">{_e(t("report.no_key", lang))}</p>')

    # -- curves ---------------------------------------------------------------------------
    section("curves", t("report.curves", lang))
    nr = int(items[0].table.no_relevant.sum())
    if nr:
        note = t("report.no_relevant", lang, n=nr, total=len(items[0].table))
        body.append(f'<p class="note">{_e(note)}</p>')
    from ..metrics import family as _family

    for fam in curve_families:
        fam = _family(fam).name
        if all(fam in tb.values for tb in tables.values()):
            band = table_bands(tables, fam, drop_no_relevant=drop_no_relevant,
                               n_resamples=n_resamples) if bands else None
            fig = curve_figure(tables, fam, bands=band, lang=lang,
                               drop_no_relevant=drop_no_relevant)
            body.append(figures.add(fig))

    # -- summary --------------------------------------------------------------------------
    ks_used = [k for k in ks if 1 <= k <= kmax] or [kmax]
    section("summary", t("report.summary", lang, ks=", ".join(map(str, ks_used))))
    frame = summary_frame(tables, ks_used, families, drop_no_relevant=drop_no_relevant)
    fams = list(dict.fromkeys(c.split("@")[0] for c in frame.columns))
    for fam in fams:
        head = [t("report.run", lang)] + [f"@{k}" for k in ks_used]
        rows = []
        for run_name, row in frame.iterrows():
            vals = [row[f"{fam}@{k}"] for k in ks_used]
            best = [max((frame[f"{fam}@{k}"]).dropna(), default=None) for k in ks_used]
            cells = []
            for v, b in zip(vals, best):
                text = _num(v)
                if len(frame) > 1 and b is not None and v == b:
                    text = f"<strong>{text}</strong>"
                cells.append((text, "num"))
            rows.append([_e(run_name), *cells])
        body.append(f"<h3>{_e(metric_label(fam))}</h3>")
        body.append(_table(head, rows))

    # -- worst queries --------------------------------------------------------------------
    section("worst", t("report.worst", lang))
    for r in items:
        pq = per_query_frame(r.table, dataset, r.ranking, [metric],
                             include_text=include_text and dataset is not None) \
            if dataset is not None else None
        if pq is None:
            continue
        head = [t("col.query_id", lang)]
        if include_text:
            head.append(t("col.query", lang))
        head += [t("col.n_relevant", lang), t("col.first_relevant_rank", lang),
                 metric_label(metric)]
        rows = []
        for rec in pq.head(n_worst).to_dict("records"):
            row = [f'<span class="mono">{_e(rec["query_id"])}</span>']
            if include_text:
                row.append((_e(rec.get("query", "")), "text"))
            first = rec["first_relevant_rank"]
            row += [(str(rec["n_relevant"]), "num"),
                    (_e(t("views.not_retrieved", lang)) if _is_na(first) else str(int(first)),
                     "num"),
                    (_num(rec[metric]), "num")]
            rows.append(row)
        caption = t("report.worst_for", lang, run=r.name, n=min(n_worst, len(pq)),
                    metric=metric_label(metric))
        body.append(f"<h3>{_e(caption)}</h3>")
        body.append(_table(head, rows))
        shown = [rec for rec in pq.head(n_worst).to_dict("records") if not rec["no_relevant"]]
        for rec in shown[:n_drilldowns]:
            body.append(_drilldown_html(dataset, r, rec, metric, lang, include_text))

    # -- comparison -----------------------------------------------------------------------
    section("comparison", t("report.comparison", lang))
    if len(items) < 2 or not compare:
        body.append(f'<p class="muted">{_e(t("report.comparison_needs_two", lang))}</p>')
    else:
        body.extend(_comparison(items, tables, metric, lang, dataset, include_text,
                                n_disagree, n_resamples, figures, scatter_figure,
                                disagreement, metric_label))

    # -- cost -----------------------------------------------------------------------------
    section("cost", t("report.cost", lang))
    body.extend(_cost(items, cost, lang, figures, cost_bar_figure, secrets))

    # -- page -----------------------------------------------------------------------------
    when = _when(generated_at)
    heading = title or t("report.title", lang)
    generated = t("report.generated", lang, when=when, version=__version__)
    notes = [f'<p class="meta">{_e(generated)} {_e(t("report.offline", lang))}</p>']
    if not include_text:
        notes.append(f'<p class="note">{_e(t("report.texts_omitted", lang))}</p>')
    nav = "".join(f'<li><a href="#{a}">{_e(h)}</a></li>' for a, h in toc)
    page = "\n".join([
        "<!DOCTYPE html>",
        f'<html lang="{lang}">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="ragdash">',
        f"<title>{_e(heading)}</title>",
        f"<style>{_CSS}</style>",
        figures.library(),
        "</head>",
        "<body>",
        f"<h1>{_e(heading)}</h1>",
        *notes,
        f'<nav><strong>{_e(t("report.contents", lang))}</strong><ol>{nav}</ol></nav>',
        *body,
        f'<footer>{_e(t("report.footer", lang))}</footer>',
        "</body>",
        "</html>",
    ])
    for s in secrets:
        page = page.replace(s, "***")
    return page


# -- pieces ---------------------------------------------------------------------------------------
class _FigureWriter:
    """Inline plotly.js once; each figure becomes a div and a newPlot call."""

    def __init__(self, config: Mapping) -> None:
        self.config = dict(config)
        self.count = 0

    def add(self, fig) -> str:
        self.count += 1
        div = fig.to_html(full_html=False, include_plotlyjs=False, config=self.config,
                          div_id=f"chart-{self.count}", default_height="460px")
        return f'<div class="chart">{div}</div>'

    def library(self) -> str:
        if not self.count:
            return ""
        from plotly.offline import get_plotlyjs

        js = get_plotlyjs().replace("</script", "<\\/script")
        return f'<script type="text/javascript">{js}</script>'


def _unique_names(items: list[ReportRun]) -> list[ReportRun]:
    seen: dict[str, int] = {}
    for r in items:
        n = seen.get(r.name, 0)
        seen[r.name] = n + 1
        if n:
            r.name = f"{r.name} ({n + 1})"
    return items


def _clip(metric: str, kmax: int) -> str:
    from ..metrics import parse_metric

    fam, k = parse_metric(metric)
    return f"{fam}@{min(k or kmax, kmax)}"


def _is_na(x: Any) -> bool:
    try:
        import pandas as pd

        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def _when(value: Any) -> str:
    if value is None:
        value = dt.datetime.now(dt.UTC)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return str(value)


def _cell(c: Any) -> str:
    if isinstance(c, tuple):
        text, cls = c
        return f'<td class="{cls}">{text}</td>'
    return f"<td>{c}</td>"


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """``head`` is plain text (escaped here); cells are HTML already escaped by the caller,
    optionally ``(html, css_class)``."""
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"


def _kv_table(pairs: Sequence[tuple[str, str]]) -> str:
    trs = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f"<table><tbody>{trs}</tbody></table>"


def _config_list(config: Mapping) -> str:
    items = []
    for k, v in config.items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
        items.append(f"<dt>{_e(k)}</dt><dd class=\"mono\">{_e(text)}</dd>")
    return f'<dl class="config">{"".join(items)}</dl>'


def _drilldown_html(dataset, run: ReportRun, rec: Mapping, metric: str, lang: str,
                    include_text: bool) -> str:
    from ..metrics import parse_metric
    from .tables import drilldown

    k = parse_metric(metric)[1] or run.table.kmax
    d = drilldown(dataset, run.ranking, dataset.qrels, rec["query_id"], k,
                  relevance_level=run.table.relevance_level, include_text=include_text,
                  lang=lang)
    summary = f'<span class="mono">{_e(d.query_id)}</span>'
    if include_text and d.query_text:
        summary += f" — {_e(d.query_text)}"
    summary += f" ({_e(metric_label(metric))} {_num(rec[metric])})"
    text_cols = [t("col.title", lang), t("col.snippet", lang)] if include_text else []
    head = [t("col.doc_id", lang), *text_cols, t("col.grade", lang), t("col.rank_got", lang)]
    rows = []
    for x in d.relevant.to_dict("records"):
        texts = [_e(x["title"]), (_e(x["snippet"]), "text")] if include_text else []
        rows.append([f'<span class="mono">{_e(x["doc_id"])}</span>', *texts,
                     (_num(x["grade"], 1), "num"), (_e(x["rank_label"]), "num")])
    parts = [f"<details><summary>{summary}</summary>", _table(head, rows)]
    head = [t("col.rank", lang), t("col.doc_id", lang), *text_cols, t("col.score", lang),
            t("col.grade", lang), t("col.relevant", lang)]
    rows = []
    for x in d.top.to_dict("records"):
        texts = [_e(x["title"]), (_e(x["snippet"]), "text")] if include_text else []
        grade = "" if math.isnan(x["grade"]) else _num(x["grade"], 1)
        rows.append([(str(x["rank"]), "num"), f'<span class="mono">{_e(x["doc_id"])}</span>',
                     *texts, (_num(x["score"]), "num"), (grade, "num"),
                     "✓" if x["relevant"] else ""])
    parts += [_table(head, rows), "</details>"]
    return "".join(parts)


def _comparison(items, tables, metric, lang, dataset, include_text, n_disagree, n_resamples,
                figures, scatter_figure, disagreement, metric_label) -> list[str]:
    from ..errors import RagdashError
    from ..stats import compare_tables
    from ..stats.verdict import format_p

    out: list[str] = []
    label = metric_label(metric)
    try:
        cmp = compare_tables(tables, metric, n_resamples=n_resamples)
    except RagdashError as exc:
        reason = t("report.comparison_unavailable", lang, reason=str(exc))
        out.append(f'<p class="note">{_e(reason)}</p>')
        return out
    conf = round(cmp.confidence * 100)
    out.append(f"<h3>{_e(label)} — {_e(t('report.n_queries', lang))}: {cmp.n_queries:,}</h3>")
    head = [t("report.run", lang), t("report.mean", lang), t("report.ci", lang, level=conf)]
    rows = [[_e(r.name), (_num(r.mean), "num"),
             (f"{_num(r.ci_low)} – {_num(r.ci_high)}", "num")] for r in cmp.runs]
    out.append(_table(head, rows))
    head = ["A", "B", t("report.diff", lang), t("report.ci", lang, level=conf),
            t("report.p_holm", lang), t("report.wins_ties_losses", lang)]
    rows = [[_e(p.a), _e(p.b), (f"{p.diff:+.4f}", "num"),
             (f"{p.ci_low:+.4f} – {p.ci_high:+.4f}", "num"),
             (_e(format_p(p.p_holm, alpha=cmp.alpha)), "num"),
             (f"{p.wins} / {p.ties} / {p.losses}", "num")] for p in cmp.pairs]
    out.append(_table(head, rows))
    out.extend(f'<p class="verdict">{_e(v)}</p>' for v in cmp.verdicts(lang))
    out.extend(f'<p class="muted">{_e(n)}</p>' for n in cmp.notes)
    # The first pair in detail: where the runs disagree, and the per-query scatter.
    a, b = items[0], items[1]
    dis = disagreement(a.table, b.table, metric, n=n_disagree, dataset=dataset,
                       include_text=include_text, names=(a.name, b.name))
    out.append(f"<h3>{_e(t('report.disagreement', lang, a=a.name, b=b.name, metric=label))}"
               f"</h3>")
    head = [t("col.query_id", lang)] + ([t("col.query", lang)] if "query" in dis else []) + \
        [a.name, b.name, t("col.delta", lang), t("col.winner", lang)]
    rows = []
    for rec in dis.to_dict("records"):
        row = [f'<span class="mono">{_e(rec["query_id"])}</span>']
        if "query" in dis:
            row.append((_e(rec["query"]), "text"))
        row += [(_num(rec["a"]), "num"), (_num(rec["b"]), "num"),
                (f"{rec['delta']:+.4f}", "num"), _e(rec["winner"])]
        rows.append(row)
    out.append(_table(head, rows))
    pa = {q: i for i, q in enumerate(a.table.query_ids)}
    pb = {q: i for i, q in enumerate(b.table.query_ids)}
    common = [q for q in a.table.query_ids if q in pb]
    va, vb = a.table.value(metric), b.table.value(metric)
    texts = None
    if include_text and dataset is not None:
        texts = [(dataset.query(q).text if dataset.query(q) else "") for q in common]
    fig = scatter_figure([va[pa[q]] for q in common], [vb[pb[q]] for q in common], common,
                         texts, metric=metric, names=(a.name, b.name), lang=lang)
    out.append(figures.add(fig))
    return out


def _cost(items, cost: ReportCost | None, lang, figures, cost_bar_figure, secrets) -> list[str]:
    currency = (cost.currency if cost is not None else "USD").upper()
    out: list[str] = []
    if cost is not None and (cost.rows or cost.tokens):
        out.append(f"<h3>{_e(t('report.cost_estimate', lang))}</h3>")
        if cost.tokens is not None:
            line = f"{_e(t('report.tokens', lang))}: {int(cost.tokens):,}"
            if cost.method:
                line += f" · {_e(t('report.token_method', lang, method=cost.method))}"
            out.append(f"<p>{line}</p>")
        if cost.rows:
            head = [t("chart.cost_x", lang), t("chart.cost_y", lang, currency=currency)]
            rows = [[_e(" · ".join(str(r.get(k)) for k in ("provider", "model") if r.get(k))),
                     (_e(format_money(r.get("cost"), currency)), "num")]
                    for r in sorted(cost.rows, key=lambda r: float(r.get("cost") or 0))]
            out.append(_table(head, rows))
            out.append(figures.add(cost_bar_figure(cost.rows, currency=currency, lang=lang)))
    with_usage = [r for r in items if r.usage or r.cost]
    if with_usage:
        out.append(f"<h3>{_e(t('report.cost_actual', lang))}</h3>")
        head = [t("report.run", lang), t("report.requests", lang), t("report.tokens", lang),
                t("chart.estimated", lang), t("chart.actual", lang)]
        rows = []
        for r in with_usage:
            estimated, actual = _run_costs(r, currency)
            rows.append([_e(r.name), (_e(r.usage.get("requests", "—")), "num"),
                         (_e(_int(r.usage.get("prompt_tokens"))), "num"),
                         (_e(format_money(estimated, currency)), "num"),
                         (_e(format_money(actual, currency)), "num")])
        out.append(_table(head, rows))
    if not out:
        out.append(f'<p class="muted">{_e(t("report.cost_none", lang))}</p>')
    return out


#: retrievers that cost nothing to run
_FREE = frozenset({"bm25", "trec", "local"})


def _run_costs(run: ReportRun, currency: str) -> tuple[float | None, float | None]:
    """(estimated, actual) in ``currency``: the estimate saved with the run; the actual
    figure saved with it, else priced from the API's usage with :func:`ragdash.cost
    .actual_cost` (free retrievers cost 0; unknown models give None)."""
    from ..errors import RagdashError

    cur = currency.lower()
    c = dict(run.cost or {})
    estimated = c.get(f"estimated_{cur}")
    actual = c.get(f"actual_{cur}")
    if actual is None and run.retriever in _FREE:
        actual = 0.0
    if actual is None and run.usage.get("prompt_tokens") is not None:
        try:
            from ..cost import actual_cost

            figure = actual_cost(run.usage, model=c.get("model") or run.model,
                                 provider=c.get("provider"))
            actual = figure.usd if cur == "usd" else figure.jpy if cur == "jpy" else None
        except RagdashError:
            actual = None
    return (None if estimated is None else float(estimated),
            None if actual is None else float(actual))


def _int(x: Any) -> str:
    try:
        return f"{int(x):,}"
    except (TypeError, ValueError):
        return "—"
