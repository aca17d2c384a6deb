"""Run: choose a retriever and a model, see the cost, start; progress; saved runs."""

import streamlit as st

from ragdash import params as P
from ragdash.ui import (
    form_memory,
    job_panel,
    keys,
    page_setup,
    pipeline_form,
    run_form,
    setup_file,
    state,
)
from ragdash.ui.declared import number
from ragdash.ui.widgets import bind, md

ctx = page_setup("run")
t = ctx.t
st.title(t("run.title"))

job = job_panel.active_job(ctx)
if job is not None:
    job_panel.job_panel(ctx, job)
job_panel.last_job_outcome(ctx, show_done=True)

ds = ctx.dataset
if ds is None:
    st.info(t("run.no_dataset"))
    st.page_link("pages/1_Data.py", label=t("nav.data"), icon=":material/database:")
else:
    report = state.validation()
    st.markdown(t("run.on_dataset", name=md(ds.name), queries=f"{len(ds.evaluated_queries()):,}",
                  docs=f"{len(ds.documents):,}"))
    if report is not None and not report.ok:
        st.error(t("run.dataset_errors"))
        st.page_link("pages/1_Data.py", label=t("nav.data"), icon=":material/database:")
        st.stop()

    setup_file.fill_from_link(ctx)  # a ?run= link: the form starts at that run's setup
    setup_file.load_box(ctx)
    settings = run_form.retriever_settings(ctx)
    cols = st.columns(3)
    kmax = number(cols[0], P.EVALUATION["kmax"], t("run.kmax"), keys.KMAX, t)
    limit = number(cols[1], P.EVALUATION["limit_queries"], t("run.limit"), keys.QUERY_LIMIT, t,
                   off=True)
    name = cols[2].text_input(t("run.name"), placeholder=t("run.name_placeholder"),
                              max_chars=P.NAME_MAX, **bind(keys.RUN_NAME, ""))
    name = P.clean_name(name)  # a pasted ESC or line break is not kept in the run's name
    limit = int(limit) or None
    estimate = run_form.cost_preview(ctx, ds, settings, limit)

    blocker = settings.blocker or (t("run.model_missing") if settings.retriever != "bm25"
                                   and not settings.model else None)
    if blocker:
        st.warning(blocker)
    if st.button(t("run.start"), type="primary", key="run_start", icon=":material/play_arrow:",
                 disabled=job is not None or blocker is not None):
        job = job_panel.start_evaluation(ctx, ds, settings.retriever, settings.options,
                                      kmax=int(kmax), limit_queries=limit,
                                      run_name=name.strip() or None,
                                      api_key=settings.api_key, estimate=estimate)
        st.session_state[keys.RUN_NAME] = ""  # a name is for one run, not for the next ones
        st.rerun()
    if job is not None:
        st.caption(t("run.one_at_a_time"))
    pipeline_form.builder(ctx, ds, settings, kmax=int(kmax), limit=limit, name=name, job=job)
    pipeline_form.sweep_view(ctx, ds)

st.divider()
st.subheader(t("run.saved"))
run_form.saved_runs(ctx)
form_memory.keep()  # the form's settings, kept in the browser tab (never a key)
