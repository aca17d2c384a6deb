"""AppTest: the frame every page shares — landing page, sidebar links in both languages,
``?run=`` links in a fresh session, and sessions that keep their own state and jobs."""

from __future__ import annotations

import pytest
from app_support import PAGES, new_app, open_page, save_bm25_run, texts, wait_for_jobs

from ragdash.i18n import t
from ragdash.jobs import get_manager
from ragdash.ui import keys

NAV = ["nav.home", "nav.data", "nav.run", "nav.results", "nav.compare", "nav.cost",
       "nav.frontier", "nav.judge", "nav.generate"]


@pytest.mark.parametrize("page", ["home", *PAGES])
def test_every_page_draws_the_sidebar_in_both_languages(page):
    at = new_app().run()
    if page != "home":
        open_page(at, page)
    assert not at.exception
    links = [p.value for p in at.sidebar.get("page_link")]
    assert links == [t(k, "en") for k in NAV]  # "Home", not the entry file's name "app"
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    assert not at.exception
    assert [p.value for p in at.sidebar.get("page_link")] == [t(k, "ja") for k in NAV]
    assert at.sidebar.radio(key="w:rd_lang").value == "ja"


def test_the_language_survives_page_switches():
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    assert at.title[0].value.startswith("ragdash — その")
    for page in PAGES:
        open_page(at, page)
        assert at.session_state[keys.LANG] == "ja"
        assert at.sidebar.radio(key="w:rd_lang").value == "ja"
        if page == "cost":
            assert at.title[0].value == "コスト"


def test_landing_page_lists_recent_runs_with_links(sample):
    run_id = save_bm25_run(sample, name="recent one")
    at = new_app().run()
    links = [p for p in at.main.get("page_link") if p.proto.query_string]
    assert any("recent one" in p.value and f"run={run_id}" in p.proto.query_string
               for p in links)


def test_a_run_link_in_a_fresh_session_restores_run_and_dataset(sample):
    run_id = save_bm25_run(sample, name="shared run")
    at = new_app(run=run_id).run()  # a fresh session opening the link on any page
    assert at.session_state[keys.RUN_ID] == run_id
    assert at.session_state[keys.DATASET].fingerprint() == sample.fingerprint()
    assert "shared run" in "\n".join(c.value for c in at.sidebar.caption)
    open_page(at, "results")
    assert "shared run" in texts(at)


def test_a_bad_run_link_says_so_without_a_traceback():
    at = new_app(run="doesnotexist").run()
    assert not at.exception
    (error,) = at.error
    assert "is not on this server" in error.value and "RAGDASH_HOME" in error.value


def test_a_link_to_a_missing_run_keeps_its_error_and_shows_no_other_run(sample):
    """The newest run must not replace the error a moment later and take over the address."""
    other = save_bm25_run(sample, name="somebody's run")
    at = new_app(run="nosuchrun1").run()
    open_page(at, "results")
    for _ in range(3):  # still so after further reruns
        at.run()
        assert not at.exception
        assert ["is not on this server" in e.value for e in at.error] == [True]
        assert at.query_params["run"] in ("nosuchrun1", ["nosuchrun1"])
        assert keys.RUN_ID not in at.session_state or at.session_state[keys.RUN_ID] is None
        assert not at.get("plotly_chart")  # no curves of another run
        links = [p for p in at.main.get("page_link") if p.proto.query_string]
        assert [p.proto.query_string for p in links] == [f"run={other}"]
        assert "somebody's run" in links[0].value
    # the same session following a good link opens it, and the error is gone
    at.query_params["run"] = other
    at.run()
    assert not at.error and at.session_state[keys.RUN_ID] == other
    assert at.get("plotly_chart")


def test_two_sessions_keep_their_own_key_dataset_and_jobs():
    one, two = new_app().run(), new_app().run()
    open_page(one, "data")
    one.button(key="data_load_sample").click().run()
    open_page(one, "run")
    one.radio(key="w:rd_retriever").set_value("openai").run()
    one.text_input(key="w:rd_api_key").set_value("sk-session-one-key").run()
    one.radio(key="w:rd_retriever").set_value("bm25").run()
    one.button(key="run_start").click().run()
    open_page(two, "run")
    assert keys.DATASET not in two.session_state
    assert two.session_state[keys.API_KEY] == ""
    assert get_manager().jobs_for(two.session_state[keys.OWNER]) == []
    assert len(wait_for_jobs(one)) == 1
    assert one.session_state[keys.API_KEY] == "sk-session-one-key"


def test_the_api_key_comes_from_the_environment_when_set(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    at = new_app().run()
    open_page(at, "data")
    at.button(key="data_load_sample").click().run()
    open_page(at, "run")
    at.radio(key="w:rd_retriever").set_value("openai").run()
    assert at.text_input(key="w:rd_api_key").value == "sk-from-env"


def test_the_api_key_comes_from_streamlit_secrets():
    at = new_app()
    at.secrets["OPENAI_API_KEY"] = "sk-from-secrets"
    at.run()
    assert at.session_state[keys.API_KEY] == "sk-from-secrets"


def test_md_shows_text_as_written_and_urls_and_commands_as_code():
    from ragdash.ui.widgets import md

    # user text: no emphasis, no links, no headings
    assert md("# my *best* [run](x)") == r"\# my \*best\* \[run\]\(x\)"
    # a URL is a code span: as an autolink it showed 127\.0\.0\.1 and linked nowhere
    assert md("Could not reach http://127.0.0.1:9/v1/embeddings (refused).") == \
        r"Could not reach `http://127.0.0.1:9/v1/embeddings` \(refused\)\."
    # a command a message quotes in backticks stays a code span; a lone backtick is text
    assert md("run `pip install -r requirements-local.txt`; a ` here") == \
        r"run `pip install -r requirements-local.txt`; a \` here"
