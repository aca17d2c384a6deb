"""``python -m ragdash compare``: the JSON contract, names, mismatches, errors.

Per-query nDCG comes from pytrec_eval (an independent implementation of trec_eval), so the
whole path — reading files, scoring, testing — is checked against outside numbers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy import stats as sps

from ragdash.cli import main

N_QUERIES = 14
DOCS = [f"d{i}" for i in range(30)]


def _qrels() -> dict[str, dict[str, int]]:
    rng = np.random.default_rng(0)
    qrels = {}
    for q in range(N_QUERIES):
        rel = rng.choice(len(DOCS), size=3, replace=False)
        qrels[f"q{q}"] = {DOCS[rel[0]]: 2, DOCS[rel[1]]: 1, DOCS[rel[2]]: 1}
    return qrels


def _run(qrels, quality: float, seed: int) -> dict[str, dict[str, float]]:
    """A run that puts each relevant document near the top with probability ``quality``."""
    rng = np.random.default_rng(seed)
    run = {}
    for q, judged in qrels.items():
        scores = rng.random(len(DOCS))
        for d in judged:
            if rng.random() < quality:
                scores[DOCS.index(d)] += 1.0
        run[q] = {d: float(s) for d, s in zip(DOCS, scores)}
    return run


def _write_qrels(path: Path, qrels) -> Path:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                            for d, g in docs.items()), encoding="utf-8")
    return path


def _write_run(path: Path, run, tag="x") -> Path:
    lines = []
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: -kv[1])
        lines += [f"{q} Q0 {d} {r} {s!r} {tag}\n" for r, (d, s) in enumerate(ranked, 1)]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _ndcg10(qrels, run) -> dict[str, float]:
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    return {q: m["ndcg_cut_10"] for q, m in ev.evaluate(run).items()}


@pytest.fixture()
def files(tmp_path):
    qrels = _qrels()
    runs = {"weak": _run(qrels, 0.2, 1), "strong": _run(qrels, 0.95, 2),
            "mid": _run(qrels, 0.5, 3)}
    paths = {name: _write_run(tmp_path / f"{name}.trec", run) for name, run in runs.items()}
    return qrels, runs, _write_qrels(tmp_path / "qrels.txt", qrels), paths


def test_json_contract_via_subprocess(files):
    qrels, runs, qrels_path, paths = files
    proc = subprocess.run(
        [sys.executable, "-m", "ragdash", "compare", str(qrels_path), str(paths["weak"]),
         str(paths["strong"]), str(paths["mid"]), "--metric", "ndcg@10", "--format", "json",
         "--resamples", "2000", "--permutations", "10000"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    obj = json.loads(proc.stdout)
    assert obj["metric"] == "ndcg@10" and obj["queries"] == N_QUERIES
    assert [r["name"] for r in obj["runs"]] == ["weak", "strong", "mid"]
    for r in obj["runs"]:
        assert set(r) == {"name", "mean", "ci_low", "ci_high"}
        assert r["ci_low"] <= r["mean"] <= r["ci_high"]
    required = {"a", "b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_ttest",
                "p_wilcoxon", "p_randomization", "p_holm", "wins", "ties", "losses"}
    assert [(p["a"], p["b"]) for p in obj["pairs"]] == [("weak", "strong"), ("weak", "mid"),
                                                         ("strong", "mid")]
    ref = {name: _ndcg10(qrels, run) for name, run in runs.items()}
    qids = sorted(qrels)
    for p in obj["pairs"]:
        assert required <= set(p)
        a = np.array([ref[p["a"]][q] for q in qids])
        b = np.array([ref[p["b"]][q] for q in qids])
        assert p["mean_a"] == pytest.approx(a.mean(), abs=1e-9)
        assert p["mean_b"] == pytest.approx(b.mean(), abs=1e-9)
        assert p["diff"] == pytest.approx(b.mean() - a.mean(), abs=1e-9)
        assert p["ci_low"] <= p["diff"] <= p["ci_high"]
        assert p["p_ttest"] == pytest.approx(sps.ttest_rel(b, a).pvalue, rel=1e-6)
        assert p["p_wilcoxon"] == pytest.approx(sps.wilcoxon(b, a).pvalue, rel=1e-6)
        assert p["p_holm"] >= p["p_randomization"]
        assert p["wins"] + p["ties"] + p["losses"] == N_QUERIES
        assert p["wins"] == int((b - a > 1e-12).sum())
    strong = obj["pairs"][0]
    assert strong["verdict"] == "better" and strong["p_holm"] < 0.05
    assert strong["verdict_en"].startswith("strong is better than weak on nDCG@10 by ")


def test_table_output_via_subprocess(files):
    _, _, qrels_path, paths = files
    proc = subprocess.run(
        [sys.executable, "-m", "ragdash", "compare", str(qrels_path), str(paths["weak"]),
         str(paths["strong"]), "--metric", "ndcg@10", "--resamples", "1000"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"nDCG@10 on {N_QUERIES} queries" in out
    assert "p Holm" in out and "B wins/ties/losses" in out
    assert "- strong is better than weak on nDCG@10 by " in out


def _json(capsys, argv) -> dict:
    assert main(["compare", *argv, "--format", "json", "--resamples", "1000",
                 "--permutations", "2000"]) == 0
    return json.loads(capsys.readouterr().out)


def test_mismatched_queries_are_reported_and_left_out(files, tmp_path, capsys):
    qrels, runs, qrels_path, _ = files
    a = {q: v for q, v in runs["weak"].items() if q not in ("q3", "q4")}
    b = dict(runs["strong"])
    b["q99"] = {"d1": 1.0}  # not judged
    pa = _write_run(tmp_path / "a.trec", a)
    pb = _write_run(tmp_path / "b.trec", b)
    obj = _json(capsys, [str(qrels_path), str(pa), str(pb)])
    assert obj["queries"] == N_QUERIES - 2
    mm = obj["mismatches"]
    assert mm["compared"] == N_QUERIES - 2 and mm["dropped"] == 3
    # each source lists what some other source has and it lacks
    assert mm["missing"] == {"qrels": ["q99"], "a": ["q3", "q4", "q99"], "b": []}
    # --missing-as-zero: every judged query, absent ones count as 0 for run a
    obj0 = _json(capsys, [str(qrels_path), str(pa), str(pb), "--missing-as-zero"])
    assert obj0["queries"] == N_QUERIES
    ref = _ndcg10(qrels, a)
    expected = sum(ref.get(q, 0.0) for q in qrels) / N_QUERIES
    assert obj0["runs"][0]["mean"] == pytest.approx(expected, abs=1e-9)
    assert obj0["mismatches"]["missing"] == {"qrels": ["q99"]}
    assert any("no results for 2 of the 14" in n for n in obj0["notes"])
    # the table names what was left out
    assert main(["compare", str(qrels_path), str(pa), str(pb), "--resamples", "1000"]) == 0
    out = capsys.readouterr().out
    assert "Left out: 3 queries missing from the qrels or from some run." in out
    assert "missing from a: q3, q4, q99" in out


def test_identical_runs_and_json_run_input(files, tmp_path, capsys):
    from ragdash.ranking import Ranking

    _, runs, qrels_path, paths = files
    as_json = tmp_path / "same.json"
    as_json.write_text(json.dumps(Ranking.from_dict(runs["mid"], name="x").to_json_obj()),
                       encoding="utf-8")
    saved = tmp_path / "saved.json"  # the app's export wraps the ranking
    saved.write_text(json.dumps({"format": "ragdash-run", "name": "saved",
                                 "ranking": Ranking.from_dict(runs["mid"]).to_json_obj()}),
                     encoding="utf-8")
    obj = _json(capsys, [str(qrels_path), str(paths["mid"]), str(as_json), str(saved)])
    assert [r["name"] for r in obj["runs"]] == ["mid", "same", "saved"]
    for p in obj["pairs"]:
        assert (p["p_ttest"], p["p_wilcoxon"], p["p_randomization"], p["p_holm"]) == (1, 1, 1, 1)
        assert (p["wins"], p["losses"], p["ties"]) == (0, 0, N_QUERIES)
        assert p["verdict"] == "identical"


def test_duplicate_stems_are_disambiguated(files, tmp_path, capsys):
    _, runs, qrels_path, _ = files
    (tmp_path / "bm25").mkdir()
    (tmp_path / "e5").mkdir()
    p1 = _write_run(tmp_path / "bm25" / "run.trec", runs["weak"])
    p2 = _write_run(tmp_path / "e5" / "run.trec", runs["strong"])
    obj = _json(capsys, [str(qrels_path), str(p1), str(p2)])
    assert [r["name"] for r in obj["runs"]] == ["bm25/run", "e5/run"]
    obj = _json(capsys, [str(qrels_path), str(p1), str(p1)])
    assert [r["name"] for r in obj["runs"]] == ["bm25/run#1", "bm25/run#2"]


def test_japanese_verdicts_in_table(files, capsys):
    _, _, qrels_path, paths = files
    assert main(["compare", str(qrels_path), str(paths["weak"]), str(paths["strong"]),
                 "--resamples", "1000", "--lang", "ja"]) == 0
    assert "nDCG@10 で strong は weak より " in capsys.readouterr().out


@pytest.mark.parametrize("case,expect", [
    ("bad_line", "line 2"),
    ("one_run", "at least two runs"),
    ("bad_metric", "unknown metric"),
    ("no_common", "no query in common"),
    ("few_resamples", "at least 1000"),
    ("bad_json", "cannot be parsed"),
])
def test_errors_are_one_line(files, tmp_path, capsys, case, expect):
    _, runs, qrels_path, paths = files
    args = [str(qrels_path), str(paths["weak"]), str(paths["strong"])]
    if case == "bad_line":
        bad = tmp_path / "bad.trec"
        bad.write_text("q0 Q0 d1 1 0.5 x\nq0 Q0 d2 2 oops x\n", encoding="utf-8")
        args[2] = str(bad)
    elif case == "one_run":
        args = args[:2]
    elif case == "bad_metric":
        args += ["--metric", "ndgc@10"]
    elif case == "no_common":
        other = {f"z{q}": v for q, v in runs["mid"].items()}
        args[2] = str(_write_run(tmp_path / "other.trec", other))
    elif case == "few_resamples":
        args += ["--resamples", "50"]
    elif case == "bad_json":
        broken = tmp_path / "broken.json"
        broken.write_text('{"queries": {"q1": [["d1", 1.0]]', encoding="utf-8")
        args[2] = str(broken)
    assert main(["compare", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expect in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_relevance_level_and_deciding_test(files, capsys):
    from ragdash.stats import holm

    qrels, runs, qrels_path, paths = files
    obj = _json(capsys, [str(qrels_path), str(paths["weak"]), str(paths["strong"]),
                         str(paths["mid"]), "--metric", "recall@5", "--relevance-level", "2",
                         "--test", "ttest"])
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recall.5"}, relevance_level=2)
    for r in obj["runs"]:
        ref = [m["recall_5"] for m in ev.evaluate(runs[r["name"]]).values()]
        assert r["mean"] == pytest.approx(np.mean(ref), abs=1e-9)
    assert [p["p_holm"] for p in obj["pairs"]] == pytest.approx(
        list(holm([p["p_ttest"] for p in obj["pairs"]])))
    assert obj["settings"]["holm_on"] == "ttest"


def test_japanese_table_and_labels_not_only_the_verdicts(files, capsys):
    """`compare --lang ja` translates the table's labels too, not only the verdict."""
    _, _, qrels_path, paths = files
    assert main(["compare", str(qrels_path), str(paths["weak"]), str(paths["strong"]),
                 "--resamples", "1000", "--lang", "ja"]) == 0
    out = capsys.readouterr().out
    for label in ("ブートストラップ区間", "ランダム化検定", "平均", "ペア(B 対 A)", "A の平均",
                  "B の勝ち/引き分け/負け", "strong 対 weak"):
        assert label in out, label
    for english in ("mean A", "bootstrap intervals", "pair (B vs A)", "wins/ties/losses"):
        assert english not in out, english
    assert main(["compare", str(qrels_path), str(paths["weak"]), str(paths["strong"]),
                 "--resamples", "1000"]) == 0
    assert "pair (B vs A)" in capsys.readouterr().out  # English unless asked
