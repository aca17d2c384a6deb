"""AppTest: a per-query table longer than one page is sent a page at a time, in the order
chosen on the page; its pages together are the whole table, and search still covers every
query. (PAGE_ROWS is lowered so the 280-query sample takes three pages.)"""

from __future__ import annotations

import numpy as np
import pytest
from app_support import frame_with, new_app, open_page, save_bm25_run

from ragdash.runs import get_store
from ragdash.ui import keys, results


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(results, "PAGE_ROWS", 100)


def test_pages_cover_the_table_in_the_chosen_order(sample, small_pages):
    run_id = save_bm25_run(sample, name="paged")
    table = get_store().load(run_id).table()
    at = open_page(new_app(run=run_id), "results")
    first = frame_with(at, "Query id", "Recall@10")
    assert len(first) == 100
    values = first["Recall@10"].to_numpy()
    assert values[0] == table.value("recall@10").min() and np.all(np.diff(values) >= 0)
    pages = [first]
    for page in (2, 3):
        at.number_input(key="w:rd_res_pq_page").set_value(page).run()
        pages.append(frame_with(at, "Query id", "Recall@10"))
    assert [len(p) for p in pages] == [100, 100, 80]
    ids = [q for p in pages for q in p["Query id"]]
    assert sorted(ids) == sorted(table.query_ids)  # every query once
    # the drill-down picker offers the first PAGE_ROWS queries, not all 280
    assert len(at.selectbox(key="w:" + keys.DRILL_QUERY).options) <= 101
    at.selectbox(key="w:rd_res_pq_sort").set_value("query").run()
    assert at.number_input(key="w:rd_res_pq_page").value == 3
    by_id = frame_with(at, "Query id", "Recall@10")
    assert list(by_id["Query id"]) == sorted(table.query_ids)[200:]
    at.selectbox(key="w:rd_res_pq_sort").set_value("best").run()
    best = frame_with(at, "Query id", "Recall@10")["Recall@10"].to_numpy()
    assert np.all(np.diff(best) <= 0)  # the last page of best-first holds the worst
    assert best[-1] == table.value("recall@10").min()
    # search runs over all 280 queries, then the result fits on one page
    at.number_input(key="w:rd_res_pq_page").set_value(1).run()
    wanted = sorted(table.query_ids)[-1]
    at.text_input(key="w:rd_res_pq_search").set_value(wanted).run()
    found = frame_with(at, "Query id", "Recall@10")
    assert wanted in list(found["Query id"]) and len(found) < 100
    assert not at.exception
