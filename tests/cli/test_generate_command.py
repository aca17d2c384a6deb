"""``python -m ragdash generate``: the plan before anything is sent, a run against a real chat
server with --validate, and bad input as one sentence."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fake_chat import FakeChat
from paths import JSQUAD

from ragdash.cli import main
from ragdash.dataset import Dataset
from ragdash.loaders import load_dataset, write_beir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generate"))
from world import Writer


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tmp_path / "home"


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """120 jsquad-valid passages with their human questions, as a BEIR folder."""
    full = load_dataset(JSQUAD)
    docs = full.documents[:120]
    keep = {d.id for d in docs}
    qrels = {q: r for q, r in full.qrels.items() if set(r) <= keep}
    queries = [q for q in full.queries if q.id in qrels]
    folder = tmp_path_factory.mktemp("small")
    return write_beir(Dataset(docs, queries, qrels, name="small"), folder)


def test_estimate_sends_nothing_and_says_the_cost(home, small, capsys):
    with FakeChat(answer=Writer({})) as server:
        code = main(["generate", str(small), "--n", "12", "--base-url", server.url,
                     "--model", "gpt-4o-mini", "--estimate", "--format", "json"])
        assert code == 0 and server.requests == []
    est = json.loads(capsys.readouterr().out)["estimate"]
    assert est["sampled"] == 12 and est["writing"]["requests"] == 12
    assert est["languages"] == {"ja": 12}
    assert est["total_at_most"]["requests"] == 12 + 12 + 12 * 10
    assert {"usd", "jpy"} <= set(est["writing"])


def test_a_run_writes_the_set_and_validates_it(home, small, tmp_path, capsys):
    out = tmp_path / "generated"
    with FakeChat(answer=Writer({})) as server:
        code = main(["generate", str(small), "--n", "15", "--base-url", server.url,
                     "--model", "gpt-4o-mini", "--out", str(out), "--validate", str(small)])
        assert code == 0
        said = capsys.readouterr().out
        assert "15 written" in said and "Beyond the source" in said
        assert "synthetic queries (" in said and "Kendall's tau" in said
        assert "0.83–0.85" in said
        loaded = load_dataset(out)
        assert loaded.synthetic["generators"] == {"gpt-4o-mini": len(loaded.queries)}
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["written"] == 15

        sent = len(server.requests)  # the same seed again: all cached
        code = main(["generate", str(small), "--n", "15", "--base-url", server.url,
                     "--model", "gpt-4o-mini", "--out", str(out), "--format", "json",
                     "--no-store"])
        assert code == 0 and len(server.requests) == sent
    report = json.loads(capsys.readouterr().out)
    assert report["usage"]["writing"]["requests"] == 0 and report["stored"] is None


def test_bad_input_is_one_sentence(home, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code = main(["generate", str(tmp_path / "empty"), "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "no document to write queries from" in err and "\n" not in err
    one = tmp_path / "one.jsonl"
    one.write_text('{"_id": "a", "text": "the only document there is"}\n', encoding="utf-8")
    code = main(["--lang", "ja", "generate", str(one), "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "1 件だけ" in err
    code = main(["generate", str(JSQUAD), "--base-url", "https://api.example.com/v1",
                 "--model", "m"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "OPENAI_API_KEY" in err and "\n" not in err
