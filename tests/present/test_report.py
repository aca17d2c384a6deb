"""The HTML report: self-contained, escaped, ids-only on request, Japanese intact, no key."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from paths import ROOT

from ragdash.dataset import Dataset, Document, Query
from ragdash.i18n import t
from ragdash.present.report import ReportCost, build_report
from ragdash.ranking import Ranking
from ragdash.run import Run
from ragdash.runs import RunStore
from ragdash.stats import compare_tables

KEY = "sk-live-REPORTKEY9876543210abcdef"
SECRET_DOC = "ユニコーンの角は月夜にだけ虹色に光るという秘密の伝承"
XSS_QUERY = "<script>alert(1)</script> どこ？"
SCRIPT_DOC = 'console.log("</script><img src=x onerror=alert(2)>")'
RESAMPLES = 200


def make_dataset() -> Dataset:
    rng = np.random.default_rng(7)
    docs = [Document(f"d{i}", f"文書 {i} の本文です。", f"題名{i}") for i in range(30)]
    docs[3] = Document("d3", SECRET_DOC, "伝承")
    docs[4] = Document("d4", SCRIPT_DOC, "</title><b>")
    queries = [Query(f"q{i}", f"質問 {i} は何ですか？") for i in range(24)]
    queries[0] = Query("q0", XSS_QUERY)
    qrels = {q.id: {f"d{j}": float(rng.integers(1, 3))
                    for j in rng.choice(30, size=2, replace=False)} for q in queries}
    qrels["q0"] = {"d3": 2.0, "d4": 1.0}
    return Dataset(docs, queries, qrels, name="報告テスト <i>set</i>")


def make_run(ds: Dataset, seed: int, name: str) -> Run:
    rng = np.random.default_rng(seed)
    run = {q.id: {d.id: float(rng.random()) for d in ds.documents} for q in ds.queries}
    run["q0"]["d3"] = 0.001  # the secret document is relevant to q0 and ranked low: a miss
    return Run(dataset=ds, ranking=Ranking.from_dict(run),
               query_ids=ds.query_ids, kmax=20, name=name, retriever="openai",
               model="text-embedding-3-small",
               config={"model": "text-embedding-3-small", "api_key": KEY,
                       "base_url": "https://api.openai.com/v1", "batch_size": 64},
               usage={"requests": 3, "prompt_tokens": 1234},
               cost={"estimated_usd": 0.0123, "actual_usd": 0.0119})


@pytest.fixture(scope="module")
def ds():
    return make_dataset()


@pytest.fixture(scope="module")
def runs(ds):
    return [make_run(ds, 1, "small"), make_run(ds, 2, "</script><script>alert(3)</script>")]


@pytest.fixture(scope="module")
def report_en(ds, runs):
    cost = ReportCost(tokens=4321, method="tiktoken cl100k_base", currency="USD",
                      rows=[{"provider": "OpenAI", "model": "text-embedding-3-small",
                             "usd": 0.0001, "jpy": 0.0155}])
    return build_report(runs, dataset=ds, lang="en", cost=cost, secrets=[KEY],
                        n_resamples=RESAMPLES, generated_at="2025-01-01 00:00 UTC")


#: a JPY-first estimate, as the Japanese app passes it; the tables show USD and JPY anyway
COST_JA = ReportCost(tokens=98765, method="tiktoken cl100k_base", currency="JPY",
                     rows=[{"provider": "OpenAI", "model": "text-embedding-3-large",
                            "usd": 0.0128, "jpy": 1.98},
                           {"provider": "Voyage AI", "model": "voyage-3.5-lite",
                            "usd": 0.00198, "jpy": 0.307}])


@pytest.fixture(scope="module")
def report_ja(ds, runs):
    return build_report(runs, dataset=ds, lang="ja", cost=COST_JA, n_resamples=RESAMPLES)


@pytest.fixture(scope="module")
def report_ids_only(ds, runs):
    return build_report(runs, dataset=ds, lang="ja", include_text=False,
                        n_resamples=RESAMPLES)


class _Refs(HTMLParser):
    """Collect every tag and every attribute that could load something."""

    LOADING = frozenset({"src", "href", "xlink:href", "action", "data", "poster", "srcset",
                         "background", "formaction"})

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.refs: list[tuple[str, str, str]] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in self.LOADING or name.startswith("on"):
                self.refs.append((tag, name, value or ""))

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data


def _parse(page: str) -> _Refs:
    p = _Refs()
    p.feed(page)
    return p


def _forms(text: str) -> list[str]:
    """The text as it would appear raw, HTML-escaped, or JSON-escaped in the page."""
    return [text, html.escape(text), json.dumps(text)[1:-1]]


@pytest.mark.parametrize("which", ["report_en", "report_ja", "report_ids_only"])
def test_the_report_is_self_contained(which, request):
    page = request.getfixturevalue(which)
    refs = _parse(page)
    # Only in-page anchors: no src / href to anything outside the file, no event handlers.
    assert refs.refs and all(name == "href" and value.startswith("#")
                             for _, name, value in refs.refs), refs.refs[:5]
    assert "link" not in refs.tags and "iframe" not in refs.tags and "img" not in refs.tags
    assert "url(" not in refs.style and "@import" not in refs.style and "@font-face" not in \
        refs.style
    # plotly.js is inline, exactly once, and every chart is drawn by it.
    from plotly.offline import get_plotlyjs

    assert page.count(get_plotlyjs()[:300]) == 1
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert page.count("Plotly.newPlot") >= 4
    # Every <script> that opens is closed by our own tags, not by user text.
    assert page.count("</script>") == len(re.findall(r"<script\b", page))


def test_user_text_is_escaped(report_en):
    page = report_en
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the query, shown as text
    assert "alert(3)</script>" not in page  # a run name
    assert "&lt;/script&gt;&lt;script&gt;alert(3)" in page
    assert "<img src=x onerror" not in page  # the document text, escaped
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "<i>set</i>" not in page and "&lt;i&gt;set&lt;/i&gt;" in page
    assert "</title><b>" not in page


def test_no_key_anywhere(report_en, report_ja, ds, runs):
    for page in (report_en, report_ja):
        assert KEY not in page
    # Even without secrets=..., the credential-named config entry is dropped.
    assert "text-embedding-3-small" in report_ja and "batch_size" in report_ja
    assert "api_key" not in report_ja


def test_ids_only_report_leaves_texts_out(report_ids_only, report_ja, ds):
    for text in (SECRET_DOC, XSS_QUERY, "質問 5 は何ですか？", "文書 7 の本文です。", "題名7"):
        for form in _forms(text):
            assert form not in report_ids_only, (text, form)
    assert any(f in report_ja for f in _forms(SECRET_DOC))  # present when texts are included
    assert any(f in report_ja for f in _forms("質問 5 は何ですか？"))
    assert "q0" in report_ids_only and "d3" in report_ids_only  # ids remain
    assert "本文を含めていません" in report_ids_only


def test_japanese_report_is_utf8_and_translated(report_ja, ds):
    assert '<html lang="ja">' in report_ja and '<meta charset="utf-8">' in report_ja
    assert "<title>検索評価レポート</title>" in report_ja
    for heading in ("データセット", "K ごとの曲線", "スコアの低いクエリ", "比較", "費用"):
        assert heading in report_ja
    data = report_ja.encode("utf-8")
    assert data.decode("utf-8") == report_ja
    assert "質問 5 は何ですか？".encode() in data
    assert "Noto Sans CJK JP" in report_ja
    assert "K（上位件数）" in report_ja or json.dumps("K（上位件数）")[1:-1] in report_ja


def test_sections_and_numbers(report_en, ds, runs):
    page = report_en
    for anchor in ("dataset", "runs", "curves", "summary", "worst", "comparison", "cost"):
        assert f'id="{anchor}"' in page
    assert ds.fingerprint() in page
    assert "Summary at K = 1, 3, 5, 10, 20" in page  # 50 and 100 are beyond Kmax = 20
    small = runs[0].table()
    assert f"{small.mean('ndcg@10'):.4f}" in page
    assert f"{small.mean('recall@20'):.4f}" in page
    assert "4,321" in page and "tiktoken cl100k_base" in page
    assert "$0.0123" in page and "$0.0119" in page
    assert "Generated 2025-01-01 00:00 UTC" in page
    assert "<details>" in page  # drill-downs of the worst queries


def test_comparison_shows_the_stats_verdicts(report_en, report_ja, runs):
    tables = {r.name: r.table() for r in runs}
    cmp = compare_tables(tables, "ndcg@10", n_resamples=RESAMPLES)
    for sentence in cmp.verdicts("en"):
        assert html.escape(sentence) in report_en
    for sentence in cmp.verdicts("ja"):
        assert html.escape(sentence) in report_ja


def test_one_run_report_and_saved_runs(tmp_path, ds):
    store = RunStore(tmp_path)
    r = make_run(ds, 3, "only")
    run_id = store.save(Run.of_ranking(ds, r.ranking, config=r.config, kmax=20,
                                       query_ids=ds.query_ids, retriever="bm25",
                                       name="保存した実行"))
    saved = store.load(run_id)
    page = build_report([saved], lang="en", n_resamples=RESAMPLES)  # dataset from the run
    assert "A comparison needs at least two runs." in page
    assert "保存した実行" in page and KEY not in page
    assert ds.fingerprint() in page
    with pytest.raises(ValueError):
        build_report([], dataset=ds)


def test_size_is_reasonable(report_en):
    from plotly.offline import get_plotlyjs

    extra = len(report_en.encode("utf-8")) - len(get_plotlyjs().encode("utf-8"))
    assert 0 < extra < 600_000, extra


@pytest.mark.browser
def test_the_report_renders_offline_in_chromium(tmp_path, report_ja):
    """Fails (not skips) without Debian's Chromium, naming the install command, as the app's
    browser tests do: the launch is theirs (tests/browser/harness.py)."""
    from browser.harness import launch
    from playwright.sync_api import sync_playwright

    path = tmp_path / "report.html"
    path.write_text(report_ja, encoding="utf-8")
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_context(offline=True).new_page()
            requests, errors = [], []
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
            page.goto(path.as_uri())
            page.wait_for_selector(".main-svg", timeout=15_000)
            assert page.locator(".js-plotly-plot").count() >= 4
            assert errors == []
            assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
            assert page.title() == "検索評価レポート"
            # the cost bars' labels are drawn level (plotly turns a label that does not fit
            # on its side unless told otherwise), and they are the yen figures
            labels = page.eval_on_selector_all(
                ".bars text.bartext",
                "els => els.map(e => [e.textContent, e.getAttribute('transform') || ''])")
            assert sorted(text for text, _ in labels) == ["$0.00198 · ¥0.31",
                                                          "$0.0128 · ¥1.98"], labels
            assert not [tr for _, tr in labels if "rotate" in tr], labels
        finally:
            browser.close()


def _plotly_data(page: str) -> list[list[dict]]:
    """The trace lists of every Plotly.newPlot call in the page, parsed as JSON."""
    decoder = json.JSONDecoder()
    out = []
    for m in re.finditer(r"Plotly\.newPlot\(\s*", page):
        _, end = decoder.raw_decode(page, m.end())  # the div id
        start = page.index("[", end)
        data, _ = decoder.raw_decode(page, start)
        out.append(data)
    return out


def _section(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    nxt = page.find("<h2 ", start)
    return page[start:nxt if nxt >= 0 else len(page)]


def test_the_japanese_reports_bar_labels_are_level(report_ja):
    bars = [tr for data in _plotly_data(report_ja) for tr in data if tr["type"] == "bar"]
    assert bars and [tr.get("textangle") for tr in bars] == [0] * len(bars)
    # the bars follow the estimate's currency, and each is labelled in both
    assert bars[0]["text"] == ["$0.00198 · ¥0.31", "$0.0128 · ¥1.98"]
    assert bars[0]["x"] == sorted(r["jpy"] for r in COST_JA.rows)


@pytest.mark.parametrize("which", ["report_en", "report_ja"])
def test_money_is_shown_in_usd_and_jpy_whatever_the_language(which, request, runs):
    from ragdash.cost import actual_cost, format_money

    lang = "ja" if which == "report_ja" else "en"
    cost = _section(request.getfixturevalue(which), "cost")
    for currency in ("USD", "JPY"):
        assert f"<th>{t('chart.cost_y', lang, currency=currency)}</th>" in cost
        assert f"<th>{t('report.actual_in', lang, currency=currency)}</th>" in cost
    # the runs saved a USD estimate and a USD actual figure; the yen figure is priced from
    # the API's usage, so both currencies have a number
    priced = actual_cost(runs[0].usage, model="text-embedding-3-small")
    row = re.search(r"<tr><td>small</td>.*?</tr>", cost).group(0)
    cells = re.findall(r'<td class="num">(.*?)</td>', row)
    assert cells == ["3", "1,234", "$0.0123", "—", "$0.0119", format_money(priced.jpy, "JPY")]
    assert "¥" in cells[-1] and priced.jpy > 0
    if lang == "ja":
        for r in COST_JA.rows:
            assert (f'<td class="num">{format_money(r["usd"], "USD")}</td>'
                    f'<td class="num">{format_money(r["jpy"], "JPY")}</td>') in cost


def test_the_template_escapes_a_hostile_run_name(ds):
    hostile = '"><img src=x onerror=alert(5)>{{ 7*7 }}{% raw %}'
    run = make_run(ds, 8, hostile)
    page = build_report([run], dataset=ds, lang="en", bands=False, compare=False)
    assert "<img src=x onerror=alert(5)>" not in page
    escaped = "&#34;&gt;&lt;img src=x onerror=alert(5)&gt;{{ 7*7 }}{% raw %}"
    assert f"<td>{escaped}</td>" in page  # the runs table: the name as text, verbatim
    assert f"<h3>{escaped} — Settings</h3>" in page
    assert "49" not in _section(page, "runs")  # data is never evaluated as a template
    assert not [r for r in _parse(page).refs if r[1].startswith("on")]


def test_the_css_is_inlined_from_package_data(report_en):
    from importlib.resources import files

    from ragdash.present.report import stylesheet

    css = files("ragdash.present").joinpath("templates/report.css").read_text("utf-8")
    assert stylesheet() == css and '"Noto Sans CJK JP"' in css
    # verbatim (quotes not escaped) and exactly once
    assert report_en.count(f"<style>{css}</style>") == 1
    assert _parse(report_en).style == css


@pytest.mark.parametrize("which", ["report_en", "report_ja", "report_ids_only"])
def test_no_external_url_in_the_html(which, request):
    from plotly.offline import get_plotlyjs

    page = request.getfixturevalue(which)
    library = get_plotlyjs().replace("</script", "<\\/script")
    assert page.count(library) == 1
    rest = page.replace(library, "")
    # the only URL is the run's base URL, shown as text in its settings
    assert set(re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"'<>]*", rest)) == {
        "https://api.openai.com/v1"}
    assert '<dd class="mono">https://api.openai.com/v1</dd>' in rest


@pytest.mark.slow
def test_the_template_ships_in_the_wheel(tmp_path):
    """`pip install .` installs the template and the stylesheet: build the wheel from a copy
    of the sources, unpack it as an installation would, and render a report from there."""
    import shutil
    import subprocess
    import sys
    import zipfile

    root = ROOT
    src = tmp_path / "src"
    shutil.copytree(root / "ragdash", src / "ragdash",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(tmp_path / "dist")],
                   check=True, cwd=src, capture_output=True)
    wheel = next((tmp_path / "dist").glob("ragdash-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "ragdash/present/templates/report.html.j2" in names
    assert "ragdash/present/templates/report.css" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import ragdash.present.report as r, sys; assert r.__file__.startswith(sys.argv[1]);"
            "from ragdash.present.report import _environment; "
            "print(len(_environment().get_template('report.html.j2').render("
            "lang='en', title='t', css='', plotly_js=None, notes=[], sections=[], "
            "generated='', offline='', contents='', footer='')))")
    out = subprocess.run([sys.executable, "-c", code, str(site)], check=True, text=True,
                         capture_output=True, cwd=tmp_path, env={"PYTHONPATH": str(site)})
    assert int(out.stdout) > 200


def test_cost_section_from_an_estimate_and_usage(ds):
    # RAGDASH_HOME is empty (tests/conftest.py): the shipped price list only
    from ragdash.cost import actual_cost, estimate_evaluation, format_money

    est = estimate_evaluation(ds, "text-embedding-3-small")
    cost = ReportCost.from_estimate(est, currency="JPY")
    assert cost.tokens == est.tokens and cost.method == est.token_method
    assert cost.currency == "JPY" and len(cost.rows) == len(est.per_provider)
    assert cost.rows[0]["jpy"] == est.per_provider[0].jpy
    assert cost.rows[0]["usd"] == est.per_provider[0].usd
    paid = make_run(ds, 5, "paid")
    paid.cost = {"estimated_jpy": est.jpy}  # what the Run page saves: no actual figure
    paid.usage = {"requests": 2, "prompt_tokens": 5000, "model": "text-embedding-3-small"}
    free = make_run(ds, 6, "bm25")
    free.retriever, free.cost, free.usage = "bm25", None, {"requests": 0}
    page = build_report([paid, free], dataset=ds, lang="en", cost=cost, compare=False,
                        bands=False)
    want = actual_cost(paid.usage, model="text-embedding-3-small")
    assert f"{est.tokens:,}" in page and html.escape(est.token_method) in page
    assert format_money(want.jpy, "JPY") in page and format_money(est.jpy, "JPY") in page
    assert format_money(want.usd, "USD") in page
    assert "Cost (JPY)" in page and "Cost (USD)" in page
    cost_part = page[page.index('id="cost"'):]
    row = re.search(r"<tr><td>bm25</td>.*?</tr>", cost_part).group(0)
    assert row.endswith('<td class="num">¥0</td></tr>')  # a free retriever costs nothing


def test_a_pipeline_result_goes_straight_into_a_report(ds):
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever

    run = run_evaluation(ds, make_retriever("bm25"), kmax=10)
    assert isinstance(run, Run)
    page = build_report([run], lang="ja", n_resamples=RESAMPLES)
    assert "bm25" in page and ds.fingerprint() in page
    assert f"{run.table().mean('ndcg@10'):.4f}" in page


def test_a_ranking_given_twice_is_one_run_in_the_report_and_the_page_says_so(ds, runs):
    """A ranking given twice is one run in the report (no pair with itself, no extra
    pairs in the correction), and the report says which run stands for which."""
    twin = make_run(ds, 1, "small again")
    page = build_report([runs[0], twin, runs[1]], dataset=ds, lang="en", n_resamples=200,
                        include_text=False)
    assert "small again ranks every query exactly as small does: shown once, as small." in page
    alone = build_report(runs, dataset=ds, lang="en", n_resamples=200, include_text=False)
    # the same sections and pairs as without the twin: its name appears only in the note
    assert len(re.findall(r"small again(?!st)", page)) == 1
    assert len(_plotly_data(page)) == len(_plotly_data(alone))
