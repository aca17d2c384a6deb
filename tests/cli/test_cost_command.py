"""``python -m ragdash cost``: the JSON contract, exactly the texts evaluate embeds, errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from paths import JSQUAD, ROOT

from ragdash.cli import main
from ragdash.cost.catalog import load_catalog
from ragdash.cost.tokens import load_cl100k

ARTICLE = ROOT / "ragdash" / "data" / "samples" / "article_ja.json"


def jsquad_dir() -> Path:
    return JSQUAD


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGDASH_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "ragdash", "cost", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def jsquad_texts(limit: int | None = None) -> tuple[list[str], list[str]]:
    """Built from the raw files, independently of ragdash's loaders: documents as
    title + " " + text, then the queries that have qrels, in file order."""
    folder = jsquad_dir()
    docs = []
    for line in (folder / "corpus.jsonl").open(encoding="utf-8"):
        d = json.loads(line)
        docs.append(f"{d['title']} {d['text']}" if d.get("title") else d["text"])
    with (folder / "qrels" / "test.tsv").open(encoding="utf-8") as f:
        judged = {r["query-id"] for r in csv.DictReader(f, delimiter="\t")}
    queries = [q["text"] for q in map(json.loads, (folder / "queries.jsonl").open(
        encoding="utf-8")) if str(q["_id"]) in judged]
    return docs, queries if limit is None else queries[:limit]


def exact(texts: list[str]) -> int:
    return sum(len(t) for t in load_cl100k().encode_ordinary_batch(texts))


def test_json_contract_on_jsquad(home):
    docs, queries = jsquad_texts()
    proc = run_cli(str(jsquad_dir()), "--model", "text-embedding-3-small", "--format", "json",
                   home=home)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out)[:5] == ["tokens", "token_method", "usd", "jpy", "per_provider"]
    assert out["token_method"] == "tiktoken cl100k_base"
    assert out["tokens"] == exact(docs) + exact(queries)
    assert (out["tokens_documents"], out["tokens_queries"]) == (exact(docs), exact(queries))
    assert (out["documents"], out["queries"]) == (len(docs), len(queries))
    assert out["usd"] == pytest.approx(out["tokens"] * 0.02 / 1e6)
    assert out["jpy"] == pytest.approx(out["usd"] * 155)
    assert out["naive"]["tokens"] == len(queries) * exact(docs) + exact(queries)

    rows = out["per_provider"]
    assert all({"provider", "model", "usd", "jpy"} <= set(r) for r in rows)
    assert [r["usd"] for r in rows] == sorted(r["usd"] for r in rows)
    priced = {(r.provider, r.model) for r in load_catalog(include_user=False)
              if r.model != "*"}
    assert {(r["provider"], r["model"]) for r in rows} == priced
    large = next(r for r in rows if (r["provider"], r["model"])
                 == ("OpenAI", "text-embedding-3-large"))
    assert large["usd"] == pytest.approx(out["tokens"] * 0.13 / 1e6)


def test_limit_queries_counts_the_first_n_judged_queries(capsys):
    docs, queries = jsquad_texts(limit=10)
    assert main(["cost", str(jsquad_dir()), "--model", "voyage-3.5", "--limit-queries", "10",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["queries"] == 10
    assert out["tokens_queries"] == exact(queries)
    assert out["tokens"] == exact(docs) + exact(queries)
    assert out["usd"] == pytest.approx(out["tokens"] * 0.06 / 1e6)


def test_table_on_the_bundled_sample(capsys):
    assert main(["cost", str(ARTICLE), "--model", "text-embedding-3-large",
                 "--provider", "Azure OpenAI"]) == 0
    text = capsys.readouterr().out
    assert "Azure OpenAI / text-embedding-3-large" in text
    assert "[tiktoken cl100k_base]" in text
    assert "cheapest first" in text and "voyage-3-large" in text


def test_user_rows_and_rate(capsys, home):
    home.mkdir(parents=True)
    (home / "prices.user.csv").write_text(
        "provider,model,usd_per_1m,jpy_per_usd\nMy relay,text-embedding-3-small,0.02,1\n",
        encoding="utf-8")
    assert main(["cost", str(ARTICLE), "--model", "text-embedding-3-small",
                 "--provider", "my relay", "--format", "json", "--jpy-per-usd", "100"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["provider"] == "My relay"
    assert out["jpy"] == pytest.approx(out["usd"])  # the row's own ¥1 = $1
    by = {(r["provider"], r["model"]): r for r in out["per_provider"]}
    assert by[("OpenAI", "text-embedding-3-small")]["jpy"] == pytest.approx(
        by[("OpenAI", "text-embedding-3-small")]["usd"] * 100)


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "text-embeding-3-small"], "Close matches: text-embedding-3-small"),
    (["--model", "text-embedding-3-small", "--provider", "nobody"], 'unknown provider "nobody"'),
], ids=["unknown-model", "unknown-provider"])
def test_errors_are_one_line(capsys, args, message):
    assert main(["cost", str(ARTICLE), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert err.count("\n") == 1


def test_missing_dataset_is_one_line(home):
    proc = run_cli("no/such/folder", "--model", "text-embedding-3-small", home=home)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
