"""The python kind in a setup: a first stage like any other — fused with BM25 and reranked by a
local cross-encoder — its run's setup recorded so that the saved run reruns; and ragdash
imports none of the frameworks it recognises."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest
from paths import ROOT

from ragdash.setup import run_setup, setup_from_dict, setup_from_run

SEARCH = '''
from ragdash.samples import load_sample

_DS = load_sample("jsquad-mini")


def search(query, k):
    grams = {query[i:i + 2] for i in range(len(query) - 1)}
    scored = [(d.id, float(sum(g in d.text for g in grams))) for d in _DS.documents]
    return sorted((x for x in scored if x[1] > 1), key=lambda x: (-x[1], x[0]))[:k]
'''


def test_fusion_and_rerank_take_a_python_first_stage(tmp_path, tiny_model):
    (tmp_path / "own_search.py").write_text(SEARCH, encoding="utf-8")
    raw = {"dataset": "sample:jsquad-mini", "k": [1, 10], "kmax": 20, "limit_queries": 12,
           "retrievers": [{"kind": "python", "entry": "own_search.py:search"},
                          {"kind": "bm25"}],
           "fusion": {"method": "rrf"},
           "rerank": {"kind": "local", "model": str(tiny_model[0]), "depth": 5}}
    setup = setup_from_dict(raw, base=tmp_path)
    events = []
    run = run_setup(setup, progress=events.append)
    stages = [s["stage"] for s in run.config["stages"]]
    assert stages == ["first", "first", "fusion", "rerank"]
    first = run.config["stages"][0]
    assert first["retriever"].startswith("python:") and first["config"]["entry"] == \
        "own_search.py:search"
    assert any(e.get("stage") == "searching" and e["step"].startswith("1/4") for e in events)
    assert len(run.query_ids) == 12 and 0 < run.table().mean("recall@10") <= 1
    # the run names its setup: it reruns as it was made
    again = setup_from_run(run)
    assert again.retrievers[0].kind == "python"
    assert again.retrievers[0].options["entry"] == f"{tmp_path.resolve()}/own_search.py:search"


def test_a_search_handed_in_from_python_cannot_be_written_as_a_setup_file():
    import ragdash
    from ragdash.errors import DatasetError
    from ragdash.samples import load_sample

    ds = load_sample("jsquad-mini")
    run = ragdash.evaluate_search(ds, lambda q, k: ["a0p0"], k=5, limit_queries=2,
                                  resume=False, name="mine")
    with pytest.raises(DatasetError, match=r"mine cannot be written as a setup file: .*entry"):
        setup_from_run(run)


def test_ragdash_imports_no_framework_for_a_plain_function():
    code = ("import sys, ragdash\n"
            "from ragdash.samples import load_sample\n"
            "ds = load_sample('jsquad-mini')\n"
            "run = ragdash.evaluate_search(ds, lambda q, k: ['a0p0'], k=5, limit_queries=2,"
            " resume=False, allow_failures=True)\n"
            "print([m for m in ('langchain_core', 'llama_index', 'haystack') "
            "if m in sys.modules])\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr  # one answer of 'a0p0' per query: a run
    assert proc.stdout.strip() == "[]"


def test_the_setup_files_in_the_docs_are_setups():
    """Every TOML block of docs/own-retriever.md reads as a setup (the retriever tables alone
    get the first block's dataset and K)."""
    import re

    page = (ROOT / "docs" / "own-retriever.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", page, re.S)
    assert len(blocks) >= 4
    for block in blocks:
        raw = tomllib.loads(block)
        setup = setup_from_dict({"dataset": "data/jsquad-valid", **raw})
        assert setup.retrievers[0].kind in ("python", "http")
