"""Markdown/HTML injection in a real browser: a dataset whose ids, titles, texts, dataset name, run
names and upload file name are Markdown/HTML attacks, shown on every page of
``streamlit run app.py`` in Chromium. No request may leave the page for the attacker's URLs
(example.org, or a relative ``inj-*`` image), and no such link or image may be in the page."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from harness import nav, wait_idle

from ragdash.dataset import Dataset, Document, Query
from ragdash.i18n import t
from ragdash.pipeline import run_evaluation
from ragdash.retrieval import make_retriever
from ragdash.runs import RunStore

pytestmark = pytest.mark.browser

QID = "qx` [l](https://example.org/inj-l) ![i](https://example.org/inj-q.png) `y"
DOC = "dx` ![d](https://example.org/inj-d.png) `"
DATASET = Dataset(
    name="ds` ![n](https://example.org/inj-name.png) `",
    documents=[Document(id=DOC, title="**t** ![t](https://example.org/inj-t.png) "
                                      "<img src=https://example.org/inj-h.png>",
                        text="apple [c](https://example.org/inj-c) "
                             "![x](https://example.org/inj-x.png)"),
               Document(id="d2", text="banana split :red[r] $x$")],
    # half of the hostile query's relevant documents are missing, so it is the worst query
    # and the drill-down shows it
    queries=[Query(id=QID, text="zzz ![qt](https://example.org/inj-qt.png)"),
             Query(id="q2", text="banana `![b](https://example.org/inj-b.png)`")],
    qrels={QID: {DOC: 1.0, "nope ![u](https://example.org/inj-u.png)": 1.0}, "q2": {"d2": 1.0}})
RUN_NAMES = ["run` ![r](https://example.org/inj-run.png) `",
             "b [r2](https://example.org/inj-run2) ![r2](https://example.org/inj-run2.png)"]
UPLOAD_NAME = "up` ![n](inj-upload.png) `.zip"   # a relative image: the app's own server


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """RAGDASH_HOME with two runs of the hostile dataset, saved before the server starts."""
    home = tmp_path_factory.mktemp("ragdash-home-injection")
    store = RunStore(home)
    ids = []
    for name, k1 in zip(RUN_NAMES, (1.5, 0.5)):  # two different runs: one is not saved twice
        run = run_evaluation(DATASET, make_retriever("bm25", k1=k1), kmax=10)
        run.name = name
        ids.append(store.save(run))
    (home / "run_ids.json").write_text(json.dumps(ids))
    return home


def _upload_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("corpus.jsonl", "".join(json.dumps({"_id": d.id, "title": d.title,
                                                        "text": d.text}) + "\n"
                                            for d in DATASET.documents))
        zf.writestr("queries.jsonl", "".join(json.dumps({"_id": q.id, "text": q.text}) + "\n"
                                             for q in DATASET.queries))
        zf.writestr("qrels/test.tsv", "query-id\tcorpus-id\tscore\n" + "".join(
            f"{q}\t{d}\t{g:g}\n" for q, docs in DATASET.qrels.items() for d, g in docs.items()))
    return buf.getvalue()


def _attacks_in_dom(page) -> list[str]:
    """Images and links that point at an attacker's URL (a heading's own #anchor, which
    Streamlit makes from the heading's words, stays on the page and is not one)."""
    return page.evaluate("""() => {
        const bad = u => { try { const x = new URL(u, location.href);
            return /example\\.org/.test(x.hostname) || /inj-/.test(x.pathname + x.search); }
            catch (e) { return true; } };
        const out = [];
        for (const img of document.querySelectorAll('img, image, source'))
            if (bad(img.getAttribute('src') || img.getAttribute('href') || ''))
                out.push('img ' + (img.getAttribute('src') || img.getAttribute('href')));
        for (const a of document.querySelectorAll('a[href]'))
            if (bad(a.getAttribute('href'))) out.push('a ' + a.href);
        return out;
    }""")


def test_hostile_strings_make_no_request_link_or_image_on_any_page(browser, app_url, home):
    run_ids = json.loads((home / "run_ids.json").read_text())
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    leaked: list[str] = []

    def guard(route):
        url = route.request.url
        if "example.org" in url or "inj-" in url:
            leaked.append(url)
            route.abort()
        elif url.startswith(app_url) or url.startswith(app_url.replace("http", "ws")):
            route.continue_()
        else:
            leaked.append(url)  # nothing else should be asked for, either
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.goto(f"{app_url}/Results?run={run_ids[0]}")
    page.locator('[data-testid="stSidebar"]').wait_for(timeout=60_000)
    wait_idle(page)
    drill = page.locator('[class*="st-key-drill-"] code').first
    drill.wait_for(timeout=30_000)
    assert drill.inner_text() == QID  # shown as written, in one code span
    body = page.inner_text("body")
    assert "inj-qt.png" in body and "inj-name.png" in body  # the texts are on screen
    pages = {"results": _attacks_in_dom(page)}
    for label in ("nav.data", "nav.run", "nav.compare", "nav.cost", "nav.frontier",
                  "nav.home"):
        nav(page, t(label, "en"))
        page.wait_for_timeout(500)  # let images (if any) be asked for
        pages[label] = _attacks_in_dom(page)
    assert "inj-run2.png" in page.inner_text("body")  # Home lists the run names

    # an upload whose file name is an attack: its name becomes the dataset's name
    nav(page, t("nav.data", "en"))
    page.get_by_role("tab", name=t("data.tab_upload", "en")).click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": UPLOAD_NAME, "mimeType": "application/zip", "buffer": _upload_zip()})
    wait_idle(page)
    page.get_by_role("button", name=t("data.load_files", "en")).click()
    wait_idle(page)
    page.get_by_text("inj-upload.png").first.wait_for(timeout=30_000)
    for label in ("nav.run", "nav.data"):
        nav(page, t(label, "en"))
        page.wait_for_timeout(500)
        pages[f"upload {label}"] = _attacks_in_dom(page)
    context.close()
    assert leaked == [], f"requests left the page: {leaked}"
    assert all(not found for found in pages.values()), pages
