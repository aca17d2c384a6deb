"""Chromium: the Judge page as raters use it — grades given with the keyboard (0–3), saved at
once; a reload continues where the queue stands; a second rater in another browser context
labels the same pairs without touching the first's labels; their agreement is shown. (A
reload drops the run's link, so "coming back" is opening the link again: a new session.)"""

from __future__ import annotations

import pytest
from harness import nav, open_app, wait_idle

from ragdash.i18n import t
from ragdash.judge.queue import pool_queue
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.run import Run
from ragdash.runs import RunStore
from ragdash.samples import load_sample

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1300}


def _en(key: str, **kw) -> str:
    return t(key, "en", **kw)


@pytest.fixture(scope="module")
def saved(home):
    """Two BM25 runs of the bundled sample in the server's store."""
    dataset = load_sample("jsquad-mini")
    store = RunStore(home)
    ids = []
    for name, params in (("bm25 a", {}), ("bm25 b", {"k1": 0.5, "b": 0.3})):
        retriever = BM25Retriever(**params)
        queries = dataset.evaluated_queries()
        ranking = retriever.rank(dataset, queries, 20)
        ids.append(store.save(Run(dataset=dataset, ranking=ranking,
                                  query_ids=[q.id for q in queries], kmax=20, name=name,
                                  config=retriever.config(), retriever="bm25")))
    return dataset, store, ids


def _judge_as(page, app_url: str, run_id: str, rater: str) -> None:
    open_app(page, f"{app_url}/?run={run_id}")
    nav(page, _en("nav.judge"))
    field = page.get_by_label(_en("judge.rater"), exact=True)
    field.fill(rater)
    field.press("Enter")
    wait_idle(page)
    page.locator(".rd-judge-doc").wait_for(timeout=30_000)


def _shown(page) -> tuple[str, str]:
    line = page.locator('[data-testid="stCaptionContainer"]', has_text="query ").filter(
        has_text=" · document ").first.inner_text()
    q, d = line.strip().removeprefix("query ").split(" · document ")
    return q, d


def _grade(page, key: str) -> None:
    page.locator(".rd-judge-doc").click()   # out of the name field: keys go to the page
    page.keyboard.press(key)
    wait_idle(page)


def test_keyboard_grades_reload_a_second_rater_and_agreement(browser, app_url, saved):
    dataset, store, ids = saved
    fp = dataset.fingerprint()
    first = browser.new_context(viewport=VIEWPORT)
    second = browser.new_context(viewport=VIEWPORT)
    try:
        page = first.new_page()
        _judge_as(page, app_url, ids[0], "hana")
        assert page.locator(".rd-judge-doc mark").count() > 0, "the query's words are marked"
        start = _shown(page)
        _grade(page, "2")
        _grade(page, "3")
        labels = store.load_judgments(fp, "person:hana")
        assert [lb.grade for lb in labels] == [2.0, 3.0]
        assert (labels.get(*start).grade, labels.get(*start).source) == (2.0, "person:hana")
        labeled = [(lb.query_id, lb.doc_id) for lb in labels]

        # the tab closed and the run's link opened again: a new session, the name asked again
        _judge_as(page, app_url, ids[0], "hana")
        queue = pool_queue([store.load(i).ranking for i in ids], 10, dataset.qrels)
        assert _shown(page) not in labeled, "the queue continues after the labeled pairs"
        assert "2 labeled" in page.locator('[data-testid="stProgress"]').inner_text()

        other = second.new_page()
        _judge_as(other, app_url, ids[0], "ken")
        assert _shown(other) == start            # ken's own queue starts at the beginning
        _grade(other, "1")
        _grade(other, "3")
        assert [lb.grade for lb in store.load_judgments(fp, "person:ken")] == [1.0, 3.0]
        assert [lb.grade for lb in store.load_judgments(fp, "person:hana")] == [2.0, 3.0]
        assert len(queue) > 2

        _judge_as(other, app_url, ids[0], "ken")      # a new session of the second rater
        other.locator('[data-testid="stTable"]', has_text=_en("judge.kappa")).wait_for()
        body = other.inner_text("body")
        assert _en("judge.kappa") in body and _en("judge.kappa_weighted") in body
        assert _en("judge.confusion") in body
        assert _en("judge.adjudicate", n=1) in body   # 2 against 1 on the first pair
    finally:
        first.close()
        second.close()
