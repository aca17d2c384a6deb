"""``python -m ragdash fuse``: two BM25 runs of the bundled sample (TREC files and ragdash run
JSON) fused and scored; the fused TREC run, the sweep with its held-out report, the warning
for a shallow input and the refusals of runs from different datasets."""

from __future__ import annotations

import json

import numpy as np
import pytest
from paths import ROOT

from ragdash.cli import main
from ragdash.metrics import evaluate
from ragdash.ranking import Ranking
from ragdash.retrieval.fusion import fuse, split_queries

SAMPLE = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"
QRELS = str(SAMPLE / "qrels" / "test.tsv")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    a, b = folder / "bm25.run", folder / "flat.run"
    assert main(["evaluate", str(SAMPLE), "--kmax", "40", "--k", "10", "--save-run", str(a),
                 "--format", "json"]) == 0
    assert main(["evaluate", str(SAMPLE), "--kmax", "30", "--k", "10", "--k1", "0.5", "--b", "0.2",
                 "--save-run", str(b), "--format", "json"]) == 0
    return a, b


def _json(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _fail(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def _qrels():
    from ragdash.cli.score import _load_qrels

    return _load_qrels(QRELS)


def test_rrf_json_is_fuse_scored_and_the_saved_run_scores_the_same(runs, capsys, tmp_path):
    a, b = runs
    saved = tmp_path / "hybrid.run"
    out = _json(capsys, ["fuse", QRELS, str(a), str(b), "--method", "rrf",
                         "--save-run", str(saved), "--format", "json", "--k", "1,10,20"])
    ra, rb = Ranking.read_trec(a, name="bm25"), Ranking.read_trec(b, name="flat")
    qrels = _qrels()
    expected = fuse([ra, rb], "rrf")
    qids = [q for q in ra.query_ids if qrels.get(q)]
    want = evaluate(expected, qrels, kmax=40, queries=qids).summary([1, 10, 20])
    assert out["metrics"] == pytest.approx(want, abs=1e-12)
    assert out["queries"] == len(qids) and out["depth"] == 40
    assert [i["name"] for i in out["inputs"]] == ["bm25", "flat"]
    assert out["inputs"][0]["metrics"]["ndcg@10"] == pytest.approx(
        evaluate(ra, qrels, kmax=40, queries=qids).mean("ndcg@10"))
    assert out["name"] == "bm25 + flat (RRF)" and out["warnings"] == []
    scored = _json(capsys, ["score", QRELS, str(saved), "--format", "json", "--k", "1,10,20"])
    assert scored["metrics"]["ndcg@10"] == pytest.approx(out["metrics"]["ndcg@10"])
    # another method and weights change the result; the table output names both inputs
    other = _json(capsys, ["fuse", QRELS, str(a), str(b), "--method", "combsum", "--norm",
                           "zscore", "--weights", "0.2,0.8", "--format", "json"])
    assert other["metrics"] != out["metrics"] and other["weights"] == [0.2, 0.8]
    assert main(["fuse", QRELS, str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "bm25 + flat (RRF)" in text and "flat" in text.split("\n", 3)[-1]


def test_a_shallow_input_is_warned_about(runs, capsys):
    a, b = runs
    out = _json(capsys, ["fuse", QRELS, str(a), str(b), "--k", "10,35", "--format", "json"])
    assert len(out["warnings"]) == 1 and "'flat'" in out["warnings"][0]
    assert "30" in out["warnings"][0] and "K = 35" in out["warnings"][0]
    assert main(["fuse", QRELS, str(a), str(b), "--k", "35"]) == 0
    assert "warning: run 'flat' returns at most 30" in capsys.readouterr().err


def test_sweep_chooses_alpha_on_one_half_and_reports_the_other(runs, capsys):
    a, b = runs
    out = _json(capsys, ["fuse", QRELS, str(a), str(b), "--method", "alpha", "--sweep",
                         "--sweep-metric", "ndcg@10", "--k", "10", "--format", "json"])
    assert [r["alpha"] for r in out["sweep"]] == [i / 10 for i in range(11)]
    ra, rb = Ranking.read_trec(a, name="bm25"), Ranking.read_trec(b, name="flat")
    qrels = _qrels()
    qids = [q for q in ra.query_ids if qrels.get(q)]
    tune, test = split_queries(qids, seed=0)
    assert len(tune) == round(len(qids) / 2) and not set(tune) & set(test)
    per_alpha = []
    for alpha in np.linspace(0, 1, 11):
        t = evaluate(fuse([ra, rb], "alpha", alpha=float(alpha)), qrels, kmax=40,
                     queries=qids)
        per_alpha.append((t.select(tune).mean("ndcg@10"), t.select(test).mean("ndcg@10"),
                          t.mean("ndcg@10")))
    for row, (tu, te, al) in zip(out["sweep"], per_alpha):
        assert row["tune"] == pytest.approx(tu) and row["test"] == pytest.approx(te)
        assert row["metrics"]["ndcg@10"] == pytest.approx(al)
    choice = out["sweep_choice"]
    best = max(t for t, _, _ in per_alpha)
    j = [i for i, (t, _, _) in enumerate(per_alpha) if t >= best - 1e-12]
    j = min(j, key=lambda i: abs(i / 10 - 0.5))
    assert choice["alpha"] == pytest.approx(j / 10)
    assert choice["test_value"] == pytest.approx(per_alpha[j][1])
    assert choice["tune_queries"] + choice["test_queries"] == len(qids)
    assert "held-out" in choice["note"] and "flatter" in choice["note"]
    # α = 1 is run A alone, α = 0 run B alone (min-max keeps each run's order)
    alone = evaluate(ra, qrels, kmax=40, queries=qids).mean("ndcg@10")
    assert out["sweep"][-1]["metrics"]["ndcg@10"] == pytest.approx(alone)
    # another seed, another split; the text output says how α was chosen
    other = _json(capsys, ["fuse", QRELS, str(a), str(b), "--sweep", "--seed", "7",
                           "--format", "json"])
    assert other["sweep_choice"]["seed"] == 7
    assert [r["test"] for r in other["sweep"]] != [r["test"] for r in out["sweep"]]
    assert main(["fuse", QRELS, str(a), str(b), "--sweep"]) == 0
    assert "held-out" in capsys.readouterr().out


def _export(run, path):
    from ragdash.runs.exchange import run_to_json_obj

    path.write_text(json.dumps(run_to_json_obj(run)), encoding="utf-8")
    return path


def test_run_json_inputs_and_runs_of_different_datasets(runs, capsys, tmp_path, sample):
    from ragdash.dataset import Dataset
    from ragdash.run import Run

    a, b = runs
    ra = Ranking.read_trec(a, name="bm25")
    ja = _export(Run.of_ranking(sample, ra, name="bm25"), tmp_path / "bm25.json")
    out = _json(capsys, ["fuse", QRELS, str(ja), str(b), "--format", "json"])
    trec = _json(capsys, ["fuse", QRELS, str(a), str(b), "--format", "json"])
    assert out["metrics"] == trec["metrics"]
    other = Dataset(sample.documents[:-1], sample.queries, sample.qrels, name="smaller")
    jb = _export(Run.of_ranking(other, Ranking.read_trec(b, name="flat"), name="flat"),
                 tmp_path / "flat.json")
    err = _fail(capsys, ["fuse", QRELS, str(ja), str(jb)])
    assert "different datasets" in err and "'smaller'" in err
    disjoint = tmp_path / "other.run"
    disjoint.write_text("x1 Q0 d1 1 3.0 t\nx2 Q0 d2 1 2.0 t\n", encoding="utf-8")
    err = _fail(capsys, ["fuse", QRELS, str(a), str(disjoint)])
    assert "share no query id" in err


@pytest.mark.parametrize("extra, words", [
    (["--weights", "1,x"], "numbers separated by commas"),
    (["--weights", "1,2,3"], "3 weights for 2 runs"),
    (["--method", "alpha", "--alpha", "1.5"], "between 0 and 1"),
    (["--method", "rrf", "--norm", "zscore"], "combsum and combmnz only"),
    (["--sweep", "--weights", "0.5,0.5"], "drop --weights"),
    (["--sweep-metric", "ndgc@10", "--sweep"], "ndgc"),
])
def test_bad_options_are_one_sentence(runs, capsys, extra, words):
    a, b = runs
    assert words in _fail(capsys, ["fuse", QRELS, str(a), str(b), *extra])


def test_one_run_and_help(runs, capsys):
    assert "at least two runs" in _fail(capsys, ["fuse", QRELS, str(runs[0])])
    with pytest.raises(SystemExit) as exc:
        main(["fuse", "--help"])
    assert exc.value.code == 0
    help_text = capsys.readouterr().out
    assert "--sweep" in help_text and "Σ w_i / (k + r_i(d))" in help_text


def test_store_saves_the_fusion_as_a_pipeline_run(runs, capsys, tmp_path):
    from ragdash.runs import get_store
    from ragdash.runs.exchange import export_json

    a, b = runs
    out = _json(capsys, ["fuse", str(SAMPLE), str(a), str(b), "--store", "--name", "hybrid",
                         "--k", "1,10", "--format", "json"])
    store = get_store()
    saved = store.load(out["run_id"])
    assert saved.name == "hybrid" and saved.source == "fusion"
    assert [s["stage"] for s in saved.config["stages"]] == ["first", "first", "fusion"]
    assert saved.summary([1, 10]) == pytest.approx(out["metrics"])
    count = len(store.list())
    again = _json(capsys, ["fuse", str(SAMPLE), str(a), str(b), "--store", "--name", "again",
                           "--k", "1,10", "--format", "json"])
    assert again["run_id"] == out["run_id"] and len(store.list()) == count  # saved once
    default = _json(capsys, ["fuse", str(SAMPLE), str(a), str(b), "--store", "--format",
                             "json", "--rrf-k", "30"])
    assert store.load(default["run_id"]).name == "bm25 + flat (RRF)"
    # runs exported from the store: their ids become the parents, their dataset is found
    ids = []
    for path in (a, b):
        e = _json(capsys, ["evaluate", str(SAMPLE), "--k", "10", "--store", "--format",
                           "json", *(["--k1", "0.5"] if path == b else [])])
        ids.append(e["run_id"])
    files = []
    for i, run_id in enumerate(ids):
        f = tmp_path / f"r{i}.json"
        f.write_bytes(export_json(store.load(run_id)))
        files.append(str(f))
    out = _json(capsys, ["fuse", QRELS, *files, "--store", "--format", "json"])
    assert store.load(out["run_id"]).parents == ids
    err = _fail(capsys, ["fuse", QRELS, str(a), str(b), "--store"])
    assert "--store needs the dataset" in err
    assert "add --store" in _fail(capsys, ["fuse", QRELS, str(a), str(b), "--name", "x"])
