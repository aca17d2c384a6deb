"""``python -m ragdash score QRELS RUN``: the contract scripts rely on, the qrels fast path,
and the shared output helpers in ``ragdash.cli._output``."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import pytrec_eval
from paths import ROOT, TESTS

from ragdash import Ranking
from ragdash.cli import build_parser, main
from ragdash.cli._output import format_metrics, format_table, parse_ks, to_json
from ragdash.errors import MetricError
from ragdash.formats.qrels import read_qrels_fast
from ragdash.loaders import load_qrels
from ragdash.metrics import FAMILY_NAMES, evaluate, metric_names

JSQUAD_QRELS = TESTS / "data" / "jsquad-valid" / "qrels" / "test.tsv"


@pytest.fixture()
def files(tmp_path):
    """A small graded qrels + run pair: q1..q30 in both, q31/q32 in the qrels only, r1 in the
    run only, q5 judged with grade 0 only."""
    rng = np.random.default_rng(3)
    qrels, run = {}, {}
    for i in range(1, 33):
        q = f"q{i}"
        qrels[q] = {f"d{j}": int(rng.integers(0, 3 if i != 5 else 1))
                    for j in rng.choice(40, 6, replace=False)}
        if i <= 30:
            run[q] = {f"d{j}": float(rng.integers(0, 8)) for j in rng.choice(40, 15, False)}
    run["r1"] = {"d1": 1.0}
    qpath, rpath = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items()))
    Ranking.from_dict(run).write_trec(rpath, tag="t")
    return qpath, rpath, qrels, run


def score(capsys, *args):
    code = main(["score", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


# -- the JSON contract ---------------------------------------------------------------------
def test_json_has_queries_metrics_and_missing(files, capsys):
    qpath, rpath, qrels, run = files
    code, out, err = score(capsys, qpath, rpath, "--k", "1,5,10", "--format", "json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["queries"] == 30
    assert list(doc["metrics"]) == metric_names([1, 5, 10])  # every family at every K
    assert doc["missing_queries"] == 2  # q31, q32
    assert doc["run_only_queries"] == 1
    assert doc["queries_without_relevant"] == 1  # q5
    assert "per_query" not in doc
    table = evaluate(Ranking.from_dict(run), qrels, kmax=10)
    for name, value in doc["metrics"].items():
        assert value == pytest.approx(table.mean(name), abs=1e-12)


def test_json_means_match_pytrec_eval(files, capsys):
    qpath, rpath, qrels, run = files
    _, out, _ = score(capsys, qpath, rpath, "--k", "1-20", "--format", "json")
    doc = json.loads(out)
    ks = ",".join(map(str, range(1, 21)))
    res = pytrec_eval.RelevanceEvaluator(
        qrels, {f"recall.{ks}", f"P.{ks}", f"success.{ks}", f"ndcg_cut.{ks}",
                f"map_cut.{ks}"}).evaluate(run)
    assert len(res) == doc["queries"]
    for fam, m in {"recall": "recall", "precision": "P", "hit_rate": "success",
                   "ndcg": "ndcg_cut", "map": "map_cut"}.items():
        for k in range(1, 21):
            want = sum(r[f"{m}_{k}"] for r in res.values()) / len(res)
            assert doc["metrics"][f"{fam}@{k}"] == pytest.approx(want, abs=1e-12), (fam, k)


def test_per_query_and_relevance_level(files, capsys):
    qpath, rpath, qrels, run = files
    _, out, _ = score(capsys, qpath, rpath, "--k", "3", "--relevance-level", "2",
                      "--per-query", "--format", "json")
    doc = json.loads(out)
    assert doc["relevance_level"] == 2
    assert set(doc["per_query"]) == {f"q{i}" for i in range(1, 31)}
    assert list(doc["per_query"]["q1"]) == metric_names([3])
    table = evaluate(Ranking.from_dict(run), qrels, kmax=3, relevance_level=2)
    for q, row in doc["per_query"].items():
        i = table.query_ids.index(q)
        for name, v in row.items():
            assert v == table.value(name)[i]


def test_exponential_gain_option(files, capsys):
    qpath, rpath, qrels, run = files
    _, out, _ = score(capsys, qpath, rpath, "--k", "10", "--gain", "exponential",
                      "--format", "json")
    want = evaluate(Ranking.from_dict(run), qrels, kmax=10, gain="exponential")
    assert json.loads(out)["metrics"]["ndcg@10"] == pytest.approx(want.mean("ndcg@10"))


def test_whole_process_json_keeps_japanese_ids(tmp_path):
    (tmp_path / "q.tsv").write_text(
        "query-id\tcorpus-id\tscore\n質問1\t文書A\t2\n質問1\t文書B\t1\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("質問1 Q0 文書B 1 2.0 t\n質問1 Q0 文書C 2 1.0 t\n",
                                    encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "ragdash", "score", "q.tsv", "r.txt", "--k",
                           "1,2", "--per-query", "--format", "json"], cwd=tmp_path,
                          capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert "質問1" in proc.stdout  # ensure_ascii=False
    doc = json.loads(proc.stdout)
    # B (grade 1) at rank 1; ideal: A (2), B (1) -> nDCG@1 = 1/2
    assert doc["per_query"]["質問1"]["ndcg@1"] == 0.5
    assert doc["metrics"]["recall@2"] == 0.5


# -- the table ----------------------------------------------------------------------------
def test_table_output_and_missing_queries_on_stderr(files, capsys):
    qpath, rpath, *_ = files
    code, out, err = score(capsys, qpath, rpath, "--k", "1,10")
    assert code == 0
    assert "30 queries scored" in out and "1 of them without a relevant document" in out
    header = next(line for line in out.splitlines() if line.startswith("metric"))
    assert header.split() == ["metric", "@1", "@10"]
    for label in ("Recall", "Precision", "Hit rate", "MRR", "nDCG", "MAP"):
        assert any(line.startswith(label) for line in out.splitlines()), label
    assert "2 of the 32 qrels queries are not in the run" in err
    assert "1 run queries have no qrels" in err


def test_table_per_query(files, capsys):
    qpath, rpath, *_ = files
    _, out, _ = score(capsys, qpath, rpath, "--k", "5", "--per-query")
    lines = out.splitlines()
    assert any(line.startswith("query") and "ndcg@5" in line for line in lines)
    assert sum(1 for line in lines if line.startswith("q")) >= 30


def test_beir_qrels_with_header(tmp_path, capsys):
    qrels = load_qrels(JSQUAD_QRELS)
    qids = list(qrels)[:20]
    run = {q: {d: 1.0 + i for i, d in enumerate(sorted(qrels[q]))} for q in qids}
    run["a10336p0q0"]["a999p9"] = 0.5
    rpath = tmp_path / "run.txt"
    Ranking.from_dict(run).write_trec(rpath)
    _, out, _ = score(capsys, JSQUAD_QRELS, rpath, "--k", "1,100", "--format", "json")
    doc = json.loads(out)
    assert doc["queries"] == 20
    assert doc["missing_queries"] == len(qrels) - 20
    assert doc["metrics"]["recall@100"] == 1.0  # every judged document was retrieved
    # the best-scored document is the last in sorted order: grade 1 or 2, both relevant
    assert doc["metrics"]["hit_rate@1"] == 1.0


# -- errors: one line, non-zero ------------------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["{q}", "{missing}"], "cannot read the run file"),
    (["{missing}", "{r}"], "nope.txt"),
    (["{q}", "{r}", "--k", "0"], "--k: cutoffs start at 1"),
    (["{q}", "{r}", "--k", "a,b"], "not a whole number"),
    (["{q}", "{r}", "--relevance-level", "0"], "relevance level must be a number > 0"),
    (["{q}", "{bad_run}"], "line 2: expected 6 columns"),
    (["{other_q}", "{r}"], "no query id in common"),
])
def test_errors_are_one_line_exit_2(files, tmp_path, capsys, args, message):
    qpath, rpath, *_ = files
    bad_run = tmp_path / "bad.txt"
    bad_run.write_text("q1 Q0 d1 1 1 t\nq1 Q0 d2 1 t\n")
    other_q = tmp_path / "other.txt"
    other_q.write_text("x1 0 d1 1\n")
    paths = {"q": qpath, "r": rpath, "missing": tmp_path / "nope.txt", "bad_run": bad_run,
             "other_q": other_q}
    code, out, err = score(capsys, *(a.format(**paths) for a in args))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert message in err
    assert "Traceback" not in err


def test_help_explains_every_option():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["score"]
    text = sub.format_help()
    for action in sub._actions:
        assert action.help, action.dest
        for opt in action.option_strings:
            assert opt in text
    for word in ("QRELS", "RUN", "trec_eval", "json", "missing", "1-100"):
        assert word in text


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["score", "only-one-arg"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(["score", "a", "b", "--format", "xml"])


# -- the qrels fast path -------------------------------------------------------------------
QRELS_TEXTS = {
    "trec": "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n",
    "trec-messy": "q1 0  d1 1\r\n\r\nq1 0 d2   0\r\nq2 Q0 d1 2",
    "tabs": "q1\t0\td1\t1\nq2\t0\td1\t2\n",
    "beir-header": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td1\t2\n",
    "beir-no-header": "q1\td1\t1\nq2\td1\t2\n",
    "float-and-negative": "q1 0 d1 0.8\nq1 0 d2 -1\nq1 0 d3 1e0\n",
    "japanese": "\ufeff質問 0 文書 1\n質問 0 文書2 2\n",
    "interleaved": "q2 0 d1 1\nq1 0 d1 1\nq2 0 d2 1\n",
}


@pytest.mark.parametrize("name", list(QRELS_TEXTS))
def test_fast_qrels_reader_agrees_with_the_loader(tmp_path, name):
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS_TEXTS[name], encoding="utf-8")
    fast = read_qrels_fast(path)
    assert fast is not None
    slow = load_qrels(path)
    assert fast == slow and list(fast) == list(slow)
    for q in fast:
        assert list(fast[q]) == list(slow[q])


def test_fast_qrels_reader_splits_on_any_whitespace_like_trec_eval(tmp_path):
    # tabs and spaces mixed on one line: trec_eval reads it, so does score
    path = tmp_path / "qrels.txt"
    path.write_text("q1\t0  d1 1\nq2 0\td1\t2\n")
    assert read_qrels_fast(path) == {"q1": {"d1": 1.0}, "q2": {"d1": 2.0}}


def test_fast_qrels_reader_agrees_on_jsquad():
    assert read_qrels_fast(JSQUAD_QRELS) == load_qrels(JSQUAD_QRELS)


@pytest.mark.parametrize("text", [
    "q1 0 d1 1\nq1 0 d1 1\n",          # judged twice: the loader's policy decides
    "q1 0 d1 high\n",                  # not a number: the loader names the line
    "q1 0 d1 1 extra\n",               # five columns
    "q1,d1,1\n",                        # CSV
    '{"q1": {"d1": 1}}',                # JSON
    "q1 0 d1 1\nq2 0 d1\n",            # ragged
    "q1 0 d1 nan\n",
    "",
])
def test_fast_qrels_reader_defers_to_the_loader(tmp_path, text):
    path = tmp_path / "qrels.txt"
    path.write_text(text, encoding="utf-8")
    assert read_qrels_fast(path) is None


def test_score_reads_other_qrels_layouts_through_the_loader(files, tmp_path, capsys):
    qpath, rpath, qrels, _ = files
    as_json = tmp_path / "qrels.json"
    as_json.write_text(json.dumps(qrels))
    _, out_json, _ = score(capsys, as_json, rpath, "--k", "5", "--format", "json")
    _, out_trec, _ = score(capsys, qpath, rpath, "--k", "5", "--format", "json")
    assert json.loads(out_json)["metrics"] == json.loads(out_trec)["metrics"]
    bad = tmp_path / "bad_qrels.txt"
    bad.write_text("q1 0 d1 1\nq1 0 d2 high\n")
    code, _, err = score(capsys, bad, rpath)
    assert code == 2 and "line 2" in err and err.count("\n") == 1


# -- shared output helpers -----------------------------------------------------------------
@pytest.mark.parametrize("text, want", [
    ("1,5,10", [1, 5, 10]), ("10,1,5,5", [1, 5, 10]), ("1-3,10", [1, 2, 3, 10]),
    (" 3 ", [3]), ("1-100", list(range(1, 101))),
])
def test_parse_ks(text, want):
    assert parse_ks(text) == want


@pytest.mark.parametrize("text", ["", ",", "1,,2", "a", "0", "-1", "5-2", "1.5", "20000",
                                  "1-x"])
def test_parse_ks_errors(text):
    with pytest.raises(MetricError, match="--k"):
        parse_ks(text)


def test_format_metrics_layouts():
    metrics = {f"{f}@{k}": k / 100 for f in FAMILY_NAMES for k in (1, 10)}
    text = format_metrics(metrics, max_width=100)
    lines = text.splitlines()
    assert lines[0].split() == ["metric", "@1", "@10"]
    assert lines[2].split() == ["Recall", "0.0100", "0.1000"]
    # every value column right-aligned to the same edge
    assert len({len(line) for line in lines}) == 1
    many = {f"ndcg@{k}": 0.5 for k in range(1, 101)}
    tall = format_metrics(many, max_width=80).splitlines()
    assert tall[0].split() == ["K", "nDCG"] and len(tall) == 102
    assert format_metrics(many, layout="families", max_width=80).count("nDCG") > 1  # wrapped


def test_format_table_aligns_wide_characters():
    text = format_table(["query", "v"], [["日本語", 0.5], ["abc", float("nan")]])
    rows = text.splitlines()
    assert rows[2].endswith("0.5000") and rows[3].endswith("n/a")
    # the display width (CJK counts 2) of every row is the same
    import unicodedata

    def width(s):
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
    assert width(rows[2]) == width(rows[3])


def test_to_json_is_stable_readable_and_valid():
    obj = {"b": np.float64(0.5), "a": [np.int64(1), float("nan")], "日本": math.inf}
    text = to_json(obj)
    assert json.loads(text) == {"b": 0.5, "a": [1, None], "日本": None}
    assert "日本" in text
    assert list(json.loads(text)) == ["b", "a", "日本"]  # insertion order kept
