"""AppTest: the one-click start, the Run page (settings, cost preview, background job with
progress and cancel, saved runs), and the API key staying in the session."""

from __future__ import annotations

import json

import numpy as np
import pytest
from app_support import (
    array,
    chart,
    custom_server,
    new_app,
    open_page,
    open_sample,
    plain,
    texts,
    wait_for_jobs,
)
from fake_openai import FakeOpenAI
from paths import ROOT

from ragdash.jobs import get_manager
from ragdash.runs import export_json, get_store

KEY = "sk-test-0123456789abcdefSECRET"


def test_one_click_start_runs_bm25_in_the_background_and_shows_the_curve():
    at = new_app().run()
    at.button(key="home_quick").click().run()
    assert at.title[0].value == "Results"  # switched page
    jobs = wait_for_jobs(at)
    assert [j.state for j in jobs] == ["done"]
    side = plain(" ".join(c.value for c in at.sidebar.caption))
    if jobs[0].finished_at - jobs[0].created_at < 1.5:  # done while the page waited for it
        assert "Run: **bm25 on jsquad-mini**" in side and "Running" not in side
    at.run()
    assert not at.exception
    assert "Running" not in plain(" ".join(c.value for c in at.sidebar.caption))
    runs = get_store().list()
    assert len(runs) == 1 and runs[0].retriever == "bm25" and runs[0].n_queries == 280
    table = get_store().load(runs[0].id).table()
    y = {t["meta"]["family"]: array(t["y"]) for t in chart(at, "res_curve")["data"]}
    np.testing.assert_allclose(y["ndcg"], table.curve("ndcg"))
    assert 0.3 < y["recall"][9] <= 1.0  # BM25 on JSQuAD finds most answers in the top 10


def test_run_page_estimates_the_cost_then_runs_and_lists_the_saved_run():
    at = open_sample(new_app())
    assert "284" in texts(at)  # documents
    open_page(at, "run")
    assert "Cost estimate" in texts(at)
    assert any(m.label == "USD" and m.value == "$0" for m in at.metric)  # BM25 is free
    at.text_input(key="w:rd_run_name").set_value("my bm25").run()
    at.button(key="run_start").click().run()
    # the name was for that run: the next one must not be saved under it too
    assert at.text_input(key="w:rd_run_name").value == ""
    wait_for_jobs(at)
    at.run()
    assert "Finished" in texts(at)
    runs = get_store().list()
    assert [r.name for r in runs] == ["my bm25"]
    assert runs[0].cost["estimated_usd"] == 0
    # rename and delete from the list
    at.text_input(key=f"run_manage_name:{runs[0].id}").set_value("renamed").run()
    at.button(key="run_manage_rename").click().run()
    assert get_store().list()[0].name == "renamed"
    at.button(key="run_manage_delete").click().run()
    assert get_store().list() == []


def test_bm25_parameters_reach_the_run():
    at = open_sample(new_app())
    open_page(at, "run")
    at.number_input(key="w:rd_bm25_k1").set_value(0.5)
    at.number_input(key="w:rd_bm25_b").set_value(0.3).run()
    at.button(key="run_start").click().run()
    wait_for_jobs(at)
    (run,) = get_store().list()
    config = get_store().load(run.id).config
    assert (config["k1"], config["b"]) == (0.5, 0.3)


def test_settings_survive_a_page_switch():
    at = open_sample(new_app())
    open_page(at, "run")
    at.radio(key="w:rd_retriever").set_value("openai").run()
    at.selectbox(key="w:rd_preset").set_value("ollama").run()
    assert at.text_input(key="w:rd_base_url").value == "http://localhost:11434/v1"
    at.text_input(key="w:rd_model").set_value("my-model").run()
    open_page(at, "results")
    open_page(at, "run")
    assert at.radio(key="w:rd_retriever").value == "openai"
    assert at.text_input(key="w:rd_model").value == "my-model"
    assert at.text_input(key="w:rd_base_url").value == "http://localhost:11434/v1"


@pytest.fixture
def server():
    with FakeOpenAI(api_key=KEY, latency=0.0) as fake:
        yield fake


def _openai_settings(at, server, key):
    custom_server(at, server.url, model="text-embedding-3-small", key=key)
    at.number_input(key="w:rd_query_limit").set_value(20).run()
    return at


def test_an_api_run_keeps_the_key_in_the_session_only(server, home):
    at = _openai_settings(open_sample(new_app(), "article-ja"), server, KEY)
    assert at.text_input(key="w:rd_api_key").proto.type == 1  # PASSWORD
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    at.run()
    assert server.requests and all(r.headers.get("authorization") == f"Bearer {KEY}"
                                   for r in server.requests)
    (summary,) = get_store().list()
    saved = get_store().load(summary.id)
    assert saved.usage["prompt_tokens"] > 0
    assert KEY not in json.dumps(saved.config) + export_json(saved).decode()
    assert KEY not in json.dumps(at.query_params)
    for path in home.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    open_page(at, "results")
    assert KEY not in json.dumps(at.query_params)


def test_a_wrong_key_fails_in_one_plain_sentence_without_the_key(server):
    wrong = "sk-wrong-key-0000000000000000"
    at = _openai_settings(open_sample(new_app(), "article-ja"), server, wrong)
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "failed"
    at.run()
    (error,) = at.error
    shown = plain(error.value)
    assert "failed" in shown and wrong not in shown and "***" in shown  # masked, not dropped
    assert wrong not in texts(at) and "Traceback" not in texts(at)
    assert "“text-embedding-3-small on article-ja”" in shown  # the run is named by its model
    # the URL in the message is a code span: as a Markdown link it showed its escapes
    assert f"`{server.url}/embeddings`" in error.value


def test_a_model_without_a_price_still_shows_its_tokens(server):
    at = _openai_settings(open_sample(new_app(), "article-ja"), server, KEY)
    at.text_input(key="w:rd_model").set_value("emb-1").run()
    page = texts(at)
    assert "No price is known for “emb-1”" in page and "Cost page" in page
    assert "--provider" not in page  # no command-line advice in the app
    from ragdash.cost import count_tokens, evaluation_texts

    docs, queries = evaluation_texts(at.session_state["rd_dataset"], 20)
    tokens = count_tokens(docs).tokens + count_tokens(queries).tokens
    assert any(m.value == f"{tokens:,}" for m in at.metric)
    assert any(m.label == "USD" and m.value == "—" for m in at.metric)
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    (summary,) = get_store().list()
    assert summary.cost["tokens"] == tokens and summary.cost.get("estimated_usd") is None


def test_a_running_job_shows_progress_and_can_be_cancelled(server):
    server.latency = 0.3
    at = _openai_settings(open_sample(new_app()), server, KEY)
    at.number_input(key="w:rd_batch_size").set_value(8)
    at.number_input(key="w:rd_concurrency").set_value(1).run()
    at.button(key="run_start").click().run()
    job = get_manager().active(at.session_state["rd_owner"])
    assert job is not None
    at.run()
    assert at.get("progress"), "a progress bar while the job runs"
    at.button(key=f"cancel:{job.id}").click().run()
    assert job.wait(30) and job.state == "cancelled"
    at.run()
    assert "cancelled" in texts(at)
    assert "continues from there" in texts(at)  # the cache makes a second start cheap
    assert get_store().list() == []


def test_the_azure_placeholder_and_an_empty_base_url_stop_the_start_button():
    at = open_sample(new_app(), "article-ja")
    open_page(at, "run")
    at.radio(key="w:rd_retriever").set_value("openai").run()
    at.selectbox(key="w:rd_preset").set_value("azure").run()
    assert "YOUR-RESOURCE" in at.text_input(key="w:rd_base_url").value
    assert at.button(key="run_start").disabled
    assert any("Replace YOUR-RESOURCE" in w.value for w in at.warning)
    at.text_input(key="w:rd_base_url").set_value("https://contoso.openai.azure.com/openai/v1")
    at.run()
    assert not at.button(key="run_start").disabled
    at.selectbox(key="w:rd_preset").set_value("custom").run()
    assert at.text_input(key="w:rd_base_url").value == ""
    assert at.button(key="run_start").disabled
    assert any("base URL" in w.value for w in at.warning)


def test_the_shipped_config_watches_no_files_and_the_panel_refreshes_at_a_bounded_rate():
    """A watching server walks sys.modules after every fragment run and watches a .venv made
    inside the repository, which made runs 6-10x slower with their progress on screen."""
    import tomllib

    from ragdash.ui import job_panel

    config = tomllib.loads((ROOT / ".streamlit"
                            / "config.toml").read_text(encoding="utf-8"))
    server = config["server"]
    assert server["fileWatcherType"] == "none"
    assert server["runOnSave"] is False
    assert {".venv", ".venv*", ".ragdash"} <= set(server["folderWatchBlacklist"])
    # Streamlit's gc.collect(2) after every (fragment) run held the GIL 0.3-0.6 s with a
    # local model loaded: the run got a third of its CPU while its progress was on screen
    assert config["runner"]["postScriptGC"] is False
    assert job_panel.POLL_SECONDS >= 0.5


@pytest.mark.parametrize("lang, name", [("en", "bm25 on jsquad-mini"),
                                        ("ja", "jsquad-mini の bm25")])
def test_the_finished_banner_names_the_run_in_the_page_language(lang, name):
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value(lang).run()
    open_sample(at)
    open_page(at, "run")
    at.button(key="run_start").click().run()
    wait_for_jobs(at)
    at.run()
    assert [r.name for r in get_store().list()] == [name]
    from ragdash.i18n import t

    assert t("run.done", lang, label=name) in texts(at)


def test_the_finished_banner_is_cleared_when_another_dataset_is_loaded():
    at = open_sample(new_app().run())
    open_page(at, "run")
    at.button(key="run_start").click().run()
    wait_for_jobs(at)
    at.run()
    assert "Finished: “bm25 on jsquad-mini”" in texts(at)
    open_sample(at, "article-ja")
    open_page(at, "run")
    assert "Finished" not in texts(at) and "jsquad-mini" not in texts(at).split("Saved runs")[0]


def test_the_estimate_caption_names_the_local_model_and_bm25_plainly():
    at = open_sample(new_app().run())
    open_page(at, "run")
    assert "BM25 runs on this machine" in texts(at) and "local / bm25" not in texts(at)
    at.radio(key="w:rd_retriever").set_value("local").run()
    at.text_input(key="w:rd_local_model").set_value("my-e5-small").run()
    page = texts(at)
    assert "embedded once by my-e5-small on this machine" in page
    assert "local / bm25" not in page and "No price is known" not in page
    assert any(m.label == "USD" and m.value == "$0" for m in at.metric)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_missing_key_is_explained_in_the_apps_words_and_language(server, lang):
    """Not the command line's advice (--api-key-env), nor English on a Japanese page."""
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value(lang).run()
    at = _openai_settings(open_sample(at, "article-ja"), server, "")
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "failed"
    at.run()
    (error,) = at.error
    shown = plain(error.value)
    assert "--api-key-env" not in shown and "OPENAI_API_KEY" not in shown
    if lang == "en":
        assert "asks for an API key (HTTP 401" in shown and "API key field" in shown
    else:
        assert "API キーを求めています(HTTP 401" in shown and "「API キー」欄" in shown
    # the command line's sentence is unchanged
    assert "--api-key-env" in job.error


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_cost_notes_speak_the_apps_language_without_flags(server, lang):
    """Not "pass a provider to choose" (command-line advice), nor English only."""
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value(lang).run()
    at = _openai_settings(open_sample(at, "article-ja"), server, KEY)  # custom: no provider
    page = texts(at)
    assert "pass a provider" not in page and "--provider" not in page
    if lang == "en":
        assert "is also listed for" in page and "preset above" in page
    else:
        assert "にも掲載されています" in page and "プリセット" in page


# -- a slow server: the timeout field, the progress line, the name kept for the next try -------
@pytest.fixture
def quick_retries(monkeypatch):
    from ragdash.services import retry

    monkeypatch.setattr(retry, "INITIAL_DELAY", 0.01)
    monkeypatch.setattr(retry, "MAX_DELAY", 0.02)


def test_the_timeout_field_is_the_declared_parameter_and_reaches_the_run(server):
    from ragdash import params as P

    at = _openai_settings(open_sample(new_app(), "article-ja"), server, KEY)
    field = at.number_input(key="w:rd_timeout")
    assert field.value == P.OPENAI["timeout"].default == 60.0
    assert field.label == "Timeout (s)" and "whole reply" in field.help  # the declared help
    field.set_value(0.0).run()  # not a timeout: Start waits for one
    assert at.button(key="run_start").disabled
    assert any("more than 0 seconds" in w.value for w in at.warning)
    at.number_input(key="w:rd_timeout").set_value(7.5).run()
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    (summary,) = get_store().list()
    assert get_store().load(summary.id).config["timeout"] == 7.5


def test_a_timeout_failure_names_the_field_and_the_typed_name_comes_back(server,
                                                                         quick_retries):
    server.fault("timeout", seconds=0.6, times=10_000)  # every request: late
    at = _openai_settings(open_sample(new_app(), "article-ja"), server, KEY)
    at.number_input(key="w:rd_batch_size").set_value(1)
    at.number_input(key="w:rd_concurrency").set_value(1)
    at.number_input(key="w:rd_timeout").set_value(0.2)
    at.text_input(key="w:rd_run_name").set_value("slow try").run()
    at.button(key="run_start").click().run()
    assert at.text_input(key="w:rd_run_name").value == ""  # cleared while it runs
    (job,) = wait_for_jobs(at)
    assert job.state == "failed"
    at.run()
    (error,) = at.error
    shown = plain(error.value)
    assert "within 0.2 s" in shown and "Timeout (s)" in shown and "Run page" in shown
    assert at.text_input(key="w:rd_run_name").value == "slow try"  # kept for the next try
    at.text_input(key="w:rd_run_name").set_value("").run()  # cleared by hand: stays cleared
    assert at.text_input(key="w:rd_run_name").value == ""
    at.text_input(key="w:rd_run_name").set_value("slow try").run()
    server._faults.clear()  # the server is fixed
    at.number_input(key="w:rd_timeout").set_value(30.0).run()
    at.button(key="run_start").click().run()
    jobs = wait_for_jobs(at)
    assert [j.state for j in jobs] == ["done", "failed"]
    assert [s.name for s in get_store().list()] == ["slow try"]


def test_the_progress_line_says_the_server_is_slow(quick_retries):
    """A server that computes one batch at a time (abandoned ones too), too slowly for 16
    texts x 4 requests within the timeout: the panel says what the client does about it."""
    import time

    with FakeOpenAI(seconds_per_text=0.01) as slow:
        at = custom_server(open_sample(new_app()), slow.url, model="emb-1")
        at.number_input(key="w:rd_batch_size").set_value(16)
        at.number_input(key="w:rd_concurrency").set_value(4)
        at.number_input(key="w:rd_timeout").set_value(0.3).run()
        at.button(key="run_start").click().run()
        job = get_manager().active(at.session_state["rd_owner"])
        assert job is not None
        seen, deadline = "", time.monotonic() + 20
        while "server slow" not in seen and not job.finished and time.monotonic() < deadline:
            time.sleep(0.1)
            at.run()
            seen = " ".join(p.proto.text for p in at.get("progress"))
        assert "server slow: batch 16 → " in seen and "4 → " in seen, seen
        job.cancel()
        job.wait_settled(30)
