"""The Run page's "your own search" sections: a search service over HTTP, and a Python search
loaded from a setup file.

- **Your search service (HTTP)**: the URL, POST with a request template or GET with the query
  in the URL, the JMESPath paths to the ids / scores / texts, the key (a password field kept
  in the session only, like the API key) and the header that carries it. **Try one query**
  asks one query once, before anything runs, and shows the request as sent (the key masked),
  the reply (capped, pretty-printed) and each result's id marked *in the corpus* or *not
  found* (:class:`ragdash.retrieval.own.mapping.CorpusIndex`, the run's own mapping).
- **Your Python search**: a browser cannot import code, so it is shown with its setup-file
  example; a setup file with ``kind = "python"`` loaded on the Run page
  (:mod:`ragdash.ui.setup_file`) fills it, and Start runs it. The entry runs code on the
  server: on a server other machines can reach it runs only when the operator allows it
  (``RAGDASH_APP_ENTRIES=1``).

:func:`settings` returns what the Run page starts (:class:`SearchSettings`); the page's own
:class:`ragdash.ui.run_form.RunSettings` is made from it there.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from .. import params as P
from ..errors import RagdashError
from ..retrieval.own.http import DEFAULT_REQUEST, HttpSearch, Trial
from . import auth, keys
from .declared import number
from .page import PageContext
from .widgets import bind, bind_choice, code, md, plain_http_banner, say, secret_input

# plain session-state keys (see ragdash.ui.keys): they outlive a page switch
URL = "rd_search_url"
METHOD = "rd_search_method"
REQUEST = "rd_search_request"
IDS = "rd_search_ids"
SCORES = "rd_search_scores"
TEXTS = "rd_search_texts"
KEY = "rd_search_key"  # session only, never written anywhere
KEY_HEADER = "rd_search_key_header"
CONCURRENCY = "rd_search_concurrency"
TIMEOUT = "rd_search_timeout"
MATCH_TEXT = "rd_search_match_text"
ALLOW_FAILURES = "rd_search_allow_failures"
TRY_QUERY = "rd_search_try_query"
#: the last "Try one query": (the settings it was made with, Trial, mapped rows)
TRIED = "rd_search_tried"
#: the python stage a loaded setup file gave (its options), or absent
PYTHON_STAGE = "rd_python_stage"

#: the fields the tab keeps (ragdash.ui.form_memory), with their types; never the key
FIELDS: dict[str, type] = {URL: str, METHOD: str, REQUEST: str, IDS: str, SCORES: str,
                           TEXTS: str, KEY_HEADER: str, CONCURRENCY: int, TIMEOUT: float,
                           MATCH_TEXT: bool, ALLOW_FAILURES: bool}
#: the environment variable by which the operator lets the app run Python entries on a
#: server other machines can reach
ENTRIES_ENV = "RAGDASH_APP_ENTRIES"
#: how many results "Try one query" asks for
TRY_K = 10
#: the mapping's statuses, as the table says them (message keys)
_STATUS_KEYS = {"in_corpus": "svc.status_in_corpus", "not_found": "svc.status_not_found",
                "ambiguous": "svc.status_ambiguous", "duplicate": "svc.status_duplicate"}

PYTHON_EXAMPLE = """\
# search.toml — evaluate your own search (docs/own-retriever.md)
dataset = "data/jsquad-valid"

[retriever]
kind = "python"
entry = "my_rag/search.py:search"   # a function search(query, k), a LangChain /
                                    # LlamaIndex / Haystack retriever, or a factory
id_field = "doc_id"                 # the metadata field holding the document id
concurrency = 4
"""


@dataclass
class SearchSettings:
    """What Start runs: the retriever kind's options for
    :func:`ragdash.retrieval.make_retriever`, the key (handed to it only), a label, and why
    it cannot start yet (None: it can)."""

    kind: str
    options: dict = field(default_factory=dict)
    api_key: str = ""
    label: str = ""
    blocker: str | None = None


def settings(ctx: PageContext, kind: str) -> SearchSettings:
    """The section of ``kind`` ("http" or "python"), drawn."""
    return http_settings(ctx) if kind == "http" else python_settings(ctx)


# -- HTTP ----------------------------------------------------------------------------------------
def http_settings(ctx: PageContext) -> SearchSettings:
    t = ctx.t
    st.caption(t("svc.http_help"))
    url = st.text_input(t("svc.url"), help=t("svc.url_help"),
                        placeholder="http://localhost:9200/docs/_search",
                        **bind(URL, "")).strip()
    methods = list(P.HTTP_METHODS)
    method = st.radio(t("svc.method"), methods, horizontal=True, help=t("svc.method_help"),
                      **bind_choice(METHOD, methods, "POST"))
    request = None
    if method == "POST":
        request = st.text_area(t("svc.request"), help=t("svc.request_help"), height=100,
                               **bind(REQUEST, DEFAULT_REQUEST))
    cols = st.columns(3)
    ids = cols[0].text_input(t("svc.ids"), help=t("svc.ids_help"),
                             placeholder="hits.hits[*]._id", **bind(IDS, "")).strip()
    scores = cols[1].text_input(t("svc.scores"), help=t("svc.scores_help"),
                                placeholder="hits.hits[*]._score", **bind(SCORES, "")).strip()
    texts = cols[2].text_input(t("svc.texts"), help=t("svc.texts_help"),
                               placeholder="hits.hits[*]._source.text",
                               **bind(TEXTS, "")).strip()
    cols = st.columns(2)
    with cols[0]:
        api_key = secret_input(t("svc.key"), KEY, help=t("svc.key_help")).strip()
    header = cols[1].text_input(t("svc.key_header"), help=t("svc.key_header_help"),
                                **bind(KEY_HEADER, "Authorization")).strip()
    plain_http_banner(t, url, api_key)
    cols = st.columns(4)
    conc = number(cols[0], P.HTTP["concurrency"], t("svc.concurrency"), CONCURRENCY, t)
    timeout = number(cols[1], P.HTTP["timeout"], t("svc.timeout"), TIMEOUT, t)
    match_text = cols[2].checkbox(t("svc.match_text"), help=t("svc.match_text_help"),
                                  **bind(MATCH_TEXT, False))
    allow = cols[3].checkbox(t("svc.allow_failures"), help=t("svc.allow_failures_help"),
                             **bind(ALLOW_FAILURES, False))
    options = {"url": url, "method": method, "request": request, "ids": ids or None,
               "scores": scores or None, "texts": texts or None,
               "api_key_header": header or None, "concurrency": int(conc),
               "timeout": float(timeout), "match": "text" if match_text else None,
               "allow_failures": bool(allow)}
    search, blocker = _search(ctx, options, api_key)
    try_one(ctx, search, options, blocker)
    label = search.name if search is not None else "http"
    return SearchSettings("http", options, api_key, label, blocker)


def _search(ctx: PageContext, options: dict, api_key: str
            ) -> tuple[HttpSearch | None, str | None]:
    """The search the settings describe, or why there is none (one sentence)."""
    t = ctx.t
    if not options["url"]:
        return None, t("svc.need_url")
    if not options["ids"] and not options["texts"]:
        return None, t("svc.need_ids")
    try:
        return HttpSearch(options["url"], request=options["request"],
                          method=options["method"], ids=options["ids"],
                          scores=options["scores"], texts=options["texts"],
                          api_key=api_key or None, api_key_header=options["api_key_header"],
                          timeout=options["timeout"], concurrency=1), None
    except RagdashError as exc:
        return None, say(exc, ctx.lang)


def try_one(ctx: PageContext, search: HttpSearch | None, options: dict,
            blocker: str | None) -> None:
    """**Try one query**: one query asked once; the request, the reply, the ids mapped."""
    t = ctx.t
    ds = ctx.dataset
    with st.container(border=True):
        st.markdown(t("svc.try_title"))
        first = next(iter(ds.evaluated_queries(1)), None) if ds is not None else None
        left, right = st.columns([4, 1], vertical_alignment="bottom")
        query = left.text_input(t("svc.try_query"), **bind(
            TRY_QUERY, first.text if first is not None else ""))
        asked = right.button(t("svc.try"), key="svc_try", icon=":material/send:",
                             disabled=search is None or not query.strip())
        if blocker:
            st.caption(blocker)
        if asked and search is not None:
            with st.spinner(t("svc.trying")):
                trial = search.trial(query, TRY_K)
            st.session_state[TRIED] = (_identity(options), trial, _mapped(ds, trial, options))
        tried = st.session_state.get(TRIED)
        if tried is not None and tried[0] == _identity(options):
            show_trial(ctx, tried[1], tried[2])


def _identity(options: dict) -> str:
    return json.dumps({k: options.get(k) for k in ("url", "method", "request", "ids",
                                                   "scores", "texts", "match")},
                      sort_keys=True)


def _mapped(ds, trial: Trial, options: dict) -> list[dict]:
    """The trial's hits, each with the document it maps to and its status."""
    if ds is None or not trial.hits:
        return []
    from ..retrieval.own.mapping import CorpusIndex

    mapped = CorpusIndex(ds, match=options.get("match")).map(trial.hits)
    rows = []
    for rank, (hit, doc, status) in enumerate(mapped.per_hit, 1):
        rows.append({"rank": rank, "id": hit.id, "score": hit.score, "doc": doc,
                     "status": status, "text": hit.text})
    return rows


def show_trial(ctx: PageContext, trial: Trial, rows: list[dict]) -> None:
    """What one query sent and got (the key masked)."""
    t = ctx.t
    head = [f"{trial.method} {trial.url}", *(f"{k}: {v}" for k, v in trial.headers.items())]
    st.markdown(t("svc.sent"))
    st.code("\n".join(head) + ("\n\n" + trial.body if trial.body else ""), language="http")
    if trial.error:
        st.error(say(trial.exception, ctx.lang) if trial.exception is not None
                 else trial.error)
    if trial.reply is not None:
        st.markdown(t("svc.reply", seconds=f"{trial.seconds:.2f}"))
        st.code(trial.reply, language="json", height=300)
        if trial.reply_cut:
            st.caption(t("svc.reply_cut", n=f"{len(trial.reply):,}"))
    if trial.error is None:
        found = sum(r["status"] == "in_corpus" for r in rows)
        st.markdown(t("svc.mapped", n=len(rows), found=found))
        if rows:
            frame = pd.DataFrame({
                t("svc.col_rank"): [r["rank"] for r in rows],
                t("svc.col_id"): [r["id"] if r["id"] is not None else "—" for r in rows],
                t("svc.col_score"): [r["score"] for r in rows],
                t("svc.col_status"): [t(_STATUS_KEYS[r["status"]]) for r in rows],
                t("svc.col_doc"): [r["doc"] or "—" for r in rows],
            })
            st.dataframe(frame, hide_index=True, key="svc_try_table")
        if rows and not found:
            st.warning(t("svc.none_found"))


# -- Python ----------------------------------------------------------------------------------
def entries_allowed() -> bool:
    """Whether this server runs a Python entry a setup file names: when only this machine
    reaches it (a loopback address), or when the operator says so (``RAGDASH_APP_ENTRIES``)."""
    if os.environ.get(ENTRIES_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    return auth.open_address() is None


def python_settings(ctx: PageContext) -> SearchSettings:
    t = ctx.t
    st.caption(t("svc.python_help"))
    stage = st.session_state.get(PYTHON_STAGE)
    if not stage:
        st.code(PYTHON_EXAMPLE, language="toml")
        return SearchSettings("python", blocker=t("svc.python_load"))
    entry = str(stage.get("entry") or "")
    st.markdown(t("svc.python_loaded", entry=code(entry)))
    shown = {k: v for k, v in stage.items() if k != "entry" and v not in (None, "")}
    if shown:
        st.caption(", ".join(f"{k} = {v}" for k, v in shown.items()))
    blocker = None
    if not entries_allowed():
        blocker = t("svc.python_not_here", env=ENTRIES_ENV,
                    address=md(auth.open_address() or ""))
    options = {k: v for k, v in stage.items() if v is not None}
    return SearchSettings("python", options, "", f"python:{entry}", blocker)


# -- a setup file ----------------------------------------------------------------------------
def form_values(stage, out: dict) -> list[str]:
    """A loaded setup's own-search first stage into the Run page's values (``out``); the
    values the form has no field for (none: it has one for each)."""
    o = stage.options
    out[keys.RETRIEVER] = stage.kind
    if stage.kind == "python":
        out[PYTHON_STAGE] = {p.name: o.get(p.name) for p in P.PYTHON}
        return []
    out.update({URL: o["url"], METHOD: o.get("method") or "POST",
                REQUEST: o.get("request") or DEFAULT_REQUEST, IDS: o.get("ids") or "",
                SCORES: o.get("scores") or "", TEXTS: o.get("texts") or "",
                KEY_HEADER: o.get("api_key_header") or "Authorization",
                CONCURRENCY: int(o["concurrency"]), TIMEOUT: float(o["timeout"]),
                MATCH_TEXT: o.get("match") == "text",
                ALLOW_FAILURES: bool(o.get("allow_failures"))})
    return [f"api_key_env = {o['api_key_env']}"] if o.get("api_key_env") else []
