"""Cost: the dataset's tokens, providers side by side in USD and JPY, the editable price
table and exchange rate, estimate against actual, and cost against quality."""

import streamlit as st

from ragdash.charts import PLOTLY_CONFIG, cost_bar_figure, cost_quality_figure
from ragdash.ui import cost, page_setup

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
    st.caption(t("cost.method", method=method, name=ds.name))

    st.subheader(t("cost.providers"))
    frame = cost.providers_frame(ctx, tokens)
    currency = st.radio(t("cost.currency"), ["USD", "JPY"], horizontal=True, key="cost_currency")
    bars = frame.rename(columns={t("cost.col_provider"): "provider",
                                 t("cost.col_model"): "model"})
    if currency == "JPY":
        bars = bars.assign(cost=bars["cost_jpy"])
    st.plotly_chart(cost_bar_figure(bars, currency=currency, lang=ctx.lang), key="cost_bars",
                    config=PLOTLY_CONFIG)
    st.dataframe(frame, hide_index=True, key="cost_table", column_config={
        "cost": st.column_config.NumberColumn("USD", format="$%.4f"),
        "cost_jpy": st.column_config.NumberColumn("JPY", format="¥%.2f"),
        "batch_usd": st.column_config.NumberColumn(t("cost.col_batch"), format="$%.4f"),
        "source": st.column_config.LinkColumn(t("cost.col_source")),
    })

st.subheader(t("cost.rate_title"))
cost.rate_editor(ctx)
st.subheader(t("cost.prices"))
st.caption(t("cost.prices_help"))
cost.price_editor(ctx)

summaries = ctx.store.list()
if summaries:
    st.subheader(t("cost.past"))
    past = cost.past_runs_frame(ctx, summaries)
    st.dataframe(past.drop(columns=["id", "value", "metric"]), hide_index=True, key="cost_past")
    st.plotly_chart(cost_bar_figure(past, value_key="estimated", actual_key="actual",
                                    label_keys=("name",), lang=ctx.lang),
                    key="cost_past_bars", config=PLOTLY_CONFIG)
    if len(past) >= 2:
        st.subheader(t("cost.quality"))
        quality = past.assign(cost=past["actual"].fillna(past["estimated"]))
        st.plotly_chart(cost_quality_figure(quality, metric=past["metric"].iloc[0],
                                            lang=ctx.lang),
                        key="cost_quality", config=PLOTLY_CONFIG)
