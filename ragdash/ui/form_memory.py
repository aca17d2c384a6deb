"""The Run form's last settings, kept in the browser tab (``sessionStorage``) so that a
reload or a ``?run=`` link opened in the tab finds the form as it was left.

Streamlit's session state lives in the server's memory for one websocket connection: a reload
starts an empty session. So the page hands the form's values to a small script
(``st.components.v2``) that writes them to the tab's ``sessionStorage``; the first time a
session draws the Run page, the script reads them back and the page takes them in.

What is kept: the values of the Run page's own fields listed in :data:`FIELDS` (retriever,
server, model, batch sizes, pipeline, engine), each checked against its type on the way back.
Never kept: any key or token (the API key, the rerank key, the engine token), the run's name.
``sessionStorage`` belongs to one tab and ends with it; nothing is sent anywhere.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from . import engine_form, keys, pipeline_form

#: the fields kept, each with the type its widget takes
FIELDS: dict[str, type] = {
    keys.RETRIEVER: str, keys.PRESET: str, keys.MODEL: str, keys.BASE_URL: str,
    keys.API_VERSION: str, keys.DIMENSIONS: int, keys.BATCH_SIZE: int,
    keys.LOCAL_BATCH_SIZE: int, keys.CONCURRENCY: int, keys.KMAX: int, keys.QUERY_LIMIT: int,
    keys.LOCAL_MODEL: str, keys.BM25_K1: float, keys.BM25_B: float,
    pipeline_form.BM25: bool, pipeline_form.DENSE: bool, pipeline_form.CHUNK_SIZE: int,
    pipeline_form.CHUNK_OVERLAP: int, pipeline_form.AGGREGATE: str, pipeline_form.FUSION: str,
    pipeline_form.RRF_K: float, pipeline_form.ALPHA: float, pipeline_form.RERANK: bool,
    pipeline_form.RERANK_URL: str, pipeline_form.RERANK_MODEL: str,
    pipeline_form.RERANK_PROTOCOL: str, pipeline_form.RERANK_KIND: str,
    pipeline_form.RERANK_LOCAL_MODEL: str, pipeline_form.DEPTH: int,
    engine_form.MODE: str, engine_form.ENGINE: str, engine_form.URI: str,
    engine_form.COLLECTION: str, engine_form.NEW_COLLECTION: str, engine_form.ID_FIELD: str,
    engine_form.VECTOR_FIELD: str, engine_form.FILTER: str, engine_form.INDEX: str,
    engine_form.M: int, engine_form.EF_CONSTRUCTION: int, engine_form.EF: int,
    engine_form.NLIST: int, engine_form.NPROBE: int, engine_form.RECALL_K: int,
}
#: never kept, whatever is added to FIELDS
SECRET = frozenset({keys.API_KEY, pipeline_form.RERANK_KEY, engine_form.TOKEN, keys.RUN_NAME})
#: the sessionStorage item
STORAGE_KEY = "ragdash.run_form"
#: session key: this session has asked the tab for its settings (and taken them in)
ASKED = "rd_form_memory_asked"

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  if (!data) return;
  const KEY = data.item;
  if (data.restore) {
    let saved = null;
    try { saved = window.sessionStorage.getItem(KEY); } catch (e) { saved = null; }
    setTriggerValue("restored", saved === null ? "" : saved);
  } else if (typeof data.save === "string") {
    try { window.sessionStorage.setItem(KEY, data.save); } catch (e) { /* storage off */ }
  }
}
"""

_memory = st.components.v2.component("ragdash_form_memory", js=_JS)


def snapshot() -> dict[str, Any]:
    """The form's current values that are kept (none of :data:`SECRET`)."""
    ss = st.session_state
    return {k: ss[k] for k in FIELDS if k in ss and k not in SECRET and ss[k] is not None}


def taken(raw: str) -> dict[str, Any]:
    """The values of a stored snapshot that are fields of the form and of the right type
    (a hand-edited or stale item is skipped value by value)."""
    try:
        values = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    if not isinstance(values, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in values.items():
        kind = FIELDS.get(key)
        if kind is None or key in SECRET or isinstance(value, (dict, list)) or value is None:
            continue
        if kind is bool:
            if isinstance(value, bool):
                out[key] = value
        elif kind is str:
            if isinstance(value, str) and len(value) <= 4096:
                out[key] = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if kind is int and float(value).is_integer():
                out[key] = int(value)
            elif kind is float:
                out[key] = float(value)
    return out


def keep() -> None:
    """Mount the tab's store: the first time in a session, take the settings it holds
    (then redraw); afterwards, give it the current ones. Call it after the form."""
    ss = st.session_state
    if not ss.get(ASKED):
        # asked again on every run until answered: an answer can be lost to a rerun that a
        # click started at the same moment, and a changed question runs the script again
        ss[ASKED + ":n"] = ss.get(ASKED + ":n", 0) + 1
        result = _memory(key="rd_form_memory", data={"restore": ss[ASKED + ":n"],
                                                     "item": STORAGE_KEY},
                         height=0, on_restored_change=lambda: None)
        raw = result.get("restored") if result is not None else None
        if raw is None:
            return  # the script has not answered yet: it reruns the page when it does
        ss[ASKED] = True
        values = taken(raw)
        if values:
            ss.update(values)
            st.rerun()
        return
    saved = json.dumps(snapshot(), sort_keys=True)
    _memory(key="rd_form_memory", data={"save": saved, "item": STORAGE_KEY}, height=0,
            on_restored_change=lambda: None)
