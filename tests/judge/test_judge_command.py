"""``python -m ragdash judge`` against a real chat-completions server on 127.0.0.1 that finds the
query and the document in each prompt and answers from the full labels with a known error rate
(tests/judge_world.py), with faults on chosen pairs.

What must hold: the requests are the unjudged pool pairs plus the calibration pairs (and one
more for each reply that could not be read); a rerun sends none; the confusion counts are what
the server answered; κ, weighted κ and τ are those of the server's answers, computed here with
scikit-learn, pytrec_eval and scipy; a reply that states no grade is never a label.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
import pytrec_eval
from fake_chat import FakeChat
from judge_world import LabelOracle, make_world

from ragdash.cli import main

SECRET = "sk-judge-test-0123456789SECRET"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = make_world(queries=24, depth=5)
    w.write(tmp_path_factory.mktemp("judge_world"))
    return w


@pytest.fixture
def keyed(home, monkeypatch):
    """The test's RAGDASH_HOME (conftest) with a key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return home


def judge(world, server, *extra, runs=("good", "fair", "poor")):
    return main(["judge", str(world.paths["dataset"]), *(str(world.paths[r]) for r in runs),
                 "--depth", str(world.depth), "--base-url", server.url, "--model", "judge-m",
                 *extra])


def run_json(capsys, world, server, *extra, **kw):
    rc = judge(world, server, "--format", "json", *extra, **kw)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    return json.loads(captured.out), captured.err


def read_qrels(path) -> dict:
    out: dict = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        q, _, d, g = line.split()
        out[(q, d)] = int(g)
    return out


def ndcg10(pairs: dict, ranking) -> float:
    qrels: dict = {}
    for (q, d), g in pairs.items():
        qrels.setdefault(q, {})[d] = int(g)
    run = {q: docs for q, docs in ranking.to_dict().items() if q in qrels}
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
    return float(np.mean([scores.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels]))


def test_estimate_first_then_progress_and_cost(world, keyed, capsys):
    oracle = LabelOracle(world, error_rate=0.0)
    with FakeChat(answer=oracle, api_key=SECRET) as server:
        est, _ = run_json(capsys, world, server, "--estimate", "--calibrate", "10",
                          runs=("good", "poor"))
        assert server.requests == []  # --estimate sends nothing
        e = est["estimate"]
        assert [r["run"] for r in e["runs"]] == ["good", "poor"]
        assert sum(r["to_judge"] for r in e["runs"]) >= e["to_judge"]  # shared pairs count twice
        assert e["total"]["requests"] == e["to_judge"] + 10
        assert e["total"]["input_tokens"] > e["calibration"]["input_tokens"] > 0
        assert e["price"]["provider"] == "local" and e["total"]["usd"] == 0
        rc = judge(world, server, "--calibrate", "10", runs=("good", "poor"))
        captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert f"to judge {e['to_judge']}" in captured.out.replace(",", "") or \
        f"{e['to_judge']:,} to judge" in captured.out
    assert f"judged {e['total']['requests']:,} / {e['total']['requests']:,} pairs" in captured.err
    assert "Cohen's kappa" in captured.out and "human \\ judge" in captured.out
    assert '"fair"' in captured.out and "0.87" in captured.out  # the reference points


def test_a_stopped_run_resumes_and_pays_only_for_the_rest(world, keyed, capsys):
    oracle = LabelOracle(world, error_rate=0.1)
    late = world.dataset.queries[15].text
    with FakeChat(answer=oracle) as server:
        server.fault("quota", match=late, times=1)
        rc = judge(world, server, "--calibrate", "20", "--concurrency", "1")
        err = capsys.readouterr().err
        assert rc == 2 and "quota" in err.lower() and "Traceback" not in err
        first = len(server.requests)
        kept = sqlite3.connect(keyed / "judge.sqlite").execute(
            "SELECT COUNT(*) FROM answers").fetchone()[0]
        assert 0 < kept < first  # what was answered before the stop is kept
        got, _ = run_json(capsys, world, server, "--calibrate", "20", "--concurrency", "1")
    total = got["to_judge"] + 20
    assert got["requests"] == total - kept == len(server.requests) - first
    assert got["usage"]["cached_pairs"] == kept


def test_no_key_for_a_remote_server_is_one_sentence(world, keyed, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY")
    rc = main(["judge", str(world.paths["dataset"]), str(world.paths["good"]),
               "--base-url", "https://judge.example.invalid/v1", "--model", "m"])
    err = capsys.readouterr().err
    assert rc == 2 and "OPENAI_API_KEY" in err and "Traceback" not in err
