"""Ids that do not match ("1" in the corpus, "1.0" in the qrels): ``evaluate`` stops with
exit 2 before retrieving instead of printing a table of zeros; ``score`` says why every
metric of a run whose documents are all unjudged is 0 (the app refuses such a file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragdash.cli import main


@pytest.fixture
def mismatched(tmp_path: Path) -> Path:
    (tmp_path / "corpus.csv").write_text("id,text\n1,apple pie recipe\n2,banana bread\n"
                                         "3,cherry tart\n", encoding="utf-8")
    (tmp_path / "queries.csv").write_text("id,text\nq1,apple pie\nq2,banana\n", encoding="utf-8")
    (tmp_path / "qrels.csv").write_text("qid,docid,rel\nq1,1.0,1\nq2,2.0,1\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_evaluate_with_no_judged_document_in_the_corpus_exits_2(mismatched, capsys, fmt):
    code = main(["evaluate", str(mismatched), "--k", "1,3", "--kmax", "3", "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""  # no table of 0.0000
    assert "none of the judged documents is in the corpus" in err
    assert "cannot be evaluated" in err and "q1 → 1.0" in err


def test_score_names_a_run_whose_documents_are_all_unjudged(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 1 1\nq2 0 2 1\n", encoding="utf-8")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 1.0 1 2.5 x\nq1 Q0 3.0 2 1.5 x\nq2 Q0 2.0 1 2.0 x\n",
                   encoding="utf-8")
    assert main(["score", str(qrels), str(run), "--k", "1,3", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["metrics"]["ndcg@3"] == 0.0
    (said,) = report["warnings"]
    assert "none of the run's documents is judged" in said and "'1.0'" in said and "'1'" in said
    assert said in err
    # a run with one judged document says nothing
    run.write_text("q1 Q0 1 1 2.5 x\nq2 Q0 2.0 1 2.0 x\n", encoding="utf-8")
    assert main(["score", str(qrels), str(run), "--k", "1,3", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["warnings"] == [] and "judged" not in err
