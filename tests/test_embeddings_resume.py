"""A run killed mid-way (SIGKILL, a real process) and started again pays only for what is
missing; a third run makes no calls; the key never reaches a file under RAGDASH_HOME."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
from fake_openai import FakeOpenAI, fake_server_fixture  # noqa: F401

from ragdash.embeddings.cache import EmbeddingCache, text_hash

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-proj-RESUME-TEST-KEY-91b7e0d4c3"
N_DOCS, N_QUERIES, BATCH = 40, 20, 4

SCRIPT = textwrap.dedent("""
    import json, os, sys
    from ragdash import Dataset, Document, Query
    from ragdash.embeddings import make_dense_retriever

    url, home = sys.argv[1], sys.argv[2]
    n_docs, n_queries, batch = map(int, sys.argv[3:6])
    docs = [Document(f"d{i}", f"document number {i} about topic {i % 7}") for i in range(n_docs)]
    queries = [Query(f"q{i}", f"question {i} on topic {i % 7}") for i in range(n_queries)]
    ds = Dataset(docs, queries, {q.id: {"d0": 1.0} for q in queries})
    r = make_dense_retriever("openai", model="emb-1", base_url=url,
                             api_key=os.environ["OPENAI_API_KEY"], cache_dir=home,
                             batch_size=batch, concurrency=1)
    ranking = r.rank(ds, ds.queries, 5)
    print(json.dumps({"usage": r.usage, "ranking": ranking.to_dict()}))
""")


def texts():
    docs = [f"document number {i} about topic {i % 7}" for i in range(N_DOCS)]
    queries = [f"question {i} on topic {i % 7}" for i in range(N_QUERIES)]
    return docs, queries


def start(script, server, home):
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(script), server.url, str(home), str(N_DOCS),
                             str(N_QUERIES), str(BATCH)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


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
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    home = tmp_path / "home"

    proc = start(script, fake_server, home)
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
    proc = start(script, fake_server, home)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    result = json.loads(out)
    resent = list(fake_server.served)
    assert len(resent) == total - len(at_kill)                  # only the missing ones
    assert not {text_hash(t) for t in resent} & at_kill          # nothing paid twice
    assert result["usage"]["cached_texts"] == len(at_kill)
    assert result["usage"]["prompt_tokens"] == fake_server.served_tokens
    assert len(fake_server.requests) == -(-len(resent) // BATCH)  # full batches

    # The ranking equals an independent numpy cosine ranking of the server's vectors.
    docs, queries = texts()
    D = np.stack([FakeOpenAI.vector(t, fake_server.dim) for t in docs]).astype(np.float64)
    Q = np.stack([FakeOpenAI.vector(t, fake_server.dim) for t in queries]).astype(np.float64)
    S = (Q / np.linalg.norm(Q, axis=1, keepdims=True)) @ (
        D / np.linalg.norm(D, axis=1, keepdims=True)).T
    for i in range(N_QUERIES):
        top = np.argsort(-S[i], kind="stable")[:5]
        assert list(result["ranking"][f"q{i}"]) == [f"d{j}" for j in top]

    fake_server.requests.clear()
    proc = start(script, fake_server, home)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert fake_server.requests == []                            # a third run calls nothing
    assert json.loads(out)["usage"]["cached_texts"] == total

    for path in [p for p in tmp_path.rglob("*") if p.is_file() and p != script]:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in out and KEY not in err
