"""Chromium: downloads clicked in quick succession all arrive.

A click must not rerun the page: every rerun gives each deferred download a new id, so a
second click within about a second would ask for the id of the run before and get
``MediaFileStorageError: Deferred file … not found`` — its button spun, disabled, and nothing
came (4 of ~10 rapid clicks).
"""

from __future__ import annotations

import pytest
from harness import open_app, wait_idle

from ragdash.i18n import t
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.run import Run
from ragdash.runs import RunStore
from ragdash.samples import load_sample

pytestmark = pytest.mark.browser


def save_bm25_run(home, name: str, *, owner: str | None = None) -> str:
    ds = load_sample("jsquad-mini")
    queries = ds.evaluated_queries()
    retriever = BM25Retriever()
    ranking = retriever.rank(ds, queries, 10)
    run = Run(dataset=ds, ranking=ranking, query_ids=[q.id for q in queries], kmax=10,
              name=name, config=retriever.config(), usage=retriever.usage, retriever="bm25",
              seconds=0.1)
    store = RunStore(home)
    return store.save(run)


LABELS = ("res.dl_report", "res.dl_csv", "res.dl_json", "res.dl_trec")


def test_rapid_successive_downloads_all_arrive(browser, app_url, home):
    run_id = save_bm25_run(home, "downloads")
    context = browser.new_context(viewport={"width": 1400, "height": 1200},
                                  accept_downloads=True)
    page = context.new_page()
    arrived: list[str] = []
    page.on("download", lambda d: arrived.append(d.suggested_filename))
    try:
        open_app(page, f"{app_url}/Results?run={run_id}")
        page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        wait_idle(page)
        buttons = [page.get_by_role("button", name=t(label, "en")) for label in LABELS]
        for button in buttons:
            button.scroll_into_view_if_needed()
        for _ in range(3):  # three rounds of four clicks, 250 ms apart
            for button in buttons:
                button.click(timeout=5_000)  # a stuck one spins, disabled
                page.wait_for_timeout(250)
        deadline = 20_000
        while len(arrived) < 3 * len(buttons) and deadline > 0:
            page.wait_for_timeout(250)
            deadline -= 250
        wait_idle(page)
        assert len(arrived) == 3 * len(buttons), arrived
        assert sorted(set(arrived)) == sorted({"downloads-report.html",
                                               "downloads-per-query.csv", "downloads.json",
                                               "downloads.trec.txt"})
        log = (home / "streamlit.log").read_text(errors="replace")
        assert "not found" not in log, log[-2000:]
    finally:
        context.close()
