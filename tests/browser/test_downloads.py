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


def test_the_every_k_csv_holds_the_runs_metric_table(browser, app_url, home):
    """"every K, 1 to 10": one row per query in the table's order, a column per metric
    picked and Judged@K at every K, each value the saved run's own."""
    import io
    from pathlib import Path

    import numpy as np
    import pandas as pd

    run_id = save_bm25_run(home, "every-k")
    saved = RunStore(home).load(run_id)  # an identical run an earlier test saved keeps its name
    table = saved.table()
    context = browser.new_context(viewport={"width": 1400, "height": 1200},
                                  accept_downloads=True)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/Results?run={run_id}")
        page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.get_by_text(t("resultsview.csv_every_k", "en", kmax=10)).click()
        wait_idle(page)
        with page.expect_download(timeout=20_000) as info:
            page.get_by_role("button", name=t("res.dl_csv", "en")).click()
        download = info.value
        assert download.suggested_filename == f"{saved.name}-per-query-every-k.csv"
        frame = pd.read_csv(io.BytesIO(Path(download.path()).read_bytes()),
                            encoding="utf-8-sig", dtype={"query_id": str})
    finally:
        context.close()
    metrics = [f"{f}@{k}" for f in ("recall", "ndcg", "mrr", "judged") for k in range(1, 11)]
    assert list(frame.columns) == ["query_id", "query", "n_relevant", "first_relevant_rank",
                                   "no_relevant", *metrics]
    assert sorted(frame["query_id"]) == sorted(table.query_ids) and len(frame) == 280
    row_of = {q: i for i, q in enumerate(table.query_ids)}
    rows = [row_of[q] for q in frame["query_id"]]
    for name in metrics:
        np.testing.assert_allclose(frame[name].to_numpy(), table.value(name)[rows],
                                   err_msg=name)
    # worst first on the table's metric (Recall@10), as on the page
    assert np.all(np.diff(frame["recall@10"].to_numpy()) >= 0)
