"""Pieces of the Generate page: the corpus (the current dataset's, or uploaded files), the
writer's settings, the plan and cost before anything is sent, the job, its report, and the
generated sets kept in the run store.

The job is :class:`ragdash.generate.GenerateJob` run in :mod:`ragdash.jobs` (kind
``"generate"``), so it survives reruns and page switches; the finished set is saved in the run
store as the signed-in user's (everyone's without sign-in) and can be made the current
dataset. The page lists only the sets this person may see (:mod:`ragdash.runs.access`); a
set's link (``/Data?dataset=…``) gives others read access."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from ..errors import RagdashError
from ..generate.settings import DEFAULT_N, LANGUAGES, STYLES
from ..i18n import message
from . import keys, state
from .data import share_dataset
from .job_panel import job_panel
from .page import PageContext
from .widgets import bind, bind_choice, md, plain_http_banner, say, secret_input

KIND = "generate"
UPLOAD_TYPES = ["jsonl", "ndjson", "csv", "tsv", "json", "txt", "md", "zip"]
#: session keys of the page's settings (each bound to its widget)
BASE_URL, MODEL, N, SEED, PER_SOURCE = ("rd_gen_base_url", "rd_gen_model", "rd_gen_n",
                                        "rd_gen_seed", "rd_gen_per_source")
LANGUAGE, STYLE, SOURCE = "rd_gen_language", "rd_gen_style", "rd_gen_source"
#: session key: the corpus read from the last uploads, under a digest of their bytes
_CORPUS = "rd_gen_corpus"
#: the label of each choice (message keys)
_LANGUAGE_KEYS = {"auto": "gen.lang_auto", "ja": "gen.lang_ja", "en": "gen.lang_en"}
_STYLE_KEYS = {"question": "gen.style_question", "keyword": "gen.style_keyword",
               "mixed": "gen.style_mixed"}
_SOURCE_KEYS = {"dataset": "gen.corpus_dataset", "upload": "gen.corpus_upload"}


def corpus_input(ctx: PageContext):
    """The corpus to write from, or None (with the reason shown)."""
    from ..generate.corpus import Corpus, read_corpus_sources
    from ..loaders import Source
    from ..loaders._source import open_zip, zip_sources

    t = ctx.t
    choices = ["dataset", "upload"] if ctx.dataset is not None else ["upload"]
    where = st.radio(t("gen.corpus"), choices, horizontal=True,
                     format_func=lambda c: t(_SOURCE_KEYS[c]), **bind_choice(SOURCE, choices,
                                                                            choices[0]))
    if where == "dataset":
        ds = ctx.dataset
        return Corpus(list(ds.documents), ["corpus"] * len(ds.documents), name=ds.name)
    files = st.file_uploader(t("gen.upload"), type=UPLOAD_TYPES, accept_multiple_files=True,
                             key="gen_files", help=t("gen.upload_help"))
    if not files:
        return None
    uploads = [(f.name, f.getvalue()) for f in files]
    digest = hashlib.sha256(b"".join(n.encode() + b"\0" + d for n, d in uploads)).hexdigest()
    kept = st.session_state.get(_CORPUS)
    if kept and kept[0] == digest:
        return kept[1]
    try:
        sources = []
        for name, data in uploads:
            if name.lower().endswith(".zip"):
                sources += zip_sources(open_zip(data, name), name)
            else:
                sources.append(Source.from_bytes(name, data))
        name = uploads[0][0].rsplit(".", 1)[0] if len(uploads) == 1 else "uploads"
        corpus = read_corpus_sources(sources, name=name, container=name)
    except RagdashError as exc:
        st.error(say(exc, ctx.lang))
        return None
    st.session_state[_CORPUS] = (digest, corpus)
    return corpus


def settings_form(ctx: PageContext) -> dict[str, Any]:
    t = ctx.t
    left, right = st.columns(2)
    with left:
        base_url = st.text_input(t("gen.base_url"), help=t("gen.base_url_help"),
                                 **bind(BASE_URL, "https://api.openai.com/v1")).strip()
        model = st.text_input(t("gen.model"), **bind(MODEL, "gpt-4o-mini")).strip()
        api_key = secret_input(t("run.api_key"), keys.API_KEY, help=t("gen.key_help"))
    with right:
        n = st.number_input(t("gen.n"), min_value=1, max_value=10_000, step=10,
                            **bind(N, DEFAULT_N))
        seed = st.number_input(t("gen.seed"), min_value=0, step=1, **bind(SEED, 1))
        per_source = st.number_input(t("gen.per_source"), min_value=0, step=1,
                                     help=t("gen.per_source_help"), **bind(PER_SOURCE, 0))
    one, two = st.columns(2)
    language = one.radio(t("gen.language"), list(LANGUAGES), horizontal=True,
                         format_func=lambda c: t(_LANGUAGE_KEYS[c]),
                         **bind_choice(LANGUAGE, list(LANGUAGES), "auto"))
    style = two.radio(t("gen.style"), list(STYLES), horizontal=True,
                      format_func=lambda c: t(_STYLE_KEYS[c]),
                      **bind_choice(STYLE, list(STYLES), "question"))
    examples_file = st.file_uploader(t("gen.examples"), type=["txt", "jsonl", "csv", "tsv"],
                                     key="gen_examples", help=t("gen.examples_help"))
    examples = []
    if examples_file is not None:
        raw = examples_file.getvalue().decode("utf-8", "replace")
        examples = list(dict.fromkeys(" ".join(x.split()) for x in raw.splitlines()
                                      if x.strip()))
    plain_http_banner(t, base_url, api_key)
    return {"base_url": base_url, "model": model, "api_key": api_key.strip(), "n": int(n),
            "seed": int(seed), "per_source": int(per_source) or None, "language": language,
            "style": style, "examples": examples}


def plan(ctx: PageContext, corpus, settings: dict):
    """The job as planned, with the sample and the cost said; None when it cannot be made."""
    from ..generate import GenerateJob
    from ..generate.report import estimate_text
    from ..services.chat import ChatClient

    if not settings["base_url"] or not settings["model"]:
        st.info(ctx.t("gen.need_server"))
        return None
    try:
        client = ChatClient(settings["base_url"], settings["model"])
        endpoint = client.endpoint.base
        client.close()
        job = GenerateJob(corpus, endpoint=endpoint, base_url=settings["base_url"],
                          model=settings["model"], n=settings["n"], seed=settings["seed"],
                          per_source=settings["per_source"], language=settings["language"],
                          style=settings["style"], examples=settings["examples"])
    except RagdashError as exc:
        st.error(say(exc, ctx.lang))
        return None
    for note in corpus.notes:
        st.caption(md(message(note, ctx.lang)))
    st.markdown("\n".join(f"- {md(message(line, ctx.lang))}"
                          for line in estimate_text(job.estimate())))
    return job


def validate_choice(ctx: PageContext, where: str) -> bool:
    """Whether to score the same systems on the current dataset's human queries too
    (offered when the corpus is that dataset's and it has judged queries)."""
    ds = ctx.dataset
    if where != "dataset" or ds is None or not ds.evaluated_queries():
        return False
    return st.checkbox(ctx.t("gen.validate"), value=True, key="gen_validate",
                       help=ctx.t("gen.validate_help"))


def start(ctx: PageContext, job, settings: dict, *, human=None) -> None:
    """Send the job to the background: write, check, judge, save in the store (and, with
    ``human``, score the same systems on its queries: ``ragdash generate --validate``)."""
    from ..generate import save_generated

    key = settings["api_key"] or None
    store = ctx.store  # this user's view: the set is saved as theirs (read here, not in the job)

    def task(*, progress, cancel):
        from ..generate.validate import validate
        from ..services.chat import ChatClient

        client = ChatClient(settings["base_url"], settings["model"], api_key=key)
        try:
            result = job.run(client, progress=progress, cancel=cancel)
        finally:
            client.close()
        fingerprint = save_generated(result, store)
        checked = None
        if human is not None and result.dataset.queries:
            checked = validate(result.dataset, human, cancel=cancel)
        return result, fingerprint, checked

    ctx.jobs.submit(ctx.owner, task, kind=KIND, label=ctx.t("gen.job_label",
                                                            model=settings["model"],
                                                            n=settings["n"]),
                    secrets=[key] if key else [])


def running(ctx: PageContext):
    """This session's running generation job, shown with its progress; None if none."""
    job = ctx.jobs.active(ctx.owner, kind=KIND)
    if job is not None:
        job_panel(ctx, job)
    return job


def outcome(ctx: PageContext) -> None:
    """The last generation's report, or its failure in one sentence."""
    from ..dataset import synthetic_note
    from ..generate.report import kept_text, pool_text, spent_text

    jobs = ctx.jobs.jobs_for(ctx.owner, kind=KIND)
    if not jobs or not jobs[0].finished:
        return
    job = jobs[0]
    if job.state == "failed":
        st.error(ctx.t("gen.failed", error=md(job.error_text(ctx.lang, app=True))))
        return
    if job.state != "done":
        st.warning(ctx.t("gen.cancelled"))
        return
    result, fingerprint, checked = job.result
    st.success(md(message(kept_text(result), ctx.lang)))
    st.markdown(md(message(pool_text(result), ctx.lang)))
    st.caption(md(message(spent_text(result), ctx.lang)))
    note = synthetic_note(result.dataset)
    if note is not None:
        st.caption(md(message(note, ctx.lang)))
    if checked is not None:
        validation_view(ctx, checked)
    share_dataset(ctx, fingerprint)
    if st.button(ctx.t("gen.use"), key="gen_use", type="primary"):
        state.set_dataset(result.dataset, source=f"generated:{fingerprint[:12]}")
        st.rerun()


def validation_view(ctx: PageContext, checked: dict) -> None:
    """Kendall's τ between the systems' orders on both sets, and each system's scores."""
    import pandas as pd

    from ..generate.validate import METRICS

    lo, hi = checked["published_tau"]
    taus = ", ".join(f"{m} {checked['tau'][m]:.2f}" for m in METRICS)
    st.markdown(ctx.t("gen.validated", tau=taus, lo=f"{lo:.2f}", hi=f"{hi:.2f}",
                      n=len(checked["systems"]), generated=checked["queries"]["generated"],
                      human=checked["queries"]["human"]))
    rows = {r["system"]: {**{f"{ctx.t('gen.side_generated')} {m}": r["generated"][m]
                             for m in METRICS},
                          **{f"{ctx.t('gen.side_human')} {m}": r["human"][m] for m in METRICS}}
            for r in checked["systems"]}
    st.dataframe(pd.DataFrame.from_dict(rows, orient="index").round(3))


def stored_sets(ctx: PageContext) -> None:
    """Generated sets kept in the run store that this person may see (their own, those
    saved for everyone, those opened by a link), each openable as the current dataset."""
    from ..generate.job import NAME_SUFFIX

    store = ctx.store
    found = [d for d in store.datasets() if str(d["name"]).endswith(NAME_SUFFIX)]
    if not found:
        st.caption(ctx.t("gen.none_stored"))
        return
    names = {d["fingerprint"]: f"{d['name']} · {d['sizes'].get('queries', 0):,} "
                               f"{ctx.t('gen.queries')}" for d in found}
    chosen = st.selectbox(ctx.t("gen.stored"), list(names), format_func=names.get,
                          key="gen_stored")
    if st.button(ctx.t("gen.open"), key="gen_open"):
        state.set_dataset(store.dataset(chosen), source=f"generated:{chosen[:12]}")
        st.rerun()
