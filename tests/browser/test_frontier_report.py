"""Chromium: the HTML report downloaded from "Choose a setup" says what the page said, on
the axis the user chose. Before, it always used the indexing-cost axis (where a stage with
no price was drawn at $0) and could recommend another run than the page did."""

from __future__ import annotations

import html
import re

import pytest
from fake_openai import FakeOpenAI
from harness import nav, open_app, wait_idle

from ragdash.i18n import t
from ragdash.pipeline import fuse_runs, run_evaluation
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.runs import RunStore
from ragdash.samples import load_sample

pytestmark = pytest.mark.browser

CHART = '[class*="st-key-fr_chart"] .js-plotly-plot'


def _text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def test_the_report_repeats_the_pages_sentence_on_the_chosen_axis(browser, app_url, home,
                                                                  tmp_path):
    sample = load_sample("jsquad-mini")
    store = RunStore(home)
    with FakeOpenAI(dim=16) as server:
        dense = run_evaluation(sample, make_dense_retriever(
            "openai", model="mystery-embed", base_url=server.url, cache_dir=home), kmax=20)
    dense.name = "mystery-embed"
    bm25 = run_evaluation(sample, BM25Retriever(), kmax=20)
    bm25.name = "BM25"
    for run in (dense, bm25):
        store.save(run)
    store.save(fuse_runs([bm25, dense]))

    page = browser.new_context(viewport={"width": 1400, "height": 1800},
                               accept_downloads=True).new_page()
    open_app(page, app_url)
    nav(page, t("nav.data", "en"))
    page.get_by_role("button", name=t("data.load_sample", "en")).click()
    wait_idle(page)
    nav(page, t("nav.frontier", "en"))
    page.locator(CHART).wait_for(timeout=30_000)
    page.get_by_text(t("fr.say.noun.latency", "en"), exact=True).click()
    wait_idle(page)
    said = page.locator('[data-testid="stAlert"]').filter(
        has_text=re.compile("nDCG@10")).first.inner_text()
    said = " ".join(said.split())
    assert said and "faster" in said  # the latency axis

    button = page.get_by_role("button", name=t("res.dl_report", "en"))
    button.scroll_into_view_if_needed()
    with page.expect_download(timeout=90_000) as download:
        button.click()
    report = tmp_path / "report.html"
    download.value.save_as(report)
    text = _text(report.read_text(encoding="utf-8"))
    assert said in text, (said, text[text.find("Quality"):][:600])
