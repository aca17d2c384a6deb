"""The Run page's vector-engine section in a real browser: a dense run of the
sample through an OpenAI-compatible server on 127.0.0.1, then "test ANN settings" indexes its
cached vectors into Milvus Lite with HNSW, and Compare shows the ANN run against the exact one.
"""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI
from harness import fill, nav, open_app, sample_on_a_custom_server, start_run_and_wait, wait_idle

from ragdash.i18n import t
from ragdash.runs import RunStore

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1600}




def test_index_the_samples_dense_run_into_milvus_lite_and_compare_ann_with_exact(
        browser, app_url, home):
    pytest.importorskip("pymilvus")
    store = RunStore(home)
    with FakeOpenAI(dim=16) as server:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_app(page, app_url)
        sample_on_a_custom_server(page, server.url)
        fill(page, t("run.model", "en"), "journey-embed")
        fill(page, t("run.api_key", "en"), "sk-journey-0000")
        start_run_and_wait(page, store)  # the exact dense run
        paid = len(server.embedding_requests)
        assert paid > 0

        page.get_by_text(t("eng.where_ann", "en")).click()
        wait_idle(page)
        assert page.get_by_label(t("eng.uri", "en"), exact=True).input_value().endswith(
            "ann.db")  # Milvus Lite under RAGDASH_HOME by default
        start_run_and_wait(page, store)
        # the documents' and queries' vectors came from the cache: nothing paid twice
        assert len(server.embedding_requests) == paid

    runs = [store.load(s.id) for s in store.list()]
    ann = [r for r in runs if (r.config.get("transform") or {}).get("kind") == "ann"]
    exact = [r for r in runs if r.retriever == "openai:journey-embed"]
    assert len(ann) == 1 and len(exact) == 1
    transform = ann[0].config["transform"]
    assert transform["index"] == {"kind": "hnsw", "m": 16, "ef_construction": 200, "ef": 64}
    assert transform["engine"]["engine"] == "milvus"
    assert 0.0 < transform["ann_recall@10"] <= 1.0
    assert ann[0].retriever == "openai:journey-embed (milvus hnsw)"

    # the Run page says what was measured for the ANN run on screen
    assert "ANN recall@10 against exact search" in page.inner_text("body")

    nav(page, t("nav.compare", "en"))
    page.get_by_text(t("cmp.pair", "en")).wait_for(timeout=30_000)
    body = page.inner_text("body")
    # Compare names runs by their names: the ANN run's says where it searched
    assert ann[0].name == "journey-embed (milvus hnsw) on jsquad-mini" != exact[0].name
    assert ann[0].name in body and exact[0].name in body  # the exact run beside the ANN one
    assert page.locator(".js-plotly-plot .scatterlayer path.js-line").count() >= 2
    context.close()
