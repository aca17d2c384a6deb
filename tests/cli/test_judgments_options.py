"""``--fill FILE`` and ``--judged-only`` on the commands, in process: the numbers are those of
the filled qrels / of pytrec_eval's condensed lists, a human label is never overridden, the
counts are said, and the coverage sentence follows a thinly judged verdict and frontier."""

from __future__ import annotations

import json

import pytest
import pytrec_eval

from ragdash import Ranking
from ragdash.cli import main
from ragdash.dataset import Dataset, Document, Query
from ragdash.judgments import JudgmentSet, write_judgments
from ragdash.metrics import evaluate
from ragdash.run import Run
from ragdash.runs import RunStore

N = 20
HUMAN = {f"q{q}": {f"d{q}": 1} for q in range(N)}


def _runs(folder):
    """A finds d<q> at rank 4 under 3 unjudged documents; B finds it at rank 2 among others;
    an LLM judged A's top 2 (one relevant), d<q> (0: refused) and a query that does not
    exist."""
    a = {f"q{q}": {**{f"x{q}_{r}": 10.0 - r for r in range(10) if r != 3}, f"d{q}": 7.0}
         for q in range(N)}
    b = {f"q{q}": {**{f"y{q}_{r}": 10.0 - r for r in range(10) if r != 1}, f"d{q}": 9.0}
         for q in range(N)}
    paths = {}
    for name, run in (("A", a), ("B", b)):
        paths[name] = folder / f"{name}.run"
        Ranking.from_dict(run).write_trec(paths[name], tag=name)
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} 1\n" for q, j in HUMAN.items()
                                              for d in j))
    llm = JudgmentSet("llm")
    src = "llm:m@umbrela-1"
    for q in range(N):
        llm.add(f"q{q}", f"x{q}_0", 2, src, "2026-12-01")
        llm.add(f"q{q}", f"x{q}_1", 0, src, "2026-12-01")
        llm.add(f"q{q}", f"d{q}", 0, src, "2026-12-01")
    llm.add("q99", "d1", 1, src, "2026-12-01")
    write_judgments(llm, folder / "llm.qrels")
    return a, b, paths


def _json(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_score_fill_scores_the_filled_qrels_and_says_what_it_refused(tmp_path, capsys):
    a, _, paths = _runs(tmp_path)
    out, err = _json(capsys, ["score", str(tmp_path / "qrels.txt"), str(paths["A"]),
                              "--k", "1,10", "--fill", str(tmp_path / "llm.qrels"),
                              "--format", "json"])
    merged = {q: {**{f"x{q[1:]}_0": 2, f"x{q[1:]}_1": 0}, **HUMAN[q]} for q in HUMAN}
    want = evaluate(Ranking.from_dict(a), merged, kmax=10).summary([1, 10])
    assert out["metrics"] == pytest.approx(want)
    assert out["metrics"]["judged@10"] == pytest.approx(0.3)  # x_0, x_1 and d
    assert out["labels"] == ["qrels", str(tmp_path / "llm.qrels")]
    (use,) = out["judgments"]["sets"]
    assert (use["used"], use["refused"], use["disagree"], use["unknown_queries"]) == \
        (2 * N, N, N, 1)
    assert "the human labels stay (20 with another grade)" in err
    assert "left out (e.g. q99)" in err
    assert out["queries"] == N  # the filled query q99 is not scored


def test_score_judged_only_matches_pytrec_eval_condensed(tmp_path, capsys):
    a, _, paths = _runs(tmp_path)
    out, _ = _json(capsys, ["score", str(tmp_path / "qrels.txt"), str(paths["A"]),
                            "--k", "1,10", "--judged-only", "--format", "json"])
    ref = pytrec_eval.RelevanceEvaluator(HUMAN, {"ndcg_cut.1", "P.1"},
                                         judged_docs_only_flag=True).evaluate(a)
    assert out["metrics"]["ndcg@1"] == pytest.approx(
        sum(r["ndcg_cut_1"] for r in ref.values()) / N)
    assert out["metrics"]["ndcg@1"] == 1.0 and out["judged_only"] is True
    assert out["metrics"]["judged@10"] == pytest.approx(0.1)  # the ranking as retrieved


def test_compare_verdict_carries_the_coverage_sentence(tmp_path, capsys):
    _, _, paths = _runs(tmp_path)
    qrels = str(tmp_path / "qrels.txt")
    argv = ["compare", qrels, str(paths["A"]), str(paths["B"]), "--format", "json",
            "--resamples", "1000", "--permutations", "200"]
    out, _ = _json(capsys, argv)
    assert out["judged@10"] == {"A": pytest.approx(0.1), "B": pytest.approx(0.1)}
    (pair,) = out["pairs"]
    assert pair["verdict_en"].endswith("Much of the top 10 is unjudged (A 90%, B 90%): these "
                                       "nDCG@10 figures are lower bounds; judge the gaps "
                                       "before deciding.")
    assert "判断する前に" in pair["verdict_ja"]
    # filled from the LLM's labels of A's top 2, A is judged at 30%, B still at 10%
    out, _ = _json(capsys, [*argv, "--fill", str(tmp_path / "llm.qrels")])
    assert out["judged@10"]["A"] == pytest.approx(0.3)
    assert "B's top 10 is 90% unjudged against A's 70%" not in out["pairs"][0]["verdict_en"]
    assert "(A 70%, B 90%)" in out["pairs"][0]["verdict_en"]
    # condensed: the sentence says the unjudged were left out, not that it is a lower bound
    out, _ = _json(capsys, [*argv, "--judged-only"])
    assert "condensed lists" in out["pairs"][0]["verdict_en"]
    assert "lower bound" not in out["pairs"][0]["verdict_en"] and out["judged_only"]


def test_a_well_judged_comparison_has_no_sentence(tmp_path, capsys):
    _, _, paths = _runs(tmp_path)
    every = {q: {**{f"x{q[1:]}_{r}": 0 for r in range(10)},
                 **{f"y{q[1:]}_{r}": 0 for r in range(10)}, **HUMAN[q]} for q in HUMAN}
    (tmp_path / "all.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, j in every.items()
                                              for d, g in j.items()))
    out, _ = _json(capsys, ["compare", str(tmp_path / "all.txt"), str(paths["A"]),
                            str(paths["B"]), "--format", "json", "--resamples", "1000",
                            "--permutations", "200"])
    assert out["judged@10"] == {"A": 1.0, "B": 1.0}
    assert "unjudged" not in out["pairs"][0]["verdict_en"]


def test_fuse_and_frontier_take_fill(tmp_path, capsys, monkeypatch):
    a, b, paths = _runs(tmp_path)
    fill = str(tmp_path / "llm.qrels")
    out, _ = _json(capsys, ["fuse", str(tmp_path / "qrels.txt"), str(paths["A"]),
                            str(paths["B"]), "--fill", fill, "--format", "json"])
    assert out["labels"] == ["qrels", fill] and out["judgments"]["filled"] == 2 * N
    # the frontier over stored runs of one dataset
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path / "home"))
    docs = sorted({d for run in (a, b) for r in run.values() for d in r})
    ds = Dataset([Document(d, d) for d in docs], [Query(q, q) for q in HUMAN], HUMAN)
    store = RunStore(tmp_path / "home")
    ids = [store.save(Run.of_ranking(ds, Ranking.from_dict(r), name=n))
           for n, r in (("A", a), ("B", b))]
    out, _ = _json(capsys, ["frontier", *ids, "--fill", fill, "--format", "json"])
    assert [p["judged@10"] for p in out["points"]] == [pytest.approx(0.3), pytest.approx(0.1)]
    assert out["labels"] == ["qrels", fill]
    assert "judge the gaps before deciding" in out["sentence"]
