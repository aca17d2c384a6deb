"""The Judge page's pieces: a rater's name, the queue, one pair at a time graded with the
keyboard, agreement between raters, and the labels as TREC qrels.

Every label is saved in the run store the moment it is given (set ``person:<rater>``, one per
rater, so two raters never overwrite each other); the queue skips what the rater has labeled,
so a closed tab loses nothing and a second browser continues where the queue stands.
"Can't tell" is kept in the rater's own ``unsure:<rater>`` set (not a grade: never scored);
Skip lasts for the browser session only.

With sign-in the rater is the signed-in user (a second name typed becomes a suffix of theirs,
``alice@corp/second``), and the agreement view lists other people's sets only to the dataset's
owner (:mod:`ragdash.judgments.raters`; docs/sharing.md).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from ..judge.queue import (
    GRADES,
    Pair,
    disagreement_queue,
    pool_queue,
    rater_agreement,
    remaining,
    sample_queue,
)
from ..judgments import HUMAN, UNSURE_PREFIX, Label, today, write_judgments
from ..judgments.raters import PERSON, rater_for, visible_sets
from ..present.highlight import highlight_html
from . import keys
from .page import PageContext
from .widgets import bind, code, md

#: queue kinds (message keys)
_QUEUE_KEYS = {"pool": "judge.queue_pool", "disagree": "judge.queue_disagree",
               "sample": "judge.queue_sample"}
#: each grade's label and definition on screen (message keys)
_GRADE_KEYS = {0: "judge.grade_0", 1: "judge.grade_1", 2: "judge.grade_2", 3: "judge.grade_3"}
_GRADE_SHORT = {0: "judge.short_0", 1: "judge.short_1", 2: "judge.short_2", 3: "judge.short_3"}
#: the longest rater name kept (it becomes a label's source)
MAX_RATER = 40


def rater_name(ctx: PageContext) -> str | None:
    """The rater's name for this browser session: without sign-in the name typed; signed in,
    the user's own name, with a second name typed ``<user>/<second>`` (never another's)."""
    if ctx.user is None:
        name = st.text_input(ctx.t("judge.rater"), help=ctx.t("judge.rater_help"),
                             max_chars=MAX_RATER, **bind(keys.JUDGE_RATER, ""))
        return rater_for(None, name, limit=MAX_RATER)
    second = st.text_input(ctx.t("raters.second_name"),
                           help=ctx.t("raters.second_name_help", user=md(ctx.user)),
                           max_chars=MAX_RATER, **bind(keys.JUDGE_RATER, ""))
    rater = rater_for(ctx.user, second, limit=MAX_RATER)
    st.caption(ctx.t("raters.saved_as", name=code(PERSON + str(rater))))
    return rater


def dataset_owner(ctx: PageContext, fingerprint: str) -> str | None:
    """Who owns the dataset's judgments: the owner of the first run saved on it (``None``
    when that run is shared, or there is none)."""
    runs = ctx.store.base.list(dataset_fingerprint=fingerprint)  # newest first, every owner
    return runs[-1].owner if runs else None


def sees_other_raters(ctx: PageContext, fingerprint: str) -> bool:
    """Without sign-in everyone; signed in, the dataset's owner (:func:`dataset_owner`)."""
    return ctx.user is None or dataset_owner(ctx, fingerprint) == ctx.user


def visible_set_names(ctx: PageContext, fingerprint: str) -> tuple[list[str], bool]:
    """The stored judgment sets of the dataset this person may see (every page that offers
    them: agreement here, the labels choice of Results, Compare and Choose a setup), and
    whether other people's were left out."""
    stored = [s["name"] for s in ctx.store.judgment_sets(fingerprint)]
    if ctx.user is None:
        return stored, False
    sets = visible_sets(stored, ctx.user, sees_others=sees_other_raters(ctx, fingerprint))
    return sets, len(sets) < len(stored)


def queue_controls(ctx: PageContext, fingerprint: str) -> list[Pair]:
    """Which pairs to judge: the pool of chosen runs, the LLM judge's disagreements with the
    human labels, or a sample of human-labeled pairs for a second opinion."""
    t = ctx.t
    ds = ctx.dataset
    kind = st.radio(t("judge.queue"), list(_QUEUE_KEYS), horizontal=True,
                    format_func=lambda k: t(_QUEUE_KEYS[k]),
                    **bind(keys.JUDGE_QUEUE, "pool"))
    if kind == "pool":
        summaries = ctx.store.list(dataset_fingerprint=fingerprint)
        if not summaries:
            st.info(t("judge.no_runs"))
            return []
        names = {s.id: s.name or s.id for s in summaries}
        cols = st.columns([3, 1])
        chosen = cols[0].multiselect(t("judge.runs"), list(names), format_func=names.get,
                                     default=list(names)[:3], key="judge_runs")
        depth = cols[1].number_input(t("judge.depth"), 1, 100, 10, key="judge_depth")
        memo = ("pool", fingerprint, tuple(chosen), int(depth))
        return _memo(memo, lambda: pool_queue(
            [ctx.store.load(i).ranking for i in chosen], int(depth), ds.qrels,
            known_queries=ds.query_ids, known_docs=ds.doc_ids))
    if kind == "disagree":
        sets = [s["name"] for s in ctx.store.judgment_sets(fingerprint)
                if s["name"].startswith("llm:")]
        if not sets:
            st.info(t("judge.no_llm_sets"))
            return []
        name = st.selectbox(t("judge.llm_set"), sets, key="judge_llm_set")
        other = ctx.store.load_judgments(fingerprint, name)
        return _memo(("disagree", fingerprint, name, len(other)), lambda: disagreement_queue(
            ds.qrels, {(lb.query_id, lb.doc_id): lb.grade for lb in other}))
    n = st.number_input(t("judge.sample_n"), 1, 10_000, 50, key="judge_sample_n")
    return _memo(("sample", fingerprint, int(n)), lambda: sample_queue(ds.qrels, int(n)))


def _memo(key: tuple, compute):
    cache = st.session_state.setdefault("rd_judge_cache", {})
    if key not in cache:
        if len(cache) > 8:
            cache.clear()
        cache[key] = compute()
    return cache[key]


def _given(ctx: PageContext, fingerprint: str, rater: str) -> tuple[dict, set]:
    """The rater's labels ``{pair: grade}`` and the pairs marked "can't tell"."""
    labels = {(lb.query_id, lb.doc_id): lb.grade
              for lb in ctx.store.load_judgments(fingerprint, PERSON + rater)}
    unsure = {(lb.query_id, lb.doc_id)
              for lb in ctx.store.load_judgments(fingerprint, UNSURE_PREFIX + rater)}
    return labels, unsure


def judging_view(ctx: PageContext, fingerprint: str, rater: str, queue: list[Pair]) -> None:
    """One pair at a time: the query, the document with the query's words marked, the grades
    with their definitions, keys 0–3, S skip, U can't tell, B back."""
    t = ctx.t
    ds = ctx.dataset
    labels, unsure = _given(ctx, fingerprint, rater)
    skipped = set(st.session_state.setdefault(keys.JUDGE_SKIPPED, []))
    history = st.session_state.setdefault(keys.JUDGE_HISTORY, [])
    in_queue = {p.key for p in queue}
    done = sum(1 for k in in_queue if k in labels or k in unsure)
    st.progress(done / max(len(queue), 1),
                text=t("judge.progress", done=f"{done:,}", left=f"{len(queue) - done:,}"))
    back = st.session_state.get(keys.JUDGE_BACK)
    if back is not None:
        pair = Pair(*back)
    else:
        todo = remaining(queue, {**labels, **dict.fromkeys(unsure | skipped)})
        if not todo:
            st.success(t("judge.queue_done", n=len(queue)))
            return
        pair = todo[0]
    query = ds.queries[ds.query_index[pair.query_id]]
    doc = ds.documents[ds.doc_index[pair.doc_id]]
    st.markdown(f"**{md(t('judge.query'))}** {md(query.text)}")
    st.caption(t("judge.pair_ids", query=md(pair.query_id), doc=md(pair.doc_id)))
    if doc.title:
        st.markdown(f"#### {md(doc.title)}")
    st.html(f'<div class="rd-judge-doc" style="white-space:pre-wrap;line-height:1.6">'
            f"{highlight_html(query.text, doc.text)}</div>")
    current = labels.get(pair.key)
    if current is not None:
        st.info(t("judge.current", grade=f"{current:g}"))

    cols = st.columns(4)
    for col, grade in zip(cols, GRADES):
        with col:
            if st.button(t(_GRADE_SHORT[grade]), key=f"judge_g{grade}", shortcut=str(grade),
                         type="primary" if current == grade else "secondary",
                         use_container_width=True):
                _label(ctx, fingerprint, rater, pair, grade, history)
            st.caption(t(_GRADE_KEYS[grade]))
    more = st.columns(3)
    if more[0].button(t("judge.skip"), key="judge_skip", shortcut="S"):
        st.session_state[keys.JUDGE_SKIPPED] = [*skipped, pair.key]
        st.session_state.pop(keys.JUDGE_BACK, None)
        st.rerun()
    if more[1].button(t("judge.unsure"), key="judge_unsure", shortcut="U"):
        ctx.store.add_label(fingerprint, UNSURE_PREFIX + rater,
                            Label(pair.query_id, pair.doc_id, 0.0, PERSON + rater, today()))
        ctx.store.remove_label(fingerprint, PERSON + rater, pair.query_id, pair.doc_id)
        history.append(pair.key)
        st.session_state.pop(keys.JUDGE_BACK, None)
        st.rerun()
    if more[2].button(t("judge.back"), key="judge_back", shortcut="B", disabled=not history):
        st.session_state[keys.JUDGE_BACK] = history.pop()
        st.rerun()
    st.caption(t("judge.keys_help"))


def _label(ctx: PageContext, fingerprint: str, rater: str, pair: Pair, grade: int,
           history: list) -> None:
    """Save the label now (a closed tab loses nothing), then show the next pair."""
    ctx.store.add_label(fingerprint, PERSON + rater,
                        Label(pair.query_id, pair.doc_id, float(grade), PERSON + rater, today()))
    ctx.store.remove_label(fingerprint, UNSURE_PREFIX + rater, pair.query_id, pair.doc_id)
    if not history or history[-1] != pair.key:
        history.append(pair.key)
    st.session_state.pop(keys.JUDGE_BACK, None)
    st.rerun()


def agreement_view(ctx: PageContext, fingerprint: str) -> None:
    """Agreement between raters (people, the LLM judge, the human qrels) on the pairs they
    share: κ with intervals, the confusion matrix, the disagreements to adjudicate."""
    t = ctx.t
    ds = ctx.dataset
    sets, hidden = visible_set_names(ctx, fingerprint)
    if hidden:
        st.caption(t("raters.others_hidden"))
    options = [HUMAN, *sets]
    picked = st.multiselect(t("judge.agree_sets"), options,
                            default=[s for s in sets if s.startswith(PERSON)][:3] or options[:2],
                            format_func=lambda s: t("judge.human_set") if s == HUMAN else s,
                            key="judge_agree_sets")
    if len(picked) < 2:
        st.info(t("judge.agree_two"))
        return
    labels = {}
    for name in picked:
        if name == HUMAN:
            labels[name] = {(q, d): float(g) for q, docs in ds.qrels.items()
                            for d, g in docs.items()}
        else:
            labels[name] = {(lb.query_id, lb.doc_id): lb.grade
                            for lb in ctx.store.load_judgments(fingerprint, name)}
    report = rater_agreement(labels)
    if report.items == 0 and report.alpha is None:
        st.info(t("judge.agree_none"))
        return
    rows = []
    for key, stat in (("judge.kappa", report.cohen), ("judge.kappa_weighted",
                                                      report.cohen_weighted),
                      ("judge.kappa_binary", report.cohen_binary),
                      ("judge.fleiss", report.fleiss), ("judge.alpha", report.alpha)):
        if stat is not None:
            rows.append({t("judge.col_stat"): t(key), t("judge.col_value"): stat.value,
                         t("judge.col_ci"): f"[{stat.low:.3f}, {stat.high:.3f}]",
                         t("judge.col_pairs"): stat.items})
    # a static table: four rows people read (and copy) as text
    st.table(pd.DataFrame(rows).set_index(t("judge.col_stat")))
    st.caption(t("judge.agree_help", n=report.items))
    if report.confusion is not None:
        first, second = report.raters
        frame = pd.DataFrame(report.confusion,
                             index=[f"{first} {c:g}" for c in report.categories],
                             columns=[f"{second} {c:g}" for c in report.categories])
        st.markdown(f"**{md(t('judge.confusion'))}**")
        st.dataframe(frame)
    if report.disagreements:
        st.markdown(f"**{md(t('judge.adjudicate', n=len(report.disagreements)))}**")
        st.dataframe(pd.DataFrame([
            {t("judge.col_query"): _text_of(ds, "q", q), t("judge.col_doc"): _text_of(ds, "d", d),
             **{name: grades.get(name) for name in report.raters}}
            for (q, d), grades in report.disagreements[:500]]),
            hide_index=True)


def _text_of(ds, kind: str, id_: str) -> str:
    if kind == "q":
        i = ds.query_index.get(id_)
        return f"{id_}: {ds.queries[i].text[:80]}" if i is not None else id_
    i = ds.doc_index.get(id_)
    if i is None:
        return id_
    doc = ds.documents[i]
    return f"{id_}: {(doc.title or doc.text)[:60]}"


def export_view(ctx: PageContext, fingerprint: str, rater: str) -> None:
    """The rater's labels as TREC qrels, with each label's source and date beside them."""
    jset = ctx.store.load_judgments(fingerprint, PERSON + rater)
    if not len(jset):
        return
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, sources_path = write_judgments(jset, Path(folder) / "labels.qrels")
        qrels, sources = Path(qrels_path).read_bytes(), Path(sources_path).read_bytes()
    cols = st.columns(2)
    safe = "".join(c if c.isalnum() else "_" for c in rater)
    cols[0].download_button(ctx.t("judge.download_qrels", n=len(jset)), qrels,
                            file_name=f"judgments-{safe}.qrels", on_click="ignore",
                            key="judge_dl_qrels")
    cols[1].download_button(ctx.t("judge.download_sources"), sources,
                            file_name=f"judgments-{safe}.qrels.sources.tsv",
                            on_click="ignore", key="judge_dl_sources")


__all__ = ["agreement_view", "dataset_owner", "export_view", "judging_view", "queue_controls",
           "rater_name", "sees_other_raters", "visible_set_names"]
