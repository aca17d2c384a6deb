"""Compare: several runs overlaid with confidence bands, paired significance, per-query
wins and losses, and the queries where the runs disagree most."""

import streamlit as st

from ragdash.errors import RagdashError
from ragdash.metrics import FAMILIES, FAMILY_NAMES, metric_label
from ragdash.present.charts import PLOTLY_CONFIG, curve_figure
from ragdash.ui import compare, gate, keys, labels, page_setup, results, state
from ragdash.ui.memo import memo
from ragdash.ui.widgets import bind, bind_choice, md, say, synthetic_banner

ctx = page_setup("compare")
t = ctx.t
st.title(t("cmp.title"))
ds = ctx.dataset
if ds is None:
    st.info(t("cmp.no_dataset"))
    st.stop()

st.caption(t("cmp.intro", name=md(ds.name)))
synthetic_banner(ctx.lang, ds)
compare.upload_trec_runs(ctx, ds)
summaries = ctx.store.list(dataset_fingerprint=state.dataset_fingerprint())
if len(summaries) < 2:
    st.info(t("cmp.need_two", n=len(summaries)))
    st.stop()

runs = compare.chosen_runs(ctx, summaries)
if len(runs) < 2:
    st.info(t("cmp.pick_two"))
    st.stop()
runs = compare.one_per_ranking(ctx, runs)
if len(runs) < 2:
    st.info(t("views.one_ranking"))
    st.stop()
names = compare.unique_names(runs)
labels.label_controls(ctx, ds, state.dataset_fingerprint())

cols = st.columns([2, 1, 2])
family = cols[0].selectbox(t("cmp.family"), list(FAMILY_NAMES),
                           format_func=lambda f: FAMILIES[f].label,
                           **bind_choice(keys.COMPARE_FAMILY, list(FAMILY_NAMES), "ndcg"))
kmax = min(labels.table_of(r).kmax for r in runs)
with cols[1]:
    k = results.pick_k(ctx, kmax)
drop = cols[2].toggle(t("cmp.drop_empty"), **bind(keys.DROP_NO_RELEVANT, False))
metric = f"{family}@{k}"

alignment, aligned = compare.aligned_tables(runs, names)
if not alignment.complete:
    st.warning(t("cmp.not_aligned", n=len(alignment.dropped), common=len(alignment.common)))
bands = compare.bands_for(runs, names, family, drop)
fig = memo(compare.memo_key(runs, "curves", tuple(names), family, drop, ctx.lang),
           lambda: curve_figure(aligned, family, bands=bands, lang=ctx.lang,
                                drop_no_relevant=drop))
st.plotly_chart(fig, key="cmp_curves", config=PLOTLY_CONFIG)
st.caption(t("cmp.bands_help"))
labels.labels_caption(ctx, next(iter(aligned.values())))

st.subheader(t("cmp.significance", metric=metric_label(metric)))
try:
    comparison = compare.comparison_for(runs, names, metric, drop)
except RagdashError as exc:  # e.g. too few queries in common: one sentence, no traceback
    st.error(say(exc, ctx.lang))
    st.stop()
st.dataframe(compare.significance_table(ctx, comparison), hide_index=True, key="cmp_table")
compare.coverage_line(ctx, comparison)
for sentence in comparison.verdicts(ctx.lang):
    st.markdown(f"- {md(sentence)}")
st.caption(t("cmp.significance_help", n=comparison.n_queries))

st.subheader(t("cmp.pair"))
pick = st.columns(2)
a = pick[0].selectbox(t("cmp.run_a"), names, **bind_choice(keys.COMPARE_A, names, names[0]))
b = pick[1].selectbox(t("cmp.run_b"), names, **bind_choice(keys.COMPARE_B, names, names[1]))
if a == b:
    st.info(t("cmp.same_run"))
    st.stop()
run_of = dict(zip(names, runs))
gate.gate_view(ctx, run_of[a], run_of[b], (a, b), metric, key="cmp_gate")
left, right = st.columns([3, 2])
with left:
    compare.scatter(ctx, comparison, a, b, ds, key="cmp_scatter")
with right:
    worst = compare.disagreement_view(ctx, aligned, a, b, metric, ds, key="cmp_disagree")

st.subheader(t("res.drill"))
worst_ids = set(worst["query_id"])
order = list(worst["query_id"]) + [q for q in comparison.query_ids if q not in worst_ids]
qid = results.drill_query_picker(ctx, order, ds, key="cmp_drill")
left, right = st.columns(2)
for column, name in ((left, a), (right, b)):
    with column:
        st.markdown(f"#### {md(name)}")
        results.drilldown_view(ctx, run_of[name], qid, k, narrow=True)

st.subheader(t("res.downloads"))
results.report_button(ctx, runs, key="cmp_report")
