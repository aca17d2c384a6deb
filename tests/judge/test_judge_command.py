"""``python -m ragdash judge`` against a real chat-completions server on 127.0.0.1 that finds the
query and the document in each prompt and answers from the full labels with a known error rate
(tests/judge_world.py), with faults on chosen pairs.

What must hold: the requests are the unjudged pool pairs plus the calibration pairs (and one
more for each reply that could not be read); a rerun sends none; the confusion counts are what
the server answered; κ, weighted κ and τ are those of the server's answers, computed here with
scikit-learn, pytrec_eval and scipy; a reply that states no grade is never a label.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pytest
import pytrec_eval
from fake_chat import FakeChat
from judge_world import LabelOracle, make_world
from paths import ROOT
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from ragdash.cli import main
from ragdash.judgments import fill, read_judgments
from ragdash.metrics import evaluate
from ragdash.runs import get_store

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


def test_judge_fills_the_gaps_and_reports_agreement_with_the_humans(world, keyed, tmp_path,
                                                                    capsys):
    oracle = LabelOracle(world, error_rate=0.15)
    out = tmp_path / "llm.qrels"
    human = {(q, d): g for q, docs in world.dataset.qrels.items() for d, g in docs.items()}
    with FakeChat(answer=oracle, api_key=SECRET) as server:
        got, err = run_json(capsys, world, server, "--calibrate", "40", "--out", str(out),
                            "--store")
        sent = len(server.requests)
        again, _ = run_json(capsys, world, server, "--calibrate", "40")
        assert len(server.requests) == sent  # a rerun sends nothing
    # requests = unjudged pool pairs + calibration pairs, one each
    assert got["calibration"]["sent"] == 40
    assert sent == got["requests"] == got["to_judge"] + 40 == len(oracle.asked)
    assert all(n == 1 for n in oracle.asked.values())
    assert got["already_judged"] + got["to_judge"] == got["pool"]
    gaps = {p: g for p, g in oracle.answered.items() if p not in human}
    cal = {p: g for p, g in oracle.answered.items() if p in human}
    assert len(gaps) == got["to_judge"] and len(cal) == 40
    # every human grade is in the sample (stratified), and the report is what the server said
    assert {human[p] for p in cal} == {0.0, 1.0, 2.0}
    want = Counter((int(human[p]), g) for p, g in cal.items())
    assert {(h, j): c for h, j, c in got["calibration"]["confusion"]} == want
    h = np.array([human[p] for p in cal])
    j = np.array([cal[p] for p in cal])
    assert got["calibration"]["kappa"] == pytest.approx(cohen_kappa_score(h > 0, j > 0))
    assert got["calibration"]["weighted_kappa"] == pytest.approx(
        cohen_kappa_score(h.astype(int), j, weights="quadratic"))
    assert got["calibration"]["reference"]["ranking_tau"] == [0.87, 0.89]
    lo, hi = got["calibration"]["kappa_ci"]
    assert lo <= got["calibration"]["kappa"] <= hi
    by_human = [ndcg10({p: human[p] for p in cal}, world.runs[r]) for r in ("good", "fair",
                                                                           "poor")]
    by_judge = [ndcg10(cal, world.runs[r]) for r in ("good", "fair", "poor")]
    assert got["calibration"]["tau"] == pytest.approx(kendalltau(by_human, by_judge).statistic)
    # the labels written are the server's answers on the gaps, nothing else
    assert read_qrels(out) == gaps
    assert got["labels"] == len(gaps) and got["unreadable"] == 0
    assert got["source"] == "llm:judge-m@ragdash-umbrela-2"
    side = out.with_name(out.name + ".sources.tsv").read_text(encoding="utf-8")
    assert side.count("llm:judge-m@ragdash-umbrela-2") == len(gaps)
    # filled with them, every run's top depth is judged (judged@depth 1), and no human label
    # is replaced
    filled = fill(world.dataset.qrels, read_judgments(out))
    assert filled.used == len(gaps) and filled.refused == 0
    for name, ranking in world.runs.items():
        before = evaluate(ranking, world.dataset.qrels, kmax=world.depth)
        after = evaluate(ranking, filled.qrels, kmax=world.depth)
        assert after.mean(f"judged@{world.depth}") == 1.0 > before.mean(
            f"judged@{world.depth}"), name
    assert all(filled.qrels[q][d] == g for (q, d), g in human.items())
    # and the command said so: nDCG@10 and judged@10 per run, human only and filled
    effect = got["effect"]
    queries = [q.id for q in world.dataset.queries if q.id in world.dataset.qrels]
    assert effect["queries"] == len(queries)
    for row in effect["runs"]:
        run = {q: d for q, d in world.runs[row["run"]].to_dict().items() if q in queries}
        for label, qrels in (("human", world.dataset.qrels), ("filled", filled.qrels)):
            judged = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()
                      if q in queries}
            by_q = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut_10"}).evaluate(run)
            want = np.mean([by_q.get(q, {}).get("ndcg_cut_10", 0.0) for q in queries])
            assert row[f"ndcg@10_{label}"] == pytest.approx(want), (row["run"], label)
        assert row["judged@10_filled"] > row["judged@10_human"]
    # the file works as --fill of score, as written
    qrels_file = world.paths["dataset"] / "qrels" / "test.tsv"
    scored = []
    for extra in ([], ["--fill", str(out)]):
        assert main(["score", str(qrels_file), str(world.paths["fair"]), "--k", "5",
                     "--format", "json", *extra]) == 0
        scored.append(json.loads(capsys.readouterr().out)["metrics"]["judged@5"])
    assert scored[1] > scored[0]
    assert got["stored"] == got["source"]
    stored = get_store().load_judgments(world.dataset.fingerprint(), got["stored"])
    assert {(lb.query_id, lb.doc_id): lb.grade for lb in stored} == gaps
    assert stored.sources() == {got["source"]: len(gaps)}
    # the rerun says the same from the cache
    assert again["calibration"]["confusion"] == got["calibration"]["confusion"]
    assert again["requests"] == 0 and again["cost"]["actual"]["input_tokens"] == 0
    assert again["usage"]["cached_pairs"] == sent
    # Japanese texts get the Japanese prompt; the query and the passage are in it verbatim
    prompt = server.requests[0].body["messages"][0]["content"]
    assert "クエリ:" in prompt and prompt.rstrip().endswith("##final score: N")
    assert server.requests[0].body["temperature"] == 0.0
    # the key is in the Authorization header and nowhere else
    assert all(SECRET not in json.dumps(r.body, ensure_ascii=False) for r in server.requests)
    for f in [out, out.with_name(out.name + ".sources.tsv"), *keyed.iterdir()]:
        assert SECRET.encode() not in f.read_bytes()
    assert SECRET not in err and SECRET not in json.dumps(got)


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


def test_a_reply_without_a_grade_is_asked_once_more_then_counted_never_guessed(world, keyed,
                                                                              tmp_path, capsys):
    oracle = LabelOracle(world, error_rate=0.0)
    human = world.dataset.qrels
    pooled = sorted({(q, d) for r in world.runs.values()
                     for q, docs, _ in r.truncate(world.depth).items() for d in docs
                     if d not in human.get(q, {})})
    shapes = {
        "refusal": {"text": "I'm sorry, but I can't help with that."},
        "out_of_range": {"text": "##final score: 7"},
        "html": {"text": "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>"},
        "length": {"text": "M: 2\nT: 2\n##final sc", "finish_reason": "length"},
        "empty": {"text": ""},
        "unreadable": {"text": "The passage is quite relevant, maybe a 2 or a 3."},
    }
    faulted = dict(zip(shapes, pooled[:len(shapes)]))
    for reason, pair in faulted.items():
        oracle.fault(pair, shapes[reason])
    once = pooled[len(shapes)]  # wrong once, right when asked again
    oracle.fault(once, {"text": "##final score: -1"}, times=1)
    model_refusal = pooled[len(shapes) + 1]
    oracle.fault(model_refusal, {"refusal": "I can't assist with that request."})
    out = tmp_path / "llm.qrels"
    with FakeChat(answer=oracle) as server:
        slow_query = world.dataset.query(pooled[-1][0]).text
        server.fault("slow", seconds=3.0, match=slow_query, times=1)
        server.fault("malformed", match=world.dataset.query(pooled[-20][0]).text, times=1)
        server.fault("huge", size=3 * 1024 * 1024, match=world.dataset.query(pooled[-40][0]).text,
                     times=1)
        dropped = world.dataset.query(pooled[-60][0]).text  # no answer at all, once
        server.fault("drop", match=dropped, times=1)
        proxy = pooled[-80]  # a proxy's HTML page instead of a reply, every time
        server.fault("html", match=world.dataset.query(proxy[0]).text, times=99)
        got, err = run_json(capsys, world, server, "--calibrate", "0", "--out", str(out),
                            "--timeout", "1.5")
        # grades are cached, nothing else: a rerun asks again (once more each) for the pairs
        # that got none — the model's unreadable answers and the proxy's pages alike
        asked = len(server.requests)
        again, _ = run_json(capsys, world, server, "--calibrate", "0")
        proxied = {p for p in pooled if p[0] == proxy[0]}
        assert again["requests"] == 2 * (7 + len(proxied))
        assert again["unreadable_by_reason"] == {**got["unreadable_by_reason"]}
        assert len(server.requests) > asked
    proxied = {p for p in pooled if p[0] == proxy[0]}
    reasons = got["unreadable_by_reason"]
    assert reasons == {"refusal": 2, "out_of_range": 1, "html": 1 + len(proxied), "length": 1,
                       "empty": 1, "unreadable": 1}
    assert got["unreadable"] == 7 + len(proxied)
    for pair in [*faulted.values(), model_refusal]:
        assert oracle.asked[pair] == 2 * 2  # asked once more, then left; and so in the rerun
    assert oracle.asked[once] == 2
    labels = read_qrels(out)
    for p in (pooled[-1], pooled[-20], pooled[-40], pooled[-60]):  # the transport faults
        assert labels[p] == world.grade(*p)
    assert not set(labels) & {*faulted.values(), model_refusal}  # never guessed
    assert labels[once] == world.grade(*once)
    assert got["labels"] == got["to_judge"] - 7 - len(proxied) == len(labels)
    assert not proxied & set(labels)
    # asked twice: the 8 pairs above, and the one whose reply was over the size cap (the
    # client hands it over as a failed request); the slow and the cut (malformed) replies
    # were asked again by the client itself and are answered
    huge_query = pooled[-40][0]
    assert sum(n == 2 for (q, _), n in oracle.asked.items() if q == huge_query) == 1
    assert got["requests"] == got["to_judge"] + 9 + len(proxied)
    assert all(labels[p] == world.grade(*p) for p in labels)  # error rate 0: all right
    assert "Traceback" not in err


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


@pytest.mark.slow
def test_a_killed_run_resumes_and_pays_only_for_the_rest(world, keyed, capsys):
    """The command in its own process, killed (SIGKILL) once some answers are in: what was
    answered is kept, and the next run asks only for the rest."""
    oracle = LabelOracle(world, error_rate=0.1)
    with FakeChat(answer=oracle, latency=0.05) as server:
        args = ["judge", str(world.paths["dataset"]),
                *(str(world.paths[r]) for r in ("good", "fair", "poor")),
                "--depth", str(world.depth), "--base-url", server.url, "--model", "judge-m",
                "--calibrate", "20", "--concurrency", "2"]
        proc = subprocess.Popen([sys.executable, "-m", "ragdash", *args], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cache = keyed / "judge.sqlite"
        kept = 0
        deadline = time.monotonic() + 60
        while kept < 15 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            if cache.exists():
                with contextlib.suppress(sqlite3.OperationalError):
                    kept = sqlite3.connect(cache).execute(
                        "SELECT COUNT(*) FROM answers").fetchone()[0]
        proc.kill()
        proc.wait(10)
        assert proc.returncode == -signal.SIGKILL
        kept = sqlite3.connect(cache).execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        before = len(server.requests)
        got, _ = run_json(capsys, world, server, "--calibrate", "20")
    total = got["to_judge"] + 20
    assert 15 <= kept < total
    assert got["usage"]["cached_pairs"] == kept
    assert got["requests"] == total - kept == len(server.requests) - before


def test_bad_runs_and_options_are_one_sentence(world, keyed, tmp_path, capsys):
    """Each refused before anything is sent (the server at port 9 is never reached)."""
    other = tmp_path / "other.run"
    other.write_text("nq1 Q0 nd1 1 1.0 x\nnq2 Q0 nd2 1 1.0 x\n", encoding="utf-8")
    good = str(world.paths["good"])
    cases = {"empty pool": ([str(other), "--estimate"], "pool is empty"),
             "no such file": ([str(tmp_path / "missing.run"), "--estimate"], "missing.run"),
             "depth 0": ([good, "--depth", "0", "--estimate"], "--depth"),
             "out folder": ([good, "--out", str(tmp_path / "no" / "x")], "folder")}
    for name, (extra, said) in cases.items():
        rc = main(["judge", str(world.paths["dataset"]), "--base-url", "http://127.0.0.1:9/v1",
                   "--model", "m", *extra])
        err = capsys.readouterr().err
        assert rc == 2, (name, err)
        assert said in err and "Traceback" not in err, (name, err)


def test_the_estimate_prices_a_catalog_model_and_says_when_it_cannot(world, keyed, capsys):
    base = ["judge", str(world.paths["dataset"]), str(world.paths["good"]),
            str(world.paths["fair"]), "--depth", "3", "--estimate"]
    assert main([*base, "--base-url", "https://api.openai.com/v1", "--model", "gpt-4o-mini",
                 "--format", "json"]) == 0
    est = json.loads(capsys.readouterr().out)["estimate"]
    total = est["total"]
    assert total["usd"] == pytest.approx(total["input_tokens"] * 0.15e-6
                                         + total["output_tokens"] * 0.60e-6)
    assert total["usd_max"] == pytest.approx(total["input_tokens"] * 0.15e-6
                                             + total["requests"] * 256 * 0.60e-6)
    assert total["jpy"] > total["usd"] > 0 and est["price"]["as_of"]
    by_run = {r["run"]: r for r in est["runs"]}
    assert by_run["good"]["usd"] < total["usd"]
    assert main([*base, "--base-url", "https://relay.example.invalid/v1", "--model",
                 "house-model"]) == 0
    out = capsys.readouterr().out
    assert "house-model is not in the chat price catalog" in out
