"""Pieces of the Compare page: choosing runs (and scoring uploaded TREC runs), overlaid
curves with bootstrap bands, the significance table, the A/B scatter."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..errors import RagdashError
from ..i18n import convention
from ..metrics import metric_label
from ..present.charts import PLOTLY_CONFIG, scatter_figure
from ..present.tables import disagreement, display_frame
from ..run import Run, distinct_rankings, merged_notes
from ..runs import run_from_trec
from ..stats import CurveBands, align_tables, compare_tables, table_bands
from ..stats.verdict import format_p
from . import keys, labels, state
from .memo import memo
from .page import PageContext
from .results import apply_selection
from .widgets import md, say

#: fewer resamples than a report: the page redraws often; the report uses the full number
BAND_RESAMPLES = 1000

#: each verdict kind (ragdash.stats.verdict) in the table (message keys)
_VERDICT_KEYS = {"better": "cmp.kind_better", "worse": "cmp.kind_worse",
                 "no_difference": "cmp.kind_no_difference", "identical": "cmp.kind_identical"}


def upload_trec_runs(ctx: PageContext, dataset) -> None:
    """TREC run files from other engines, scored against the current dataset's qrels and
    saved, so they can be compared like any run."""
    t = ctx.t
    with st.expander(t("cmp.upload_title")):
        st.caption(t("cmp.upload_help"))
        files = st.file_uploader(t("cmp.upload"), accept_multiple_files=True,
                                 type=["txt", "trec", "run", "tsv", "res"], key="cmp_files")
        if st.button(t("cmp.upload_button"), key="cmp_upload", disabled=not files):
            added, again = [], []
            for f in files:
                try:
                    run = run_from_trec(f.getvalue(), dataset=dataset, filename=f.name)
                    ctx.store.save(run)
                except RagdashError as exc:
                    # the message names the file already when it is about a line in it
                    st.error(say(exc, ctx.lang) if f.name in str(exc) else
                             t("cmp.upload_failed", name=md(f.name), error=say(exc, ctx.lang)))
                    continue
                if run.reused:  # the same file again: one saved run
                    again.append(t("views.upload_again", file=md(f.name),
                                   run=md(ctx.store.summary(run.id).name)))
                else:
                    added.append(run.id)
            chosen = st.session_state.get(keys.COMPARE_IDS) or []
            st.session_state[keys.COMPARE_IDS] = list(dict.fromkeys([*chosen, *added]))
            if added:
                st.success(t("cmp.upload_done", n=len(added)))
            for sentence in again:
                st.info(sentence)


def one_per_ranking(ctx: PageContext, runs: list[Run]) -> list[Run]:
    """``runs`` with each ranking once (:func:`ragdash.run.distinct_rankings`), saying under
    the picker which runs were shown as another."""
    keep, merged = distinct_rankings(runs)
    if merged:
        names = unique_names(runs)
        for note in merged_notes({names[k]: [names[i] for i in others]
                                  for k, others in merged.items()}, ctx.lang):
            st.caption(md(note))
    return [runs[i] for i in keep]


def unique_names(runs: list[Run]) -> list[str]:
    """Run names for legends and tables; a repeated name gets its id appended."""
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.name] = counts.get(r.name, 0) + 1
    return [r.name if counts[r.name] == 1 else f"{r.name} ({r.id[:4]})" for r in runs]


def _memo(key: tuple, compute, runs: list[Run]):
    """Memo for the costlier statistics (bands, tests): a redraw after changing the language
    or the scatter's pair reuses them. On the human labels, one cache for the server
    (:mod:`ragdash.ui.memo`: saved runs never change); with judgment sets filled in, whose
    labels can change, one per session."""
    if all(labels.filled_for(r) is None for r in runs):
        return memo(key, compute)
    cache = st.session_state.setdefault("rd_cmp_cache", {})
    if key not in cache:
        if len(cache) > 16:
            cache.clear()
        cache[key] = compute()
    return cache[key]


def memo_key(runs: list[Run], *parts) -> tuple | None:
    """A :func:`ragdash.ui.memo.memo` key for what the page draws from ``runs`` with
    ``parts`` (its settings); ``None`` (not cached) when judgment sets are filled in."""
    if any(labels.filled_for(r) is not None for r in runs):
        return None
    return (tuple(r.id for r in runs), labels.view_key(), *parts)


def aligned_tables(runs: list[Run], names: list[str]):
    return _memo(("aligned", tuple(r.id for r in runs), tuple(names), labels.view_key()),
                 lambda: align_tables({n: labels.table_of(r) for n, r in zip(names, runs)}),
                 runs)


def bands_for(runs: list[Run], names: list[str], family: str, drop: bool) -> CurveBands:
    def compute():
        _, aligned = aligned_tables(runs, names)
        return table_bands(aligned, family, drop_no_relevant=drop, n_resamples=BAND_RESAMPLES)

    return _memo(("bands", tuple(r.id for r in runs), family, drop, labels.view_key()),
                 compute, runs)


def comparison_for(runs: list[Run], names: list[str], metric: str, drop: bool):
    def compute():
        tables = {n: labels.table_of(r) for n, r in zip(names, runs)}
        return compare_tables(tables, metric, drop_no_relevant=drop)

    return _memo(("cmp", tuple(r.id for r in runs), tuple(names), metric, drop,
                  labels.view_key()), compute, runs)


def significance_table(ctx: PageContext, comparison) -> pd.DataFrame:
    t = ctx.t
    rows = []
    for p in comparison.pairs:
        rows.append({
            t("cmp.col_a"): p.a, t("cmp.col_b"): p.b,
            t("cmp.col_mean_a"): p.mean_a, t("cmp.col_mean_b"): p.mean_b,
            t("cmp.col_diff"): p.diff,
            t("cmp.col_ci"): f"[{p.ci_low:+.4f}, {p.ci_high:+.4f}]",
            t("cmp.col_p"): p_text(p.p_holm, comparison.alpha),
            t("cmp.col_wtl"): f"{p.wins} / {p.ties} / {p.losses}",
            **({t("judgments.app.col_judged_a", k=comparison.coverage_k):
                comparison.coverage.get(p.a),
                t("judgments.app.col_judged_b", k=comparison.coverage_k):
                comparison.coverage.get(p.b)} if comparison.coverage_k is not None else {}),
            # the sentence is under the table, where it wraps; a table cell would cut it
            t("cmp.col_verdict"): t(_VERDICT_KEYS[p.verdict.kind]),
        })
    return pd.DataFrame(rows)


def coverage_line(ctx: PageContext, comparison) -> None:
    """Each run's Judged@K beside the table: how much of its top K the labels cover."""
    if comparison.coverage_k is None or not comparison.coverage:
        return
    runs = convention(ctx.lang, "list_separator").join(
        f"{md(n)} {v:.2f}" for n, v in comparison.coverage.items())
    st.caption(ctx.t("judgments.app.coverage_line", k=comparison.coverage_k, runs=runs))


def p_text(p: float, alpha: float) -> str:
    """A p-value as the verdict sentence writes it, without the "p": ``< 0.001``,
    ``0.041`` (a table of floats showed 0 where the sentence said p < 0.001)."""
    text = format_p(p, alpha=alpha)
    return text[4:] if text.startswith("p = ") else text[2:]


def scatter(ctx: PageContext, comparison, a: str, b: str, dataset, *, key: str) -> None:
    """Run A against run B, one point per query; choosing a point opens its drill-down."""
    def figure():
        qids = comparison.query_ids
        texts = [(dataset.query(q).text if dataset.query(q) else "") for q in qids]
        fig = scatter_figure(comparison.per_query[a], comparison.per_query[b], qids, texts,
                             metric=comparison.metric, names=(a, b), lang=ctx.lang)
        fig.update_layout(title={"text": ""}, margin={"t": 30})
        # the hint under the axis is one line in the chart and is cut off for long run
        # names: it is a caption under the chart, which wraps
        fig.layout.annotations = ()
        fig.update_layout(margin={"b": 60})
        return comparison, fig

    # the comparison is kept with its figure, so its id names it while the entry lives
    kept, fig = memo(("scatter", id(comparison), id(dataset), a, b, ctx.lang), figure)
    if kept is not comparison:
        _, fig = figure()
    # the title is one line in the chart and is cut in a half-width column (Japanese
    # especially): above the chart it wraps
    st.markdown(f"**{md(ctx.t('chart.scatter_title', a=a, b=b))}**")
    event = st.plotly_chart(fig, key=key, on_select="rerun", selection_mode="points",
                            config=PLOTLY_CONFIG)
    st.caption(md(ctx.t("chart.scatter_hint", a=a, b=b)) + " " + ctx.t("cmp.click_point"))
    points = (event or {}).get("selection", {}).get("points") or []
    chosen = [p.get("customdata") for p in points]
    apply_selection(key, [str(q[0] if isinstance(q, list) else q) for q in chosen if q])


def disagreement_view(ctx: PageContext, aligned: dict, a: str, b: str, metric: str, dataset,
                      *, key: str) -> pd.DataFrame:
    """The queries where runs ``a`` and ``b`` differ most: the difference and both values
    first, the query text last. Returns the frame (machine column names)."""
    t = ctx.t
    st.markdown(f"**{t('cmp.disagree')}**")
    worst = disagreement(aligned[a], aligned[b], metric, n=20, dataset=dataset, names=(a, b))
    if worst.empty:
        st.caption(t("cmp.no_disagreement", metric=metric_label(metric)))
        return worst
    shown = worst[["query_id", "delta", "a", "b", *(["query"] if "query" in worst else [])]]
    shown = display_frame(shown, ctx.lang).rename(columns={"a": a, "b": b})
    st.dataframe(shown, hide_index=True, key=key, column_config={
        c: st.column_config.NumberColumn(format="%+.3f" if i == 1 else "%.3f")
        for i, c in enumerate(shown.columns) if i in (1, 2, 3)})
    return worst


def chosen_runs(ctx: PageContext, summaries) -> list[Run]:
    ids = [s.id for s in summaries]
    labels = {s.id: f"{s.name} · {s.created_at[:16].replace('T', ' ')}" for s in summaries}
    ss = st.session_state
    current = list(dict.fromkeys(r for r in (ss.get(keys.COMPARE_IDS) or []) if r in ids))
    if not current:
        mine = state.run_id()
        if mine in ids:  # the run on the Results page and the newest other one, older first
            current = sorted({mine, next(i for i in ids if i != mine)}, key=ids.index,
                             reverse=True)
        else:
            current = ids[:2][::-1]  # the two newest, older first: A is the baseline
    ss[keys.COMPARE_IDS] = current
    widget_key = "w:" + keys.COMPARE_IDS
    ss[widget_key] = current

    def copy_back() -> None:
        ss[keys.COMPARE_IDS] = ss[widget_key]

    picked = st.multiselect(ctx.t("cmp.runs"), ids, format_func=labels.get, key=widget_key,
                            on_change=copy_back)
    return [state.load_run(r) for r in picked]
