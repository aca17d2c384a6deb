"""Cost: the dataset's tokens, providers side by side in USD and JPY, the editable price
table and exchange rate, estimate against actual, and cost against quality."""

import streamlit as st

from ragdash.ui import cost, page_setup
from ragdash.ui.widgets import md

ctx = page_setup("cost")
t = ctx.t
st.title(t("cost.title"))
st.markdown(t("cost.intro"))

ds = ctx.dataset
if ds is None:
    st.info(t("cost.no_dataset"))
else:
    tokens, method, doc_tokens, query_tokens = cost.dataset_tokens(ds)
    cols = st.columns(3)
    cols[0].metric(t("cost.tokens"), f"{tokens:,}", help=t("cost.tokens_help"))
    cols[1].metric(t("cost.tokens_docs"), f"{doc_tokens:,}")
    cols[2].metric(t("cost.tokens_queries"), f"{query_tokens:,}")
    st.caption(t("cost.method", method=method, name=md(ds.name)))

    st.subheader(t("cost.providers"))
    cost.providers_view(ctx, tokens)

st.subheader(t("cost.rate_title"))
cost.rate_editor(ctx)
st.subheader(t("cost.prices"))
st.caption(t("cost.prices_help"))
cost.price_editor(ctx)

summaries = ctx.store.list()
if summaries:
    st.subheader(t("cost.past"))
    cost.past_view(ctx, summaries)
