"""The Compare page's regression gate: the decision ``ragdash check`` would make for the chosen
baseline (run A) and candidate (run B), with its Markdown to paste into a pull request."""

from __future__ import annotations

import streamlit as st

from ..gate import Side, check
from ..i18n import message
from ..run import Run
from ..stats.gate import DEFAULT_MARGIN, RULES, format_markdown
from .page import PageContext
from .widgets import md

#: fewer resamples than the command line: the page reruns often (the decision is said with
#: the number used, and the command line's default is 10,000)
PAGE_RESAMPLES = 2000

_RULE_KEYS = {"not-worse": "gate.ui.rule_not_worse", "non-inferior": "gate.ui.rule_non_inferior"}


def gate_view(ctx: PageContext, baseline: Run, candidate: Run, names: tuple[str, str],
              metric: str, *, key: str) -> None:
    """The gate on one metric: baseline and margin chosen here, the decision, its warnings, the
    Markdown comment."""
    t = ctx.t
    with st.expander(t("gate.ui.title", base=names[0], cand=names[1]), expanded=False):
        st.caption(t("gate.ui.help"))
        cols = st.columns(2)
        margin = cols[0].number_input(t("gate.ui.margin"), min_value=0.0, max_value=1.0,
                                      value=DEFAULT_MARGIN, step=0.005, format="%.3f",
                                      key=f"{key}_margin")
        rule = cols[1].radio(t("gate.ui.rule"), RULES, horizontal=True, key=f"{key}_rule",
                             format_func=lambda r: t(_RULE_KEYS[r]))
        memo = st.session_state.setdefault("rd_gate_cache", {})
        memo_key = (baseline.id, candidate.id, names, metric, float(margin), rule)
        if memo_key not in memo:
            if len(memo) > 16:
                memo.clear()
            memo[memo_key] = check(
                baseline.dataset.qrels, Side(names[0], baseline.ranking, baseline),
                Side(names[1], candidate.ranking, candidate), metrics=[metric],
                margin=float(margin), rule=rule, n_resamples=PAGE_RESAMPLES,
                n_permutations=PAGE_RESAMPLES, relevance_level=baseline.relevance_level)
        decision = memo[memo_key]
        said = md(decision.sentence(ctx.lang))
        (st.success if decision.passed else st.error)(said)
        for warning in decision.warnings():
            st.warning(md(message(warning, ctx.lang)))
        st.caption(t("gate.ui.copy"))
        st.code(format_markdown(decision, lang=ctx.lang), language="markdown")
