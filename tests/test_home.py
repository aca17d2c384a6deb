"""An unwritable RAGDASH_HOME is found before the first paid request, in the command line
(embeddings and rerank) and in the app's run job. It is refused, also when the read-only home
holds a cache (docs/providers-and-keys.md says to copy the cache into a writable RAGDASH_HOME
to reuse it). Real servers on 127.0.0.1 count the requests."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from app_support import custom_server, new_app, open_sample, wait_for_jobs
from fake_openai import FakeOpenAI
from fake_rerank import FakeRerank
from paths import ROOT

ARTICLE = ROOT / "ragdash" / "data" / "samples" / "article_ja.json"
SAMPLE = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"


def ragdash(*args, home: Path, key: str = "sk-test"):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGDASH_HOME": str(home),
           "OPENAI_API_KEY": key}
    return subprocess.run([sys.executable, "-m", "ragdash", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def evaluate_args(server) -> list:
    return ["evaluate", ARTICLE, "--retriever", "openai", "--model", "emb-1",
            "--base-url", server.url]


@contextlib.contextmanager
def read_only(folder: Path):
    """``folder`` as a read-only folder: a read-only bind mount when running as root (root
    writes through permission bits), else permission bits."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
        for p in modes:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            yield folder
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    view = folder.with_name(folder.name + "-ro")
    view.mkdir()
    ok = subprocess.run(["mount", "--bind", str(folder), str(view)], capture_output=True)
    if ok.returncode != 0:
        pytest.skip(f"cannot make a read-only folder as root here: {ok.stderr!r}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True,
                       capture_output=True)
        yield view
    finally:
        subprocess.run(["umount", str(view)], capture_output=True)


def test_a_home_that_cannot_be_created_costs_no_request(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with FakeOpenAI() as server:
        proc = ragdash(*evaluate_args(server), home=blocker / "home")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert server.embedding_requests == []  # was: 1 request paid, then the error
    assert "Cannot write the embeddings cache" in proc.stderr
    assert "so nothing was sent" in proc.stderr and "RAGDASH_HOME" in proc.stderr


def test_an_empty_read_only_home_costs_no_request(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with FakeOpenAI() as server, read_only(home) as ro:
        proc = ragdash(*evaluate_args(server), home=ro)
        assert proc.returncode == 2, proc.stderr
        assert server.embedding_requests == []
    assert "Cannot write the embeddings cache" in proc.stderr


def test_a_read_only_home_with_a_cache_is_refused_and_the_copy_advice_works(tmp_path):
    home = tmp_path / "home"
    with FakeOpenAI() as server:
        assert ragdash(*evaluate_args(server), home=home).returncode == 0
        paid = len(server.embedding_requests)
        with read_only(home) as ro:
            proc = ragdash(*evaluate_args(server), home=ro)
        assert proc.returncode == 2 and len(server.embedding_requests) == paid
        assert "copy embeddings.sqlite into it first" in proc.stderr
        # the advice: a writable home with the cache copied in answers from the cache
        fresh = tmp_path / "fresh"
        fresh.mkdir()
        shutil.copy(home / "embeddings.sqlite", fresh / "embeddings.sqlite")
        for suffix in ("-wal", "-shm"):
            if (home / f"embeddings.sqlite{suffix}").exists():
                shutil.copy(home / f"embeddings.sqlite{suffix}", fresh)
        again = ragdash(*evaluate_args(server), "--format", "json", home=fresh)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["usage"]["requests"] == 0
        assert len(server.embedding_requests) == paid


def test_rerank_with_an_unwritable_home_costs_no_request(tmp_path):
    run = tmp_path / "bm25.run"
    ok = ragdash("evaluate", SAMPLE, "--limit-queries", 5, "--k", "1,10", "--kmax", 20,
                 "--save-run", run,
                 home=tmp_path / "h1")
    assert ok.returncode == 0, ok.stderr
    blocker = tmp_path / "file"
    blocker.write_text("")
    with FakeRerank("tei") as server:
        proc = ragdash("rerank", SAMPLE, run, "--model", "bge", "--base-url", server.url,
                       "--limit-queries", 5, home=blocker / "home")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert server.requests == []
    assert "Cannot write the rerank cache" in proc.stderr


def test_the_app_run_job_stops_before_paying_when_the_cache_cannot_be_written(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "embeddings.sqlite").mkdir()  # the store works, the embeddings cache cannot
    with FakeOpenAI() as server:
        at = custom_server(open_sample(new_app(), "article-ja"), server.url, model="emb-1",
                           key="sk-test").run()
        at.button(key="run_start").click().run()
        (job,) = wait_for_jobs(at)
        at.run()
        assert job.state == "failed"
        assert server.embedding_requests == []
    shown = " ".join(str(e.value) for e in at.error)
    assert "Cannot write the embeddings cache" in shown and "nothing was sent" in shown


def test_a_sigkill_loses_at_most_batch_times_concurrency_texts(tmp_path):
    """The docs' sentence, measured: texts the server answered (paid for) minus texts in the
    cache after a SIGKILL mid-run is at most --batch-size x --concurrency."""
    import signal
    import sqlite3
    import time

    from ragdash.embeddings.cache import text_hash

    batch, concurrency, n = 5, 3, 120
    data = tmp_path / "data"
    (data / "qrels").mkdir(parents=True)
    (data / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": f"d{i}", "text": f"text number {i}"}) + "\n" for i in range(n)))
    (data / "queries.jsonl").write_text('{"_id": "q0", "text": "number"}\n')
    (data / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\td0\t1\n")
    home = tmp_path / "home"

    def cached() -> set[bytes]:
        path = home / "embeddings.sqlite"
        if not path.exists():
            return set()
        conn = sqlite3.connect(path, timeout=30)
        try:
            return {bytes(h) for (h,) in conn.execute("SELECT text_sha256 FROM embeddings")}
        except sqlite3.OperationalError:
            return set()
        finally:
            conn.close()

    with FakeOpenAI(latency=0.3) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGDASH_HOME": str(home),
               "OPENAI_API_KEY": "sk-test"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragdash", "evaluate", str(data), "--retriever", "openai",
             "--model", "emb-1", "--base-url", server.url, "--batch-size", str(batch),
             "--concurrency", str(concurrency)], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(cached()) < 4 * batch:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        server.wait_idle()
        paid = {text_hash(t) for t in server.served}
    kept = cached()
    lost = paid - kept
    assert kept <= paid and len(kept) < n + 1
    assert len(lost) <= batch * concurrency, (len(lost), batch * concurrency)


def test_cache_info_still_reads_a_read_only_home(tmp_path):
    home = tmp_path / "home"
    with FakeOpenAI() as server:
        assert ragdash(*evaluate_args(server), home=home).returncode == 0
    with read_only(home) as ro:
        proc = ragdash("cache", "info", home=ro)
        assert proc.returncode == 0, proc.stderr
        assert "emb-1" in proc.stdout and "vectors" in proc.stdout
        clear = ragdash("cache", "clear", home=ro)
        assert clear.returncode == 2 and "Traceback" not in clear.stderr
