"""Judge: people label (query, document) pairs — the gaps in the human labels that the chosen
runs' top results leave, the LLM judge's disagreements, or a sample for a second opinion — with
the keyboard, saved as they are given; agreement between raters; the labels as TREC qrels."""

import streamlit as st

from ragdash.ui import judge, page_setup, state
from ragdash.ui.widgets import md

ctx = page_setup("judge")
t = ctx.t
st.title(t("judge.title"))
ds = ctx.dataset
if ds is None:
    st.info(t("judge.no_dataset"))
    st.stop()
st.caption(t("judge.intro", name=md(ds.name)))
fingerprint = state.dataset_fingerprint() or ds.fingerprint()

rater = judge.rater_name(ctx)
if rater is None:
    st.info(t("judge.need_rater"))
    st.stop()

queue = judge.queue_controls(ctx, fingerprint)
if queue:
    judge.judging_view(ctx, fingerprint, rater, queue)
elif queue is not None:
    st.info(t("judge.queue_empty"))

st.divider()
st.subheader(t("judge.agreement"))
judge.agreement_view(ctx, fingerprint)
judge.export_view(ctx, fingerprint, rater)
