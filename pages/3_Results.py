"""Results: curves across K, the summary table, per-query values, one query's drill-down."""

import streamlit as st

from ragdash.metrics import DEFAULT_KS, metric_label
from ragdash.present.charts import PLOTLY_CONFIG, curve_figure
from ragdash.present.tables import summary_grid
from ragdash.ui import job_panel, keys, labels, page_setup, results, state
from ragdash.ui.memo import memo
from ragdash.ui.own_view import own_search_notes
from ragdash.ui.widgets import bind, bind_choice, synthetic_banner

ctx = page_setup("results", settle=2.0)
t = ctx.t
st.title(t("res.title"))

job = job_panel.active_job(ctx)
if job is not None:
    job_panel.job_panel(ctx, job)
job_panel.last_job_outcome(ctx)

summaries = ctx.store.list()
if results.missing_link_runs(ctx, summaries):  # a ?run= link to a run this server lacks
    st.stop()
if state.run_id() is None:
    # nothing opens by itself: a run this session made, opened by link or picks from the list
    if job is not None:
        st.info(t("res.waiting"))
    elif not summaries:
        st.info(t("res.no_runs"))
    else:
        results.pick_a_saved_run(ctx, summaries)
    st.stop()

summaries = results.with_current(ctx, summaries)
ids = [s.id for s in summaries]
names = {s.id: f"{s.name} · {s.created_at[:16].replace('T', ' ')}" for s in summaries}
run_id = st.selectbox(t("res.run"), ids, format_func=names.get,
                      **bind_choice(keys.RUN_ID, ids, state.run_id()))
run = state.load_run(run_id)
labels.label_controls(ctx, run.dataset, run.dataset_fingerprint)
table = labels.table_of(run)
if state.dataset_fingerprint() != run.dataset_fingerprint:
    # the run on screen names the dataset the other pages work on (as a ?run= link does)
    state.set_dataset(run.dataset, source=f"run:{run.id}",
                      fingerprint=run.dataset_fingerprint)
    st.rerun()  # so the sidebar shows it too
# The address bar always holds a link to the run on screen, in the page's language.
st.query_params["run"] = run.id
results.keep_lang_in_address(ctx)
results.drill_follows_run(run.id)
st.session_state[keys.RUN_PARAM] = run.id

results.run_cards(ctx, run, len(table))
synthetic_banner(ctx.lang, run.dataset)
own_search_notes(ctx, run)  # a team's own search: latency, mapping, failures
n_empty = int(table.no_relevant.sum())

controls = results.wrapping("res_controls").columns([3, 1, 3])
with controls[0]:
    families = results.pick_families(ctx)
with controls[1]:
    k = results.pick_k(ctx, table.kmax)
with controls[2]:
    drop = st.toggle(t("res.drop_empty", n=n_empty), disabled=n_empty == 0,
                     help=t("res.drop_empty_help"), **bind(keys.DROP_NO_RELEVANT, False))

# read before any number: the top K thinly judged makes the metrics lower bounds
results.coverage_warning(ctx, run, table, families, k, drop_no_relevant=drop)
# Judged@K beside every metric: how much of the top K the labels cover
shown = [*families, *([] if "judged" in families else ["judged"])]
view = ("res", run.id, run.name, results.view_of(run), tuple(shown), drop)
fig = memo((*view, ctx.lang), lambda: curve_figure({run.name: table}, shown, lang=ctx.lang,
                                                   drop_no_relevant=drop))
st.plotly_chart(fig, key="res_curve", config=PLOTLY_CONFIG)
labels.labels_caption(ctx, table)

st.subheader(t("res.summary"))
grid = memo(view, lambda: summary_grid(table, DEFAULT_KS, shown, drop_no_relevant=drop)).copy()
grid.index = [results.FAMILIES[f].label for f in grid.index]
st.dataframe(grid.rename(columns=lambda c: f"@{c}"), key="res_summary",
             column_config={f"@{c}": st.column_config.NumberColumn(format="%.4f")
                            for c in DEFAULT_KS})

st.subheader(t("res.per_query"))
st.caption(t("res.per_query_help"))
frame = results.per_query_table(ctx, run, families, k, key="res_pq")

left, right = st.columns([3, 2])
with right:
    st.subheader(t("res.histogram"))
    hist_family = st.selectbox(t("res.hist_metric"), families,
                               format_func=lambda f: metric_label(f"{f}@{k}"),
                               **bind_choice(keys.HIST_FAMILY, families, families[0]))
    results.histogram(ctx, run, f"{hist_family}@{k}", key="res_hist")
with left:
    st.subheader(t("res.drill"))
    qid = results.drill_query_picker(ctx, list(frame["query_id"]), run.dataset,
                                     key="res_drill")
    results.drilldown_view(ctx, run, qid, k)

st.subheader(t("res.downloads"))
results.downloads(ctx, run, frame, families=families, k=k)
results.share_link(ctx, run)
