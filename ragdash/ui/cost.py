"""Pieces of the Cost page: providers side by side, the editable price table and exchange
rate (saved under ``RAGDASH_HOME`` through :mod:`ragdash.cost`), estimate against actual."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from ..cost import (
    CostSettings,
    PriceRow,
    actual_cost,
    count_tokens,
    evaluation_texts,
    format_money,
    load_catalog,
    load_settings,
    per_provider_costs,
    reset_user_catalog,
    save_user_rows,
    set_jpy_per_usd,
)
from ..cost.catalog import MAX_JPY_PER_USD, MIN_JPY_PER_USD, load_default_rows
from ..errors import CostError, RagdashError
from ..i18n import convention, error, text
from ..present.charts import PLOTLY_CONFIG, cost_bar_figure, cost_quality_figure
from . import keys, state
from .page import PageContext
from .tables import COLUMN_KEYS
from .widgets import bind_choice, md, say

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
    settings = saved_settings(ctx, show_error=False) or CostSettings()  # the default meanwhile
    rows = per_provider_costs(tokens, load_catalog(), settings)
    if not rows:
        return
    frame = pd.DataFrame([{
        "provider": r.provider, "model": r.model, "cost": r.usd, "cost_jpy": r.jpy,
        "batch_usd": r.batch_usd, "usd_per_1m": r.usd_per_1m, "jpy_per_usd": r.jpy_per_usd,
        "as_of": r.as_of or "", "source": r.source_url or ""} for r in rows])
    for column in ("cost", "cost_jpy", "usd_per_1m", "jpy_per_usd"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    # a grid writes a missing number as a literal "None": the optional batch price is text
    frame["batch_usd"] = [format_money(None if pd.isna(v) else float(v), "USD")
                          for v in pd.to_numeric(frame["batch_usd"], errors="coerce")]
    currency = st.radio(t("cost.currency"), CURRENCIES, horizontal=True,
                        **bind_choice(keys.CURRENCY, CURRENCIES,
                                      convention(ctx.lang, "currency")))
    bars = frame.assign(cost=frame["cost_jpy"]) if currency == "JPY" else frame
    st.plotly_chart(_level_labels(cost_bar_figure(bars, currency=currency, lang=ctx.lang)),
                    key="cost_bars", config=PLOTLY_CONFIG)
    st.dataframe(frame, hide_index=True, key="cost_table", column_config={
        "provider": st.column_config.Column(t("tbl.provider")),
        "model": st.column_config.Column(t("tbl.model")),
        "cost": st.column_config.NumberColumn(t("tbl.usd"), format="$%.5f"),
        "cost_jpy": st.column_config.NumberColumn(t("tbl.jpy"), format="¥%.2f"),
        "batch_usd": st.column_config.TextColumn(t("cost.col_batch")),
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


def saved_settings(ctx: PageContext, *, show_error: bool) -> CostSettings | None:
    """The saved exchange rate, or None when a hand-edited ``cost_settings.json`` cannot be
    used: that is said where the rate is edited (``show_error``)."""
    try:
        return load_settings()
    except CostError as exc:
        if show_error:
            st.error(say(exc, ctx.lang))
        return None


def rate_editor(ctx: PageContext) -> None:
    t = ctx.t
    saved = saved_settings(ctx, show_error=True)
    broken = saved is None  # saving a rate replaces the file
    settings = saved or CostSettings()
    cols = st.columns([2, 1])
    rate = cols[0].number_input(t("cost.rate"), min_value=MIN_JPY_PER_USD,
                                max_value=MAX_JPY_PER_USD, value=float(settings.jpy_per_usd),
                                step=1.0, key="cost_rate", help=t("cost.rate_help"))
    cols[1].write("")
    if cols[1].button(t("cost.rate_save"), key="cost_rate_save",
                      disabled=not broken and math.isclose(rate, settings.jpy_per_usd)):
        try:
            set_jpy_per_usd(rate)
        except RagdashError as exc:
            st.error(say(exc, ctx.lang))
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


#: price table columns that may be left blank (edited as text: blank is "not set")
OPTIONAL_NUMBERS = ("batch_usd_per_1m", "jpy_per_usd")


def _to_row(record: dict) -> PriceRow:
    def num(name):
        v = _cell(record.get(name))
        if v is None:
            return None
        try:
            return float(str(v).strip().lstrip("$¥").replace(",", ""))
        except ValueError:
            raise error(CostError, "cost.not_a_number", value=str(v), column=name) from None

    usd = num("usd_per_1m")
    provider = str(_cell(record.get("provider")) or "").strip()
    model = str(_cell(record.get("model")) or "").strip()
    if usd is None:  # a cleared cell
        raise error(CostError, "cost.row_invalid", label=f"{provider} / {model}",
                    problem=text("cost.row_price_missing", column="usd_per_1m"),
                    fix=text("cost.row_price_missing_fix", column="usd_per_1m"))
    return PriceRow(provider=provider, model=model, usd_per_1m=usd,
                    batch_usd_per_1m=num("batch_usd_per_1m"), jpy_per_usd=num("jpy_per_usd"),
                    as_of=str(_cell(record.get("as_of")) or ""),
                    source_url=str(_cell(record.get("source_url")) or ""),
                    notes=str(_cell(record.get("notes")) or ""), origin="user")


def price_editor(ctx: PageContext) -> None:
    """The merged price table, editable; saving keeps only rows that differ from the
    shipped defaults (the package file is never written)."""
    t = ctx.t
    frame = load_catalog().to_frame()[EDIT_COLUMNS].copy()
    # optional figures as text, blank when unset (a grid shows a missing number as "None")
    for column in OPTIONAL_NUMBERS:
        frame[column] = [f"{float(v):g}" if _cell(v) is not None else "" for v in frame[column]]
    for column in ("as_of", "source_url", "notes"):
        frame[column] = [str(v) if _cell(v) is not None else "" for v in frame[column]]
    edited = st.data_editor(frame, num_rows="dynamic", hide_index=True, key="cost_prices",
                            column_config={
                                "provider": st.column_config.TextColumn(t("tbl.provider")),
                                "model": st.column_config.TextColumn(t("tbl.model")),
                                "as_of": st.column_config.TextColumn(t("tbl.as_of")),
                                "notes": st.column_config.TextColumn(t("cost.col_notes")),
                                "usd_per_1m": st.column_config.NumberColumn(
                                    t("cost.col_usd_per_1m"), min_value=0.0, format="%.4f"),
                                "batch_usd_per_1m": st.column_config.TextColumn(
                                    t("cost.col_batch")),
                                "jpy_per_usd": st.column_config.TextColumn(
                                    t("cost.col_row_rate")),
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
            st.error(t("cost.prices_failed", error=say(exc, ctx.lang)))
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
        if isinstance(cost.get("stages"), list):  # a pipeline: its stages' costs, summed
            actual_usd, actual_jpy = cost.get("actual_usd"), cost.get("actual_jpy")
        if s.retriever in ("bm25", "trec", "local"):  # on this machine or elsewhere: free
            actual_usd, actual_jpy = 0.0, 0.0
            estimated = 0.0 if estimated is None else estimated
        rows.append({"id": s.id, "name": s.name, "dataset": s.dataset_name,
                     "dataset_fp": s.dataset_fingerprint, "model": str(model or ""),
                     "provider": provider or "", "estimated": estimated, "actual": actual_usd,
                     "actual_jpy": actual_jpy, "tokens": tokens,
                     "value": s.headline.get(next(iter(s.headline), ""), None),
                     "metric": next(iter(s.headline), "")})
    frame = pd.DataFrame(rows)
    # numbers as numbers (an unknown one is blank, not a literal "None" in the table)
    for column in ("estimated", "actual", "actual_jpy", "tokens", "value"):
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


#: the columns of the past runs' table, each labelled by ``tbl.<column>``
PAST_COLUMNS = ("name", "dataset", "model", "provider", "estimated", "actual", "actual_jpy",
                "tokens")


def past_display(past: pd.DataFrame) -> pd.DataFrame:
    """The past runs' table as people read it: money through :func:`format_money` (``$0``,
    ``$0.0012``, ``¥4.58``), counts with separators, and ``—`` where a figure is unknown (a
    grid shows a missing value as a literal "None")."""
    shown = past[list(PAST_COLUMNS)].copy()
    for column, currency in (("estimated", "USD"), ("actual", "USD"), ("actual_jpy", "JPY")):
        shown[column] = [format_money(None if pd.isna(v) else float(v), currency)
                         for v in past[column]]
    shown["tokens"] = ["—" if pd.isna(v) else f"{int(v):,}" for v in past["tokens"]]
    for column in ("name", "dataset", "model", "provider"):
        shown[column] = [str(v) if isinstance(v, str) and v else "—" for v in past[column]]
    return shown


def past_view(ctx: PageContext, summaries) -> None:
    """Estimate against actual for each saved run; cost against quality for two or more."""
    t = ctx.t
    past = past_runs_frame(ctx, summaries)
    st.dataframe(past_display(past), hide_index=True, key="cost_past", column_config={
        c: st.column_config.Column(t(COLUMN_KEYS[c])) for c in PAST_COLUMNS})
    paid = past[(past["estimated"].fillna(0) > 0) | (past["actual"].fillna(0) > 0)]
    if paid.empty:  # BM25, local models and TREC runs only: a chart of zeros says nothing
        st.caption(t("cost.past_all_free"))
        return
    st.plotly_chart(_level_labels(cost_bar_figure(paid, value_key="estimated",
                                                  actual_key="actual", label_keys=("name",),
                                                  lang=ctx.lang)),
                    key="cost_past_bars", config=PLOTLY_CONFIG)
    quality_view(ctx, past)


def quality_view(ctx: PageContext, past: pd.DataFrame) -> None:
    """Cost against quality for the runs of one dataset (a metric is only comparable on
    the same queries): the current dataset's, or the one picked when runs cover several."""
    t = ctx.t
    counts = past.groupby("dataset_fp", sort=False).size()
    fps = [fp for fp in counts.index if counts[fp] >= 2]
    if not fps:
        return
    st.subheader(t("cost.quality"))
    names = dict(zip(past["dataset_fp"], past["dataset"]))
    current = state.dataset_fingerprint()
    fp = fps[0]
    if len(fps) > 1:
        fp = st.selectbox(t("cost.quality_dataset"), fps,
                          format_func=lambda f: f"{names[f]} · {counts[f]:,}",
                          **bind_choice(keys.COST_QUALITY_DATASET, fps,
                                        current if current in fps else fps[0]))
    else:
        st.caption(t("cost.quality_one", name=md(names[fp])))
    runs = past[past["dataset_fp"] == fp]
    quality = runs.assign(cost=runs["actual"].fillna(runs["estimated"]))
    st.plotly_chart(cost_quality_figure(quality, metric=runs["metric"].iloc[0], lang=ctx.lang),
                    key="cost_quality", config=PLOTLY_CONFIG)
