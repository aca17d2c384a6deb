"""ragdash — the landing page: what the tool does, a one-click start, the current state."""

import streamlit as st

from ragdash.errors import RagdashError
from ragdash.ui import job_panel, landing, page_setup
from ragdash.ui.tables import runs_table, shared_note
from ragdash.ui.widgets import md, say

ctx = page_setup("home")
t = ctx.t
landing.warm_up()

st.title(t("home.title"))
st.markdown(t("home.intro"))

start, guide = st.columns([1, 1])
with start.container(border=True):
    st.subheader(t("home.quick_title"))
    st.markdown(t("home.quick_body"))
    sample = None
    if st.button(t("home.quick_button"), type="primary", key="home_quick",
                 icon=":material/rocket_launch:"):
        sample = "jsquad-mini"
    if st.button(t("home.article_button"), key="home_article"):
        sample = "article-ja"
    if sample:
        try:
            job_panel.quick_start(ctx, sample)
        except RagdashError as exc:
            st.error(say(exc, ctx.lang))
        else:
            st.switch_page("pages/3_Results.py")
with guide:
    landing.reading_guide(ctx)

st.subheader(t("home.steps_title"))
for path, label_key, help_key in (
    ("pages/1_Data.py", "nav.data", "home.step_data"),
    ("pages/2_Run.py", "nav.run", "home.step_run"),
    ("pages/3_Results.py", "nav.results", "home.step_results"),
    ("pages/4_Compare.py", "nav.compare", "home.step_compare"),
    ("pages/5_Cost.py", "nav.cost", "home.step_cost"),
):
    st.page_link(path, label=f"{t(label_key)} — {t(help_key)}")

st.subheader(t("home.current_title"))
if ctx.dataset is None:
    st.info(t("home.no_dataset"))
else:
    sizes = ctx.dataset.sizes()
    st.markdown(t("home.dataset_line", name=md(ctx.dataset.name), docs=f"{sizes['documents']:,}",
                  queries=f"{sizes['queries_with_qrels']:,}"))

recent = ctx.store.list(limit=5)
st.subheader(t("home.recent_title"))
if not recent:
    st.caption(t("home.no_runs"))
else:
    shared_note(ctx)
    runs_table(recent, t, key="home_runs")
    for summary in recent:
        st.page_link("pages/3_Results.py", label=t("home.open_run", name=md(summary.name)),
                     query_params={"run": summary.id}, icon=":material/open_in_new:")
