"""The Run page's vector-engine section: where an embeddings run searches.

- ragdash's exact search (the default: nothing changes);
- an existing index: a deployed Milvus / Qdrant collection, evaluated with the queries
  embedded by the model above (``make_retriever("engine", ...)``);
- test ANN settings: the documents' vectors (from the cache) pushed into a new collection
  with the index picked here, the run being the engine's answer, its ANN recall against exact
  search saved with it (``make_retriever("ann", ...)``). Milvus Lite, a file under
  ``RAGDASH_HOME``, is the default engine.

:func:`search_settings` takes the embedding settings made by
:func:`ragdash.ui.run_form.retriever_settings` and returns them unchanged, or turned into the
engine's. The engine's token is a password field kept in the session only, like the API key.
"""

from __future__ import annotations

import streamlit as st

from ..home import ragdash_home
from ..retrieval.engines import ENGINES, INDEX_KINDS
from .page import PageContext
from .widgets import bind, bind_choice, md, secret_input

MODES = ["exact", "engine", "ann"]
_MODE_KEYS = {"exact": "eng.where_exact", "engine": "eng.where_engine", "ann": "eng.where_ann"}
ENGINE_KINDS = list(ENGINES)

# plain session-state keys (see ragdash.ui.keys): they outlive a page switch
MODE = "rd_engine_mode"
ENGINE = "rd_engine_kind"
URI = "rd_engine_uri"
TOKEN = "rd_engine_token"  # session only, never written anywhere
COLLECTION = "rd_engine_collection"
NEW_COLLECTION = "rd_engine_new_collection"
ID_FIELD = "rd_engine_id_field"
VECTOR_FIELD = "rd_engine_vector_field"
FILTER = "rd_engine_filter"
INDEX = "rd_engine_index"
M = "rd_engine_m"
EF_CONSTRUCTION = "rd_engine_ef_construction"
EF = "rd_engine_ef"
NLIST = "rd_engine_nlist"
NPROBE = "rd_engine_nprobe"
RECALL_K = "rd_engine_recall_k"


def default_uri(engine: str) -> str:
    """Milvus Lite's file, or Qdrant's or Chroma's local folder, under ``RAGDASH_HOME``."""
    return str(ragdash_home() / {"milvus": "ann.db", "chroma": "chroma"}.get(engine, "qdrant"))


def _engine_changed() -> None:
    st.session_state[URI] = default_uri(st.session_state[ENGINE])


def search_settings(ctx: PageContext, settings):
    """``settings`` (an embeddings retriever's) as they are, or for an engine."""
    t = ctx.t
    mode = st.radio(t("eng.where"), MODES, horizontal=True, help=t("eng.where_help"),
                    format_func=lambda m: t(_MODE_KEYS[m]),
                    **bind_choice(MODE, MODES, "exact"))
    if mode == "exact":
        return settings
    left, right = st.columns([1, 3])
    engine = left.selectbox(t("eng.engine"), ENGINE_KINDS,
                            **bind_choice(ENGINE, ENGINE_KINDS, "milvus",
                                          after=_engine_changed))
    uri = right.text_input(t("eng.uri"), help=t("eng.uri_help"),
                           **bind(URI, default_uri(engine))).strip()
    token = secret_input(t("eng.token"), TOKEN)
    options = {"dense": settings.retriever, **settings.options, "engine": engine, "uri": uri,
               "engine_token": token.strip() or None}
    blocker = settings.blocker or (None if uri else t("eng.need_uri"))
    if mode == "engine":
        cols = st.columns(2)
        collection = cols[0].text_input(t("eng.collection"), **bind(COLLECTION, "")).strip()
        id_field = cols[1].text_input(t("eng.id_field"), **bind(ID_FIELD, "doc_id")).strip()
        cols = st.columns(2)
        vector_field = cols[0].text_input(t("eng.vector_field"),
                                          **bind(VECTOR_FIELD, "")).strip()
        filter_ = cols[1].text_input(t("eng.filter"), help=t("eng.filter_help"),
                                     **bind(FILTER, "")).strip()
        options.update(collection=collection, id_field=id_field,
                       vector_field=vector_field or None, filter=filter_ or None)
        blocker = blocker or (None if collection else t("eng.need_collection")) or (
            None if id_field else t("eng.need_id_field"))
    else:
        options.update(_index_settings(ctx, engine))
        shown = _current_ann_summary(ctx)
        if shown:
            st.caption(shown)
    return type(settings)(mode, options, settings.api_key, settings.model, settings.provider,
                          blocker)


def _index_settings(ctx: PageContext, engine: str) -> dict:
    """The index a candidate is built with (HNSW M / efConstruction / ef, IVF nlist /
    nprobe, flat, or the engine's default) and the K of its ANN recall."""
    t = ctx.t
    kinds = [k for k in INDEX_KINDS if not (engine == "qdrant" and k == "ivf")
             and not (engine == "chroma" and k in ("ivf", "flat"))]  # Chroma: HNSW only
    cols = st.columns(3)
    kind = cols[0].selectbox(t("eng.index"), kinds, **bind_choice(INDEX, kinds, "hnsw"))
    recall_k = cols[1].number_input(t("eng.recall_k"), 1, 1000, **bind(RECALL_K, 10))
    collection = cols[2].text_input(t("eng.collection_new"), **bind(NEW_COLLECTION, "")).strip()
    out = {"index": kind, "recall_k": int(recall_k), "collection": collection or None}
    cols = st.columns(3)
    if kind == "hnsw":
        out["m"] = int(cols[0].number_input("M", 2, 512, **bind(M, 16)))
        out["ef_construction"] = int(cols[1].number_input("efConstruction", 8, 4096,
                                                          **bind(EF_CONSTRUCTION, 200)))
        out["ef"] = int(cols[2].number_input("ef", 1, 4096, **bind(EF, 64)))
    elif kind == "ivf":
        out["nlist"] = int(cols[0].number_input("nlist", 1, 65536, **bind(NLIST, 128)))
        out["nprobe"] = int(cols[1].number_input("nprobe", 1, 65536, **bind(NPROBE, 8)))
    return out


def _current_ann_summary(ctx: PageContext) -> str | None:
    if not ctx.run_id:
        return None
    from ..errors import RagdashError
    from . import state

    try:
        return ann_summary(ctx, state.load_run(ctx.run_id).config)
    except RagdashError:
        return None


def ann_summary(ctx: PageContext, config: dict) -> str | None:
    """One line for an ANN run (what was measured against exact search), or None."""
    transform = (config or {}).get("transform") or {}
    if transform.get("kind") != "ann":
        return None
    key = next((k for k in transform if k.startswith("ann_recall@")), None)
    if key is None:
        return None
    latency = transform.get("latency_ms") or {}
    return ctx.t("eng.ann_done", k=key.split("@", 1)[1], recall=f"{transform[key]:.4f}",
                 p50=f"{latency.get('p50', float('nan')):.2f}",
                 p95=f"{latency.get('p95', float('nan')):.2f}",
                 mib=f"{(transform.get('index_bytes') or 0) / 2**20:,.1f}",
                 source=md(transform.get("index_bytes_source") or ""))
