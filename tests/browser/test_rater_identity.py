"""Chromium behind a sign-in proxy (tests/browser/proxy.py: a real reverse proxy per user that
names them in a header): on the Judge page a rater cannot sign as someone else — Bob types
Alice's name and his grades and "can't tell" go to his own set, with her name as a suffix;
Alice's labels, progress and download stay hers, and Bob's agreement view does not list her.
And a server that believes the header while it listens on every interface refuses every page
and says so in its log."""

from __future__ import annotations

import pytest
from harness import nav, open_app, streamlit_server, wait_idle
from proxy import sign_in_proxy

from ragdash.i18n import t
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.run import Run
from ragdash.runs import RunStore
from ragdash.samples import load_sample

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1300}
HEADER = "X-Forwarded-Email"
ALICE, BOB = "alice@example.com", "bob@example.com"


def _en(key: str, **kw) -> str:
    return t(key, "en", **kw)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    home = tmp_path_factory.mktemp("ragdash-home-raters")
    with streamlit_server(home, env={"RAGDASH_USER_HEADER": HEADER}) as url:
        yield url, home


def _alices_run(home):
    """A BM25 run of the bundled sample saved by Alice: the dataset's first run, hers."""
    dataset = load_sample("jsquad-mini")
    retriever = BM25Retriever()
    queries = dataset.evaluated_queries()
    run_id = RunStore(home).save(
        Run(dataset=dataset, ranking=retriever.rank(dataset, queries, 20),
            query_ids=[q.id for q in queries], kmax=20, name="alice's bm25",
            config=retriever.config(), retriever="bm25"), owner=ALICE)
    return dataset.fingerprint(), run_id


def _judge_page(page, url: str, run_id: str) -> None:
    open_app(page, f"{url}/?run={run_id}")
    nav(page, _en("nav.judge"))
    page.locator(".rd-judge-doc").wait_for(timeout=30_000)


def _press(page, key: str) -> None:
    page.locator(".rd-judge-doc").click()   # out of any field: keys go to the page
    page.keyboard.press(key)
    wait_idle(page)


def _labels(store, fp, name) -> dict:
    return {(lb.query_id, lb.doc_id): lb.grade for lb in store.load_judgments(fp, name)}


def test_bob_typing_alices_name_does_not_write_into_her_set(browser, proxied):
    url, home = proxied
    fp, run_id = _alices_run(home)
    store = RunStore(home)
    with sign_in_proxy(url, header=HEADER, user=ALICE) as alice_url, \
            sign_in_proxy(url, header=HEADER, user=BOB) as bob_url:
        alice, bob = (browser.new_context(viewport=VIEWPORT) for _ in range(2))
        try:
            a = alice.new_page()
            _judge_page(a, alice_url, run_id)
            assert f"person:{ALICE}" in a.inner_text("body")
            _press(a, "2")
            _press(a, "3")
            hers = _labels(store, fp, f"person:{ALICE}")
            assert list(hers.values()) == [2.0, 3.0]

            b = bob.new_page()
            _judge_page(b, bob_url, run_id)
            # no free-text name field: a second name, added after his own
            assert b.get_by_label(_en("judge.rater"), exact=True).count() == 0
            field = b.get_by_label(_en("raters.second_name"), exact=True)
            field.fill(ALICE)
            field.press("Enter")
            wait_idle(b)
            assert f"person:{BOB}/{ALICE}" in b.inner_text("body")
            assert "0 labeled" in b.locator('[data-testid="stProgress"]').inner_text()
            _press(b, "1")       # a grade, on the first pair (which Alice graded 2)
            _press(b, "U")       # "can't tell" on the second (which Alice graded 3)

            assert _labels(store, fp, f"person:{ALICE}") == hers, "Bob wrote into Alice's set"
            assert not len(store.load_judgments(fp, f"unsure:{ALICE}"))
            assert list(_labels(store, fp, f"person:{BOB}/{ALICE}").values()) == [1.0]
            assert len(store.load_judgments(fp, f"unsure:{BOB}/{ALICE}")) == 1
            assert "2 labeled" in b.locator('[data-testid="stProgress"]').inner_text()
            # his one label, not hers (the download comes last: the page is drawn)
            b.get_by_role("button", name=_en("judge.download_qrels", n=1)).wait_for()
            body = b.inner_text("body")
            assert f"person:{ALICE}" not in body.replace(f"person:{BOB}/{ALICE}", "")
            assert _en("raters.others_hidden") in body

            # Alice, the dataset's owner, sees Bob's set in the agreement view
            a.reload()
            _judge_page(a, alice_url, run_id)
            # the download comes last: drawn, so is the agreement view above it
            a.get_by_role("button", name=_en("judge.download_qrels", n=2)).wait_for()
            body = a.inner_text("body")     # the people's sets are picked to begin with
            assert f"person:{BOB}/{ALICE}" in body and _en("raters.others_hidden") not in body
        finally:
            alice.close()
            bob.close()


def test_header_sign_in_on_every_interface_refuses_every_page(browser, tmp_path_factory):
    home = tmp_path_factory.mktemp("ragdash-home-open-port")
    with streamlit_server(home, env={"RAGDASH_USER_HEADER": HEADER}, address="0.0.0.0") as url, \
            sign_in_proxy(url, header=HEADER, user=ALICE) as alice_url:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = context.new_page()
            page.goto(alice_url + "/Judge")
            error = page.locator('[data-testid="stAlertContentError"]')
            error.wait_for(timeout=60_000)
            text = error.inner_text()
            assert "0.0.0.0" in text and HEADER in text and "RAGDASH_BEHIND_PROXY=1" in text
            assert page.locator('[data-testid="stSidebar"]').count() == 0
            assert page.locator(".rd-judge-doc").count() == 0
        finally:
            context.close()
        log = (home / "streamlit.log").read_text(errors="replace")
        assert "REFUSING EVERY PAGE" in log and "0.0.0.0" in log
