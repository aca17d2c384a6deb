"""Chromium, two browser contexts on one server: a fresh session shows only what it loaded or
opened.

Nothing opens by itself; without sign-in the lists say that every saved run is everyone's;
behind a sign-in proxy (``RAGDASH_USER_HEADER``; a real reverse proxy per user,
tests/browser/proxy.py)
B does not even see A's run listed, a link gives B read-only access, and only A deletes it;
a set A generates from a private upload on the Generate page is not offered to B, on the
Generate page nor on the Data page, unless A hands B its link.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from harness import CURVE, fill, nav, open_app, streamlit_server, wait_idle
from proxy import sign_in_proxy

from ragdash.i18n import t
from ragdash.runs import RunStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generate"))
from fake_chat import FakeChat
from world import Writer

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


#: Alice's private corpus (distinct first words: the fake writer asks about the first word)
_MEMO_TOPICS = ("Hoshino", "Aratani", "Kurobe", "Minase", "Tsukida", "Ogura", "Sekine",
                "Fujimori")
_MEMOS = "".join(
    f'{{"_id": "m{i}", "text": "{name} memo: the {name} merger closes in week {i}; the '
    f'board keeps the {name} terms from the press."}}\n'
    for i, name in enumerate(_MEMO_TOPICS, 1)).encode()


def test_behind_a_sign_in_proxy_a_generated_set_is_its_owners(proxied, browser):
    url, home = proxied
    with sign_in_proxy(url, header=HEADER, user="alice@example.com") as alice_url, \
            sign_in_proxy(url, header=HEADER, user="bob@example.com") as bob_url, \
            FakeChat(answer=Writer({})) as chat:
        _generated_set(browser, home, alice_url, bob_url, chat.url)


def _stored_sets(home) -> list[dict]:
    return [d for d in RunStore(home).datasets() if d["name"].startswith("memos")]


def _generated_set(browser, home, alice_url: str, bob_url: str, chat_url: str) -> None:
    alice, bob = _context(browser), _context(browser)
    try:
        a = alice.new_page()
        open_app(a, alice_url)
        nav(a, _en("nav.generate"))
        a.locator('input[type="file"]').first.set_input_files(
            files=[{"name": "memos.jsonl", "mimeType": "application/octet-stream",
                    "buffer": _MEMOS}])
        wait_idle(a)
        fill(a, _en("gen.base_url"), chat_url)
        fill(a, _en("gen.n"), "3")
        a.get_by_role("button", name=_en("gen.start")).click()
        a.get_by_role("button", name=_en("gen.use")).wait_for(timeout=90_000)
        wait_idle(a)
        (stored,) = _stored_sets(home)
        assert stored["saved_by"] == ["alice@example.com"]
        link = f"Data?dataset={stored['fingerprint']}"
        assert link in a.inner_text("body")  # hers to hand out
        stored_box = f'[data-testid="stSelectbox"]:has-text("{_en("gen.stored")}")'
        assert a.locator(stored_box).count() == 1

        b = bob.new_page()
        open_app(b, bob_url)
        nav(b, _en("nav.generate"))
        body = b.inner_text("body")
        assert b.locator(stored_box).count() == 0, "Bob is offered Alice's generated set"
        assert _en("gen.none_stored") in body
        nav(b, _en("nav.data"))
        b.get_by_role("tab", name=_en("data.tab_store")).click()
        wait_idle(b)
        body = b.inner_text("body")
        assert _en("data.store_none") in body and stored["name"] not in body
        assert not any(word in body for word in _MEMO_TOPICS), "Bob reads Alice's memos"
        sidebar = b.locator('[data-testid="stSidebar"]').inner_text()
        assert _en("side.no_dataset") in sidebar

        # her link opens it for him, and lists it for his session
        b.goto(f"{bob_url}/{link}")
        b.locator('[data-testid="stSidebar"]').wait_for(timeout=60_000)
        wait_idle(b)
        assert stored["name"] in b.locator('[data-testid="stSidebar"]').inner_text()
        nav(b, _en("nav.generate"))
        assert b.locator(stored_box).count() == 1
        assert [d["saved_by"] for d in _stored_sets(home)] == [["alice@example.com"]]
    finally:
        alice.close()
        bob.close()
