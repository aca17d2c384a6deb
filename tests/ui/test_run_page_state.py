"""AppTest: what the Run page says about the settings on screen — no ticked, greyed-out
"Embedding model: bm25" with BM25 chosen; no "usually needs an API key" for a server on this
machine; a server whose token count is far from the estimate is named beside the figures; an
uploaded dataset keeps its files' names when a link opens it; a pipeline's "Finished" banner
belongs to its dataset."""

from __future__ import annotations

import pytest
from app_support import (
    custom_server,
    new_app,
    open_page,
    open_sample,
    plain,
    texts,
    upload_files,
    wait_for_jobs,
)
from fake_openai import FakeOpenAI

from ragdash.i18n import t
from ragdash.runs import get_store

NEEDS_KEY = t("run.api_key_missing", "en")

#: English texts: the fake server counts characters, about four per cl100k token
CORPUS = "id,text\n" + "".join(
    f"d{i},The quick brown fox number {i} jumps over the lazy dog near the river bank\n"
    for i in range(12))
QUERIES = "id,text\n" + "".join(f"q{i},which fox jumps over the dog number {i}\n"
                                for i in range(4))
QRELS = "query_id,doc_id,relevance\n" + "".join(f"q{i},d{i},1\n" for i in range(4))
FILES = [("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", QRELS)]


def test_with_bm25_the_pipeline_offers_no_embedding_box():
    at = open_sample(new_app(), "article-ja")
    open_page(at, "run")
    assert at.radio(key="w:rd_retriever").value == "bm25"
    assert "w:rd_pipe_dense" not in [c.key for c in at.checkbox]
    assert t("pipe.dense_none", "en") in texts(at)
    at.radio(key="w:rd_retriever").set_value("local").run()
    at.text_input(key="w:rd_local_model").set_value("my-e5").run()
    (dense,) = [c for c in at.checkbox if c.key == "w:rd_pipe_dense"]
    assert "my-e5" in plain(dense.label) and not dense.disabled


@pytest.mark.parametrize("url, asks", [("https://api.example.com/v1", True),
                                       ("http://127.0.0.1:8080/v1", False),
                                       ("http://localhost:7997", False),
                                       ("http://[::1]:8000/v1", False)])
def test_a_server_on_this_machine_is_not_said_to_need_a_key(url, asks):
    at = open_sample(new_app(), "article-ja")
    custom_server(at, url, model="m").run()
    assert (NEEDS_KEY in texts(at)) is asks


def test_tokens_far_from_the_estimate_are_named_and_uploads_keep_their_names():
    with FakeOpenAI() as server:  # on 127.0.0.1, no key
        at = upload_files(open_page(new_app(), "data"), FILES)
        assert at.session_state["rd_dataset"].source == "upload:corpus.csv, queries.csv, qrels.csv"
        custom_server(at, server.url, model="emb-1").run()
        assert NEEDS_KEY not in texts(at)
        at.button(key="run_start").click().run()
        (job,) = [j for j in wait_for_jobs(at) if j.kind == "evaluation"]
        assert job.state == "done", job.error
        at.run()
    (summary,) = get_store().list()
    estimated, reported = summary.cost["tokens"], summary.cost["actual_tokens"]
    assert reported > 2 * estimated  # characters against tokens
    said = t("setupui.tokens_differ", "en", name=summary.name, reported=f"{reported:,}",
             estimated=f"{estimated:,}", ratio=f"{reported / estimated:.1f}")
    page = texts(at)
    assert page.count(said) == 2  # beside the finished run, and beside the saved runs' table
    # a link to the run, in a new session: the dataset's origin is its files, not "upload"
    other = open_page(new_app(run=summary.id), "data")
    assert "From: corpus.csv, queries.csv, qrels.csv" in texts(other)
    assert "From: upload" not in texts(other)


def test_tokens_close_to_the_estimate_say_nothing():
    from ragdash.ui.job_panel import token_gap

    assert token_gap({"tokens": 1000, "actual_tokens": 1900}) is None
    assert token_gap({"tokens": 1000, "actual_tokens": 2100})[2] == "2.1"
    assert token_gap({"tokens": 1000, "actual_tokens": 400})[2] == "0.4"
    assert token_gap({"tokens": 1000}) is None and token_gap(None) is None


def test_a_pipelines_finished_banner_is_cleared_on_another_dataset():
    at = open_sample(new_app())
    open_page(at, "run")
    at.button(key="pipe_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    at.run()
    done = t("run.done", "en", label=job.label)
    assert done in texts(at)
    open_sample(at, "article-ja")
    open_page(at, "run")
    assert done not in texts(at) and "Finished" not in texts(at)
