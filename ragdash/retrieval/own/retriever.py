"""A user's own search (a function, a framework's retriever, a search service) as a retriever.

:class:`OwnRetriever` implements the :class:`ragdash.retrieval.Retriever` protocol over a
:data:`~ragdash.retrieval.own.hits.SearchFn`: every evaluated query is asked once
(``search(query, kmax)``), timed, its hits mapped to the dataset's documents
(:class:`~ragdash.retrieval.own.mapping.CorpusIndex`) and made into a ranking.

- **Concurrency.** ``concurrency`` worker threads for a plain function (daemon threads of
  its own, so that a call that never returns cannot keep the process alive); an ``async``
  function (``is_async``) runs on one event loop in a thread of its own, ``concurrency``
  calls at a time (``asyncio.gather`` under a semaphore).
- **Timeout.** A call that has not returned after ``timeout`` seconds is a failed query (the
  thread is abandoned and replaced, the task cancelled).
- **Retries.** A call that raises a transient error (``TimeoutError``, ``ConnectionError``)
  is asked again after the service layer's backoff (:mod:`ragdash.services.retry`); a
  service's own errors (:class:`~ragdash.errors.ServiceError`) were retried where they were
  raised, and any other exception is a fault of the code, not retried. Then the query is
  counted as failed, with the exception's one-line message.
- **Failures.** A run with failed queries is refused as incomplete (one sentence naming the
  first failed queries) unless ``allow_failures``: then they rank nothing and the run says
  so (``usage["failed_queries"]``, :attr:`notes`, :attr:`failed`).
- **Resume.** With a ``store`` (:class:`~ragdash.retrieval.own.answers.AnswerStore`) every
  answer is written as it arrives, keyed by the search's identity (``identity``) and the
  query text; a run that is cancelled, killed or refused asks, when restarted, only for the
  queries not answered yet. A complete run removes its answers (a later run asks again: the
  code behind the search may have changed).
- **Mapping.** Several hits of one document fold to its first rank; ids not in the corpus
  and texts found in several documents or none are counted, with examples, in
  :attr:`notes`; a run that maps under :data:`MIN_MAPPED` of its hits is refused in one
  sentence naming ``id_field`` / ``match="text"``.
- **Latency.** Each query's time (its last attempt) is kept; ``resources["latency_probe"]``
  holds p50 / p95 / p99 in ms (the frontier's latency axis reads its p95), and
  ``resources["search_seconds"]`` their sum.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...dataset import Dataset, Query
from ...errors import Cancelled, RagdashError, RetrievalError, ServiceError
from ...i18n import error, message, text
from ...ranking import Ranking
from ...run import now_iso
from ...services.retry import MAX_RETRIES, retry_delay, should_retry
from .hits import BadResult, Hit, SearchFn, to_hits
from .mapping import CorpusIndex, Mapped

__all__ = ["DEFAULT_TIMEOUT", "EXAMPLES", "MIN_MAPPED", "OwnRetriever", "own_notes"]

ProgressFn = Callable[[dict], None]

#: a run that maps fewer of its hits than this to corpus documents is refused
MIN_MAPPED = 0.9
#: seconds a query may take (its retries included) before it counts as failed
DEFAULT_TIMEOUT = 60.0
#: ids, texts and failed queries a run names as examples
EXAMPLES = 5
#: retries of a transient error raised by the user's own code (a service retries its own)
OWN_RETRIES = 3
#: seconds a cancelled run waits for the answers of the calls already under way
CANCEL_GRACE = 2.0
#: how often the waiting thread looks at ``cancel`` and the deadlines, seconds
_TICK = 0.05


@dataclass
class _Answer:
    hits: list[Hit] | None
    seconds: float
    error: str | None = None
    attempts: int = 1


class OwnRetriever:
    """The Retriever protocol over ``search`` (see the module's text)."""

    def __init__(self, search: SearchFn, *, name: str, config: dict,
                 match: str | None = None, concurrency: int = 1,
                 allow_failures: bool = False, timeout: float | None = DEFAULT_TIMEOUT,
                 is_async: bool = False, store=None, identity: str | None = None,
                 min_mapped: float = MIN_MAPPED, retries: int = OWN_RETRIES,
                 sleep: Callable[[float], None] = time.sleep,
                 id_field: str | None = None) -> None:
        if match not in (None, "text"):
            raise error(RetrievalError, "own.bad_match", match=match)
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise error(RetrievalError, "own.bad_concurrency", value=concurrency)
        if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
            raise error(RetrievalError, "own.bad_timeout", value=timeout)
        self.search = search
        self.name = name
        self._config = dict(config)
        self.match = match
        self.id_field = id_field
        self.concurrency = concurrency
        self.allow_failures = bool(allow_failures)
        self.timeout = None if timeout is None else float(timeout)
        self.is_async = bool(is_async)
        self.store = store
        self.identity = identity
        self.min_mapped = float(min_mapped)
        self.retries = int(retries)
        self._sleep = sleep
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._counts = {"search_calls": 0, "queries": 0, "answered_before": 0,
                        "failed_queries": 0, "hits": 0, "not_found": 0,
                        "ambiguous": 0, "duplicates_folded": 0, "no_score_queries": 0,
                        "reordered_queries": 0, "beyond_k": 0, "retries": 0}
        #: failed queries: (query id, one sentence), in query order
        self.failed: list[tuple[str, str]] = []
        self.unmapped_examples: list[str] = []
        self.ambiguous_examples: list[str] = []
        self.latencies_ms: list[float] = []
        self.resources: dict = {}
        #: per query id: its hits mapped (the drill-down, "Try one query")
        self.mapped: dict[str, Mapped] = {}

    # -- the protocol ---------------------------------------------------------------------
    @property
    def usage(self) -> dict:
        return dict(self._counts)

    def config(self) -> dict:
        return {**self._config, "match": self.match,
                **({"id_field": self.id_field} if self.id_field else {})}

    @property
    def notes(self) -> list[str]:
        """What the run should say: ids not in the corpus, texts not placed, folded chunks,
        missing scores, failed queries kept."""
        c = self._counts
        out = []
        if c["not_found"]:
            out.append(text("own.note_not_found", n=c["not_found"], hits=c["hits"],
                            examples=", ".join(map(repr, self.unmapped_examples)) or "—"))
        if c["ambiguous"]:
            out.append(text("own.note_ambiguous", n=c["ambiguous"],
                            examples=", ".join(map(repr, self.ambiguous_examples))))
        if c["duplicates_folded"]:
            out.append(text("own.note_folded", n=c["duplicates_folded"]))
        if c["no_score_queries"]:
            out.append(text("own.note_no_score", n=c["no_score_queries"]))
        if c["reordered_queries"]:
            out.append(text("own.note_reordered", n=c["reordered_queries"]))
        if c["beyond_k"]:
            out.append(text("own.note_beyond_k", n=c["beyond_k"]))
        if self.failed:
            out.append(text("own.note_failed", n=len(self.failed), total=c["queries"],
                            examples=_failed_examples(self.failed)))
        if c["answered_before"]:
            out.append(text("own.note_resumed", n=c["answered_before"]))
        return out

    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking:
        self._reset()
        queries = list(queries)
        kmax = int(kmax)
        index = CorpusIndex(dataset, match=self.match)
        self._counts["queries"] = len(queries)
        texts = list(dict.fromkeys(q.text for q in queries))
        answers: dict[str, _Answer] = {}
        if self.store is not None and self.identity:
            self.store.check_writable()
            for qtext, (hits, ms) in self.store.get_many(self.identity, kmax, texts).items():
                answers[qtext] = _Answer(hits, ms / 1000.0)
            self._counts["answered_before"] = sum(q.text in answers for q in queries)
        todo = [t for t in texts if t not in answers]
        total = len(texts)
        _report(progress, len(answers), total)

        def answered(qtext: str, answer: _Answer) -> None:
            answers[qtext] = answer
            if answer.error is None and self.store is not None and self.identity:
                self.store.put(self.identity, kmax, qtext, answer.hits,
                               1000.0 * answer.seconds)
            _report(progress, len(answers), total)

        started = time.perf_counter()
        try:
            if self.is_async:
                self._ask_async(todo, kmax, answered, cancel)
            else:
                self._ask_threads(todo, kmax, answered, cancel)
        finally:
            wall = time.perf_counter() - started
        return self._finish(dataset, queries, kmax, index, answers, wall)

    # -- asking ---------------------------------------------------------------------------
    def _call(self, qtext: str, k: int) -> _Answer:
        """One query, retried on transient errors; never raises (but Cancelled)."""
        attempt = 0
        while True:
            with self._lock:
                self._counts["search_calls"] += 1
            t0 = time.perf_counter()
            try:
                hits = to_hits(self.search(qtext, k), id_field=self.id_field)
            except Exception as exc:  # the user's code: anything may come out of it
                seconds = time.perf_counter() - t0
                kind = _transient_kind(exc)
                if kind and should_retry(None, None, attempt, kind,
                                         max_retries=min(self.retries, MAX_RETRIES)):
                    with self._lock:
                        self._counts["retries"] += 1
                    self._sleep(retry_delay(attempt, None))
                    attempt += 1
                    continue
                return _Answer(None, seconds, _one_line(exc), attempt + 1)
            return _Answer(hits, time.perf_counter() - t0, None, attempt + 1)

    def _ask_threads(self, todo: list[str], k: int, answered, cancel) -> None:
        if not todo:
            return
        work: queue.SimpleQueue = queue.SimpleQueue()
        done: queue.SimpleQueue = queue.SimpleQueue()
        for qtext in todo:
            work.put(qtext)
        workers: dict[int, _Worker] = {}
        n_workers = min(self.concurrency, len(todo))
        for _ in range(n_workers):
            w = _Worker(self, k, work, done, cancel)
            workers[id(w)] = w
        remaining = set(todo)
        try:
            while remaining:
                if cancel is not None and cancel.is_set():
                    self._collect_in_flight(workers, done, remaining, answered)
                    raise error(Cancelled, "own.cancelled")
                wait = _TICK if cancel is not None or self.timeout is not None else None
                try:
                    wid, qtext, answer = done.get(timeout=wait)
                except queue.Empty:
                    pass
                else:
                    if qtext in remaining:
                        remaining.discard(qtext)
                        answered(qtext, answer)
                    continue
                if self.timeout is None:
                    continue
                now = time.perf_counter()
                for wid, w in list(workers.items()):
                    busy = w.busy
                    if busy is None or now - busy[1] <= self.timeout:
                        continue
                    w.abandon()
                    del workers[wid]
                    if busy[0] in remaining:
                        remaining.discard(busy[0])
                        answered(busy[0], _Answer(None, now - busy[1], str(text(
                            "own.timed_out", seconds=_seconds(self.timeout)))))
                    if remaining:
                        fresh = _Worker(self, k, work, done, cancel)
                        workers[id(fresh)] = fresh
        finally:
            for w in workers.values():
                w.stop()

    def _collect_in_flight(self, workers: dict, done: queue.SimpleQueue, remaining: set,
                           answered) -> None:
        """On cancel: the answers of the calls already under way (paid for) are kept, for a
        grace of at most :data:`CANCEL_GRACE` seconds; no new call starts."""
        deadline = time.perf_counter() + CANCEL_GRACE
        while True:
            try:
                _wid, qtext, answer = done.get(timeout=_TICK)
            except queue.Empty:
                if not any(w.busy for w in workers.values()) or \
                        time.perf_counter() > deadline:
                    return
                continue
            if qtext in remaining:
                remaining.discard(qtext)
                answered(qtext, answer)

    def _ask_async(self, todo: list[str], k: int, answered, cancel) -> None:
        if not todo:
            return
        outcome: dict = {}
        lock = threading.Lock()

        async def one(sem: asyncio.Semaphore, qtext: str) -> None:
            async with sem:
                if cancel is not None and cancel.is_set():
                    return
                answer = await self._call_async(qtext, k)
                with lock:
                    answered(qtext, answer)

        async def watch(tasks) -> None:
            while not all(t.done() for t in tasks):
                if cancel is not None and cancel.is_set():
                    for t in tasks:
                        t.cancel()
                    return
                await asyncio.sleep(_TICK)

        async def main() -> None:
            sem = asyncio.Semaphore(self.concurrency)
            tasks = [asyncio.ensure_future(one(sem, q)) for q in todo]
            await asyncio.gather(watch(tasks), *tasks, return_exceptions=True)

        def run() -> None:
            try:
                asyncio.run(main())
            except BaseException as exc:  # handed to the caller's thread
                outcome["error"] = exc

        # a thread of its own: the caller may already run an event loop (a notebook)
        thread = threading.Thread(target=run, name="ragdash-own-async", daemon=True)
        thread.start()
        thread.join()
        if "error" in outcome:
            raise outcome["error"]
        if cancel is not None and cancel.is_set():
            raise error(Cancelled, "own.cancelled")

    async def _call_async(self, qtext: str, k: int) -> _Answer:
        attempt = 0
        while True:
            self._counts["search_calls"] += 1
            t0 = time.perf_counter()
            try:
                coro = self.search(qtext, k)
                result = await (asyncio.wait_for(coro, self.timeout) if self.timeout
                                else coro)
                hits = to_hits(result, id_field=self.id_field)
            except TimeoutError:
                seconds = time.perf_counter() - t0
                if self.timeout is not None and seconds >= self.timeout:
                    return _Answer(None, seconds, str(text(
                        "own.timed_out", seconds=_seconds(self.timeout))), attempt + 1)
                raise
            except Exception as exc:  # the user's code
                seconds = time.perf_counter() - t0
                kind = _transient_kind(exc)
                if kind and should_retry(None, None, attempt, kind,
                                         max_retries=min(self.retries, MAX_RETRIES)):
                    self._counts["retries"] += 1
                    await asyncio.sleep(retry_delay(attempt, None))
                    attempt += 1
                    continue
                return _Answer(None, seconds, _one_line(exc), attempt + 1)
            return _Answer(hits, time.perf_counter() - t0, None, attempt + 1)

    # -- the ranking ----------------------------------------------------------------------
    def _finish(self, dataset: Dataset, queries: list[Query], kmax: int, index: CorpusIndex,
                answers: dict[str, _Answer], wall: float) -> Ranking:
        c = self._counts
        qids: list[str] = []
        offsets = [0]
        docs: list[str] = []
        scores: list[float] = []
        mapped_hits = 0
        for q in queries:
            answer = answers.get(q.text)
            if answer is None or answer.error is not None:
                self.failed.append((q.id, answer.error if answer else "—"))
                continue
            self.latencies_ms.append(1000.0 * answer.seconds)
            m = index.map(answer.hits)
            self.mapped[q.id] = m
            c["hits"] += len(answer.hits)
            c["not_found"] += m.not_found
            c["ambiguous"] += m.ambiguous
            c["duplicates_folded"] += m.duplicates_folded
            c["no_score_queries"] += m.no_score
            c["reordered_queries"] += m.reordered
            mapped_hits += len(answer.hits) - m.not_found - m.ambiguous
            for hit, _doc, status in m.per_hit:
                if status == "not_found" and len(self.unmapped_examples) < EXAMPLES:
                    shown = hit.id if hit.id is not None else _snippet(hit.text)
                    if shown not in self.unmapped_examples:
                        self.unmapped_examples.append(shown)
                elif status == "ambiguous" and len(self.ambiguous_examples) < EXAMPLES:
                    self.ambiguous_examples.append(_snippet(hit.text))
            keep = min(len(m.doc_ids), kmax)
            c["beyond_k"] += len(m.doc_ids) - keep
            qids.append(q.id)
            docs.extend(m.doc_ids[:keep])
            scores.extend(m.scores[:keep])
            offsets.append(len(docs))
        c["failed_queries"] = len(self.failed)
        if len(self.failed) == len(queries) and queries:
            raise error(RetrievalError, "own.all_failed", n=len(queries),
                        first=self.failed[0][1])
        if self.failed and not self.allow_failures:
            raise error(RetrievalError, "own.failed_refused", n=len(self.failed),
                        total=len(queries), examples=_failed_examples(self.failed),
                        kept=len(queries) - len(self.failed))
        if c["hits"] == 0:
            raise error(RetrievalError, "own.no_hits", n=len(queries) - len(self.failed))
        share = mapped_hits / c["hits"]
        if share < self.min_mapped:
            raise error(RetrievalError, "own.too_few_mapped",
                        share=f"{100 * share:.1f}", hits=c["hits"],
                        examples=", ".join(map(repr, self.unmapped_examples
                                               or self.ambiguous_examples)) or "—",
                        fix=text("own.fix_id_field") if self.match == "text"
                        else text("own.fix_match_text"))
        self._measure(wall)
        if self.store is not None and self.identity:
            with contextlib.suppress(RagdashError):
                self.store.forget(self.identity, kmax)
        return Ranking(qids, np.asarray(offsets, dtype=np.int64),
                       np.asarray(docs, dtype=object), np.asarray(scores, dtype=np.float64),
                       name=self.name)

    def _measure(self, wall: float) -> None:
        ms = np.asarray(self.latencies_ms, dtype=float)
        if not len(ms):
            return
        self.resources = {
            "latency_probe": {"requests": len(ms), "p50_ms": _pct(ms, 50),
                              "p95_ms": _pct(ms, 95), "p99_ms": _pct(ms, 99),
                              "min_ms": round(float(ms.min()), 3),
                              "max_ms": round(float(ms.max()), 3),
                              "concurrency": self.concurrency, "source": "run",
                              "date": now_iso()},
            "search_seconds": float(ms.sum()) / 1000.0,
            "wall_seconds": wall,
            "own_search": self.said(),
        }

    def said(self) -> dict:
        """What the run keeps of its mapping and failures (JSON): the notes as message ids
        with their values (said again in any language by :func:`own_notes`), the failed
        queries, the examples."""
        return {"notes": [[n.msg_id, dict(n.params)] for n in self.notes],
                "failed": [list(f) for f in self.failed],
                "not_found_examples": list(self.unmapped_examples),
                "ambiguous_examples": list(self.ambiguous_examples),
                "concurrency": self.concurrency}


class _Worker:
    """A daemon thread asking queries from ``work`` until stopped or abandoned."""

    def __init__(self, owner: OwnRetriever, k: int, work: queue.SimpleQueue,
                 done: queue.SimpleQueue, cancel: threading.Event | None) -> None:
        self.owner, self.k, self.work, self.done = owner, k, work, done
        self.cancel = cancel
        #: (query text, start time) while a call runs
        self.busy: tuple[str, float] | None = None
        self._stop = False
        self.thread = threading.Thread(target=self._loop, name="ragdash-own-search",
                                       daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self._stop:
            if self.cancel is not None and self.cancel.is_set():
                return
            try:
                qtext = self.work.get_nowait()
            except queue.Empty:
                return
            self.busy = (qtext, time.perf_counter())
            answer = self.owner._call(qtext, self.k)
            self.busy = None
            if self._stop:
                return
            self.done.put((id(self), qtext, answer))

    def abandon(self) -> None:
        """Its call blocked past the timeout: whatever it returns later is dropped."""
        self._stop = True

    def stop(self) -> None:
        self._stop = True


def _transient_kind(exc: BaseException) -> str | None:
    """``"timeout"`` / ``"connection"`` for the errors worth asking again, else None (a
    service's own errors were retried where they were raised)."""
    if isinstance(exc, (ServiceError, BadResult, RagdashError)):
        return None
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, ConnectionError):
        return "connection"
    return None


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, RagdashError):
        said = message(exc)
    else:
        said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    line = " ".join(str(said).split())
    return line if len(line) <= 200 else line[:199] + "…"


def _failed_examples(failed: list[tuple[str, str]]) -> str:
    shown = "; ".join(f"{qid}: {why}" for qid, why in failed[:EXAMPLES])
    return shown + ("; …" if len(failed) > EXAMPLES else "")


def _snippet(value: str | None, limit: int = 40) -> str:
    if value is None:
        return "—"
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _seconds(value: float) -> str:
    return f"{value:g}"


def _pct(ms: np.ndarray, q: float) -> float:
    value = float(np.percentile(ms, q))
    return round(value, 3) if math.isfinite(value) else 0.0


def _report(progress: ProgressFn | None, done: int, total: int) -> None:
    if progress is not None:
        progress({"stage": "searching", "done": done, "total": total})


#: the notes a run of an own retriever may keep (:meth:`OwnRetriever.said`)
_NOTE_IDS = frozenset({"own.note_not_found", "own.note_ambiguous", "own.note_folded",
                       "own.note_no_score", "own.note_reordered", "own.note_beyond_k",
                       "own.note_failed", "own.note_resumed"})


def own_notes(resources: dict | None, lang: str | None = None) -> list[str]:
    """The sentences an own retriever's run keeps in ``resources["own_search"]``, in
    ``lang``, and its latency (p50 / p95 / p99)."""
    kept = (resources or {}).get("own_search") or {}
    out = [message(text(msg_id, **params), lang) for msg_id, params in kept.get("notes", [])
           if msg_id in _NOTE_IDS]
    probe = (resources or {}).get("latency_probe") or {}
    if kept and probe.get("p95_ms") is not None:
        out.insert(0, message(text("own.note_latency", n=probe.get("requests", 0),
                                   p50=f"{probe['p50_ms']:,.1f}", p95=f"{probe['p95_ms']:,.1f}",
                                   p99=f"{probe.get('p99_ms', probe['p95_ms']):,.1f}",
                                   concurrency=probe.get("concurrency", 1)), lang))
    return out
