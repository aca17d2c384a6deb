"""The landing page's "how to read the curves" figure, and warming the server up.

The figure is computed by the real metric code on a toy query, so it is exact; it also makes
the browser load plotly.js while the user reads the landing page, so the first results page
after the one-click start draws its curves sooner.
"""

from __future__ import annotations

import threading

import streamlit as st

from ..metrics import evaluate
from ..present.charts import PLOTLY_CONFIG, curve_figure
from ..ranking import Ranking
from .page import PageContext

#: one query with three relevant documents among twenty retrieved
_RELEVANT = {"r1": 1.0, "r2": 1.0, "r3": 1.0}
_EARLY = ["r1", "r2", "x1", "r3"]          # relevant at ranks 1, 2, 4
_LATE = ["x1", "x2", "r1", "x3", "x4", "x5", "x6", "r2", "x7", "x8", "x9", "x10", "x11",
         "x12", "r3"]                       # relevant at ranks 3, 8, 15


def _toy_curve(order: list[str]):
    run = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
    return evaluate(Ranking.from_dict(run), {"q": _RELEVANT}, kmax=20)


def reading_guide(ctx: PageContext) -> None:
    t = ctx.t
    curves = {t("home.demo_early"): _toy_curve(_EARLY), t("home.demo_late"): _toy_curve(_LATE)}
    fig = curve_figure(curves, "recall", lang=ctx.lang, title=t("home.demo_title"))
    fig.update_layout(height=360, margin={"t": 40, "b": 40, "l": 40, "r": 10},
                      legend={"orientation": "h", "x": 0, "y": -0.28, "yanchor": "top"})
    fig.update_yaxes(title={"text": "Recall@K"})
    st.plotly_chart(fig, key="home_demo", config=PLOTLY_CONFIG)
    st.caption(t("home.demo_caption"))


_warmed = threading.Event()


def warm_up() -> None:
    """Import what the first evaluation and results page need, once per server process, in
    a background thread: the first click then does not wait for imports."""
    if _warmed.is_set():
        return
    _warmed.set()

    def work() -> None:
        try:
            import bm25s  # noqa: F401

            from .. import pipeline, retrieval, stats, views  # noqa: F401
        except Exception:  # warming up is an optimisation only
            pass

    threading.Thread(target=work, name="ragdash-warm-up", daemon=True).start()
