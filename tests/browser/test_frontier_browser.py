"""The decision journey in headless Chromium against a real ``streamlit run app.py``: two
embedding models (a fake OpenAI-compatible server) evaluated on the sample, each swept over
dimensions and precision on the "Choose a setup" page from cached vectors (no request), the
frontier drawn with every run, a clicked point opening that run on Results, and the
recommendation sentence in English, in Japanese and in the downloaded report."""

from __future__ import annotations

import re

import pytest
from fake_openai import FakeOpenAI
from harness import nav, open_app, wait_idle

from ragdash.i18n import t
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.run import distinct_rankings
from ragdash.runs import RunStore
from ragdash.samples import load_sample
from ragdash.stats import build_frontier

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1800}
CHART = '[class*="st-key-fr_chart"] .js-plotly-plot'


def _points(page) -> list[list[str]]:
    """The chart's points as plotly holds them: [run id, name] per point."""
    return page.evaluate(
        """sel => { const gd = document.querySelector(sel);
                    const tr = gd.data.find(d => d.meta && d.meta.kind === 'points');
                    return tr.customdata; }""", CHART)


def _sentence(home, lang: str) -> str:
    store = RunStore(home)
    runs = [store.load(s.id) for s in store.list()]
    names = [r.name or r.retriever for r in runs]
    counts = {n: names.count(n) for n in names}
    names = [n if counts[n] == 1 else f"{n} ({r.id[:4]})" for n, r in zip(names, runs)]
    return build_frontier(runs, metric="ndcg@10", x="memory",
                          names=names).recommendation(lang)


def test_two_models_swept_on_the_frontier_a_click_opens_the_run(browser, app_url, home,
                                                                 tmp_path):
    sample = load_sample("jsquad-mini")
    with FakeOpenAI(dim=16) as server:
        store = RunStore(home)
        for model, dim in (("model-a", 16), ("model-b", 32)):
            # the fake server's vectors depend on the text only: another size is another
            # ranking (two models ranking alike would be one point)
            server.dim = dim
            run = run_evaluation(sample, make_dense_retriever(
                "openai", model=model, base_url=server.url, cache_dir=home), kmax=20)
            run.name = model
            store.save(run)
        paid = len(server.requests)

        page = browser.new_context(viewport=VIEWPORT).new_page()
        open_app(page, app_url)
        nav(page, t("nav.data", "en"))
        page.get_by_role("button", name=t("data.load_sample", "en")).click()
        wait_idle(page)
        nav(page, t("nav.frontier", "en"))
        page.get_by_role("heading", name=t("fr.page_title", "en")).wait_for(timeout=30_000)
        page.locator(CHART).wait_for(timeout=30_000)
        assert len(_points(page)) == 2

        # sweep each model: 8 dims and full x float32, int8 and binary (the form keeps the
        # settings when another run is chosen)
        for i, model in enumerate(("model-a", "model-b")):
            box = page.locator('[class*="st-key-fr_sweep_run"]')
            box.scroll_into_view_if_needed()
            box.click()
            page.get_by_role("option", name=model).click()
            wait_idle(page)
            if i == 0:
                for key, option in (("fr_sweep_dims", "8"), ("fr_sweep_precisions", "binary")):
                    page.locator(f'[class*="st-key-{key}"]').click()
                    page.get_by_role("option", name=option, exact=True).click()
                    page.keyboard.press("Escape")
                    wait_idle(page)
            page.get_by_role("button", name=t("fr.sweep_start", "en")).click()
            page.get_by_text("Saved 6 runs; the sweep sent 0 requests.").wait_for(
                timeout=60_000)
            wait_idle(page)
        assert len(server.requests) == paid  # every point came from cached vectors

        # the frontier has both models and their points (2 + 2 x 6), each full-size float32
        # point shown once with the run it was swept from (the same ranking)
        nav(page, t("nav.compare", "en"))
        nav(page, t("nav.frontier", "en"))
        page.locator(CHART).wait_for(timeout=30_000)
        points = _points(page)
        saved = {s.id: s for s in RunStore(home).list()}
        # (the fake server's vectors are prefixes of one another: both models' 8 dims rank
        # alike too)
        loaded = [RunStore(home).load(i) for i in saved]
        keep, merged = distinct_rankings(loaded)
        assert len(saved) == 2 + 2 * 2 * 3 and len(points) == len(keep) < len(saved)
        assert {p[0] for p in points} < set(saved)
        notes = page.get_by_text(re.compile("rank(s)? every query exactly as"))
        assert notes.count() == len(merged) >= 2

        # the sentence, in English and in Japanese
        body = page.inner_text("body")
        assert _sentence(home, "en") in body
        page.locator('[data-testid="stSidebar"]').get_by_text("日本語").click()
        wait_idle(page)
        page.get_by_role("heading", name=t("fr.page_title", "ja")).wait_for(timeout=30_000)
        assert _sentence(home, "ja") in page.inner_text("body")

        # ... and in the downloaded report (Japanese, as the page is now)
        button = page.get_by_role("button", name=t("res.dl_report", "ja"))
        button.scroll_into_view_if_needed()
        with page.expect_download(timeout=90_000) as download:
            button.click()
        report = tmp_path / "report.html"
        download.value.save_as(report)
        html = report.read_text(encoding="utf-8")
        assert t("report.frontier", "ja") in html
        assert "最良" in html or "推奨" in html

        # a clicked point opens that run on Results
        page.locator(CHART).scroll_into_view_if_needed()
        target = page.locator(f"{CHART} .scatterlayer .trace").nth(1).locator(
            "path.point").first
        target.click(force=True)
        page.wait_for_url("**/Results?run=*", timeout=30_000)
        wait_idle(page)
        run_id = page.url.split("run=")[1].split("&")[0]
        assert run_id in saved  # the run of the point clicked (plotly's own order)
        page.get_by_role("heading", name=t("res.title", "ja")).wait_for(timeout=30_000)
        assert saved[run_id].name in page.inner_text("body")
