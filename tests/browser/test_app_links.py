"""Chromium: a ``?run=`` link to a run this server does not have.

The error stays on the page and the address keeps the id asked for: the newest run must not
replace it a moment later (and take over the address bar with no notice left).
"""

from __future__ import annotations

from harness import open_app, wait_idle

from ragdash.i18n import t
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.run import Run
from ragdash.runs import RunStore
from ragdash.samples import load_sample


def _save_run(home, name: str) -> str:
    ds = load_sample("jsquad-mini")
    queries = ds.evaluated_queries()
    retriever = BM25Retriever()
    ranking = retriever.rank(ds, queries, 10)
    return RunStore(home).save(Run(dataset=ds, ranking=ranking, query_ids=[q.id for q in queries],
                                   kmax=10, name=name, config=retriever.config(),
                                   usage=retriever.usage, retriever="bm25", seconds=0.1))


def test_a_link_to_a_missing_run_keeps_its_error_address_and_offers_the_runs(browser, app_url,
                                                                            home):
    other = _save_run(home, "the newest run")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # a new browser
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/Results?run=nosuchrun1")
        error = page.locator('[data-testid="stAlertContentError"]')
        error.filter(has_text="nosuchrun1").wait_for(timeout=30_000)
        page.wait_for_timeout(7_000)  # the old page replaced it after about 5 s
        wait_idle(page)
        assert page.url.endswith("/Results?run=nosuchrun1")
        text = error.first.inner_text()
        assert "nosuchrun1" in text and "RAGDASH_HOME" in text
        assert page.locator(".js-plotly-plot").count() == 0  # no other run's curves
        assert t("link.pick_run", "en") in page.inner_text("body")
        link = page.get_by_role("link", name="the newest run")
        assert link.get_attribute("href").endswith(f"?run={other}")
        # following the offered link opens that run, and the error is gone
        link.click()
        page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert page.url.endswith(f"?run={other}")
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    finally:
        context.close()
