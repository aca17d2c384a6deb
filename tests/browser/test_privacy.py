"""Chromium, two browser contexts on one server: a fresh session shows only what it loaded or
opened.

Nothing opens by itself; without sign-in the lists say that every saved run is everyone's;
behind a sign-in proxy (``RAGDASH_USER_HEADER``; a real reverse proxy per user,
tests/browser/proxy.py)
B does not even see A's run listed, a link gives B read-only access, and only A deletes it.
"""

from __future__ import annotations

import pytest
from harness import CURVE, nav, open_app, streamlit_server, wait_idle
from proxy import sign_in_proxy

from ragdash.i18n import t
from ragdash.runs import RunStore

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1200}
HEADER = "X-Forwarded-User"


def _en(key: str, **kw) -> str:
    return t(key, "en", **kw)


def _quick_start(page) -> None:
    page.get_by_role("button", name=_en("home.quick_button")).click()
    page.locator(f'.js-plotly-plot:has-text("nDCG") {CURVE.split(" ", 1)[1]}').first.wait_for(
        timeout=60_000)
    wait_idle(page)


def _query_texts(home) -> list[str]:
    store = RunStore(home)
    (summary,) = store.list()
    run = store.load(summary.id)
    return [run.dataset.query(q).text for q in run.query_ids[:5]]


def _context(browser):
    return browser.new_context(viewport=VIEWPORT)


def test_without_sign_in_a_fresh_session_opens_nothing_and_says_runs_are_shared(
        browser, app_url, home):
    a_context, b_context = _context(browser), _context(browser)
    try:
        a = a_context.new_page()
        open_app(a, app_url)
        _quick_start(a)
        (summary,) = RunStore(home).list()

        b = b_context.new_page()
        open_app(b, app_url)
        nav(b, _en("nav.results"))
        body = b.inner_text("body")
        assert _en("res.none_open") in body
        assert b.locator(".js-plotly-plot").count() == 0, "no curves of A's run"
        assert "run=" not in b.url
        for text in _query_texts(home):
            assert text not in body, "B reads A's queries"
        sidebar = b.locator('[data-testid="stSidebar"]').inner_text()
        assert _en("side.no_dataset") in sidebar
        assert summary.name not in sidebar
        # the list says plainly that every saved run is everyone's
        assert _en("runs.shared_all") in body
        nav(b, _en("nav.run"))
        assert _en("runs.shared_all") in b.inner_text("body")
    finally:
        a_context.close()
        b_context.close()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    home = tmp_path_factory.mktemp("ragdash-home-proxied")
    with streamlit_server(home, env={"RAGDASH_USER_HEADER": HEADER}) as url:
        yield url, home


def test_behind_a_sign_in_proxy_each_user_has_their_own_runs(proxied, browser):
    url, home = proxied
    # each person reaches the app through the proxy that signed them in
    with sign_in_proxy(url, header=HEADER, user="alice@example.com") as alice_url, \
            sign_in_proxy(url, header=HEADER, user="bob@example.com") as bob_url:
        _two_users(browser, home, alice_url, bob_url)


def _two_users(browser, home, alice_url: str, bob_url: str) -> None:
    alice, bob = _context(browser), _context(browser)
    try:
        a = alice.new_page()
        open_app(a, alice_url)
        assert "alice@example.com" in a.locator('[data-testid="stSidebar"]').inner_text()
        _quick_start(a)
        (summary,) = RunStore(home).list()
        assert summary.owner == "alice@example.com"

        b = bob.new_page()
        open_app(b, bob_url)
        nav(b, _en("nav.results"))
        body = b.inner_text("body")
        assert b.locator(".js-plotly-plot").count() == 0
        assert _en("res.no_runs") in body  # A's run is not even listed
        for text in _query_texts(home):
            assert text not in body
        nav(b, _en("nav.run"))
        body = b.inner_text("body")
        assert summary.name not in body and _en("run.no_saved") in body
        nav(b, "Home")
        assert summary.name not in b.inner_text("body")

        # A's link gives B the run, read-only
        b.goto(f"{bob_url}/Results?run={summary.id}")
        b.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        wait_idle(b)
        nav(b, _en("nav.run"))
        body = b.inner_text("body")
        assert _en("run.read_only", name=summary.name).replace("**", "") in body
        assert b.get_by_role("button", name=_en("run.delete")).count() == 0
        assert RunStore(home).exists(summary.id)

        # A, the owner, may delete it
        nav(a, _en("nav.run"))
        a.get_by_role("button", name=_en("run.delete")).click()
        a.get_by_role("button", name=_en("run.delete_yes")).click()
        wait_idle(a)
        assert not RunStore(home).exists(summary.id)
    finally:
        alice.close()
        bob.close()


def test_a_request_without_the_proxy_header_is_refused_with_a_sentence(proxied, browser):
    url, _ = proxied
    context = _context(browser)
    try:
        page = context.new_page()
        page.goto(url)
        page.locator('[data-testid="stAlertContentError"]').wait_for(timeout=60_000)
        text = page.locator('[data-testid="stAlertContentError"]').inner_text()
        assert HEADER in text and "proxy" in text
        assert page.locator('[data-testid="stSidebar"]').count() == 0
    finally:
        context.close()
