"""Helpers for the app's AppTest tests (tests/test_app_*.py): start the real entry script,
load a sample or upload files, set the Run page to a custom server, read plotly specs back,
wait for background jobs, save runs without the UI."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
from paths import ROOT
from streamlit.testing.v1 import AppTest

from ragdash.jobs import get_manager
from ragdash.runs import get_store
from ragdash.ui import keys

APP = ROOT / "app.py"
PAGES = {"data": "pages/1_Data.py", "run": "pages/2_Run.py", "results": "pages/3_Results.py",
         "compare": "pages/4_Compare.py", "cost": "pages/5_Cost.py",
         "judge": "pages/7_Judge.py", "generate": "pages/8_Generate.py"}


def new_app(**query) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update(query)
    return at


def open_page(at: AppTest, page: str) -> AppTest:
    """Run the app once if needed, then switch to ``page`` and run it."""
    if not _ran(at):
        at.run()
    at.switch_page(PAGES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_sample(at: AppTest, name: str = "jsquad-mini") -> AppTest:
    """The Data page's bundled sample ``name``, loaded."""
    open_page(at, "data")
    at.selectbox(key="data_sample").set_value(name)
    at.button(key="data_load_sample").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload_files(at: AppTest, files) -> AppTest:
    """``files`` ((name, str or bytes) pairs) given to the Data page's uploader and loaded."""
    at.file_uploader(key="data_files").set_value(
        [(name, data.encode() if isinstance(data, str) else data, "application/octet-stream")
         for name, data in files]).run()
    at.button(key="data_load_files").click().run()
    if keys.LOAD_JOB in at.session_state:  # still reading (a slow machine): wait, redraw
        wait_for_jobs(at)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def custom_server(at: AppTest, base_url: str, *, model: str, key: str | None = None) -> AppTest:
    """The Run page set to an OpenAI-compatible server at ``base_url`` (the custom preset),
    with ``model`` and, if given, ``key`` typed in; not run again, so that a test can set more
    before it does."""
    open_page(at, "run")
    at.radio(key="w:rd_retriever").set_value("openai").run()
    at.selectbox(key="w:rd_preset").set_value("custom").run()
    at.text_input(key="w:rd_base_url").set_value(base_url)
    at.text_input(key="w:rd_model").set_value(model)
    if key is not None:
        at.text_input(key="w:rd_api_key").set_value(key)
    return at


def _ran(at: AppTest) -> bool:
    try:
        return "rd_owner" in at.session_state
    except Exception:
        return False


def charts(at: AppTest) -> list[dict]:
    """Every plotly chart on the page, as its figure JSON."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def chart(at: AppTest, key: str) -> dict:
    for c in at.get("plotly_chart"):
        if c.key == key:
            return json.loads(c.proto.spec)
    raise AssertionError(f"no chart with key {key!r}; keys: "
                         f"{[c.key for c in at.get('plotly_chart')]}")


def frame_with(at: AppTest, *columns: str):
    """The first table on the page that has all ``columns`` (st.dataframe keeps a key only
    when it is selectable, so tables are found by their columns)."""
    for d in at.dataframe:
        value = d.value
        if all(c in value.columns for c in columns):
            return value
    raise AssertionError(f"no table with columns {columns}; tables: "
                         f"{[list(d.value.columns) for d in at.dataframe]}")


def array(value) -> np.ndarray:
    """A trace's x / y as an array (plotly 6+ writes numpy arrays as typed base64)."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


def plain(markdown: str) -> str:
    """Markdown source as read on screen: backslash escapes removed."""
    return re.sub(r"\\(.)", r"\1", str(markdown))


def texts(at: AppTest) -> str:
    """Everything written on the page (main and sidebar), for "does it say X" checks."""
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning",
                 "error", "success"):
        parts.extend(str(e.value) for e in getattr(at, kind))
    parts.extend(str(m.label) for m in at.metric)
    parts.extend(str(m.value) for m in at.metric)
    return plain("\n".join(parts))


def wait_for_jobs(at: AppTest, timeout: float = 60) -> list:
    """Block until every job of this AppTest session has finished; returns them."""
    owner = at.session_state["rd_owner"]
    jobs = get_manager().jobs_for(owner)
    for job in jobs:
        assert job.wait(timeout), f"job {job.label} still {job.state} after {timeout}s"
    return jobs


def save_bm25_run(dataset, *, name: str, kmax: int = 100, **params) -> str:
    """A BM25 run saved straight into the store (what the Run page's job saves)."""
    from ragdash.retrieval.bm25 import BM25Retriever
    from ragdash.run import Run

    retriever = BM25Retriever(**params)
    queries = dataset.evaluated_queries()
    ranking = retriever.rank(dataset, queries, kmax)
    return get_store().save(Run(dataset=dataset, ranking=ranking, query_ids=[q.id for q in queries],
                                kmax=kmax, name=name, config=retriever.config(),
                                usage=retriever.usage, retriever="bm25", seconds=0.1))
