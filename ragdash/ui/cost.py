"""Pieces of the Cost page: providers side by side, the editable price table and exchange
rate (saved under ``RAGDASH_HOME`` through :mod:`ragdash.cost`), estimate against actual."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from ..cost import (
    PriceRow,
    actual_cost,
    count_tokens,
    evaluation_texts,
    load_catalog,
    load_settings,
    per_provider_costs,
    reset_user_catalog,
    save_user_rows,
    set_jpy_per_usd,
)
from ..cost.catalog import load_default_rows
from ..errors import RagdashError
from ..present.charts import PLOTLY_CONFIG, cost_bar_figure, cost_quality_figure
from . import keys, state
from .page import PageContext
from .widgets import bind_choice, md

EDIT_COLUMNS = ["provider", "model", "usd_per_1m", "batch_usd_per_1m", "jpy_per_usd", "as_of",
                "source_url", "notes"]


def dataset_tokens(ds) -> tuple[int, str, int, int]:
    """(tokens, method, documents' tokens, queries' tokens) of one evaluation, memoized."""
    cache = st.session_state.setdefault("rd_token_counts", {})
    key = state.dataset_fingerprint()
    if key not in cache:
        docs, queries = evaluation_texts(ds)
        td, tq = count_tokens(docs), count_tokens(queries)
        cache[key] = (td.tokens + tq.tokens, td.method, td.tokens, tq.tokens)
    return cache[key]


def providers_view(ctx: PageContext, tokens: int) -> None:
    """Every priced model for the same token count: a bar chart and a table, USD or JPY."""
    t = ctx.t
    rows = per_provider_costs(tokens, load_catalog(), load_settings())
    if not rows:
        return
    frame = pd.DataFrame([{
        "provider": r.provider, "model": r.model, "cost": r.usd, "cost_jpy": r.jpy,
        "batch_usd": r.batch_usd, "usd_per_1m": r.usd_per_1m, "jpy_per_usd": r.jpy_per_usd,
        "as_of": r.as_of, "source": r.source_url} for r in rows])
    currency = st.radio(t("cost.currency"), CURRENCIES, horizontal=True,
                        **bind_choice(keys.CURRENCY, CURRENCIES,
                                      "JPY" if ctx.lang == "ja" else "USD"))
    bars = frame.assign(cost=frame["cost_jpy"]) if currency == "JPY" else frame
    st.plotly_chart(_level_labels(cost_bar_figure(bars, currency=currency, lang=ctx.lang)),
                    key="cost_bars", config=PLOTLY_CONFIG)
    st.dataframe(frame, hide_index=True, key="cost_table", column_config={
        "provider": st.column_config.Column(t("tbl.provider")),
        "model": st.column_config.Column(t("tbl.model")),
        "cost": st.column_config.NumberColumn(t("tbl.usd"), format="$%.5f"),
        "cost_jpy": st.column_config.NumberColumn(t("tbl.jpy"), format="¥%.3f"),
        "batch_usd": st.column_config.NumberColumn(t("cost.col_batch"), format="$%.5f"),
        "usd_per_1m": st.column_config.NumberColumn(t("tbl.usd_per_1m"), format="%.3f"),
        "jpy_per_usd": st.column_config.NumberColumn(t("tbl.jpy_per_usd"), format="%.0f"),
        "as_of": st.column_config.Column(t("tbl.as_of")),
        "source": st.column_config.LinkColumn(t("cost.col_source")),
    })


CURRENCIES = ["USD", "JPY"]


def _level_labels(fig):
    """Bar labels written level: plotly turns a label that does not fit inside its bar on
    its side by default."""
    fig.update_traces(textangle=0, selector={"type": "bar"})
    return fig


def rate_editor(ctx: PageContext) -> None:
    t = ctx.t
    settings = load_settings()
    cols = st.columns([2, 1])
    rate = cols[0].number_input(t("cost.rate"), min_value=0.01, value=float(settings.jpy_per_usd),
                                step=1.0, key="cost_rate", help=t("cost.rate_help"))
    cols[1].write("")
    if cols[1].button(t("cost.rate_save"), key="cost_rate_save",
                      disabled=math.isclose(rate, settings.jpy_per_usd)):
        try:
            set_jpy_per_usd(rate)
        except RagdashError as exc:
            st.error(md(exc))
        else:
            st.rerun()


def _cell(value):
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _to_row(record: dict) -> PriceRow:
    def num(name):
        v = _cell(record.get(name))
        return None if v is None else float(v)

    usd = num("usd_per_1m")
    return PriceRow(provider=str(_cell(record.get("provider")) or "").strip(),
                    model=str(_cell(record.get("model")) or "").strip(),
                    usd_per_1m=usd if usd is not None else -1.0,
                    batch_usd_per_1m=num("batch_usd_per_1m"), jpy_per_usd=num("jpy_per_usd"),
                    as_of=str(_cell(record.get("as_of")) or ""),
                    source_url=str(_cell(record.get("source_url")) or ""),
                    notes=str(_cell(record.get("notes")) or ""), origin="user")


def price_editor(ctx: PageContext) -> None:
    """The merged price table, editable; saving keeps only rows that differ from the
    shipped defaults (the package file is never written)."""
    t = ctx.t
    frame = load_catalog().to_frame()[EDIT_COLUMNS]
    edited = st.data_editor(frame, num_rows="dynamic", hide_index=True, key="cost_prices",
                            column_config={
                                "provider": st.column_config.TextColumn(t("tbl.provider")),
                                "model": st.column_config.TextColumn(t("tbl.model")),
                                "as_of": st.column_config.TextColumn(t("tbl.as_of")),
                                "notes": st.column_config.TextColumn(t("cost.col_notes")),
                                "usd_per_1m": st.column_config.NumberColumn(
                                    t("cost.col_usd_per_1m"), min_value=0.0, format="%.4f"),
                                "batch_usd_per_1m": st.column_config.NumberColumn(
                                    t("cost.col_batch"), min_value=0.0, format="%.4f"),
                                "jpy_per_usd": st.column_config.NumberColumn(
                                    t("cost.col_row_rate"), min_value=0.0),
                                "source_url": st.column_config.LinkColumn(t("cost.col_source")),
                            })
    cols = st.columns([1, 2, 2])
    if cols[0].button(t("cost.prices_save"), key="cost_prices_save", type="primary"):
        defaults = {r.key: r for r in load_default_rows()}
        try:
            rows = [_to_row(rec) for rec in edited.to_dict("records")
                    if _cell(rec.get("provider")) or _cell(rec.get("model"))]
            user = [r for r in rows if _differs(r, defaults.get(r.key))]
            path = save_user_rows(user)
        except RagdashError as exc:
            st.error(t("cost.prices_failed", error=md(exc)))
        else:
            st.success(t("cost.prices_saved", n=len(user), path=md(path)))
    if cols[1].button(t("cost.prices_reset"), key="cost_prices_reset"):
        reset_user_catalog()
        st.rerun()


def _differs(row: PriceRow, default: PriceRow | None) -> bool:
    if default is None:
        return True
    fields = ("usd_per_1m", "batch_usd_per_1m", "jpy_per_usd", "as_of", "source_url", "notes",
              "provider", "model")
    return any(getattr(row, f) != getattr(default, f) for f in fields)


def past_runs_frame(ctx: PageContext, summaries) -> pd.DataFrame:
    """One row per saved run: the estimate made before it, and the actual cost from the
    API's usage (BM25 and local models cost 0)."""
    rows = []
    for s in summaries:
        cost = s.cost or {}
        model = cost.get("model") or s.model or s.retriever
        provider = cost.get("provider") or ("local" if s.retriever in ("bm25", "local")
                                            else None)
        try:
            actual = actual_cost(s.usage or {}, model=model, provider=provider)
            actual_usd, actual_jpy, tokens = actual.usd, actual.jpy, actual.tokens
        except RagdashError:
            actual_usd = actual_jpy = tokens = None
        estimated = cost.get("estimated_usd")
        if s.retriever in ("bm25", "trec"):  # computed here, or elsewhere: nothing to pay
            actual_usd, actual_jpy = 0.0, 0.0
            estimated = 0.0 if estimated is None else estimated
        rows.append({"id": s.id, "name": s.name, "model": model, "provider": provider or "",
                     "estimated": estimated, "actual": actual_usd,
                     "actual_jpy": actual_jpy, "tokens": tokens,
                     "value": s.headline.get(next(iter(s.headline), ""), None),
                     "metric": next(iter(s.headline), "")})
    return pd.DataFrame(rows)


def past_view(ctx: PageContext, summaries) -> None:
    """Estimate against actual for each saved run; cost against quality for two or more."""
    t = ctx.t
    past = past_runs_frame(ctx, summaries)
    st.dataframe(past.drop(columns=["id", "value", "metric"]), hide_index=True,
                 key="cost_past", column_config={
                     "name": st.column_config.Column(t("tbl.name")),
                     "model": st.column_config.Column(t("tbl.model")),
                     "provider": st.column_config.Column(t("tbl.provider")),
                     "estimated": st.column_config.NumberColumn(t("tbl.estimated"),
                                                                format="$%.5f"),
                     "actual": st.column_config.NumberColumn(t("tbl.actual"), format="$%.5f"),
                     "actual_jpy": st.column_config.NumberColumn(t("tbl.actual_jpy"),
                                                                 format="¥%.3f"),
                     "tokens": st.column_config.NumberColumn(t("tbl.tokens"), format="%d"),
                 })
    paid = past[(past["estimated"].fillna(0) > 0) | (past["actual"].fillna(0) > 0)]
    if paid.empty:  # BM25, local models and TREC runs only: a chart of zeros says nothing
        st.caption(t("cost.past_all_free"))
        return
    st.plotly_chart(_level_labels(cost_bar_figure(paid, value_key="estimated",
                                                  actual_key="actual", label_keys=("name",),
                                                  lang=ctx.lang)),
                    key="cost_past_bars", config=PLOTLY_CONFIG)
    if len(past) >= 2:
        st.subheader(t("cost.quality"))
        quality = past.assign(cost=past["actual"].fillna(past["estimated"]))
        st.plotly_chart(cost_quality_figure(quality, metric=past["metric"].iloc[0],
                                            lang=ctx.lang),
                        key="cost_quality", config=PLOTLY_CONFIG)
