"""``--retriever python --entry ...``: a team's own search on the command line and in a setup
file — ``evaluate``, ``run SETUP.toml`` and ``check QRELS BASELINE setup.toml`` — its metrics
equal pytrec_eval's on what the function returned, its latency in the JSON; and every bad entry
(missing module, attribute or file, an import or a factory that raises, failed queries) is one
sentence with exit code 2, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from paths import JSQUAD, ROOT

from ragdash.cli import main
from ragdash.loaders import load_dataset

N = 30

#: the user's module: a character-bigram search over the corpus that records what it returned
SEARCH_PY = '''
import json, os

DOCS = [json.loads(line) for line in open({corpus!r}, encoding="utf-8")]
LOG = os.environ.get("SEARCH_LOG")


def search(query, k):
    grams = {{query[i:i + 2] for i in range(len(query) - 1)}}
    scored = [(d["_id"], float(sum(g in d["text"] for g in grams))) for d in DOCS]
    scored = sorted((x for x in scored if x[1] > 1), key=lambda x: (-x[1], x[0]))[:k]
    if LOG:
        with open(LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({{"query": query, "hits": scored}}, ensure_ascii=False) + "\\n")
    return [{{"id": d, "score": s}} for d, s in scored]


def make():  # a factory: called with no arguments, returns the search
    return search
'''


def ragdash(*args, env=None, cwd=None):
    base = dict(os.environ)
    base["PYTHONPATH"] = str(ROOT)
    base.update(env or {})
    return subprocess.run([sys.executable, "-m", "ragdash", *map(str, args)],
                          capture_output=True, text=True, env=base, cwd=cwd or ROOT,
                          timeout=300)


@pytest.fixture(scope="module")
def jsquad():
    return load_dataset(JSQUAD)


@pytest.fixture
def user_code(tmp_path):
    folder = tmp_path / "my_rag"
    folder.mkdir()
    (folder / "search.py").write_text(SEARCH_PY.format(corpus=str(JSQUAD / "corpus.jsonl")),
                                      encoding="utf-8")
    return folder


def _pytrec(jsquad, log_path, query_ids):
    import pytrec_eval

    by_text = {}
    for line in log_path.read_text(encoding="utf-8").splitlines():
        got = json.loads(line)
        by_text[got["query"]] = {d: s for d, s in got["hits"]}
    texts = {q.id: q.text for q in jsquad.queries}
    run = {q: by_text[texts[q]] or {"__none__": 0.0} for q in query_ids}
    qrels = {q: {d: int(g) for d, g in jsquad.qrels[q].items()} for q in query_ids}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recall_10"}).evaluate(run)
    return {"ndcg@10": sum(got[q]["ndcg_cut_10"] for q in query_ids) / len(query_ids),
            "recall@10": sum(got[q]["recall_10"] for q in query_ids) / len(query_ids)}


def test_evaluate_run_and_check_a_python_entry(tmp_path, user_code, jsquad):
    log = tmp_path / "returned.jsonl"
    run_file = tmp_path / "own.run"
    proc = ragdash("evaluate", JSQUAD, "--retriever", "python", "--entry",
                   f"{user_code / 'search.py'}:search", "--concurrency", 3,
                   "--limit-queries", N, "--k", "1,10", "--format", "json",
                   "--save-run", run_file, env={"SEARCH_LOG": str(log)})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    qids = [q.id for q in jsquad.evaluated_queries(N)]
    want = _pytrec(jsquad, log, qids)
    for name, value in want.items():
        assert out["metrics"][name] == pytest.approx(value, abs=1e-12), name
    own = out["own_search"]
    assert own["concurrency"] == 3 and own["failed_queries"] == 0 and own["not_found"] == 0
    assert 0 < own["latency_ms"]["p50"] <= own["latency_ms"]["p95"] <= own["latency_ms"]["p99"]
    assert out["retriever"]["retriever"] == "python"

    # the same search from a setup file (the entry a module of the setup's folder, made by a
    # factory), reran by `run`: the same metrics
    setup = tmp_path / "own.toml"
    setup.write_text(textwrap.dedent(f"""\
        dataset = {json.dumps(str(JSQUAD))}
        k = [1, 10]
        limit_queries = {N}

        [retriever]
        kind = "python"
        entry = "my_rag/search.py:make"
        concurrency = 2
        """), encoding="utf-8")
    proc = ragdash("run", setup, "--format", "json", cwd=tmp_path / "my_rag")
    assert proc.returncode == 0, proc.stderr
    again = json.loads(proc.stdout)
    assert again["metrics"] == pytest.approx(out["metrics"], abs=1e-12)
    # the run records its entry as an absolute path, as it does its dataset
    assert again["retriever"]["setup"]["retriever"]["entry"] == \
        f"{(user_code / 'search.py').resolve()}:make"

    # and gated by `check` against the first run's file: the same ranking passes
    proc = ragdash("check", JSQUAD / "qrels" / "test.tsv", run_file, setup,
                   "--format", "json")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    gate = json.loads(proc.stdout)
    assert gate["decision"] == "pass" and gate["metrics"][0]["difference"] == 0


def test_the_text_report_says_the_latency_and_a_module_entry_works(user_code, monkeypatch,
                                                                  capsys):
    monkeypatch.syspath_prepend(str(user_code.parent))
    code = main(["evaluate", str(JSQUAD), "--retriever", "python", "--entry",
                 "my_rag.search:search", "--limit-queries", "5", "--k", "10"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "note: latency per query (at concurrency 1): p50 " in err


BROKEN = {
    "raises.py": "raise RuntimeError('no index configured')\n",
    "fine.py": "def search(query, k):\n    return []\n\ndef factory():\n"
               "    raise ValueError('missing OPENSEARCH_URL')\n\n"
               "def half(query, k):\n    if '梅雨' in query:\n"
               "        raise TimeoutError('read timed out')\n"
               "    return [('a0p0', 1.0)]\n",
}


@pytest.mark.parametrize("entry,said", [
    ("nosuch_module_xyz:search", "entry nosuch_module_xyz:search: no module named "
                                 "nosuch_module_xyz (run from the folder"),
    ("{d}/fine.py:serch", "has no attribute serch (it has: factory, half, search)"),
    ("{d}/missing.py:search", "missing.py does not exist"),
    ("{d}/raises.py:search", "importing it raised RuntimeError: no index configured"),
    ("{d}/fine.py:factory", "calling it with no arguments (a factory) raised ValueError: "
                            "missing OPENSEARCH_URL"),
    ("search_without_colon", "is not module:attribute or path/to/file.py:attribute"),
])
def test_a_bad_entry_is_one_sentence(tmp_path, capsys, entry, said):
    for name, body in BROKEN.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    code = main(["evaluate", str(JSQUAD), "--retriever", "python", "--entry",
                 entry.format(d=tmp_path), "--limit-queries", "3"])
    err = capsys.readouterr().err
    assert code == 2
    assert said in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_failed_queries_refuse_the_run_unless_allowed(tmp_path, capsys, monkeypatch):
    from ragdash.retrieval.own import retriever as own

    monkeypatch.setattr(own, "retry_delay", lambda attempt, headers: 0.0)
    (tmp_path / "fine.py").write_text(BROKEN["fine.py"], encoding="utf-8")
    args = ["evaluate", str(JSQUAD), "--retriever", "python", "--entry",
            f"{tmp_path}/fine.py:half", "--limit-queries", "12", "--k", "10"]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and "TimeoutError: read timed out" in err and "--allow-failures" in err
    assert "Traceback" not in err
    code = main([*args, "--allow-failures", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = json.loads(captured.out)
    failed = out["own_search"]["failed"]
    assert failed and all(why == "TimeoutError: read timed out" for _, why in failed)
    assert out["own_search"]["failed_queries"] == len(failed) < 12


def test_python_flags_belong_to_the_python_kind(capsys):
    code = main(["evaluate", str(JSQUAD), "--entry", "x:y", "--limit-queries", "3"])
    assert code == 2
    assert "--entry applies only to --retriever python" in capsys.readouterr().err


def test_a_setup_file_cannot_chunk_an_own_search(tmp_path, capsys):
    setup = tmp_path / "s.toml"
    setup.write_text('dataset = "x"\n[retriever]\nkind = "python"\nentry = "m:f"\n'
                     "[retriever.chunking]\nsize = 128\n", encoding="utf-8")
    code = main(["run", str(setup)])
    err = capsys.readouterr().err
    assert code == 2 and "s.toml" in err and "leave chunking out of this stage" in err
