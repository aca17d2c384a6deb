"""The Run page loads a setup file into its form (a saved run downloads as one:
:mod:`ragdash.ui.setup_download`).

The file is the one :mod:`ragdash.setup` reads and writes; a bad file is the command line's
sentence (file, line, key, what it takes). The form holds what the Run page can build — BM25
and/or one embedding model (exact search, or a deployed collection), one chunking for every
first stage, the fusion of two, a rerank — so a setup with more than that is refused in one
sentence, and a value the form has no field for is named in a note (the run started here
uses the declared default for it).
"""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from .. import params as P
from ..errors import RagdashError
from ..i18n import dataset_error
from ..setup import Setup, parse_setup
from . import engine_form, keys, pipeline_form, search_form, state
from .page import PageContext
from .widgets import md, say

#: session key: the digest of the setup file last loaded (a rerun does not load it again)
LOADED = "rd_setup_loaded"
#: session key: what the last load said (kind, text), shown until the next load
SAID = "rd_setup_said"
#: session key: the ``?run=`` link whose run's setup filled the form
FROM_LINK = "rd_setup_from_link"


def fill_from_link(ctx: PageContext) -> None:
    """A session opened by a ``?run=`` link, before its Run form was ever drawn, starts the
    form at that run's setup (a tab that kept its own last settings puts those back after:
    :mod:`ragdash.ui.form_memory`). A run no setup describes leaves the form as it is."""
    from ..setup import setup_from_run

    ss = st.session_state
    wanted = ss.get(keys.RUN_PARAM)
    if not wanted or ss.get(FROM_LINK) == wanted or keys.RETRIEVER in ss:
        return
    ss[FROM_LINK] = wanted
    try:
        values, _ = form_values(setup_from_run(state.load_run(wanted)), ctx)
    except RagdashError:
        return
    values.pop(keys.RUN_NAME, None)  # a name is for one run
    ss.update(values)

# -- load --------------------------------------------------------------------------------------


def load_box(ctx: PageContext) -> None:
    """The Run page's "Load a setup file" uploader: a file fills the form once."""
    t = ctx.t
    with st.expander(t("setupui.load_title"), icon=":material/upload_file:",
                     expanded=bool(st.session_state.get(SAID))):
        upload = st.file_uploader(t("setupui.load"), type=["toml"], key="run_setup_file",
                                  help=t("setupui.load_help"))
        if upload is None:
            st.session_state.pop(LOADED, None)  # the same file given again loads again
        else:
            raw = upload.getvalue()
            digest = hashlib.sha256(upload.name.encode() + b"\0" + raw).hexdigest()
            if st.session_state.get(LOADED) != digest:
                st.session_state[LOADED] = digest
                st.session_state[SAID] = _load(ctx, upload.name, raw)
                st.rerun()  # the form above and below is drawn from the new values
        said = st.session_state.get(SAID)
        if said:
            kind, text = said
            (st.error if kind == "error" else st.success)(text)
            for note in said_notes():
                st.caption(note)


def said_notes() -> list[str]:
    return list(st.session_state.get(SAID + ":notes") or [])


def _load(ctx: PageContext, name: str, raw: bytes) -> tuple[str, str]:
    """Read the file and fill the form; (``"ok"`` | ``"error"``, the sentence)."""
    st.session_state[SAID + ":notes"] = []
    try:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise dataset_error("setup.not_utf8", file=name,
                                line=raw[:exc.start].count(b"\n") + 1) from None
        setup = parse_setup(text, file=name)
        updates, notes = form_values(setup, ctx)
    except RagdashError as exc:
        return "error", say(exc, ctx.lang)
    _load_sample(ctx, setup, notes)
    st.session_state.update(updates)
    st.session_state[SAID + ":notes"] = [md(n) for n in notes]
    return "ok", ctx.t("setupui.loaded", file=md(name))


def _load_sample(ctx: PageContext, setup: Setup, notes: list[str]) -> None:
    """A bundled sample named by the setup becomes the current dataset; another dataset is
    only named (the run starts on the current one)."""
    ds = state.dataset()
    spec = setup.dataset or ""
    if spec.startswith("sample:"):
        from ..samples import load_sample

        sample = spec.split(":", 1)[1]
        if ds is None or ds.source != spec:
            try:
                state.set_dataset(load_sample(sample), source=spec)
            except RagdashError as exc:
                notes.append(say(exc, ctx.lang))
        return
    current = state.dataset_fingerprint()
    if setup.dataset_fingerprint and current and setup.dataset_fingerprint != current:
        notes.append(ctx.t("setupui.other_dataset", dataset=spec or setup.dataset_fingerprint[:12],
                           current=ds.name if ds is not None else ""))


def form_values(setup: Setup, ctx: PageContext) -> tuple[dict[str, Any], list[str]]:
    """The Run page's session-state values that describe ``setup``, and a note for each
    value the form has no field for. Raises a DatasetError for a setup the form cannot
    build."""
    t = ctx.t
    out: dict[str, Any] = {keys.KMAX: setup.kmax, keys.QUERY_LIMIT: setup.limit_queries or 0,
                           keys.RUN_NAME: setup.name or ""}
    left: list[str] = []
    for name in ("split", "gain"):
        if getattr(setup, name) != P.EVALUATION[name].default:
            left.append(f"{name} = {getattr(setup, name)}")
    if setup.relevance_level is not None:
        left.append(f"relevance_level = {setup.relevance_level:g}")
    stages = list(setup.retrievers)
    bm25 = [s for s in stages if s.kind == "bm25"]
    other = [s for s in stages if s.kind != "bm25"]
    if len(bm25) > 1 or len(other) > 1:
        raise dataset_error("setupui.too_many", file=setup.origin, n=len(stages))
    out[pipeline_form.BM25] = bool(bm25)
    out[pipeline_form.DENSE] = bool(other)
    if bm25:
        o = bm25[0].options
        out[keys.BM25_K1], out[keys.BM25_B] = o["k1"], o["b"]
        left += _left(o, P.BM25, ("k1", "b"))
    out[keys.RETRIEVER] = "bm25"
    out[engine_form.MODE] = "exact"
    if other and other[0].kind in P.OWN_KINDS:  # a team's own search (ui.search_form)
        left += search_form.form_values(other[0], out)
    elif other:
        left += _embedding_values(other[0], out)
    chunkings = {str(sorted(s.chunking.items())) if s.chunking else "" for s in stages}
    if len(chunkings) > 1:
        left.append("chunking")  # one chunking for every first stage in the form
    chunking = next((s.chunking for s in stages if s.chunking), None)
    out[pipeline_form.CHUNK_SIZE] = chunking["size"] if chunking else 0
    if chunking:
        out[pipeline_form.CHUNK_OVERLAP] = chunking["overlap"]
        out[pipeline_form.AGGREGATE] = chunking["aggregate"]
    left += _fusion_rerank_values(setup, out)
    notes = []
    if len(stages) > 1 or chunking or setup.rerank is not None:
        notes.append(t("setupui.use_pipeline"))
    if left:
        notes.append(t("setupui.not_in_form", values=", ".join(left)))
    return out, notes


def _embedding_values(stage, out: dict) -> list[str]:
    """The retriever settings (and the engine's) of an embedding first stage, into ``out``;
    the values the form has no field for."""
    from .run_form import PRESETS

    o = stage.options
    kind = stage.kind
    left: list[str] = []
    if kind in P.ENGINE_KINDS:
        out[engine_form.MODE] = "engine"
        out[engine_form.ENGINE] = kind
        out[engine_form.URI] = o["uri"]
        out[engine_form.COLLECTION] = o["collection"]
        out[engine_form.ID_FIELD] = o["id_field"]
        out[engine_form.VECTOR_FIELD] = o.get("vector_field") or ""
        out[engine_form.FILTER] = o.get("filter") or ""
        left += _left(o, P.ENGINE, ("uri", "collection", "id_field", "vector_field", "filter",
                                    "embedder"))
        kind = o["embedder"]
    out[keys.RETRIEVER] = kind
    if kind == "local":
        out[keys.LOCAL_MODEL] = o["model"]
        out[keys.LOCAL_BATCH_SIZE] = o["batch_size"]
        return left + _left(o, P.LOCAL, ("model", "batch_size"))
    url = o.get("base_url") or ""
    preset = next((n for n, p in PRESETS.items() if p.base_url and p.base_url == url), "custom")
    out.update({keys.PRESET: preset, keys.BASE_URL: url, keys.MODEL: o["model"],
                keys.DIMENSIONS: o.get("dimensions") or 0, keys.BATCH_SIZE: o["batch_size"],
                keys.CONCURRENCY: o["concurrency"], keys.TIMEOUT: float(o["timeout"]),
                keys.API_VERSION: o.get("api_version") or ""})
    return left + _left(o, P.OPENAI, ("model", "base_url", "dimensions", "batch_size",
                                      "concurrency", "timeout", "api_version"))


def _fusion_rerank_values(setup: Setup, out: dict) -> list[str]:
    """The pipeline's fusion and rerank settings, into ``out``; the values the form has no
    field for."""
    left: list[str] = []
    if setup.fusion is not None:
        f = setup.fusion
        out[pipeline_form.FUSION] = f["method"]
        if "rrf_k" in f:
            out[pipeline_form.RRF_K] = float(f["rrf_k"])
        if "alpha" in f:
            out[pipeline_form.ALPHA] = float(f["alpha"])
        left += _left(f, P.FUSION, ("method", "rrf_k", "alpha"))
    out[pipeline_form.RERANK] = setup.rerank is not None
    if setup.rerank is not None:
        r = setup.rerank
        out[pipeline_form.RERANK_KIND] = r["kind"]
        out[pipeline_form.DEPTH] = r["depth"]
        if r["kind"] == "local":
            out[pipeline_form.RERANK_LOCAL_MODEL] = r["model"]
        else:
            out[pipeline_form.RERANK_URL] = r["base_url"]
            out[pipeline_form.RERANK_MODEL] = r["model"]
            out[pipeline_form.RERANK_PROTOCOL] = r.get("protocol") or "auto"
            left += _left(r, P.RERANK_HTTP, ("model", "depth", "base_url", "protocol"))
    return left


def _left(values: dict, stage: P.Stage, shown: tuple[str, ...]) -> list[str]:
    """``name = value`` of each value of ``stage`` that is set, not its default and has no
    field in the form."""
    from ..setup.model import show

    out = []
    for param in stage:
        if param.name in shown or param.name not in values:
            continue
        value = values[param.name]
        if value is not None and value != param.default:
            out.append(f"{param.name} = {show(value)}")
    return out
