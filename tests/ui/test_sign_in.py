"""AppTest: with Streamlit's OIDC login configured (``st.user`` has ``is_logged_in``), each
user has their own runs; a link opens another's run read-only; nobody signed in sees the
sign-in screen only. Without it, a fresh session opens no run by itself."""

from __future__ import annotations

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
