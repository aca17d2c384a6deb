"""Chromium: the Japanese views — Compare's scatter title and half-width drill-downs
shown whole, a failed run explained in Japanese and in the app's words, money axes in money."""

from __future__ import annotations

from fake_openai import FakeOpenAI
from harness import fill, nav, open_app, sample_on_a_custom_server, wait_idle

from ragdash.i18n import t
from ragdash.pipeline import run_evaluation
from ragdash.retrieval import make_retriever
from ragdash.runs import RunStore
from ragdash.samples import load_sample

VIEWPORT = {"width": 1400, "height": 1400}


def _two_runs(home) -> str:
    store = RunStore(home)
    dataset = load_sample("jsquad-mini")
    first = store.save(run_evaluation(dataset, make_retriever("bm25")))
    store.rename(first, "bm25 既定")
    tuned = run_evaluation(dataset, make_retriever("bm25", k1=0.5, b=0.3))
    tuned.name = "bm25 k1=0.5 b=0.3 のとても長い名前の実行結果"
    store.save(tuned)
    return first


def _to_japanese(page) -> None:
    page.locator('[data-testid="stSidebar"]').get_by_text("日本語").click()
    wait_idle(page)


def _cut(page, selector: str) -> list[str]:
    """Texts of the elements matching ``selector`` that are wider than their box (cut)."""
    return page.evaluate("""sel => [...document.querySelectorAll(sel)]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""", selector)


def test_compare_in_japanese_shows_its_title_and_drilldowns_whole(browser, app_url, home):
    first = _two_runs(home)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/?run={first}")
        _to_japanese(page)
        nav(page, t("nav.compare", "ja"))
        title = t("chart.scatter_title", "ja", a="bm25 既定",
                  b="bm25 k1=0.5 b=0.3 のとても長い名前の実行結果")
        heading = page.get_by_text(title)
        heading.wait_for(timeout=30_000)
        # the title is a paragraph above the chart, whole (it was cut inside the chart)
        assert _cut(page, '[data-testid="stMarkdownContainer"] p') == []
        box, column = heading.bounding_box(), page.locator(".st-key-cmp_scatter").bounding_box()
        assert box["x"] + box["width"] <= column["x"] + column["width"] + 1
        # the two drill-downs: static tables whose cells wrap, nothing cut, Japanese headers
        tables = page.locator('[data-testid="stTable"]')
        tables.nth(3).wait_for(timeout=30_000)
        wait_idle(page)
        assert tables.count() == 4
        assert _cut(page, '[data-testid="stTable"] td') == []
        assert _cut(page, '[data-testid="stTable"] th') == []
        header = tables.nth(1).inner_text()  # the first run's top K
        assert t("col.score", "ja") in header and "Relevant" not in header
    finally:
        context.close()


def test_cost_axes_in_japanese_are_money(browser, app_url, home):
    first = _two_runs(home)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/?run={first}")
        _to_japanese(page)
        nav(page, t("nav.cost", "ja"))
        chart = page.locator(".st-key-cost_bars .js-plotly-plot")
        chart.wait_for(timeout=30_000)
        ticks = chart.locator(".xtick text").evaluate_all("els => els.map(e => e.textContent)")
        assert ticks and all(x.startswith("¥") for x in ticks), ticks  # JPY in Japanese
        assert not [x for x in ticks if "µ" in x or "m" in x.lower()], ticks
        assert "None" not in page.inner_text("body")
    finally:
        context.close()


def test_a_run_without_its_key_fails_in_japanese_and_the_apps_words(browser, app_url):
    with FakeOpenAI(api_key="sk-the-right-key-0123") as server:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        try:
            open_app(page, app_url)
            _to_japanese(page)
            sample_on_a_custom_server(page, server.url, lang="ja")
            fill(page, t("run.model", "ja"), "emb-ja-no-key")
            page.get_by_role("button", name=t("run.start", "ja")).click()
            error = page.locator('[data-testid="stAlertContentError"]').first
            error.wait_for(timeout=60_000)
            text = error.inner_text()
            assert "API キーを求めています(HTTP 401" in text, text
            assert "「API キー」欄" in text and "--api-key-env" not in text, text
            assert "asks for an API key" not in text
        finally:
            context.close()

