"""Tables shown on several pages, with reader-facing column names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from ..metrics import metric_label
from ..present.tables import runs_frame

if TYPE_CHECKING:
    from .page import PageContext

_RUN_COLUMNS = ("name", "created_at", "dataset", "retriever", "model", "n_queries", "kmax")
_AFTER = ("seconds", "tokens", "cost_usd")
#: the column labels of the runs tables (here and on the Cost page), message keys
COLUMN_KEYS = {"name": "tbl.name", "created_at": "tbl.created_at", "dataset": "tbl.dataset",
               "retriever": "tbl.retriever", "model": "tbl.model", "n_queries": "tbl.n_queries",
               "kmax": "tbl.kmax", "seconds": "tbl.seconds", "tokens": "tbl.tokens",
               "cost_usd": "tbl.cost_usd", "provider": "tbl.provider",
               "estimated": "tbl.estimated", "actual": "tbl.actual",
               "actual_jpy": "tbl.actual_jpy"}


def runs_table(summaries: Sequence, t: Callable[..., str], *, key: str) -> None:
    """The saved runs: name, when, dataset, retriever, model, queries, Kmax, headline means,
    time, tokens, cost."""
    frame = runs_frame(summaries)
    frame["created_at"] = frame["created_at"].str.replace("T", " ").str.slice(0, 16)
    headline = [c for c in frame.columns if "@" in c]
    frame = frame[[*_RUN_COLUMNS, *headline, *_AFTER]]
    labels = {c: t(COLUMN_KEYS[c]) for c in (*_RUN_COLUMNS, *_AFTER)}
    labels.update({c: metric_label(c) for c in headline})
    config = {c: st.column_config.NumberColumn(metric_label(c), format="%.4f")
              for c in headline}
    config["seconds"] = st.column_config.NumberColumn(labels["seconds"], format="%.1f s")
    config["cost_usd"] = st.column_config.NumberColumn(labels["cost_usd"], format="$%.4f")
    for c in (*_RUN_COLUMNS, "tokens"):
        config[c] = st.column_config.Column(labels[c])
    st.dataframe(pd.DataFrame(frame), hide_index=True, key=key, column_config=config)


def shared_note(ctx: PageContext) -> None:
    """Beside a list of saved runs: who else sees them and who may delete them."""
    if ctx.user is None:
        st.warning(ctx.t("runs.shared_all"), icon=":material/group:")
    else:
        st.caption(ctx.t("runs.shared_user"))
