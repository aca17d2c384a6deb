"""Pieces of the Run page: retriever settings with provider presets, the cost preview and
the list of saved runs (rename, delete)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from .. import params as P
from ..cost import count_tokens, estimate_evaluation, evaluation_texts, format_money
from ..dataset import Dataset
from ..errors import RagdashError
from ..setup.build import is_loopback_url
from . import engine_form, keys, search_form, state
from .declared import choice, number
from .page import PageContext
from .tables import runs_table
from .widgets import bind, bind_choice, md, plain_http_banner, say, secret_input


@dataclass(frozen=True)
class Preset:
    """An OpenAI-compatible server people commonly use."""

    base_url: str
    model: str
    provider: str | None  # price catalog provider (None: look the model up by name)
    needs_key: bool = True
    azure: bool = False


PRESETS: dict[str, Preset] = {
    "openai": Preset(P.OPENAI["base_url"].default, "text-embedding-3-small", "OpenAI"),
    "azure": Preset("https://YOUR-RESOURCE.openai.azure.com/openai/v1",
                    "text-embedding-3-small", "Azure OpenAI", azure=True),
    "ollama": Preset("http://localhost:11434/v1", "nomic-embed-text", "local", needs_key=False),
    "vllm": Preset("http://localhost:8000/v1", "BAAI/bge-m3", "local", needs_key=False),
    "tei": Preset("http://localhost:8080/v1", "BAAI/bge-m3", "local", needs_key=False),
    "custom": Preset("", "", None),
}
RETRIEVERS = ["bm25", "openai", "local", "http", "python"]
#: the retrievers that are a team's own search (ragdash.ui.search_form): nothing is paid
OWN = ("http", "python")
#: labels of the retrievers and presets; why a run on this machine costs nothing (message keys)
_RETRIEVER_KEYS = {"bm25": "run.retriever_bm25", "openai": "run.retriever_openai",
                   "local": "run.retriever_local", "http": "svc.retriever_http",
                   "python": "svc.retriever_python"}
_PRESET_KEYS = {"openai": "run.preset_openai", "azure": "run.preset_azure",
                "ollama": "run.preset_ollama", "vllm": "run.preset_vllm", "tei": "run.preset_tei",
                "custom": "run.preset_custom"}
_FREE_COST_KEYS = {"bm25": "run.cost_detail_bm25", "local": "run.cost_detail_local"}


@dataclass
class RunSettings:
    retriever: str
    options: dict
    api_key: str
    model: str
    provider: str | None
    #: why the run cannot start yet (shown instead of starting), or None
    blocker: str | None = None


#: the part of a preset's base URL the user must replace (Azure's resource name)
PLACEHOLDER = "YOUR-RESOURCE"


def _apply_preset() -> None:
    preset = PRESETS[st.session_state[keys.PRESET]]
    if preset.base_url or st.session_state[keys.PRESET] == "custom":
        st.session_state[keys.BASE_URL] = preset.base_url
    if preset.model:
        st.session_state[keys.MODEL] = preset.model


def local_extra_installed() -> bool:
    from ..embeddings.local import extra_installed

    return extra_installed()


def retriever_settings(ctx: PageContext) -> RunSettings:
    """The retriever and its options. The API key goes to the retriever only."""
    t = ctx.t
    retriever = choice(st, P.RETRIEVER_KIND, t("run.retriever"), keys.RETRIEVER, t,
                       options=RETRIEVERS, widget=st.radio, horizontal=True, help=None,
                       format_func=lambda r: t(_RETRIEVER_KEYS[r]))
    if retriever == "bm25":
        st.caption(t("run.bm25_help"))
        with st.expander(t("run.bm25_params")):
            cols = st.columns(2)
            k1 = number(cols[0], P.BM25["k1"], "k1", keys.BM25_K1, t)
            b = number(cols[1], P.BM25["b"], "b", keys.BM25_B, t)
        return RunSettings("bm25", {"k1": float(k1), "b": float(b)}, "", "bm25", "local")
    if retriever in OWN:  # a team's own search: a service over HTTP, a Python entry
        own = search_form.settings(ctx, retriever)
        return RunSettings(own.kind, own.options, own.api_key, own.label, "local",
                           own.blocker)
    if retriever == "local":
        if not local_extra_installed():
            st.warning(t("run.local_missing"))
        model = st.text_input(t("run.local_model"), help=t("run.local_model_help"),
                              **bind(keys.LOCAL_MODEL, ""))
        batch = number(st, P.LOCAL["batch_size"], t("run.batch_size"), keys.LOCAL_BATCH_SIZE, t)
        return engine_form.search_settings(ctx, RunSettings(  # or a vector engine's
            "local", {"model": model.strip(), "batch_size": int(batch)}, "", model.strip(),
            "local"))
    presets = list(PRESETS)
    preset_name = st.selectbox(t("run.preset"), presets,
                               format_func=lambda p: t(_PRESET_KEYS[p]),
                               **bind_choice(keys.PRESET, presets, "openai",
                                             after=_apply_preset))
    preset = PRESETS[preset_name]
    left, right = st.columns(2)
    base_url = left.text_input(t("run.base_url"), help=t("run.base_url_help"),
                               **bind(keys.BASE_URL, preset.base_url))
    model = right.text_input(t("run.model"), **bind(keys.MODEL, preset.model))
    api_key = secret_input(t("run.api_key"), keys.API_KEY, help=t("run.api_key_help"))
    plain_http_banner(t, base_url, api_key)
    if preset.needs_key and not api_key and not is_loopback_url(base_url):
        st.caption(t("run.api_key_missing"))  # a server on this machine rarely asks for one
    api_version = ""
    if preset.azure:
        api_version = st.text_input(t("run.api_version"), help=t("run.api_version_help"),
                                    **bind(keys.API_VERSION, ""))
    cols = st.columns(4)
    dims = number(cols[0], P.OPENAI["dimensions"], t("run.dimensions"), keys.DIMENSIONS, t,
                  off=True)
    batch = number(cols[1], P.OPENAI["batch_size"], t("run.batch_size"), keys.BATCH_SIZE, t)
    conc = number(cols[2], P.OPENAI["concurrency"], t("run.concurrency"), keys.CONCURRENCY, t)
    # the failure sentence of a slow server says "raise the timeout": it is here to raise
    timeout = number(cols[3], P.OPENAI["timeout"], t("adaptive.timeout"), keys.TIMEOUT, t)
    options = {"model": model.strip(), "base_url": base_url.strip() or None,
               "dimensions": int(dims) or None, "batch_size": int(batch),
               "concurrency": int(conc), "timeout": float(timeout)}
    if api_version.strip():
        options["api_version"] = api_version.strip()
    blocker = None
    if PLACEHOLDER.lower() in base_url.lower():  # else 20 s of retries on an unknown host
        blocker = t("run.base_url_placeholder", placeholder=PLACEHOLDER)
    elif not base_url.strip():
        blocker = t("run.base_url_missing")
    elif P.OPENAI["timeout"].problem(float(timeout)) is not None:
        blocker = t("adaptive.timeout_positive")
    return engine_form.search_settings(ctx, RunSettings(  # or a vector engine's
        "openai", options, api_key.strip(), model.strip(), preset.provider, blocker))


def cost_preview(ctx: PageContext, ds: Dataset, settings: RunSettings,
                 limit: int | None) -> dict | None:
    """The estimate shown before the Start button; returns what is saved with the run.

    A model missing from the price table still gets its token count, with a pointer to the
    Cost page where its price can be added."""
    t = ctx.t
    if settings.retriever in OWN:  # nothing is embedded, nothing paid through ragdash
        st.caption(t("svc.no_cost"))
        return None
    cache = st.session_state.setdefault("rd_estimates", {})
    on_machine = settings.retriever in ("bm25", "local")  # nothing is paid for
    price_model = "bm25" if on_machine else settings.model
    provider = "local" if on_machine else settings.provider
    key = (state.dataset_fingerprint(), price_model, provider, limit)
    try:
        if key not in cache:
            cache[key] = estimate_evaluation(ds, price_model, provider, limit_queries=limit)
        est = cache[key]
    except RagdashError:
        est = None
    with st.container(border=True):
        st.markdown(t("run.cost_title"))
        if est is None:
            tokens, method = _token_count(ds, limit, cache)
            cols = st.columns(3)
            cols[0].metric(t("run.cost_tokens"), f"{tokens:,}",
                           help=t("run.cost_method", method=method))
            cols[1].metric("USD", "—")
            cols[2].metric("JPY", "—")
            st.caption(t("run.cost_no_price", model=md(settings.model)))
            return {"tokens": tokens, "token_method": method, "provider": settings.provider,
                    "model": settings.model}
        cols = st.columns(3)
        cols[0].metric(t("run.cost_tokens"), f"{est.tokens:,}", help=t("run.cost_method",
                                                                         method=est.token_method))
        cols[1].metric("USD", format_money(est.usd, "USD"))
        cols[2].metric("JPY", format_money(est.jpy, "JPY"))
        if on_machine:  # "local / bm25" named neither the model nor why it is free
            what = "BM25" if settings.retriever == "bm25" else settings.model or "—"
            st.caption(t(_FREE_COST_KEYS[settings.retriever], docs=f"{est.n_documents:,}",
                         queries=f"{est.n_queries:,}", method=est.token_method,
                         model=md(what)))
        else:
            st.caption(t("run.cost_detail", docs=f"{est.n_documents:,}",
                         queries=f"{est.n_queries:,}", method=est.token_method,
                         model=md(f"{est.provider} / {est.model}")))
            for note in est.notes:
                st.caption(say(note, ctx.lang))
    return {"estimated_usd": est.usd, "estimated_jpy": est.jpy, "tokens": est.tokens,
            "token_method": est.token_method, "provider": est.provider,
            "model": settings.model if settings.retriever == "local" else est.model}


def _token_count(ds: Dataset, limit: int | None, cache: dict) -> tuple[int, str]:
    """Tokens one evaluation embeds (documents + evaluated queries) and how they were
    counted, memoized beside the estimates."""
    key = ("tokens", state.dataset_fingerprint(), limit)
    if key not in cache:
        docs, queries = evaluation_texts(ds, limit)
        td, tq = count_tokens(docs), count_tokens(queries)
        cache[key] = (td.tokens + tq.tokens, td.method)
    return cache[key]


def saved_runs(ctx: PageContext) -> None:
    """The saved runs this user sees, with rename and delete for those they may change, and
    who else sees them (:mod:`ragdash.runs.access`)."""
    from .tables import shared_note

    t = ctx.t
    summaries = ctx.store.list()
    if not summaries:
        st.caption(t("run.no_saved"))
        return
    shared_note(ctx)
    runs_table(summaries, t, key="run_list")
    from .job_panel import say_token_gap

    for s in summaries[:20]:  # beside the table's token figures
        say_token_gap(ctx, s.name, s.cost)
    names = {s.id: s.name for s in summaries}
    ids = list(names)
    cols = st.columns([2, 2, 1, 1])
    picked = cols[0].selectbox(t("run.pick_saved"), ids, format_func=names.get,
                               key="run_manage_pick")
    if not ctx.store.can_change(picked):
        cols[1].caption(t("run.read_only", name=md(names[picked])))
        return
    new_name = cols[1].text_input(t("run.new_name"), value=names[picked],
                                  key=f"run_manage_name:{picked}")
    if cols[2].button(t("run.rename"), key="run_manage_rename"):
        try:
            ctx.store.rename(picked, new_name)
        except RagdashError as exc:
            st.error(say(exc, ctx.lang))
        else:
            st.rerun()
    with cols[3].popover(t("run.delete"), icon=":material/delete:"):
        st.markdown(t("run.delete_confirm", name=md(names[picked])))
        if st.button(t("run.delete_yes"), key="run_manage_delete", type="primary"):
            try:
                ctx.store.delete(picked)
            except RagdashError as exc:
                st.error(say(exc, ctx.lang))
            else:
                state.forget_run(picked)
                st.rerun()
