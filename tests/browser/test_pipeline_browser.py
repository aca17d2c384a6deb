"""The pipeline journey in headless Chromium against a real ``streamlit run app.py``: on the
sample, build BM25 + an embedding model (fake OpenAI-compatible server) → RRF → rerank (fake
Cohere-shaped server) on the Run page, see each stage's cost before Start, start it, and see
the pipeline on Compare against its inputs."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI
from fake_rerank import FakeRerank
from harness import CURVE, fill, nav, open_app, sample_on_a_custom_server, wait_idle

from ragdash.i18n import t
from ragdash.runs import RunStore

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1600}
LIMIT = 20
NAME = "BM25 + pipe-emb (RRF) → rerank-v3.5 top 20"


def test_build_bm25_dense_rrf_rerank_and_compare_it_with_its_inputs(browser, app_url, home):
    with FakeOpenAI(dim=16) as emb, FakeRerank("cohere") as rr:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_app(page, app_url)
        sample_on_a_custom_server(page, emb.url)
        fill(page, t("run.model", "en"), "pipe-emb")
        fill(page, t("run.limit", "en"), str(LIMIT))

        # stage by stage: BM25 and the model are ticked, RRF fuses them; add the rerank
        assert page.get_by_label(t("pipe.bm25", "en"), exact=True).is_checked()
        page.get_by_text(t("pipe.rerank_on", "en")).click()
        wait_idle(page)
        fill(page, t("pipe.rerank_url", "en"), rr.url)  # .../v2: Cohere by its path
        fill(page, t("pipe.rerank_model", "en"), "rerank-v3.5")
        fill(page, t("pipe.depth", "en"), "20")
        costs = page.locator('[class*="st-key-pipe_costs"]')
        costs.wait_for(timeout=15_000)
        body = page.inner_text("body")
        assert NAME in body
        table = costs.inner_text()
        for stage in ("BM25", "pipe-emb", "RRF", "rerank-v3.5 top 20", "Total"):
            assert stage in table, table
        assert f"{LIMIT} search units" in table and "$0.04" in table

        page.get_by_role("button", name=t("pipe.start", "en")).click()
        page.get_by_role("link", name=t("run.see_results", "en")).wait_for(timeout=90_000)
        assert len(rr.requests) == LIMIT  # one rerank request per query
        assert emb.embedding_requests

        store = RunStore(home)
        names = {s.name for s in store.list()}
        assert {"BM25", "pipe-emb", NAME} <= names

        # Compare shows the pipeline against its inputs
        nav(page, t("nav.compare", "en"))
        page.locator(CURVE).first.wait_for(timeout=30_000)
        wait_idle(page)
        chart = page.locator(".js-plotly-plot").first
        legend = chart.inner_text()
        for name in ("BM25", "pipe-emb", NAME):
            assert name in legend, legend
        assert chart.locator(".scatterlayer path.js-line").count() >= 3
        context.close()
