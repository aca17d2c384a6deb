"""Generate: no queries yet? Write an evaluation set from the corpus with a chat model —
sampled across sources and lengths, checked, judged beyond the source passage — and open it
as the current dataset."""

import streamlit as st

from ragdash.ui import generate, page_setup
from ragdash.ui.widgets import md

ctx = page_setup("generate")
t = ctx.t
st.title(t("gen.title"))
st.markdown(t("gen.intro"))

running = generate.running(ctx)
generate.outcome(ctx)

st.subheader(t("gen.step_corpus"))
corpus = generate.corpus_input(ctx)
if corpus is not None:
    st.caption(t("gen.corpus_size", n=len(corpus), sources=len(corpus.source_counts()),
                 name=md(corpus.name)))
    st.subheader(t("gen.step_settings"))
    settings = generate.settings_form(ctx)
    st.subheader(t("gen.step_plan"))
    job = generate.plan(ctx, corpus, settings)
    check = generate.validate_choice(ctx, st.session_state.get(generate.SOURCE))
    if st.button(t("gen.start"), key="gen_start", type="primary",
                 disabled=job is None or running is not None, icon=":material/edit_note:"):
        generate.start(ctx, job, settings, human=ctx.dataset if check else None)
        st.rerun()

st.divider()
st.subheader(t("gen.stored_title"))
generate.stored_sets(ctx)
