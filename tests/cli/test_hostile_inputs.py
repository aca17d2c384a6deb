"""Hostile inputs on the command line, end to end in subprocesses: validation warnings reach stderr
and ``--format json``; ``--save-run`` refuses ids a TREC run cannot hold, before paying."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from paths import JSQUAD, ROOT

from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset
from ragdash.ranking import Ranking


def ragdash(*args, env=None):
    base = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "ragdash", *map(str, args)],
                          capture_output=True, text=True, env=base, cwd=ROOT, timeout=300)


def beir(folder: Path, corpus: list[dict], queries: list[dict], qrels: list[tuple]) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{g}\n" for q, d, g in qrels))
    return folder


@pytest.fixture
def flawed(tmp_path):
    """Qrels naming an unknown document and an unknown query, and a negative grade."""
    return beir(tmp_path / "flawed",
                [{"_id": "d1", "text": "apple pie"}, {"_id": "d2", "text": "banana split"}],
                [{"_id": "q1", "text": "apple"}, {"_id": "q2", "text": "banana"}],
                [("q1", "d1", 1), ("q1", "gone", 1), ("q2", "d2", -1), ("q2", "d1", 1),
                 ("q9", "d2", 1)])


@pytest.fixture
def spaced(tmp_path):
    return beir(tmp_path / "spaced",
                [{"_id": "doc 1", "text": "apple pie"}, {"_id": "d2", "text": "banana"}],
                [{"_id": "q1", "text": "apple"}], [("q1", "doc 1", 1)])


# -- 13: the validation warnings reach the user ---------------------------------------------
def test_evaluate_prints_the_validation_warnings_on_stderr(flawed):
    proc = ragdash("evaluate", flawed, "--k", "1")
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    assert "validation: 3 findings in flawed" in err
    assert "warning: 1 judgement names a document not in the corpus" in err and "q1 → gone" in err
    assert "warning: 1 query in the qrels is not in the queries file" in err and "'q9'" in err
    assert "warning: 1 judgement has a negative grade" in err and "q2 d2 = -1" in err
    assert "validation" not in proc.stdout  # stdout stays the report


def test_evaluate_json_carries_the_warnings(flawed):
    proc = ragdash("evaluate", flawed, "--k", "1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    codes = {w["code"]: w for w in out["warnings"]}
    assert set(codes) == {"qrels_unknown_docs", "qrels_unknown_queries", "negative_grades"}
    assert codes["qrels_unknown_docs"] == {
        "code": "qrels_unknown_docs", "level": "warning", "count": 1, "examples": ["q1 → gone"],
        "message": "1 judgement names a document not in the corpus; such documents can never "
                   "be retrieved, which caps Recall"}


def test_a_clean_dataset_has_no_warnings_and_says_nothing(tmp_path):
    clean = beir(tmp_path / "clean", [{"_id": "d1", "text": "apple"}],
                 [{"_id": "q1", "text": "apple"}], [("q1", "d1", 1)])
    proc = ragdash("evaluate", clean, "--k", "1", "--format", "json")
    assert json.loads(proc.stdout)["warnings"] == []
    assert "validation" not in proc.stderr


def test_many_findings_print_the_first_ten_and_a_count(tmp_path, monkeypatch):
    from ragdash.cli import _checks
    from ragdash.validation import Issue

    lines: list[str] = []
    monkeypatch.setattr(_checks, "note", lines.append)
    monkeypatch.setattr(_checks, "CHECKS", (lambda ds: [Issue(f"c{i}", "warning", f"w{i}", 1)
                                                        for i in range(13)],))
    ds = load_dataset(JSQUAD)
    assert len(_checks.report_warnings(ds)) == 13
    assert lines[0].startswith("validation: 13 findings in jsquad-valid")
    assert lines[1:11] == [f"warning: w{i}" for i in range(10)]
    assert lines[11] == "... and 3 more (--format json lists them all)"


# -- 12: --save-run and ids a TREC run cannot hold ------------------------------------------
def test_save_run_with_a_spaced_id_is_refused_naming_it(spaced, tmp_path):
    run = tmp_path / "out.run"
    proc = ragdash("evaluate", spaced, "--save-run", run)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "the document id 'doc 1' contains whitespace, which a TREC run file cannot hold" \
        in proc.stderr
    assert "--store" in proc.stderr and not run.exists()


def test_save_run_is_refused_before_anything_is_paid_for(tmp_path):
    ds = beir(tmp_path / "paid", [{"_id": "d1", "text": "apple"}],
              [{"_id": "q 1", "text": "apple"}], [("q 1", "d1", 1)])
    with FakeOpenAI() as server:
        proc = ragdash("evaluate", ds, "--retriever", "openai", "--model", "emb-1",
                       "--base-url", server.url, "--save-run", tmp_path / "x.run",
                       env={"OPENAI_API_KEY": "sk-test"})
        assert proc.returncode == 2
        assert "the query id 'q 1' contains whitespace" in proc.stderr
        assert server.embedding_requests == []


def test_without_save_run_a_spaced_id_still_evaluates(spaced):
    proc = ragdash("evaluate", spaced, "--k", "1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["metrics"]["recall@1"] == 1.0
    assert [w["code"] for w in out["warnings"]] == ["whitespace_in_ids"]


def test_a_saved_run_always_scores_back(tmp_path, flawed):
    run = tmp_path / "ok.run"
    proc = ragdash("evaluate", flawed, "--k", "1", "--format", "json", "--save-run", run)
    assert proc.returncode == 0, proc.stderr
    score = ragdash("score", flawed / "qrels" / "test.tsv", run, "--k", "1", "--format", "json")
    assert score.returncode == 0, score.stderr


@pytest.mark.parametrize("qid, did, kind, bad", [("q 1", "d1", "query", "q 1"),
                                                 ("q1", "d\t1", "document", "d\t1"),
                                                 ("q1", "", "document", "")])
def test_write_trec_refuses_what_it_cannot_hold(tmp_path, qid, did, kind, bad):
    import numpy as np

    ranking = Ranking([qid], np.array([0, 1]), np.array([did], dtype=object), np.array([1.0]))
    dest = tmp_path / "r.run"
    with pytest.raises(DatasetError) as exc:
        ranking.write_trec(dest)
    assert f"the {kind} id {bad!r}" in str(exc.value) and not dest.exists()


# -- 8: run JSON files that would otherwise end in a traceback -----------------------------
HOSTILE_JSON = {"long-int": '{"ranking": {"q1": {"d1": ' + "1" * 5000 + "}}}",
                "deep": "[" * 100_000 + "]" * 100_000,
                "deep-object": '{"ranking": ' + "[" * 100_000 + "]" * 100_000 + "}"}


@pytest.fixture
def run_files(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 1.0 a\n")
    out = {}
    for name, text in HOSTILE_JSON.items():
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(text)
    return tmp_path, out


@pytest.mark.parametrize("case", list(HOSTILE_JSON))
@pytest.mark.parametrize("command", ["compare", "fuse", "rerank"])
def test_a_hostile_run_json_is_one_sentence(run_files, command, case):
    folder, files = run_files
    bad = files[case]
    if command == "rerank":
        args = ["rerank", ROOT / "ragdash" / "data" / "samples" / "article_ja.json", bad,
                "--model", "m", "--base-url", "http://127.0.0.1:9"]
    else:
        args = [command, folder / "q.txt", folder / "a.run", bad]
    proc = ragdash(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-500:])
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr[-500:]
    assert bad.name in proc.stderr


@pytest.mark.parametrize("case", list(HOSTILE_JSON))
def test_the_apps_run_import_refuses_hostile_json_in_one_sentence(tmp_path, case):
    from ragdash.runs import RunStore
    from ragdash.runs.exchange import import_json

    with pytest.raises(DatasetError) as exc:
        import_json(RunStore(tmp_path / "home"), HOSTILE_JSON[case].encode(),
                    filename="upload.json")
    assert exc.value.file == "upload.json"


def test_cost_prints_and_returns_the_validation_warnings(flawed):
    proc = ragdash("cost", flawed, "--model", "text-embedding-3-small", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "validation: 3 findings in flawed" in proc.stderr
    assert {w["code"] for w in json.loads(proc.stdout)["warnings"]} == {
        "qrels_unknown_docs", "qrels_unknown_queries", "negative_grades"}


def test_rerank_prints_and_returns_the_validation_warnings(flawed, tmp_path):
    run = tmp_path / "first.run"
    assert ragdash("evaluate", flawed, "--k", "1", "--save-run", run).returncode == 0
    proc = ragdash("rerank", flawed, run, "--model", "rerank-v3.5", "--base-url",
                   "http://127.0.0.1:9", "--protocol", "tei", "--estimate", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "warning: 1 judgement names a document not in the corpus" in proc.stderr
    assert len(json.loads(proc.stdout)["warnings"]) == 3


def test_an_engine_token_over_plain_http_to_another_machine_warns(monkeypatch, capsys):
    import argparse

    from ragdash.cli import _engines

    opened = []
    monkeypatch.setattr("ragdash.retrieval.engines.open_engine",
                        lambda kind, uri, **kw: opened.append((kind, uri, kw)) or "engine")
    monkeypatch.setenv("RAGDASH_ENGINE_TOKEN", "tok-123")
    args = argparse.Namespace(uri="http://10.1.2.3:19530", engine_token_env=None, timeout=None)
    assert _engines.open_from_args(args, "milvus") == "engine"
    err = capsys.readouterr().err
    assert "warning: The engine token goes to 10.1.2.3:19530 over plain http://" in err
    assert "tok-123" not in err and opened[0][2]["token"] == "tok-123"
    for uri in ("https://10.1.2.3:19530", "http://localhost:19530", "./local.db"):
        _engines.open_from_args(argparse.Namespace(uri=uri, engine_token_env=None,
                                                   timeout=None), "milvus")
        assert "warning" not in capsys.readouterr().err


def test_sweep_prints_and_returns_the_validation_warnings(flawed):
    with FakeOpenAI() as server:
        proc = ragdash("sweep", flawed, "--retriever", "openai", "--model", "emb-1",
                       "--base-url", server.url, "--dims", "4,8", "--k", "1",
                       "--format", "json", env={"OPENAI_API_KEY": "sk-test"})
    assert proc.returncode == 0, proc.stderr[-800:]
    assert "validation: 3 findings in flawed" in proc.stderr
    assert len(json.loads(proc.stdout)["warnings"]) == 3


def test_index_prints_and_returns_the_validation_warnings(flawed, tmp_path):
    pytest.importorskip("pymilvus")
    with FakeOpenAI() as server:
        proc = ragdash("index", flawed, "--engine", "milvus", "--uri", tmp_path / "m.db",
                       "--index", "flat", "--collection", "cand",
                       "--embedder", "openai", "--model", "emb-1",
                       "--base-url", server.url, "--recall-k", "1", "--metric", "ndcg@1",
                       "--kmax", "2",
                       "--format", "json", env={"OPENAI_API_KEY": "sk-test"})
    assert proc.returncode == 0, proc.stderr[-800:]
    assert "validation: 3 findings in flawed" in proc.stderr
    assert len(json.loads(proc.stdout)["warnings"]) == 3


def test_control_characters_from_files_never_reach_the_terminal_raw(tmp_path):
    """Issue 31, item 12: ESC / BEL in a setup file's path or a run file's name were printed
    raw (a terminal acts on them: colours, title, bell). Every line ragdash prints writes them
    as \\u001b; stdout's JSON stays valid."""
    from ragdash.samples import sample_path

    setup = tmp_path / "s.toml"
    setup.write_text('dataset = "/nowhere/\\u001b]0;pwned\\u0007x"\n', encoding="utf-8")
    done = ragdash("run", setup)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\u001b]0;pwned\\u0007x" in done.stderr

    qrels = sample_path("jsquad-mini") / "qrels" / "test.tsv"
    base = tmp_path / "base.trec"
    assert ragdash("evaluate", sample_path("jsquad-mini"), "--save-run", base).returncode == 0
    odd = tmp_path / "odd\x1b[2J\x9bname.trec"
    odd.write_bytes(base.read_bytes())
    for fmt in ("table", "json", "markdown"):
        done = ragdash("check", qrels, base, odd, "--format", fmt, "--resamples", "1000",
                       "--permutations", "1000")
        assert done.returncode == 0, done.stderr
        for stream in (done.stdout, done.stderr):
            assert not any(c in stream for c in "\x1b\x07\x9b"), fmt
        if fmt == "json":
            assert json.loads(done.stdout)["candidate"] == "odd\\x1b[2J\\x9bname"


def test_compare_refuses_a_negative_seed_and_caps_a_cutoff_at_the_runs_depth(tmp_path):
    """--seed -1 was a numpy traceback (exit 1); ndcg@100000 took 28 s and 4.8 GB."""
    from ragdash.samples import sample_path

    qrels = sample_path("jsquad-mini") / "qrels" / "test.tsv"
    base = tmp_path / "base.trec"
    assert ragdash("evaluate", sample_path("jsquad-mini"), "--save-run", base,
                   "--kmax", "20", "--k", "1,10,20").returncode == 0
    other = tmp_path / "other.trec"
    other.write_text(base.read_text().replace(" bm25\n", " other\n"))
    done = ragdash("compare", qrels, base, other, "--seed", "-1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: the seed (--seed) must be a whole number of 0 or "
                                   "more, not -1")
    done = ragdash("compare", qrels, base, other, "--metric", "ndcg@100000", "--format", "json")
    assert done.returncode == 0, done.stderr
    obj = json.loads(done.stdout)
    assert obj["metric"] == "ndcg@20"
    assert any("scored as nDCG@20" in n for n in obj["notes"])
