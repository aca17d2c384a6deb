"""Setup files in the app: a run made on the Run page downloads from the Results page as its
setup file, and ``python -m ragdash run`` on that file gives the same metrics; the Run page
loads a setup file into its form, and a bad file is the command line's one sentence."""

from __future__ import annotations

import json

import pytest
from app_support import new_app, open_page, open_sample, plain, texts, wait_for_jobs
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from ragdash.cli import main
from ragdash.i18n import message
from ragdash.runs import get_store
from ragdash.setup import parse_setup


@pytest.fixture
def served(monkeypatch):
    """The files the page's download buttons hold: file name -> bytes."""
    files: dict[str, bytes] = {}
    real = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        if filename and isinstance(path_or_data, bytes):
            files[filename] = path_or_data
        return real(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    return files


def test_a_run_made_in_the_app_downloads_as_a_setup_file_that_reruns_the_same(
        served, tmp_path, capsys):
    at = open_sample(new_app())
    open_page(at, "run")
    at.number_input(key="w:rd_bm25_k1").set_value(0.8)
    at.number_input(key="w:rd_bm25_b").set_value(0.45)
    at.number_input(key="w:rd_kmax").set_value(50)
    at.number_input(key="w:rd_query_limit").set_value(60)
    at.text_input(key="w:rd_run_name").set_value("tuned bm25").run()
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    open_page(at, "results")
    (button,) = [b for b in at.get("download_button") if b.proto.id.endswith("-dl_setup")]
    assert not button.proto.disabled
    text = served["tuned-bm25.setup.toml"].decode("utf-8")
    assert 'dataset = "sample:jsquad-mini"' in text and "k1 = 0.8" in text
    path = tmp_path / "tuned.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["run", str(path), "--format", "json"]) == 0
    rerun = json.loads(capsys.readouterr().out)
    (summary,) = get_store().list()
    made = get_store().load(summary.id)
    assert rerun["queries"] == len(made.query_ids) == 60 and rerun["kmax"] == made.kmax == 50
    assert rerun["metrics"] == {k: v for k, v in made.summary(rerun["k"]).items()
                                if k in rerun["metrics"]}
    assert len(rerun["metrics"]) >= 20  # every family at every K


def test_an_uploaded_trec_run_says_why_it_has_no_setup_file():
    from ragdash.runs import import_trec

    at = open_sample(new_app())
    ds = at.session_state["rd_dataset"]
    lines = [f"{q.id} Q0 {ds.documents[0].id} 1 1.0 other-engine"
             for q in ds.evaluated_queries()]
    run_id = import_trec(get_store(), "\n".join(lines), dataset=ds, name="from trec")
    at.session_state["rd_run_id"] = run_id
    open_page(at, "results")
    (button,) = [b for b in at.get("download_button") if b.proto.id.endswith("-dl_setup")]
    assert button.proto.disabled and "cannot be written as a setup file" in plain(
        button.proto.help)


SETUP = """dataset = "sample:article-ja"
k = [1, 5, 10]
kmax = 30
limit_queries = 5
gain = "exponential"

[[retrievers]]
kind = "bm25"
k1 = 0.7

[[retrievers]]
kind = "openai"
model = "emb-1"
base_url = "http://localhost:11434/v1"
batch_size = 64
timeout = 12

[chunking]
size = 128
overlap = 16
aggregate = "mean2"

[fusion]
method = "rrf"
rrf_k = 30

[rerank]
kind = "local"
model = "some/cross-encoder"
depth = 20
"""


def _upload(at, name: str, text: str):
    at.file_uploader(key="run_setup_file").set_value(
        [(name, text.encode("utf-8"), "application/toml")]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_setup_file_fills_the_run_form():
    at = open_sample(new_app(), "jsquad-mini")
    open_page(at, "run")
    _upload(at, "hybrid.toml", SETUP)
    assert at.session_state["rd_dataset"].source == "sample:article-ja"  # the file's sample
    assert at.radio(key="w:rd_retriever").value == "openai"
    assert at.selectbox(key="w:rd_preset").value == "ollama"
    assert at.text_input(key="w:rd_model").value == "emb-1"
    assert at.number_input(key="w:rd_batch_size").value == 64
    assert at.number_input(key="w:rd_kmax").value == 30
    assert at.number_input(key="w:rd_query_limit").value == 5
    assert at.checkbox(key="w:rd_pipe_bm25").value and at.checkbox(key="w:rd_pipe_dense").value
    assert at.number_input(key="w:rd_pipe_chunk_size").value == 128
    assert at.number_input(key="w:rd_pipe_chunk_overlap").value == 16
    assert at.selectbox(key="w:rd_pipe_aggregate").value == "mean2"
    assert at.selectbox(key="w:rd_pipe_fusion").value == "rrf"
    assert at.number_input(key="w:rd_pipe_rrf_k").value == 30
    assert at.toggle(key="w:rd_pipe_rerank").value
    assert at.radio(key="w:rd_pipe_rerank_kind").value == "local"
    assert at.text_input(key="w:rd_pipe_rerank_local_model").value == "some/cross-encoder"
    assert at.number_input(key="w:rd_pipe_depth").value == 20
    page = texts(at)
    assert "The form is set to hybrid.toml" in page
    # what the form has no field for is named, not dropped silently
    assert "gain = exponential" in page
    assert at.number_input(key="w:rd_timeout").value == 12  # the form has a field for it
    assert "timeout = 12" not in page
    at.radio(key="w:rd_retriever").set_value("bm25").run()
    assert at.number_input(key="w:rd_bm25_k1").value == 0.7


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_bad_setup_file_is_the_command_lines_sentence(lang):
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value(lang).run()
    open_sample(at)
    open_page(at, "run")
    bad = "[chunking]\nsize = 256\noverlapp = 32\n"
    _upload(at, "typo.toml", bad)
    (error,) = at.error
    with pytest.raises(Exception) as caught:
        parse_setup(bad, file="typo.toml")
    assert plain(error.value) == message(caught.value, lang, app=True)
    shown = plain(error.value)
    assert "overlapp" in shown and "typo.toml" in shown
    assert ("line 3" if lang == "en" else "3 行目") in shown
    assert at.radio(key="w:rd_retriever").value == "bm25"  # the form is as it was


def test_a_setup_the_form_cannot_build_is_refused_in_one_sentence():
    at = open_sample(new_app())
    open_page(at, "run")
    _upload(at, "three.toml", '[[retrievers]]\nkind = "bm25"\n[[retrievers]]\nkind = "bm25"\n'
                              'k1 = 0.5\n[fusion]\nmethod = "rrf"\n')
    (error,) = at.error
    assert "2 first stages" in plain(error.value) and "python -m ragdash run" in plain(
        error.value)


def test_a_run_link_starts_the_run_form_at_that_runs_setup():
    from app_support import save_bm25_run

    from ragdash.samples import load_sample

    run_id = save_bm25_run(load_sample("article-ja"), name="tuned", kmax=20, k1=0.5, b=0.3)
    at = open_page(new_app(run=run_id), "run")
    assert at.number_input(key="w:rd_bm25_k1").value == 0.5
    assert at.number_input(key="w:rd_bm25_b").value == 0.3
    assert at.number_input(key="w:rd_kmax").value == 20
    assert at.text_input(key="w:rd_run_name").value == ""  # a name is for one run
