"""A team's own search on Results: its latency (p50 / p95 / p99), how its results mapped to
the corpus and which queries failed, as the run kept them
(:func:`ragdash.retrieval.own.retriever.own_notes`)."""

from __future__ import annotations

import streamlit as st

from ..retrieval.own.retriever import own_notes
from ..run import Run
from .page import PageContext
from .widgets import md

__all__ = ["own_search_notes"]


def own_search_notes(ctx: PageContext, run: Run) -> None:
    """One caption per sentence (nothing for a run of any other retriever)."""
    said = own_notes(run.resources, ctx.lang)
    if not said:
        return
    st.caption(md(ctx.t("ownsearch.report_heading")) + ": " + " · ".join(md(s) for s in said))
