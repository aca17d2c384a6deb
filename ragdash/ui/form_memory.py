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

from . import engine_form, keys, pipeline_form, search_form

#: the fields kept, each with the type its widget takes
FIELDS: dict[str, type] = {
    keys.RETRIEVER: str, keys.PRESET: str, keys.MODEL: str, keys.BASE_URL: str,
    keys.API_VERSION: str, keys.DIMENSIONS: int, keys.BATCH_SIZE: int,
    keys.LOCAL_BATCH_SIZE: int, keys.CONCURRENCY: int, keys.TIMEOUT: float, keys.KMAX: int,
    keys.QUERY_LIMIT: int,
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
    **search_form.FIELDS,
}
#: never kept, whatever is added to FIELDS
SECRET = frozenset({keys.API_KEY, pipeline_form.RERANK_KEY, engine_form.TOKEN, keys.RUN_NAME,
                    search_form.KEY})
#: the sessionStorage item
STORAGE_KEY = "ragdash.run_form"
#: session key: this session has taken in the settings the tab held
ASKED = "rd_form_memory_taken"

#: session key: a random id of this server session, written beside the values: the tab
#: tells a reload (another id) from a rerun
SESSION = "rd_form_memory_session"

# The tab holds {"session": id, "values": {...}}. A draw by the session that wrote it (or one
# that has taken the values in) writes the current values; the first draw by a new session
# (after a reload or a link) hands the stored values to Python instead, once.
_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  if (!data || !data.item) return;
  let stored = null;
  try { stored = JSON.parse(window.sessionStorage.getItem(data.item) || "null"); }
  catch (e) { stored = null; }
  const theirs = stored && stored.session !== data.session && stored.values
    && Object.keys(stored.values).length > 0;
  if (theirs && !data.taken) {
    setTriggerValue("restored", JSON.stringify(stored.values));
    return;
  }
  try {
    window.sessionStorage.setItem(data.item, JSON.stringify(
      { session: data.session, values: JSON.parse(data.save) }));
  } catch (e) { /* storage turned off: nothing is kept */ }
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
    """Mount the tab's store after the form: it keeps the current settings, or — the first
    time a new session draws the page while the tab holds another session's — hands those
    back, and the page is drawn again with them."""
    import secrets

    ss = st.session_state
    session = ss.setdefault(SESSION, secrets.token_hex(8))
    result = _memory(key="rd_form_memory", height=0, on_restored_change=lambda: None,
                     data={"item": STORAGE_KEY, "session": session, "taken": bool(ss.get(ASKED)),
                           "save": json.dumps(snapshot(), sort_keys=True)})
    raw = result.get("restored") if result is not None else None
    if raw is not None and not ss.get(ASKED):
        ss[ASKED] = True
        values = taken(raw)
        if values:
            ss.update(values)
        st.rerun()  # drawn with them, and the tab told they are taken
