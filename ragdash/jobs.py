"""Background jobs that outlive a Streamlit rerun, a page switch and the script thread.

A Streamlit server is one process with many sessions; a script run is thrown away on every
widget change. A long evaluation therefore runs here, in a process-wide :class:`JobManager`
(:func:`get_manager` returns the module-level one), and a page only *looks* at its job::

    job = get_manager().submit(session_id, task, kind="evaluation", label="bm25 on jsquad")
    ...                                   # any later rerun, on any page:
    for job in get_manager().jobs_for(session_id):
        job.state, job.fraction, job.eta, job.status_text("ja")

``task`` is called as ``task(progress=callback, cancel=event)``: ``callback(event: dict)`` takes
the retriever's progress events (``stage``, ``done``, ``total``, ``calls``, ``tokens``) and
``event`` is a :class:`threading.Event` set by :meth:`Job.cancel`; the task checks it and raises
:class:`ragdash.errors.Cancelled`. What the task returns becomes :attr:`Job.result`.

Outcomes: ``done`` (returned), ``cancelled`` (raised ``Cancelled``, or cancelled while still
queued), ``failed``: a :class:`~ragdash.errors.RagdashError` becomes its own one-sentence
message; anything else becomes a plain sentence naming the exception type, and the traceback
goes to the ``ragdash.jobs`` logger. Strings passed as ``secrets=`` (an API key) are masked in
both the message and the log.

Sessions see only their own jobs: every lookup takes the owner (a session id).
"""

from __future__ import annotations

import logging
import queue
import secrets as _secrets
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import Cancelled, RagdashError
from .i18n import error, message, t
from .pipeline import Retriever, run_evaluation
from .secrets import scrub_secrets

if TYPE_CHECKING:
    from .dataset import Dataset
    from .run import Run
    from .runs import RunStore

__all__ = ["STATES", "TERMINAL_STATES", "Job", "JobManager",
           "evaluation_task", "format_duration", "get_manager"]

log = logging.getLogger("ragdash.jobs")

STATES = ("queued", "running", "done", "failed", "cancelled")
TERMINAL_STATES = frozenset({"done", "failed", "cancelled"})

ProgressCallback = Callable[[dict], None]
Task = Callable[..., Any]


def _redact(text: str, secrets: Iterable[str]) -> str:
    """Mask ``secrets`` and anything shaped like a credential (``Bearer ...``, ``sk-...``,
    ``?api-key=...``) — the same rules as the run store."""
    return scrub_secrets(text, secrets)


def _count(x: Any) -> str:
    """``12345`` -> ``"12,345"``; anything that is not a number is shown as it is."""
    if x is None:
        return "0"
    try:
        return f"{int(x):,}"
    except (TypeError, ValueError):
        return str(x)


def format_duration(seconds: float | None, lang: str = "en") -> str:
    """``75`` -> ``"1 min 15 s"`` (``"1分15秒"`` in Japanese); ``None`` -> ``"—"``."""
    if seconds is None:
        return "—"
    s = max(0, round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    if h:
        return t("job.duration_h_min", lang, h=h, m=m)
    return t("job.duration_min_s", lang, m=m, s=sec) if m else t("job.duration_s", lang, s=sec)


@dataclass(eq=False)
class Job:
    """One background task. Read its fields from any thread; only the manager writes them."""

    id: str
    owner: str
    kind: str
    label: str
    created_at: float = field(default_factory=time.time)
    state: str = "queued"
    #: The latest progress event (a copy): stage, done, total, calls, tokens, ...
    progress: dict = field(default_factory=dict)
    started_at: float | None = None
    finished_at: float | None = None
    result: Any = None
    #: One plain sentence when ``state == "failed"`` (English; see :meth:`error_text`).
    error: str | None = None
    #: The exception type name for an unexpected failure (``None`` for a RagdashError).
    error_kind: str | None = None
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _finished: threading.Event = field(default_factory=threading.Event, repr=False)
    _settled: threading.Event = field(default_factory=threading.Event, repr=False)
    _stage_started: float | None = field(default=None, repr=False)
    _stage_done: float = field(default=0.0, repr=False)  # ``done`` when the stage started
    _secrets: tuple[str, ...] = field(default=(), repr=False)
    _said: Any = field(default=None, repr=False)  # the failure, when it has a message id
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- derived --------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.state in TERMINAL_STATES

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    @property
    def fraction(self) -> float | None:
        """``done / total`` of the current stage, in [0, 1]; ``None`` before any progress."""
        if self.state == "done":
            return 1.0
        total, done = self.progress.get("total"), self.progress.get("done")
        if not total or done is None:
            return None
        return min(1.0, max(0.0, float(done) / float(total)))

    @property
    def elapsed(self) -> float:
        """Seconds since the job started (0 while queued); frozen once it finishes."""
        if self.started_at is None:
            return 0.0
        end = self.finished_at if self.finished_at is not None else time.time()
        return max(0.0, end - self.started_at)

    @property
    def eta(self) -> float | None:
        """Seconds left in the current stage, extrapolated from its pace so far: from what
        was done *in this stage* (a resumed run starts with the cached texts already done,
        which took no time) and only after a second of it; ``None`` until then."""
        total, done = self.progress.get("total"), self.progress.get("done")
        if self.state != "running" or not total or done is None or self._stage_started is None:
            return None
        spent = time.time() - self._stage_started
        gained = float(done) - self._stage_done
        if gained <= 0 or spent < ETA_AFTER:
            return None
        return max(0.0, spent * (float(total) - float(done)) / gained)

    def status_text(self, lang: str = "en") -> str:
        """One line for the UI, e.g. ``"Embedding documents: 300 of 1145 · 4 API calls, ..."``."""
        if self.state != "running":
            if self.state == "failed":
                return f"{t('job.failed', lang)}: {self.error_text(lang)}"
            return t(_STATE_KEYS[self.state], lang)
        parts = []
        p = self.progress
        stage = p.get("stage")
        stage_label = t(_STAGE_KEYS.get(stage, "job.running"), lang)
        if p.get("total"):
            parts.append(t("job.progress", lang, stage=stage_label, done=_count(p.get("done")),
                           total=_count(p["total"])))
        else:
            parts.append(stage_label)
        if p.get("tokens"):
            parts.append(t("job.calls_tokens", lang, calls=_count(p.get("calls")),
                           tokens=_count(p.get("tokens"))))
        elif p.get("calls"):  # a local model counts no tokens: "API calls, 0 tokens" misled
            parts.append(t("job.batches", lang, n=_count(p.get("calls"))))
        parts.append(t("job.elapsed", lang, time=format_duration(self.elapsed, lang)))
        if self.eta is not None:
            parts.append(t("job.eta", lang, time=format_duration(self.eta, lang)))
        return " · ".join(parts)

    def error_text(self, lang: str = "en", *, app: bool = False) -> str | None:
        """The failure sentence in ``lang``: a message with an id (catalog/core.toml)
        in that language, and with ``app`` in the app's words (the key field, not
        ``--api-key-env``); other RagdashError messages as written."""
        if self.error_kind is not None:
            return t("job.unexpected", lang, kind=self.error_kind)
        if self._said is not None:
            return _redact(message(self._said, lang, app=app), self._secrets)
        return self.error

    # -- control --------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the job: it is ``cancelled`` at once, queued or running.

        A running task is told through the event and winds down in the background: requests
        already sent (and paid for) are still answered and their replies cached, but nothing
        the task returns or raises after this is reported. :meth:`wait_settled` waits for
        that wind-down; the manager starts the owner's next job of the same kind only after
        it, so a restart finds those replies in the cache instead of paying for them again."""
        self._cancel.set()
        with self._lock:
            if self.state in ("queued", "running"):
                self._finish("cancelled")
            if self.started_at is None:  # never ran: nothing to wind down
                self._settled.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has finished; ``False`` if ``timeout`` ran out first."""
        return self._finished.wait(timeout)

    @property
    def settled(self) -> bool:
        """The task itself has ended (for a cancelled job, some time after :attr:`finished`)."""
        return self._settled.is_set()

    def wait_settled(self, timeout: float | None = None) -> bool:
        """Block until the task has ended, its last replies cached; ``False`` on timeout."""
        return self._settled.wait(timeout)

    # -- used by the manager's worker ------------------------------------------------------
    def _report(self, event: dict) -> None:
        event = dict(event)
        now = time.time()
        if event.get("stage") != self.progress.get("stage") or self._stage_started is None:
            self._stage_started = now
            self._stage_done = float(event.get("done") or 0)
        self.progress = event

    def _finish(self, state: str) -> None:  # caller holds _lock
        self.state = state
        self.finished_at = time.time()
        self._finished.set()


#: Seconds of a stage before :attr:`Job.eta` extrapolates (a first batch says little).
ETA_AFTER = 1.0

#: each stage a job reports -> its label (message keys)
_STAGE_KEYS = {"documents": "job.stage.documents", "queries": "job.stage.queries",
           "ranking": "job.stage.ranking", "scoring": "job.stage.scoring",
           "saving": "job.stage.saving", "tokenizing": "job.stage.tokenizing",
           "indexing": "job.stage.indexing", "retrieving": "job.stage.retrieving",
           "searching": "job.stage.searching", "rerank": "job.stage.rerank",
           "write": "job.stage.write", "judge": "job.stage.judge"}
#: each state but running -> its label
_STATE_KEYS = {"queued": "job.queued", "done": "job.done", "failed": "job.failed",
               "cancelled": "job.cancelled"}


class JobManager:
    """A small pool of daemon worker threads running :class:`Job` s, shared by all sessions.

    ``max_workers`` bounds how many jobs run at once (the rest queue). Finished jobs are kept
    so a page can show the outcome; beyond ``keep_finished`` (over all owners) the oldest
    finished ones are forgotten. Worker threads are daemons, so a server shutdown is not held
    up by a job in flight.
    """

    def __init__(self, max_workers: int = 2, *, keep_finished: int = 50) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self.max_workers = max_workers
        self.keep_finished = keep_finished
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[Job, Task] | None] = queue.Queue()
        self._workers: list[threading.Thread] = []

    # -- submit and look up -----------------------------------------------------------------
    def submit(self, owner: str, fn: Task, *, kind: str = "job", label: str = "",
               secrets: Iterable[str] = ()) -> Job:
        """Queue ``fn(progress=..., cancel=...)`` for ``owner``; returns the :class:`Job`."""
        job = Job(id=_secrets.token_hex(6), owner=str(owner), kind=kind, label=label,
                  _secrets=tuple(s for s in secrets if s))
        with self._lock:
            self._jobs[job.id] = job
            self._prune()
            if len(self._workers) < self.max_workers:
                worker = threading.Thread(target=self._work, daemon=True,
                                          name=f"ragdash-job-{len(self._workers)}")
                self._workers.append(worker)
                worker.start()
        self._queue.put((job, fn))
        return job

    def get(self, job_id: str, owner: str) -> Job | None:
        """The job with ``job_id`` if it belongs to ``owner``, else ``None``."""
        job = self._jobs.get(job_id)
        return job if job is not None and job.owner == str(owner) else None

    def jobs_for(self, owner: str, *, kind: str | None = None,
                 active_only: bool = False) -> list[Job]:
        """``owner``'s jobs, newest first."""
        with self._lock:
            jobs = [j for j in self._jobs.values() if j.owner == str(owner)]
        if kind is not None:
            jobs = [j for j in jobs if j.kind == kind]
        if active_only:
            jobs = [j for j in jobs if not j.finished]
        return sorted(jobs, key=lambda j: j.created_at, reverse=True)

    def active(self, owner: str, *, kind: str | None = None) -> Job | None:
        """``owner``'s newest job that has not finished, if any."""
        jobs = self.jobs_for(owner, kind=kind, active_only=True)
        return jobs[0] if jobs else None

    def forget(self, job_id: str, owner: str) -> bool:
        """Drop a finished job of ``owner`` (a running one must be cancelled first)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.owner != str(owner) or not job.finished:
                return False
            del self._jobs[job_id]
            return True

    def cancel_all(self) -> None:
        for job in list(self._jobs.values()):
            job.cancel()

    # -- internals ------------------------------------------------------------------------
    def _prune(self) -> None:  # caller holds _lock
        finished = sorted((j for j in self._jobs.values() if j.finished),
                          key=lambda j: j.finished_at or 0.0)
        for job in finished[: max(0, len(finished) - self.keep_finished)]:
            del self._jobs[job.id]

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, fn = item
            try:
                self._run(job, fn)
            finally:
                self._queue.task_done()

    def _run(self, job: Job, fn: Task) -> None:
        try:
            self._wait_for_wind_downs(job)
            with job._lock:
                if job.finished:  # cancelled while queued
                    return
                job.state = "running"
                job.started_at = time.time()
            self._outcome(job, fn)
        finally:
            job._settled.set()
            with self._lock:
                self._prune()

    def _wait_for_wind_downs(self, job: Job) -> None:
        """Before ``job`` starts: the owner's cancelled jobs of its kind that are still
        receiving replies they sent for (their texts reach the cache then, and ``job`` need
        not pay for them again)."""
        with self._lock:
            earlier = [j for j in self._jobs.values()
                       if j is not job and j.owner == job.owner and j.kind == job.kind
                       and j.finished and not j._settled.is_set()]
        for other in earlier:
            while not other.wait_settled(0.2):
                if job._cancel.is_set():
                    return

    def _outcome(self, job: Job, fn: Task) -> None:
        """Run the task and record how it ended, unless the job was cancelled meanwhile
        (then the job already says so, and what the task did after is not news)."""
        try:
            result = fn(progress=job._report, cancel=job._cancel)
        except Cancelled:
            with job._lock:
                if not job.finished:
                    job._finish("cancelled")
        except RagdashError as exc:
            sentence = _redact(str(exc), job._secrets) or type(exc).__name__
            log.info("job %s (%s) failed: %s", job.id, job.label, sentence)
            with job._lock:
                if not job.finished:
                    job.error = sentence
                    job._said = exc if getattr(exc, "msg_id", None) else None
                    job._finish("failed")
        except Exception as exc:
            trace = _redact(traceback.format_exc(), job._secrets)
            log.error("job %s (%s) failed unexpectedly:\n%s", job.id, job.label, trace)
            with job._lock:
                if not job.finished:
                    job.error_kind = type(exc).__name__
                    job.error = t("job.unexpected", "en", kind=job.error_kind)
                    job._finish("failed")
        else:
            with job._lock:
                if not job.finished:
                    job.result = result
                    job._finish("done")


_manager: JobManager | None = None
_manager_lock = threading.Lock()


def get_manager() -> JobManager:
    """The process-wide manager (created on first use), shared by every session."""
    global _manager
    with _manager_lock:
        if _manager is None:
            _manager = JobManager()
        return _manager


# -- the evaluation job the Run page starts ---------------------------------------------------
def evaluation_task(dataset: Dataset, retriever: Retriever | Callable[[], Retriever], *,
                    store: RunStore | None = None, run_name: str | None = None,
                    secrets: Iterable[str] = (), cost: Mapping[str, Any] | None = None,
                    **options: Any) -> Task:
    """A task for :meth:`JobManager.submit` that evaluates ``retriever`` on ``dataset`` with
    :func:`ragdash.pipeline.run_evaluation` (``options``: kmax, limit_queries, relevance_level,
    gain) and, when ``store`` is given, saves the run. The job's result is the
    :class:`ragdash.run.Run` (its ``id`` set once saved).

    ``retriever`` is a retriever, or a function of no arguments that makes one: it is then
    called in the job thread (loading a local model may take a while). ``secrets`` (an API
    key) are masked in the saved run. ``cost`` (the cost estimate made before the run) is saved
    with it, with the run's actual prompt tokens added as ``actual_tokens``.
    """
    secrets = tuple(s for s in secrets if s)

    def task(*, progress: ProgressCallback, cancel: threading.Event) -> Run:
        chosen = retriever
        if callable(chosen) and not hasattr(chosen, "rank"):
            chosen = chosen()
        run = run_evaluation(dataset, chosen, progress=progress, cancel=cancel, **options)
        run.name = (run_name or "").strip()
        run.cost = _cost_record(cost, run.usage)
        if cancel.is_set():  # cancelled as it finished: the job says so; the cache has all
            raise error(Cancelled, "retrieval.cancelled")
        if store is not None:
            progress({"stage": "saving", "done": 0, "total": 1})
            store.save(run, secrets=secrets)
        return run

    return task


def _cost_record(estimate: Mapping[str, Any] | None, usage: Mapping[str, Any]) -> dict | None:
    """The estimate with the actual prompt tokens of ``usage`` added; ``None`` if empty."""
    record = dict(estimate or {})
    if usage.get("prompt_tokens") is not None:
        record["actual_tokens"] = int(usage.get("prompt_tokens") or 0)
    return record or None
