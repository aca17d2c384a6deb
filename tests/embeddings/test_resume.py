"""A run killed mid-way (SIGKILL, a real ``python -m ragdash evaluate`` process) and started
again pays only for what is missing; a third run makes no calls; the key never reaches a file
under RAGDASH_HOME nor the output."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from fake_openai import FakeOpenAI, fake_server_fixture  # noqa: F401
from paths import ROOT

from ragdash import Ranking
from ragdash.embeddings.cache import EmbeddingCache, text_hash

KEY = "sk-proj-RESUME-TEST-KEY-91b7e0d4c3"
N_DOCS, N_QUERIES, BATCH = 40, 20, 4
DOCS = [f"document number {i} about topic {i % 7}" for i in range(N_DOCS)]
QUERIES = [f"question {i} on topic {i % 7}" for i in range(N_QUERIES)]


def write_beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w") as f:
        for i, text in enumerate(DOCS):
            f.write(json.dumps({"_id": f"d{i}", "title": "", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for i, text in enumerate(QUERIES):
            f.write(json.dumps({"_id": f"q{i}", "text": text}) + "\n")
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(N_QUERIES)))
    return folder


def start(server, home, data, run_file):
    env = {**os.environ, "OPENAI_API_KEY": KEY, "RAGDASH_HOME": str(home),
           "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "ragdash", "evaluate", str(data), "--retriever", "openai",
         "--model", "emb-1", "--base-url", server.url, "--batch-size", str(BATCH),
         "--concurrency", "1", "--format", "json", "--save-run", str(run_file)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cached_hashes(home):
    path = EmbeddingCache(home).path
    if not path.exists():
        return set()
    conn = sqlite3.connect(path, timeout=30)
    try:
        return {bytes(h) for (h,) in conn.execute("SELECT text_sha256 FROM embeddings")}
    except sqlite3.OperationalError:  # the table is not there yet
        return set()
    finally:
        conn.close()


def test_killed_run_resumes_paying_only_for_missing_texts(fake_server, tmp_path):
    fake_server.api_key = KEY
    fake_server.latency = 0.1
    data = write_beir(tmp_path / "data")
    home, run_file = tmp_path / "home", tmp_path / "run.trec"

    proc = start(fake_server, home, data, run_file)
    deadline = time.monotonic() + 60
    while len(cached_hashes(home)) < 3 * BATCH:  # three batches committed
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no batch was cached in time"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL and out == ""
    at_kill = cached_hashes(home)
    total = N_DOCS + N_QUERIES
    assert 3 * BATCH <= len(at_kill) < total

    fake_server.wait_idle()  # the killed run's last request may still be in the server
    fake_server.served.clear()
    fake_server.requests.clear()
    proc = start(fake_server, home, data, run_file)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    usage = json.loads(out)["usage"]
    resent = list(fake_server.served)
    assert len(resent) == total - len(at_kill)                  # only the missing ones
    assert not {text_hash(t) for t in resent} & at_kill          # nothing paid twice
    assert usage == {"requests": -(-len(resent) // BATCH), "prompt_tokens":
                     fake_server.served_tokens, "embedded_texts": len(resent),
                     "cached_texts": len(at_kill)}
    assert len(fake_server.requests) == usage["requests"]

    # The ranking equals an independent numpy cosine ranking of the server's vectors.
    D = np.stack([FakeOpenAI.vector(t, fake_server.dim) for t in DOCS]).astype(np.float64)
    Q = np.stack([FakeOpenAI.vector(t, fake_server.dim) for t in QUERIES]).astype(np.float64)
    S = (Q / np.linalg.norm(Q, axis=1, keepdims=True)) @ (
        D / np.linalg.norm(D, axis=1, keepdims=True)).T
    ranking = Ranking.read_trec(run_file)
    for i in range(N_QUERIES):
        docs, scores = ranking.get(f"q{i}")
        order = np.argsort(-S[i], kind="stable")
        assert docs == [f"d{j}" for j in order]
        np.testing.assert_allclose(scores, S[i, order], atol=1e-5)

    fake_server.requests.clear()
    proc = start(fake_server, home, data, run_file)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert fake_server.requests == []                            # a third run calls nothing
    assert json.loads(out)["usage"]["cached_texts"] == total

    for path in [p for p in tmp_path.rglob("*") if p.is_file()]:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in out and KEY not in err
