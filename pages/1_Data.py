"""Data: load a bundled sample, upload files or pick a dataset already in the run store; the
validation report, previews and sizes."""

import streamlit as st

from ragdash.ui import data, keys, page_setup, state
from ragdash.ui.widgets import md, say

ctx = page_setup("data")
t = ctx.t
st.title(t("data.title"))
st.markdown(t("data.intro"))

st.page_link("pages/8_Generate.py", label=t("gen.no_queries"), icon=":material/edit_note:")

data.open_dataset_link(ctx)
tab_sample, tab_upload, tab_store = st.tabs([t("data.tab_sample"), t("data.tab_upload"),
                                             t("data.tab_store")])
with tab_sample:
    samples = {name: (title, text) for name, title, text in data.samples(ctx.lang)}
    choice = st.selectbox(t("data.sample"), list(samples), format_func=lambda n: samples[n][0],
                          key="data_sample")
    st.caption(samples[choice][1])
    if st.button(t("data.load_sample"), key="data_load_sample", type="primary"):
        data.load_sample(ctx, choice)

with tab_upload:
    st.markdown(t("data.formats"))
    files = st.file_uploader(t("data.upload"), accept_multiple_files=True,
                             type=data.UPLOAD_TYPES, key="data_files",
                             help=t("data.upload_help"))
    data.limits_caption(ctx)
    split = st.text_input(t("data.split"), value="test", key="data_split",
                          help=t("data.split_help"))
    if st.button(t("data.load_files"), key="data_load_files", type="primary",
                 disabled=not files):
        data.load_files(ctx, [(f.name, f.getvalue()) for f in files], split)
with tab_store:
    data.stored_datasets(ctx)
data.load_outcome(ctx)

ds = state.dataset()
if ds is None:
    st.info(t("data.none_yet"))
    st.stop()

st.divider()
st.subheader(t("data.current", name=md(ds.name)))
if ds.source:
    st.caption(data.source_text(ctx, ds))
if ctx.store.has_dataset(state.dataset_fingerprint() or ""):
    data.share_dataset(ctx, state.dataset_fingerprint())
data.name_editor(ctx, ds)
report = state.validation()
data.sizes_view(ctx, ds, report)

override = data.mapping_editor(ctx, ds)
if override is not None:
    data.load_files(ctx, st.session_state[keys.UPLOADS], split, override)
    st.rerun()
if ds.notes:
    with st.expander(t("data.notes", n=len(ds.notes))):
        for note in ds.notes:
            st.markdown(f"- {say(note, ctx.lang)}")

st.subheader(t("data.validation"))
if report is not None:
    data.validation_view(ctx, report)
st.subheader(t("data.preview"))
data.previews(ctx, ds)

if report is None or report.ok:
    st.page_link("pages/2_Run.py", label=t("data.next"), icon=":material/arrow_forward:")
