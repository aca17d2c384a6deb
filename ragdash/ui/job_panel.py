"""Start an evaluation as a background job and show its progress.

The job runs in :mod:`ragdash.jobs` (not in the script thread), so it survives reruns and page
switches; a page only looks at it, from a fragment that refreshes itself every
:data:`POLL_SECONDS` (0.5 s): it reads the job's progress fields and draws one bar and a
button, nothing else (no dataset, run or table is touched per refresh).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from .. import params as P
from ..dataset import Dataset
from ..embeddings.batching import pace_note
from ..i18n import message
from ..i18n import t as t_
from ..jobs import Job, evaluation_task
from ..retrieval import make_retriever
from ..samples import load_sample
from ..services.urls import moved_notes
from . import keys, state
from .page import PageContext
from .widgets import md

#: How often the progress panel refreshes itself (seconds).
POLL_SECONDS = 0.5


def start_evaluation(ctx: PageContext, dataset: Dataset, retriever_name: str,
                     options: Mapping[str, Any], *, kmax: int, limit_queries: int | None,
                     run_name: str | None = None, api_key: str = "",
                     estimate: Mapping[str, Any] | None = None) -> Job:
    """Submit ``retriever_name`` on ``dataset`` as this session's evaluation job.

    The retriever is built inside the job thread (a local model may take a while to load).
    ``api_key`` is handed to the retriever only; the job masks it in any failure message and
    the run store drops it from the saved configuration. ``estimate`` (the cost preview) is
    saved beside the run so the Cost page can show estimate against actual.
    """
    secrets = (api_key,) if api_key else ()

    def make() -> Any:
        kwargs = dict(options)
        if api_key:
            kwargs["api_key"] = api_key
        return make_retriever(retriever_name, **kwargs)

    # the run's name, in the page's language when none was typed: the progress panel, the
    # finished banner and the saved run all say the same
    name = (run_name or "").strip() or default_run_name(ctx.lang, retriever_name,
                                                         options.get("model"), dataset.name,
                                                         options)
    task = evaluation_task(dataset, make, store=ctx.store, run_name=name, secrets=secrets,
                           cost=estimate, kmax=kmax, limit_queries=limit_queries)
    job = ctx.jobs.submit(ctx.owner, task, kind="evaluation", label=name, secrets=secrets)
    st.session_state.setdefault(_RETRIEVERS, {})[job.id] = retriever_name
    remember_dataset(job, dataset)
    if retriever_name not in ("bm25", "local") and (estimate or {}).get("tokens"):
        st.session_state.setdefault(_ESTIMATED, {})[job.id] = int(estimate["tokens"])
    return job


def token_gap(cost: Mapping[str, Any] | None) -> tuple[int, int, str] | None:
    """(reported, estimated, ratio) when the tokens a server reported for a run and the
    estimate made before it differ by more than 2x either way (a server may count
    characters: infinity-emb reported 1,215,872 for an estimate of 225,211), else None."""
    cost = cost or {}
    estimated, reported = cost.get("tokens"), cost.get("actual_tokens")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
               for v in (estimated, reported)):
        return None
    ratio = reported / estimated
    if 0.5 <= ratio <= 2:
        return None
    return int(reported), int(estimated), f"{ratio:.1f}" if ratio >= 0.1 else f"{ratio:.2g}"


def say_token_gap(ctx: PageContext, name: str, cost: Mapping[str, Any] | None) -> None:
    """A caption when :func:`token_gap` finds one (nothing otherwise)."""
    gap = token_gap(cost)
    if gap is not None:
        reported, estimated, ratio = gap
        st.caption(ctx.t("setupui.tokens_differ", name=md(name), reported=reported,
                         estimated=estimated, ratio=ratio))


def remember_dataset(job: Job, dataset: Dataset) -> None:
    """The dataset ``job`` evaluates, so that its outcome is shown only beside it (a
    "Finished" banner is no news on another dataset); and the run name typed in the Run form
    for it (the page empties the field once a job has started), given back to the field if
    the job fails or is cancelled (:func:`last_job_outcome`), for the next try."""
    fingerprint = (state.dataset_fingerprint() if state.dataset() is dataset
                   else dataset.fingerprint())
    ss = st.session_state
    ss.setdefault(_DATASETS, {})[job.id] = fingerprint
    typed = str(ss.get(keys.RUN_NAME) or "").strip()
    if typed:
        ss.setdefault(_TYPED_NAMES, {})[job.id] = typed


def _give_name_back(job: Job) -> None:
    """The name typed for ``job``, back in the empty name field, once."""
    ss = st.session_state
    typed = ss.get(_TYPED_NAMES, {}).pop(job.id, None)
    if typed and not str(ss.get(keys.RUN_NAME) or "").strip():
        ss[keys.RUN_NAME] = typed


def default_run_name(lang: str, retriever: str, model: object, dataset_name: str,
                     options: dict | None = None) -> str:
    """``"bm25 on jsquad-mini"`` / ``"jsquad-mini の bm25"``: the model names a run better
    than "openai" does (a BM25 run has no model). A search in an engine says which
    (``"m (milvus hnsw)"``, ``"m (qdrant docs)"``), so it never shares its exact twin's name."""
    who = str(model or "").strip() or retriever
    options = options or {}
    if retriever == "ann":
        who = f"{who} ({options.get('engine', '')} {options.get('index') or 'default'})"
    elif retriever == "engine":
        who = f"{who} ({options.get('engine', '')} {options.get('collection') or ''})".replace(
            " )", ")")
    return t_("runs.untitled", lang, retriever=who, dataset=dataset_name)


#: session key: job id -> retriever name of this session's evaluations
_RETRIEVERS = "rd_job_retrievers"
#: session key: job id -> fingerprint of the dataset it evaluates
_DATASETS = "rd_job_datasets"
#: session key: job id -> the tokens estimated before an API run (to compare as it runs)
_ESTIMATED = "rd_job_estimated_tokens"
#: session key: job id -> the run name typed in the form for it (until given back)
_TYPED_NAMES = "rd_job_typed_names"


def job_panel(ctx: PageContext, job: Job) -> None:
    """Progress of ``job`` (texts done / total, calls, tokens, time left) with a Cancel
    button; refreshes itself, and reruns the whole page once the job has finished."""
    t, lang = ctx.t, ctx.lang
    job_id = job.id

    @st.fragment(run_every=POLL_SECONDS)
    def panel() -> None:
        current = ctx.jobs.get(job_id, ctx.owner)
        if current is None:
            return
        if current.finished:
            if job_id not in st.session_state.get(keys.SEEN_JOBS, set()):
                st.rerun()  # the full page picks the finished run up
            return
        line = current.status_text(lang)
        slow = pace_note(current.progress or {}, lang)  # the server is slower than the form
        st.progress(current.fraction or 0.0, text=f"{line} · {slow}" if slow else line)
        estimated = st.session_state.get(_ESTIMATED, {}).get(job_id)
        reported = (current.progress or {}).get("tokens") or 0
        if estimated and reported > 2 * estimated:  # already: the server counts otherwise
            say_token_gap(ctx, job.label, {"tokens": estimated, "actual_tokens": reported})
        st.button(t("run.cancel"), key=f"cancel:{job_id}", on_click=current.cancel,
                  disabled=current.cancel_requested, icon=":material/stop:")

    with st.container(border=True):
        st.markdown(f"**{md(job.label)}**")
        panel()


def last_job_outcome(ctx: PageContext, *, show_done: bool = False) -> None:
    """The outcome of this session's latest evaluation job: a failure in one plain
    sentence, a cancellation, or (``show_done``) a link to the finished run's results —
    while the current dataset is the one it ran on."""
    jobs = ctx.jobs.jobs_for(ctx.owner, kind="evaluation")
    if not jobs:
        return
    job = jobs[0]
    ran_on = st.session_state.get(_DATASETS, {}).get(job.id)
    if ran_on is not None and ran_on != state.dataset_fingerprint():
        return  # it was about another dataset: not news on this one
    if job.state == "done" and getattr(job.result, "reused", False):
        st.info(ctx.t("views.already_saved", label=md(job.label)))
    if job.state == "done" and show_done:
        st.success(ctx.t("run.done", label=md(job.label)))
        run = job.result
        for part in [getattr(run, "cost", None) or {},
                     *((getattr(run, "cost", None) or {}).get("stages") or [])]:
            if isinstance(part, Mapping):
                say_token_gap(ctx, str(part.get("stage") or job.label), part)
        for said in moved_notes(getattr(job.result, "config", None) or {}):
            st.caption(md(message(said, ctx.lang)))
        st.page_link("pages/3_Results.py", label=ctx.t("run.see_results"),
                     icon=":material/monitoring:")
    elif job.state == "failed":
        _give_name_back(job)
        st.error(ctx.t("run.failed", label=md(job.label),
                       error=md(job.error_text(ctx.lang, app=True))))
    elif job.state == "cancelled":
        _give_name_back(job)
        st.warning(ctx.t("run.cancelled", label=md(job.label)))
        if st.session_state.get(_RETRIEVERS, {}).get(job.id) not in (None, "bm25"):
            st.caption(ctx.t("run.cancelled_resume"))


def active_job(ctx: PageContext) -> Job | None:
    """This session's running evaluation, if any (see ``page_setup(settle=)`` for waiting a
    moment for a short one)."""
    return ctx.jobs.active(ctx.owner, kind="evaluation")


def quick_start(ctx: PageContext, sample: str = "jsquad-mini") -> Job:
    """Load a bundled sample and start BM25 on it: the one-click start."""
    ds = load_sample(sample)
    state.set_dataset(ds, source=f"sample:{sample}")
    return start_evaluation(ctx, ds, "bm25", {}, kmax=P.EVALUATION["kmax"].default,
                            limit_queries=None)
