"""Which labels the app's numbers show: human only, or human + filled judgment sets; whole
or condensed lists. One choice per browser session, shared by Results, Compare and Choose a
setup (plain session keys, see :mod:`ragdash.ui.keys`), said under every table and chart.

Pages call :func:`label_controls` once (it also reads the chosen sets from the store), then
:func:`table_of` wherever they need a run's metric table (never ``run.table()`` directly),
and :func:`labels_caption` beside what they draw; memo keys include :func:`view_key`.
"""

from __future__ import annotations

import streamlit as st

from ..i18n import message
from ..judgments import fill, write_judgments
from ..judgments.coverage import labels_said
from .judge import visible_set_names
from .page import PageContext
from .widgets import bind, bind_choice, bind_multi, md

#: plain session keys (they outlive a page switch)
MODE = "rd_labels_mode"          # "human" | "filled"
SETS = "rd_labels_sets"          # names of the stored judgment sets that fill the gaps
CONDENSED = "rd_labels_condensed"  # score condensed lists (trec_eval -J)
_FILLED = "rd_labels_filled"     # memo: (fingerprint, set names) -> Filled

_MODE_KEYS = {"human": "judgments.app.human", "filled": "judgments.app.filled"}


def label_controls(ctx: PageContext, dataset, fingerprint: str | None) -> None:
    """The choice of labels for ``dataset`` (stored as ``fingerprint``): human only or human
    + the chosen stored judgment sets, and condensed lists."""
    t = ctx.t
    # with sign-in, other people's sets only for the dataset's owner (docs/sharing.md)
    sets = visible_set_names(ctx, fingerprint)[0] if fingerprint else []
    with st.expander(t("judgments.app.title"), expanded=bool(st.session_state.get(MODE)
                                                              == "filled")):
        modes = ["human", "filled"] if sets else ["human"]
        mode = st.radio(t("judgments.app.labels"), modes, horizontal=True,
                        format_func=lambda m: t(_MODE_KEYS[m]),
                        help=t("judgments.app.labels_help"),
                        **bind_choice(MODE, modes, "human"))
        if mode == "filled":
            st.multiselect(t("judgments.app.sets"), sets, help=t("judgments.app.sets_help"),
                           **bind_multi(SETS, sets, sets))
        elif not sets:
            st.caption(t("judgments.app.no_sets"))
        st.toggle(t("judgments.app.condensed"), help=t("judgments.app.condensed_help"),
                  **bind(CONDENSED, False))
    names = _chosen()
    if not fingerprint or not names:
        return
    key = (fingerprint, names)
    memo = st.session_state.setdefault(_FILLED, {})
    if key not in memo:
        if len(memo) > 4:
            memo.clear()
        sets = [ctx.store.load_judgments(fingerprint, n) for n in names]
        memo[key] = fill(dataset.qrels, *sets, queries=dataset.query_ids,
                         docs=dataset.doc_ids)
    filled = memo[key]
    if filled.unknown:
        st.warning(t("judgments.app.unknown", n=filled.unknown))


def _chosen() -> tuple[str, ...]:
    ss = st.session_state
    return tuple(ss.get(SETS) or ()) if ss.get(MODE) == "filled" else ()


def filled_for(run) -> object | None:
    """The session's :class:`ragdash.judgments.Filled` for ``run``'s dataset (read by
    :func:`label_controls`), or ``None``: human only. One object per (dataset, sets), so
    the run's memoized table is reused."""
    names = _chosen()
    if not names:
        return None
    return st.session_state.get(_FILLED, {}).get((run.dataset_fingerprint, names))


def judged_only() -> bool:
    return bool(st.session_state.get(CONDENSED, False))


def view_key() -> tuple:
    """What the session's labels are, for memo keys."""
    return (_chosen(), judged_only())


def table_of(run):
    """``run``'s metric table on the session's labels."""
    return run.table(filled_for(run), judged_only=judged_only())


def labels_caption(ctx: PageContext, table) -> None:
    """Under a table or chart: which labels it shows, and what a fill left out."""
    st.caption(md(message(labels_said(table.labels, table.judged_only), ctx.lang)))


def export_button(ctx: PageContext, run, *, key: str) -> None:
    """The labels behind the numbers on screen as TREC qrels, and their sources sidecar."""
    import tempfile
    from pathlib import Path

    from ..judgments import JudgmentSet

    filled = filled_for(run)
    jset = (filled.to_set("labels") if filled is not None
            else JudgmentSet.from_qrels(run.dataset.qrels, date=""))

    def files() -> tuple[bytes, bytes]:
        with tempfile.TemporaryDirectory() as folder:
            qrels, side = write_judgments(jset, Path(folder) / "labels.qrels")
            return qrels.read_bytes(), side.read_bytes()

    spaced = next((v for lb in jset for v in (lb.query_id, lb.doc_id)
                   if not v or any(c.isspace() for c in v)), None)
    why = None if spaced is None else ctx.t("judgments.app.export_spaces", id=md(repr(spaced)))
    cols = st.columns(2)
    cols[0].download_button(ctx.t("judgments.app.export"), lambda: files()[0],
                            "labels.qrels", "text/plain", key=f"{key}:qrels",
                            icon=":material/label:", on_click="ignore",
                            disabled=spaced is not None, help=why)
    cols[1].download_button(ctx.t("judgments.app.export_sources"), lambda: files()[1],
                            "labels.qrels.sources.tsv", "text/tab-separated-values",
                            key=f"{key}:sources", icon=":material/source:", on_click="ignore",
                            disabled=spaced is not None, help=why)
