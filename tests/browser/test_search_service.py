"""The Run page's "Your search service (HTTP)" in a real browser: an Elasticsearch-shaped
service on 127.0.0.1 (tests/fake_search.py, ragdash's BM25 over the sample) is set up field by
field, **Try one query** shows the request as sent with the key masked, the reply and the ids
found in the corpus, then a run of the service goes through the job panel to Results — and the
key typed is shown nowhere but in its own password field, and saved with no run."""

from __future__ import annotations

import json

import pytest
from harness import fill, nav, open_app, start_run_and_wait, wait_idle

from ragdash.i18n import t
from ragdash.runs import RunStore
from ragdash.samples import load_sample
from tests.fake_search import ES_PATHS, ES_REQUEST, FakeSearch

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1800}
KEY = "sk-browser-search-0123456789"


def test_try_one_query_then_a_run_of_the_service_reaches_results(browser, app_url, home):
    store = RunStore(home)
    sample = load_sample("jsquad-mini")
    with FakeSearch(sample, key=KEY) as svc:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_app(page, app_url)
        nav(page, t("nav.data", "en"))
        page.get_by_role("button", name=t("data.load_sample", "en")).click()
        wait_idle(page)
        nav(page, t("nav.run", "en"))
        page.get_by_text(t("svc.retriever_http", "en")).click()
        wait_idle(page)
        fill(page, t("svc.url", "en"), svc.url("es"))
        template = page.get_by_label(t("svc.request", "en"), exact=True)
        template.fill(ES_REQUEST)
        template.press("Control+Enter")
        wait_idle(page)
        fill(page, t("svc.ids", "en"), ES_PATHS["ids"])
        fill(page, t("svc.scores", "en"), ES_PATHS["scores"])
        fill(page, t("svc.key", "en"), KEY)

        page.get_by_role("button", name=t("svc.try", "en")).click()
        wait_idle(page)
        page.get_by_text("Request sent", exact=True).wait_for(timeout=30_000)
        # the two code blocks (request, reply) may be drawn a moment after their heading
        page.locator('[data-testid="stCode"]').nth(1).wait_for(timeout=30_000)
        body = page.inner_text("body")
        # the request and the reply are code blocks (their text is not the page's inner text)
        sent, reply = page.locator('[data-testid="stCode"]').all_text_contents()[:2]
        query = sample.evaluated_queries(1)[0].text
        assert sent.startswith(f"POST {svc.url('es')}")
        assert "Authorization: Bearer ***" in sent
        assert f'"text": "{query}"' in sent  # the body as sent, the query in its place
        assert json.loads(reply)["hits"]["hits"][0]["_id"] == svc.answered[query][0][0]
        shown = body + "".join(page.locator('[data-testid="stCode"]').all_text_contents())
        assert KEY not in shown  # only its own password field holds it
        found = len(svc.answered[query])
        assert f"{found} results, {found} in the corpus" in body
        assert svc.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"

        limit = page.get_by_label(t("run.limit", "en"), exact=True)
        limit.fill("20")
        limit.press("Enter")
        wait_idle(page)
        start_run_and_wait(page, store)
        page.get_by_role("link", name=t("run.see_results", "en")).click()
        wait_idle(page)
        page.get_by_text(t("res.per_query", "en")).first.wait_for(timeout=60_000)
        results = page.inner_text("body")
        assert KEY not in page.content()  # Results: no field holds it
        context.close()

    (summary,) = [s for s in store.list() if s.retriever.startswith("http:")]
    run = store.load(summary.id)
    assert summary.name in results
    assert run.config["retriever"] == "http" and len(run.query_ids) == 20
    assert KEY not in json.dumps(run.config)
    first = sample.evaluated_queries(1)[0]
    assert list(run.ranking.get(first.id)[0]) == [d for d, _ in svc.answered[first.text]]
