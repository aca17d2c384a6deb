"""The job manager, with real threads: progress, cancellation, failures, owners kept apart."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from ragdash import jobs as jobs_module
from ragdash.errors import Cancelled, EmbeddingError
from ragdash.jobs import JobManager, evaluation_task, format_duration, get_manager

KEY = "sk-test-0123456789abcdefSECRET"


@pytest.fixture
def manager():
    m = JobManager(max_workers=2)
    yield m
    m.cancel_all()


def _wait_until(predicate, timeout=5.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return False


def test_a_job_reports_progress_and_returns_its_result(manager, monkeypatch):
    monkeypatch.setattr(jobs_module, "ETA_AFTER", 0.0)
    step = threading.Event()
    seen = []

    def task(*, progress, cancel):
        for i in range(1, 5):
            progress({"stage": "documents", "done": i, "total": 4, "calls": i, "tokens": 10 * i})
            if i == 2:
                seen.append("half")
                step.wait(5)
        return {"answer": 42}

    job = manager.submit("alice", task, kind="evaluation", label="bm25")
    assert _wait_until(lambda: job.fraction == 0.5)
    assert job.state == "running"
    assert job.progress == {"stage": "documents", "done": 2, "total": 4, "calls": 2, "tokens": 20}
    assert job.eta is not None and job.eta >= 0
    text = job.status_text("en")
    assert "Embedding documents: 2 of 4" in text and "2 API calls, 20 tokens" in text
    assert "文書を埋め込み中：2 / 4" in job.status_text("ja")
    step.set()
    assert job.wait(5)
    assert job.state == "done" and job.result == {"answer": 42}
    assert job.fraction == 1.0 and job.eta is None and job.error is None
    frozen = job.elapsed
    time.sleep(0.02)
    assert job.elapsed == frozen  # elapsed stops at the finish


def test_cancel_midway_stops_the_task_and_marks_it_cancelled(manager):
    started = threading.Event()
    iterations = []

    def task(*, progress, cancel):
        started.set()
        for i in range(10_000):
            if cancel.is_set():
                raise Cancelled("stopped")
            iterations.append(i)
            progress({"stage": "queries", "done": i, "total": 10_000})
            time.sleep(0.001)
        return "finished"

    job = manager.submit("alice", task)
    assert started.wait(5)
    assert _wait_until(lambda: len(iterations) >= 3)
    job.cancel()
    assert job.wait(5)
    assert job.state == "cancelled" and job.result is None
    assert len(iterations) < 10_000
    assert job.status_text("ja") == "キャンセル済み"


def test_cancelling_a_queued_job_never_runs_it():
    manager = JobManager(max_workers=1)
    gate = threading.Event()
    ran = []
    blocker = manager.submit("bob", lambda *, progress, cancel: gate.wait(5))
    queued = manager.submit("bob", lambda *, progress, cancel: ran.append(1))
    assert queued.state == "queued"
    queued.cancel()
    assert queued.state == "cancelled" and queued.wait(0)
    gate.set()
    assert blocker.wait(5)
    time.sleep(0.05)
    assert ran == [] and queued.state == "cancelled"


def test_a_ragdash_error_becomes_its_own_sentence_without_the_key(manager):
    def task(*, progress, cancel):
        raise EmbeddingError(f"The server rejected the key {KEY}. Check the API key.")

    job = manager.submit("alice", task, secrets=[KEY])
    assert job.wait(5)
    assert job.state == "failed"
    assert job.error == "The server rejected the key ***. Check the API key."
    assert KEY not in job.status_text("en")


def test_an_unexpected_error_is_a_plain_sentence_and_a_logged_traceback(manager, caplog):
    def task(*, progress, cancel):
        headers = {"Authorization": f"Bearer {KEY}"}
        raise ZeroDivisionError(f"boom with {headers}")

    with caplog.at_level(logging.ERROR, logger="ragdash.jobs"):
        job = manager.submit("alice", task, label="openai", secrets=[KEY])
        assert job.wait(5)
    assert job.state == "failed"
    assert job.error == ("The job stopped on an unexpected error (ZeroDivisionError); the "
                         "details are in the server log.")
    assert "\n" not in job.error and "Traceback" not in job.error
    assert job.error_text("ja").startswith("予期しないエラー（ZeroDivisionError）")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "Traceback" in logged and "ZeroDivisionError" in logged
    assert KEY not in logged and "Bearer ***" in logged


def test_credential_shaped_text_is_masked_even_without_secrets(manager, caplog):
    def task(*, progress, cancel):
        raise RuntimeError(f"GET https://x.example/v1?api-key={KEY} failed")

    with caplog.at_level(logging.ERROR, logger="ragdash.jobs"):
        job = manager.submit("alice", task)
        assert job.wait(5)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "RuntimeError" in logged and KEY not in logged and "api-key=***" in logged


def test_two_owners_see_only_their_own_jobs(manager):
    a = manager.submit("session-a", lambda *, progress, cancel: "a", kind="evaluation")
    b = manager.submit("session-b", lambda *, progress, cancel: "b", kind="evaluation")
    a2 = manager.submit("session-a", lambda *, progress, cancel: "a2", kind="export")
    for job in (a, b, a2):
        assert job.wait(5)
    assert [j.id for j in manager.jobs_for("session-a")] == [a2.id, a.id]
    assert [j.id for j in manager.jobs_for("session-a", kind="evaluation")] == [a.id]
    assert [j.result for j in manager.jobs_for("session-b")] == ["b"]
    assert manager.get(a.id, "session-a") is a
    assert manager.get(a.id, "session-b") is None  # another session cannot reach it
    assert manager.forget(a.id, "session-b") is False
    assert manager.forget(a.id, "session-a") is True
    assert manager.get(a.id, "session-a") is None


def test_active_job_and_jobs_run_in_parallel(manager):
    gate = threading.Event()
    running = []

    def task(*, progress, cancel):
        running.append(threading.get_ident())
        gate.wait(5)

    j1 = manager.submit("x", task)
    j2 = manager.submit("x", task)
    assert _wait_until(lambda: len(running) == 2)  # two workers: both run at once
    assert len(set(running)) == 2
    assert manager.active("x") is j2
    gate.set()
    assert j1.wait(5) and j2.wait(5)
    assert manager.active("x") is None


def test_finished_jobs_are_pruned_beyond_the_limit():
    manager = JobManager(max_workers=1, keep_finished=3)
    jobs = [manager.submit("o", lambda *, progress, cancel: None) for _ in range(6)]
    for j in jobs:
        assert j.wait(5)
    manager.submit("o", lambda *, progress, cancel: None).wait(5)
    assert len(manager.jobs_for("o")) <= 4


def test_status_text_survives_odd_progress_events():
    from ragdash.jobs import Job

    job = Job(id="x", owner="o", kind="k", label="l", state="running", started_at=time.time())
    job._report({"stage": "documents", "done": None, "total": 1200.0, "calls": "n/a",
                 "tokens": 12345})
    assert job.status_text("en").startswith("Embedding documents: 0 of 1,200 · n/a API calls, "
                                            "12,345 tokens")
    job._report({"stage": "something-new"})
    assert job.status_text("en").startswith("Running")
    assert job.fraction is None and job.eta is None


def test_the_manager_is_one_per_process():
    assert get_manager() is get_manager()


@pytest.mark.parametrize("seconds, en, ja", [(0, "0 s", "0秒"), (75, "1 min 15 s", "1分15秒"),
                                             (3725, "1 h 2 min", "1時間2分"),
                                             (None, "—", "—")])
def test_format_duration(seconds, en, ja):
    assert format_duration(seconds, "en") == en
    assert format_duration(seconds, "ja") == ja


def test_evaluation_task_saves_the_run_with_its_cost_and_no_key(manager, tmp_path):
    from ragdash.dataset import Dataset, Document, Query
    from ragdash.ranking import Ranking
    from ragdash.runs import RunStore

    key = "sk-job-secret-123456"

    class Paid:  # a retriever that reports API usage, and whose config once held the key
        name = "openai:emb"

        def __init__(self):
            self.usage = {"requests": 1, "prompt_tokens": 42}

        def config(self):
            return {"retriever": "openai", "model": "emb", "note": f"used {key}"}

        def rank(self, dataset, queries, kmax, *, progress=None, cancel=None):
            progress({"stage": "ranking", "done": 1, "total": 1})
            return Ranking.from_dict({q.id: {"d1": 1.0, "d2": 0.5} for q in queries})

    ds = Dataset([Document("d1", "a"), Document("d2", "b")], [Query("q1", "a")],
                 {"q1": {"d1": 1.0}}, name="tiny")
    store = RunStore(tmp_path)
    task = evaluation_task(ds, Paid(), store=store, run_name="mine", kmax=2, secrets=[key],
                           cost={"estimated_usd": 0.001})
    job = manager.submit("o", task, kind="evaluation")
    assert job.wait(5) and job.state == "done", job.error
    run = job.result
    assert run.id and run.kmax == 2 and run.table().mean("mrr@2") == 1.0
    saved = store.load(run.id, cached=False)
    assert saved.name == "mine" and saved.model == "emb" and saved.retriever == "openai:emb"
    assert saved.cost == {"estimated_usd": 0.001, "actual_tokens": 42}
    assert key not in str(saved.config) and key not in store.path.read_bytes().decode("latin-1")


def test_a_real_evaluation_job_saves_its_run(manager, tmp_path):
    from ragdash.dataset import Dataset, Document, Query
    from ragdash.retrieval import make_retriever
    from ragdash.runs import RunStore

    ds = Dataset([Document("d1", "東京は日本の首都です"), Document("d2", "富士山は高い山です")],
                 [Query("q1", "日本の首都"), Query("q2", "高い山")],
                 {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}, name="tiny")
    store = RunStore(tmp_path)
    events = []
    task = evaluation_task(ds, make_retriever("bm25"), store=store, run_name="job run",
                           kmax=2)

    def spy(*, progress, cancel):
        return task(progress=lambda e: (events.append(e), progress(e)), cancel=cancel)

    job = manager.submit("owner", spy, kind="evaluation")
    assert job.wait(10) and job.state == "done", job.error
    run = job.result
    assert run.id and store.load(run.id).name == "job run"
    assert run.table().mean("hit_rate@2") == 1.0
    assert events and events[-1]["stage"] == "saving"


def test_the_app_s_job_builds_its_retriever_in_the_job_thread_and_saves_cost_and_no_key(
        manager, tmp_path):
    from ragdash.dataset import Dataset, Document, Query
    from ragdash.retrieval import make_retriever
    from ragdash.runs import RunStore

    ds = Dataset([Document("d1", "東京は日本の首都です"), Document("d2", "富士山は高い山です")],
                 [Query("q1", "日本の首都"), Query("q2", "高い山")],
                 {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}, name="tiny")
    key = "azure0123456789abcdefSECRET"  # not shaped like sk-...: masked as a secret only
    built_in = []

    def make():
        built_in.append(threading.current_thread())
        retriever = make_retriever("bm25")
        retriever.name = f"bm25 {key}"  # a key that slipped into a name is masked on save
        return retriever

    store = RunStore(tmp_path)
    task = evaluation_task(ds, make, store=store, run_name="app run", secrets=(key, ""),
                           cost={"estimated_usd": 0.0, "tokens": 21}, kmax=2)
    job = manager.submit("owner", task, kind="evaluation", secrets=(key,))
    assert job.wait(10) and job.state == "done", job.error
    assert built_in and built_in[0] is not threading.main_thread()
    saved = store.load(job.result.id)
    assert saved.name == "app run"
    assert saved.cost == {"estimated_usd": 0.0, "tokens": 21, "actual_tokens": 0}
    assert saved.retriever.startswith("bm25") and key not in saved.retriever
    assert [f for f in tmp_path.rglob("*") if f.is_file()]
    for f in tmp_path.rglob("*"):
        assert not f.is_file() or key.encode() not in f.read_bytes(), f


def test_a_resumed_stage_estimates_from_its_own_pace_not_from_cached_texts(manager,
                                                                           monkeypatch):
    """A resumed run does not start at "about 0 s left" (1,000 cached texts "done" in 0 s)."""
    monkeypatch.setattr(jobs_module, "ETA_AFTER", 0.2)
    go = [threading.Event() for _ in range(2)]

    def task(*, progress, cancel):
        progress({"stage": "documents", "done": 1000, "total": 1400})  # the cached ones
        go[0].wait(5)
        progress({"stage": "documents", "done": 1100, "total": 1400})  # 100 new
        go[1].wait(5)

    job = manager.submit("alice", task, kind="evaluation")
    assert _wait_until(lambda: job.progress.get("done") == 1000)
    assert job.eta is None  # nothing embedded yet in this stage: no guess
    assert "left" not in job.status_text("en")
    time.sleep(0.3)
    go[0].set()
    assert _wait_until(lambda: job.progress.get("done") == 1100)
    spent = time.time() - job._stage_started
    # 100 texts in `spent` seconds, 300 to go: about 3x as long again (not 0.27x)
    assert job.eta == pytest.approx(3 * spent, rel=0.2)
    assert "left" in job.status_text("en")
    go[1].set()
    assert job.wait(5)


def test_a_local_models_status_counts_batches_not_api_calls_and_tokens(manager):
    go = threading.Event()

    def task(*, progress, cancel):
        progress({"stage": "documents", "done": 96, "total": 1400, "calls": 3, "tokens": 0})
        go.wait(5)

    job = manager.submit("alice", task, kind="evaluation")
    assert _wait_until(lambda: job.progress.get("done") == 96)
    assert "3 batches" in job.status_text("en") and "API" not in job.status_text("en")
    assert "3 バッチ" in job.status_text("ja")
    go.set()
    assert job.wait(5)

