"""Many requests to one service, ``concurrency`` at a time, each result handed over at once.

:func:`run_parallel` runs ``work(task, emit, halt)`` for every task on a bounded pool of
threads. ``emit(payload)`` hands a result to ``on_result(task, payload)`` in the *calling*
thread as soon as it is in (so the caller caches what was paid for at once). A task that
raises, ``on_result`` raising, or ``cancel`` being set, sets ``halt``: no new task starts,
the tasks in flight finish (their results still reach ``on_result``) — a task waiting to
retry gives up, as ``halt`` is the ``cancel`` it waits on — then the first exception is
raised (a task's :class:`~ragdash.errors.Cancelled` caused by the halt is not one).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from ..errors import Cancelled

#: how often the calling thread looks at ``cancel`` while it waits, seconds
POLL = 0.05

WorkFn = Callable[[int, Callable[[object], None], threading.Event], None]


def run_parallel(tasks: Sequence[int], work: WorkFn, *, concurrency: int,
                 on_result: Callable[[int, object], None], cancel: threading.Event | None = None,
                 name: str = "ragdash-service") -> bool:
    """Run every task (module docstring); True when none was left out by a halt."""
    tasks = list(tasks)
    if not tasks:
        return True
    run = _Run(work, on_result)
    with ThreadPoolExecutor(max_workers=min(concurrency, len(tasks)),
                            thread_name_prefix=name) as pool:
        for task in tasks:
            pool.submit(run.run, task)
        finished = 0
        while finished < len(tasks):
            if cancel is not None and cancel.is_set():
                run.halt.set()
            try:
                item = run.results.get(timeout=POLL)
            except queue.Empty:
                continue
            finished += run.handle(*item)
    if run.failed is not None:
        raise run.failed
    return not run.skipped and not (cancel is not None and cancel.is_set())


class _Run:
    def __init__(self, work: WorkFn, on_result: Callable[[int, object], None]) -> None:
        self.work = work
        self.on_result = on_result
        self.halt = threading.Event()
        self.results: queue.SimpleQueue = queue.SimpleQueue()
        self.failed: BaseException | None = None
        self.skipped = 0
        self.handing = True  # False once on_result has raised

    def run(self, task: int) -> None:
        """In a pool thread."""
        if self.halt.is_set():
            self.results.put(("skipped", task, None))
            return
        try:
            self.work(task, lambda payload: self.results.put(("result", task, payload)),
                      self.halt)
        except BaseException as exc:  # raised by the calling thread, after those in flight
            self.halt.set()
            self.results.put(("error", task, exc))
        else:
            self.results.put(("done", task, None))

    def handle(self, kind: str, task: int, payload) -> int:
        """In the calling thread: one report of a task; 1 when the task is finished."""
        if kind == "result":
            if self.handing:  # paid for: handed over even after another task failed
                try:
                    self.on_result(task, payload)
                except BaseException as exc:
                    self.halt.set()
                    self.handing = False
                    self.failed = self.failed or exc
            return 0
        if kind == "skipped":
            self.skipped += 1
        elif kind == "error" and self.failed is None and not (
                isinstance(payload, Cancelled) and self.halt.is_set()):
            self.failed = payload
        return 1
