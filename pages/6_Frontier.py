"""Choose a setup: every saved run of the dataset as a point — quality with its interval
against indexing cost, query cost, memory or latency — the Pareto runs, the recommendation,
and sweeps of a dense run's dimensions and precision from cached vectors."""

import streamlit as st

from ragdash.ui import frontier, keys, labels, page_setup, results, state
from ragdash.ui.compare import unique_names
from ragdash.ui.widgets import bind, md, synthetic_banner

ctx = page_setup("frontier")
t = ctx.t
st.title(t("fr.page_title"))
ds = ctx.dataset
if ds is None:
    st.info(t("fr.no_dataset"))
    st.stop()

st.caption(t("fr.intro", name=md(ds.name)))
synthetic_banner(ctx.lang, ds)
# the fingerprint kept when the dataset was loaded: hashing 100k documents again is 0.4 s
summaries = ctx.store.list(dataset_fingerprint=state.dataset_fingerprint() or ds.fingerprint())
runs = [ctx.store.load(s.id) for s in summaries]
if not runs:
    st.info(t("fr.no_runs"))
else:
    run_names = {r.id: r.name or r.retriever for r in runs}
    with st.expander(t("fr.runs_n", n=len(run_names))):
        picked = st.multiselect(t("fr.runs"), list(run_names), default=list(run_names),
                                format_func=run_names.get, key=f"fr_runs:{len(run_names)}")
    chosen = [r for r in runs if r.id in picked]
    if chosen:
        labels.label_controls(ctx, ds, chosen[0].dataset_fingerprint)
        metric, x, project_to = frontier.controls(ctx, chosen)
        drop = st.toggle(t("cmp.drop_empty"), **bind(keys.DROP_NO_RELEVANT, False))
        result = frontier.frontier_for(chosen, unique_names(chosen), metric, x, project_to,
                                       drop)
        frontier.sentence(ctx, result)
        frontier.chart(ctx, result)
        frontier.points_table(ctx, result)
        labels.labels_caption(ctx, labels.table_of(chosen[0]))
        if len(chosen) >= 2:
            st.subheader(t("res.downloads"))
            results.report_button(ctx, chosen, key="fr_report", frontier=result,
                                      drop_no_relevant=drop)

st.divider()
frontier.sweep_form(ctx, runs)
frontier.probe_form(ctx, runs)
frontier.rerank_probe_form(ctx, runs)
