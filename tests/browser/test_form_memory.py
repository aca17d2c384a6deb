"""Chromium: the Run form's settings outlive a reload and a ``?run=`` link opened in the tab
(kept in the tab's sessionStorage), and the API key is never among them."""

from __future__ import annotations

import pytest
from harness import fill, nav, open_app, wait_idle
from playwright.sync_api import expect

from ragdash.i18n import t
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.run import Run
from ragdash.runs import RunStore
from ragdash.samples import load_sample

pytestmark = pytest.mark.browser

KEY = "sk-test-FORM-MEMORY-0123456789"
URL = "http://127.0.0.1:9/v1"


def _saved_run(home) -> str:
    ds = load_sample("article-ja")
    queries = ds.evaluated_queries()
    retriever = BM25Retriever()
    run = Run(dataset=ds, ranking=retriever.rank(ds, queries, 10), kmax=10,
              query_ids=[q.id for q in queries], name="linked", config=retriever.config(),
              usage=retriever.usage, retriever="bm25", seconds=0.1)
    return RunStore(home).save(run)


def _form_is(page, base_url: str, model: str, batch: str) -> None:
    """The Run page shows these settings and an empty key field (the tab's answer redraws
    the page once, a moment after the first draw)."""
    for label, value in (("run.base_url", base_url), ("run.model", model),
                         ("run.batch_size", batch)):
        expect(page.get_by_label(t(label, "en"), exact=True)).to_have_value(value,
                                                                            timeout=15_000)
    expect(page.get_by_label(t("run.api_key", "en"), exact=True)).to_have_value("")


def _stored(page) -> str:
    return page.evaluate("JSON.stringify(sessionStorage) + JSON.stringify(localStorage)")


def test_the_run_form_survives_a_reload_and_a_run_link_without_the_key(browser, app_url,
                                                                       home):
    run_id = _saved_run(home)
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/Run?run={run_id}")  # the run's dataset comes with it
        page.get_by_text(t("run.retriever_openai", "en")).click()
        wait_idle(page)
        page.get_by_label(t("run.preset", "en")).click()
        page.get_by_role("option", name=t("run.preset_custom", "en")).click()
        wait_idle(page)
        fill(page, t("run.base_url", "en"), URL)
        fill(page, t("run.model", "en"), "my-model")
        fill(page, t("run.batch_size", "en"), "48")
        fill(page, t("run.api_key", "en"), KEY)
        page.wait_for_timeout(500)
        stored = _stored(page)
        assert URL in stored and "my-model" in stored and KEY not in stored, stored

        page.reload()  # a new session on the server: its state is empty
        page.locator('[data-testid="stSidebar"]').wait_for(timeout=60_000)
        wait_idle(page)
        _form_is(page, URL, "my-model", "48")  # the key is not brought back

        page.goto(f"{app_url}/Results?run={run_id}")  # a link, opened in this tab
        page.locator('[data-testid="stSidebar"]').wait_for(timeout=60_000)
        wait_idle(page)
        nav(page, t("nav.run", "en"))
        _form_is(page, URL, "my-model", "48")
        assert KEY not in _stored(page)
        log = (home / "streamlit.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-2000:]
    finally:
        context.close()
