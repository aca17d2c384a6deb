"""``python -m ragdash check QRELS BASELINE CANDIDATE``: the regression gate on real rankings
(BM25 on jsquad-valid), its exit codes and outputs, stored runs and setup files as sides (a
rerun of a setup sends no embeddings request), the Python call and the pytest helper."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from paths import JSQUAD

import ragdash
from ragdash.cli import main
from ragdash.ranking import Ranking
from ragdash.testing import RetrievalRegression, assert_not_worse

QRELS = JSQUAD / "qrels" / "test.tsv"
N_QUERIES = 300


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A BM25 baseline on 300 queries, a tuned BM25, and the baseline with its top 10
    reversed for 40% of the queries."""
    folder = tmp_path_factory.mktemp("runs")
    base, tuned = folder / "base.trec", folder / "tuned.trec"
    assert main(["evaluate", str(JSQUAD), "--limit-queries", str(N_QUERIES), "--kmax", "100",
                 "--save-run", str(base), "--format", "json"]) == 0
    assert main(["evaluate", str(JSQUAD), "--limit-queries", str(N_QUERIES), "--kmax", "100",
                 "--k1", "1.2", "--b", "0.75", "--save-run", str(tuned),
                 "--format", "json"]) == 0
    ranking = Ranking.read_trec(base)
    rng = np.random.default_rng(0)
    flipped = set(rng.choice(ranking.query_ids, size=int(0.4 * len(ranking)), replace=False))
    worse = {}
    for q, docs, _scores in ranking.items():
        order = list(docs)
        if q in flipped:
            order[:10] = order[:10][::-1]
        worse[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    reversed_path = folder / "reversed.trec"
    Ranking.from_dict(worse, name="reversed").write_trec(reversed_path)
    return {"base": base, "tuned": tuned, "reversed": reversed_path}


def check(capsys, *args) -> tuple[int, str, str]:
    code = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_same_run_twice_passes_with_exit_0(runs, capsys):
    code, out, err = check(capsys, QRELS, runs["base"], runs["base"], "--resamples", "1000",
                           "--permutations", "1000")
    assert code == 0, err
    assert "PASS" in out and "base (candidate)" in out
    assert "seed 0" in out


def test_a_top_10_reversed_for_40_percent_of_queries_fails_with_exit_1(runs, capsys):
    code, out, err = check(capsys, QRELS, runs["base"], runs["reversed"], "--format", "json",
                           "--metric", "ndcg@10", "--metric", "recall@100")
    assert code == 1, err
    obj = json.loads(out)
    assert obj["decision"] == "fail" and obj["queries"] == N_QUERIES
    by = {m["metric"]: m for m in obj["metrics"]}
    assert by["ndcg@10"]["decision"] == "fail"
    assert by["ndcg@10"]["ci"][1] < -0.01 and by["ndcg@10"]["p_corrected"] < 0.05
    # the top 100 hold the same documents: recall@100 cannot move
    assert by["recall@100"]["difference"] == 0 and by["recall@100"]["decision"] == "pass"
    assert obj["coverage"]["base"]["judged@10"] == obj["coverage"]["reversed"]["judged@10"]


def test_outputs_agree_with_pytrec_eval(runs, capsys):
    import pytrec_eval

    from ragdash.loaders import load_qrels

    code, out, _ = check(capsys, QRELS, runs["base"], runs["tuned"], "--format", "json")
    assert code in (0, 1)
    obj = json.loads(out)
    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in load_qrels(QRELS).items()}
    means = {}
    for name in ("base", "tuned"):
        run = Ranking.read_trec(runs[name]).to_dict()
        scored = pytrec_eval.RelevanceEvaluator(
            {q: qrels[q] for q in run if q in qrels}, {"ndcg_cut.10"}).evaluate(run)
        means[name] = np.mean([v["ndcg_cut_10"] for v in scored.values()])
    metric = obj["metrics"][0]
    assert metric["baseline"] == pytest.approx(means["base"], abs=1e-4)
    assert metric["candidate"] == pytest.approx(means["tuned"], abs=1e-4)


def test_markdown_for_a_pull_request_and_the_report(runs, capsys, tmp_path):
    report = tmp_path / "gate.html"
    code, out, err = check(capsys, QRELS, runs["base"], runs["reversed"], "--format",
                           "markdown", "--report", report)
    assert code == 1, err
    assert out.startswith("### ❌ Retrieval gate failed: `reversed` vs `base`")
    assert "| nDCG@10 |" in out and str(report) in out
    html = report.read_text(encoding="utf-8")
    assert "<html" in html and "reversed" in html and "nDCG@10" in html


def test_store_ids_and_setup_files_as_sides(runs, capsys, tmp_path):
    """CI's case: the last release's stored run against the setup of the change."""
    with FakeOpenAI() as server:
        setup = tmp_path / "dense.toml"
        setup.write_text(
            f'dataset = "{JSQUAD.as_posix()}"\nlimit_queries = 60\nkmax = 100\n'
            f'[retriever]\nkind = "openai"\nmodel = "m"\nbase_url = "{server.url}"\n',
            encoding="utf-8")
        assert main(["evaluate", str(JSQUAD), "--limit-queries", "60", "--kmax", "100",
                     "--store", "--format", "json"]) == 0
        stored = json.loads(capsys.readouterr().out)["run_id"]
        code, out, err = check(capsys, QRELS, f"store:{stored}", setup, "--format", "json")
        assert code in (0, 1), err
        first = json.loads(out)
        assert first["queries"] == 60 and first["candidate"] == "dense"
        sent = len(server.embedding_requests)
        assert sent > 0
        code, out, err = check(capsys, QRELS, f"store:{stored}", setup, "--format", "json")
        assert len(server.embedding_requests) == sent  # the cache answered every text
        assert json.loads(out)["metrics"] == first["metrics"]


@pytest.mark.parametrize("args, words", [
    (["missing.trec", "base"], "missing.trec"),
    (["base", "store:nosuchrun"], "nosuchrun"),
    (["base", "base", "--rule", "strict"], "invalid choice"),
    (["base", "base", "--margin", "-1"], "margin"),
    (["base", "base", "--metric", "ndgc@10"], "ndgc"),
    # issue 31: a numpy traceback, exit 1
    (["base", "base", "--seed", "-1"], "the seed (--seed) must be a whole number of 0 or more"),
    # a cutoff "²" is a digit to str.isdigit, not to int(); 5,000 digits are refused by int()
    (["base", "base", "--metric", "ndcg@²"], "the cutoff after '@' must be a whole number"),
    (["base", "base", "--metric", "ndcg@" + "9" * 5000], "the cutoff after '@'"),
    # unbounded work from one flag
    (["base", "base", "--resamples", "100000000"], "--resamples must be at most 1,000,000"),
    (["base", "base", "--permutations", "100000000"], "--permutations must be at most"),
])
def test_input_errors_exit_2_with_one_sentence(runs, capsys, args, words):
    args = [str(runs["base"]) if a == "base" else a for a in args]
    with pytest.raises(SystemExit) if "--rule" in args else _nothing():
        code, out, err = check(capsys, QRELS, *args)
        assert code == 2 and out == ""
        assert words in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_python_call_and_pytest_helper(runs):
    decision = ragdash.check(QRELS, str(runs["base"]), str(runs["tuned"]),
                             metrics=["ndcg@10"], n_resamples=1000, n_permutations=1000)
    assert decision.exit_code in (0, 1) and decision.metrics[0].metric == "ndcg@10"
    assert assert_not_worse(QRELS, str(runs["base"]), str(runs["base"])).passed
    with pytest.raises(RetrievalRegression, match="FAIL: reversed is worse than base") as info:
        assert_not_worse(QRELS, str(runs["base"]), str(runs["reversed"]))
    assert isinstance(info.value, AssertionError) and not info.value.decision.passed


def test_unjudged_documents_are_said_and_fill_labels_them(tmp_path, capsys):
    """Labels made by looking at the old system: the candidate finds relevant documents
    nobody judged, looks worse, and the gate says why; --fill with their labels decides
    otherwise (a human label is never overridden; a label for an unknown query is left out)."""
    queries = [f"q{i}" for i in range(60)]
    noise = [f"n{j}" for j in range(9)]
    human = {q: {"r1": 1, **dict.fromkeys(noise, 0)} for q in queries}
    base = {q: {"r1": 10.0, **{n: 9.0 - j for j, n in enumerate(noise)}} for q in queries}
    cand = {q: {"r2": 10.0, "r3": 9.5, "r1": 9.0, **{n: 8.0 - j for j, n in enumerate(noise[:7])}}
            for q in queries}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in human.items()
                             for d, g in docs.items()))
    paths = {}
    for name, run in (("old", base), ("new", cand)):
        paths[name] = tmp_path / f"{name}.trec"
        Ranking.from_dict(run, name=name).write_trec(paths[name])
    code, out, err = check(capsys, qrels, paths["old"], paths["new"], "--format", "json")
    assert code == 1, err
    obj = json.loads(out)
    assert obj["coverage"]["old"]["judged@10"] == 1.0
    assert obj["coverage"]["new"]["judged@10"] == pytest.approx(0.8)
    assert any("unjudged" in w and "ragdash judge" in w for w in obj["warnings"])

    filled = tmp_path / "judge.qrels"
    filled.write_text("".join(f"{q} 0 r2 2\n{q} 0 r3 1\n{q} 0 r1 0\n" for q in queries)
                      + "zz 0 r2 3\n")
    code, out, err = check(capsys, qrels, paths["old"], paths["new"], "--format", "json",
                           "--fill", filled)
    assert code == 0, out
    obj = json.loads(out)
    assert obj["metrics"][0]["difference"] > 0
    assert obj["coverage"]["new"]["judged@10"] == 1.0
    said = " ".join(obj["warnings"])
    assert f"filled {2 * len(queries)} pairs" in said  # r1 stays the human's 1
    assert "1 filled label names a query the qrels do not have" in said


# -- a candidate that leaves queries out (issue 31, item 4) ------------------------------------
@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory):
    """BM25 on the bundled jsquad-mini sample (280 judged queries) as the baseline; the same
    ranking answering only its first 3 queries; the same ranking without the 22 queries the
    baseline finds hardest (lowest nDCG@10)."""
    from ragdash.loaders import load_qrels
    from ragdash.metrics import evaluate
    from ragdash.samples import sample_path

    folder = tmp_path_factory.mktemp("sample_runs")
    sample = sample_path("jsquad-mini")
    base = folder / "bm25.trec"
    assert main(["evaluate", str(sample), "--kmax", "100", "--save-run", str(base),
                 "--format", "json"]) == 0
    ranking = Ranking.read_trec(base)
    qrels = load_qrels(sample / "qrels" / "test.tsv")
    table = evaluate(ranking, qrels, kmax=100)
    order = np.argsort(table.value("ndcg@10"), kind="stable")
    hardest = {table.query_ids[i] for i in order[:22]}

    def keep(name, queries):
        path = folder / f"{name}.trec"
        Ranking.from_dict({q: dict(zip(*ranking.get(q))) for q in ranking.query_ids
                           if q in queries}, name=name).write_trec(path)
        return path

    return {"qrels": sample / "qrels" / "test.tsv", "base": base, "qrels_map": qrels,
            "three": keep("three", set(ranking.query_ids[:3])),
            "easy": keep("easy", set(ranking.query_ids) - hardest)}


@pytest.mark.parametrize("candidate, left_out", [("three", 277), ("easy", 22)])
def test_a_candidate_that_leaves_judged_queries_out_scores_0_on_them_and_fails(
        sample_runs, capsys, candidate, left_out):
    """trec_eval -c: a judged query the candidate does not answer scores 0 for it. Before,
    both candidates passed (exit 0, scored only on the queries they chose to answer)."""
    said = (f"{candidate} does not answer {left_out} of the 280 judged queries the baseline "
            "answers; they score 0 for it (as trec_eval -c).")
    code, out, err = check(capsys, sample_runs["qrels"], sample_runs["base"],
                           sample_runs[candidate])
    assert code == 1, out + err
    assert f"FAIL: {candidate} is worse than bm25" in out
    assert said in out and "280 queries" in out

    code, out, err = check(capsys, sample_runs["qrels"], sample_runs["base"],
                           sample_runs[candidate], "--format", "json")
    assert code == 1, err
    obj = json.loads(out)
    assert obj["decision"] == "fail" and obj["queries"] == 280
    assert said in obj["warnings"]
    # the candidate's mean is trec_eval -c's: pytrec_eval on the queries it answers, summed
    # over all 280 judged queries
    import pytrec_eval

    run = Ranking.read_trec(sample_runs[candidate]).to_dict()
    qrels = {q: {d: int(g) for d, g in docs.items()}
             for q, docs in sample_runs["qrels_map"].items()}
    scored = pytrec_eval.RelevanceEvaluator({q: qrels[q] for q in run},
                                            {"ndcg_cut.10"}).evaluate(run)
    assert len(scored) == 280 - left_out
    expected = sum(v["ndcg_cut_10"] for v in scored.values()) / 280
    assert obj["metrics"][0]["candidate"] == pytest.approx(expected, abs=1e-4)

    code, out, err = check(capsys, sample_runs["qrels"], sample_runs["base"],
                           sample_runs[candidate], "--format", "markdown", "--lang", "ja")
    assert code == 1 and f"{left_out} 件に答えていないため、それらは 0 点" in out


def test_the_candidate_answering_every_query_says_nothing_about_left_out_queries(
        sample_runs, capsys):
    code, out, err = check(capsys, sample_runs["qrels"], sample_runs["base"],
                           sample_runs["base"], "--resamples", "1000", "--permutations", "1000")
    assert code == 0, err
    assert "does not answer" not in out and "left out" not in out


def test_queries_the_baseline_does_not_answer_are_left_out_and_counted(sample_runs, capsys):
    """The baseline sets the query set: the 22 it lacks are not held against the candidate."""
    code, out, err = check(capsys, sample_runs["qrels"], sample_runs["easy"],
                           sample_runs["base"], "--format", "json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["queries"] == 258
    assert ("22 of 280 judged queries are not in the baseline easy and were left out."
            in obj["warnings"])
    assert not any("does not answer" in w for w in obj["warnings"])


def test_a_cutoff_deeper_than_the_runs_is_scored_at_their_depth_and_said(sample_runs, capsys):
    """ndcg@100000 on 280 queries took 28 s and 4.8 GB: now it is nDCG@100, the runs' depth."""
    code, out, err = check(capsys, sample_runs["qrels"], sample_runs["base"],
                           sample_runs["easy"], "--metric", "ndcg@100000", "--metric",
                           "ndcg@100", "--metric", "recall@5000", "--format", "json")
    assert code == 1, err
    obj = json.loads(out)
    assert [m["metric"] for m in obj["metrics"]] == ["ndcg@100", "recall@100"]
    assert ("nDCG@100000 asks for a cutoff deeper than the runs, which rank at most 100 "
            "documents per query: scored as nDCG@100.") in obj["warnings"]
    assert any(w.startswith("Recall@5000 asks") for w in obj["warnings"])
