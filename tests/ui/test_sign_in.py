"""AppTest: with Streamlit's OIDC login configured (``st.user`` has ``is_logged_in``), each
user has their own runs; a link opens another's run read-only; nobody signed in sees the
sign-in screen only. Without it, a fresh session opens no run by itself."""

from __future__ import annotations

import pytest
from app_support import (
    frame_with,
    new_app,
    open_page,
    open_sample,
    save_bm25_run,
    texts,
    wait_for_jobs,
)

from ragdash.i18n import t
from ragdash.runs import get_store
from ragdash.samples import load_sample


def _signed_in(email: str | None, **query):
    at = new_app(**query)
    at.user = {"is_logged_in": email is not None, **({"email": email} if email else {})}
    return at


def _quick_start(at):
    at.run()
    at.button(key="home_quick").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    at.run()
    return get_store().list()[0]


def test_nobody_signed_in_sees_the_sign_in_screen_only():
    at = _signed_in(None).run()
    assert not at.exception
    assert at.title[0].value == t("auth.login_title", "en")
    assert at.button(key="auth_login")
    assert not at.sidebar.button and "rd_dataset" not in at.session_state


def test_each_signed_in_user_has_their_own_runs_and_a_link_is_read_only():
    alice = _signed_in("alice@example.com")
    summary = _quick_start(alice)
    assert summary.owner == "alice@example.com"
    assert "alice@example.com" in texts(alice)

    bob = _signed_in("bob@example.com")
    open_page(bob, "results")
    assert not bob.get("plotly_chart")
    assert t("res.no_runs", "en") in texts(bob)
    open_page(bob, "run")
    assert summary.name not in texts(bob)

    # bob's own run is his; alice's link opens hers for him, read-only
    bob_run = save_bm25_run(load_sample("jsquad-mini"), name="bob's")
    assert get_store().summary(bob_run).owner is None  # saved outside the app: shared
    linked = _signed_in("bob@example.com", run=summary.id)
    open_page(linked, "results")
    assert linked.get("plotly_chart")
    open_page(linked, "run")
    linked.selectbox(key="run_manage_pick").set_value(summary.id).run()
    assert t("run.read_only", "en", name=summary.name) in texts(linked)
    assert not [b for b in linked.button if b.key == "run_manage_delete"]

    # alice deletes her run
    open_page(alice, "run")
    alice.selectbox(key="run_manage_pick").set_value(summary.id).run()
    alice.button(key="run_manage_delete").click().run()
    assert not get_store().exists(summary.id)


def test_without_sign_in_a_fresh_session_opens_no_run_and_says_all_are_shared():
    first = new_app()
    summary = _quick_start(first)
    fresh = open_sample(new_app())  # even on the same dataset
    open_page(fresh, "results")
    assert not fresh.get("plotly_chart")
    assert t("res.none_open", "en") in texts(fresh)
    assert t("runs.shared_all", "en") in texts(fresh)
    assert "rd_run_id" not in fresh.session_state or fresh.session_state["rd_run_id"] is None
    assert summary.name in list(frame_with(fresh, "name")["name"])  # to pick, as it says


# -- header sign-in on a port others can reach ---------------------------------------------
HEADER = "X-Forwarded-User"


@pytest.fixture
def listen_on(monkeypatch):
    """Set Streamlit's ``server.address`` (as ``--server.address`` does) for this test."""
    from streamlit import config

    before = config.get_option("server.address")
    monkeypatch.setenv("RAGDASH_USER_HEADER", HEADER)
    monkeypatch.delenv("RAGDASH_BEHIND_PROXY", raising=False)
    yield lambda address: config.set_option("server.address", address)
    config.set_option("server.address", before)


def _errors(at) -> str:
    return " ".join(e.value for e in at.error)


@pytest.mark.parametrize(("address", "said"), [(None, "0.0.0.0"), ("", "0.0.0.0"),
                                              ("0.0.0.0", "0.0.0.0"), ("::", "::"),
                                              ("192.168.1.5", "192.168.1.5"),
                                              ("example.internal", "example.internal")])
def test_header_sign_in_on_an_open_address_refuses_every_page(listen_on, capfd, address,
                                                              said):
    listen_on(address)
    at = new_app().run()
    assert not at.exception
    text = _errors(at)
    assert f"`{said}`" in text and f"`{HEADER}`" in text and "RAGDASH_BEHIND_PROXY=1" in text
    assert not at.sidebar.button and "rd_dataset" not in at.session_state
    log = capfd.readouterr().err
    assert "REFUSING EVERY PAGE" in log and said in log and HEADER in log
    # every page, not only the home page; the log says it once for the session
    at.switch_page("pages/7_Judge.py").run()
    assert f"`{said}`" in _errors(at) and not at.title
    assert "REFUSING" not in capfd.readouterr().err


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost",
                                     "unix:///tmp/ragdash.sock"])
def test_header_sign_in_on_a_loopback_address_serves_pages(listen_on, capfd, address):
    listen_on(address)
    at = new_app().run()
    assert not at.exception
    # AppTest sends no header: the usual sentence about the proxy, not the open port
    assert t("auth.header_missing", "en", header=f"`{HEADER}`") in _errors(at)
    assert "RAGDASH_BEHIND_PROXY" not in _errors(at)
    assert "REFUSING" not in capfd.readouterr().err


def test_the_operator_says_the_server_is_behind_the_proxy(listen_on, monkeypatch):
    listen_on("0.0.0.0")
    monkeypatch.setenv("RAGDASH_BEHIND_PROXY", "1")
    at = new_app().run()
    assert "RAGDASH_BEHIND_PROXY" not in _errors(at)
    assert t("auth.header_missing", "en", header=f"`{HEADER}`") in _errors(at)
    monkeypatch.setenv("RAGDASH_BEHIND_PROXY", "0")
    assert "RAGDASH_BEHIND_PROXY=1" in _errors(new_app().run())


def test_oidc_sign_in_is_served_on_any_address(listen_on, monkeypatch):
    listen_on("0.0.0.0")
    monkeypatch.delenv("RAGDASH_USER_HEADER")
    at = _signed_in("alice@example.com").run()
    assert not at.error and "alice@example.com" in texts(at)
