"""An OpenAI-compatible embeddings client: batches, parallel requests, retries, checks.

``POST {base_url}/embeddings`` with ``{"input": [...], "model", "encoding_format"[,
"dimensions"]}`` over one ``requests.Session`` whose connection pool holds ``concurrency``
connections, so connections are kept alive and reused.

What a call to :meth:`EmbeddingClient.embed` does:

1. plans batches of at most ``batch_size`` texts and ``max_batch_tokens`` estimated tokens
   (see :mod:`ragdash.embeddings.batching`);
2. keeps up to ``concurrency`` requests in flight, never one per text: worker threads take
   the next batch themselves, and twice as many threads as slots means the next request is
   ready to leave the moment a reply is in — it goes while that reply is parsed (see
   :class:`EmbeddingJob` and :class:`_Slot`);
3. retries each batch by the policy in :mod:`ragdash.services.retry` (through
   :class:`ragdash.services.service.Service`); a batch the server
   finds too long is split in halves, and a single text that is too long is cut by token
   estimate (counted in ``usage["truncated_texts"]``);
4. checks each reply: one vector per input, reordered by ``index``, one dimension for the
   whole run, finite values; base64 replies are little-endian float32;
5. L2-normalizes on the client (a zero vector stays zero, with a warning), and hands every
   finished batch to ``on_batch`` in the calling thread, so the caller can cache it at once.

Every request goes through :class:`ragdash.services.http.Transport`: one pooled session, a total
deadline of ``timeout`` seconds per request (connecting and the whole reply), the reply read as
a stream and capped at :func:`ragdash.services.http.reply_limit` (texts × dimensions ×
32 bytes, at least 4 MB), redirects to another host refused (so no credential header of any
name leaves the configured host), the key checked for characters no header can carry before
anything is sent.

Final failures are :mod:`ragdash.errors` classes whose message is one sentence that says what to
do. The API key is only ever put in a request header: it is scrubbed from anything the server
sends back before that text reaches a message, and never logged.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import queue
import re
import threading
from collections import deque
from collections.abc import Callable, Sequence

import numpy as np
import requests

from ..errors import EMBEDDING_ERRORS, Cancelled, EmbeddingError, RetrievalError
from ..i18n import error, text
from ..services import failures as fk
from ..services.failures import Failure, is_too_long
from ..services.http import ErrorInfo, reply_limit
from ..services.retry import MAX_RETRIES
from ..services.service import Service, Spec, reported_count
from ..services.urls import moved_to, resolve_endpoint, typed_form
from .batching import (
    DEFAULT_MAX_BATCH_TOKENS,
    MAX_BATCH_SIZE,
    Pace,
    estimate_tokens,
    estimate_tokens_many,
    plan_batches,
    truncate_to_tokens,
)

log = logging.getLogger("ragdash.embeddings")

#: how many times one text is cut shorter before giving up
MAX_TRUNCATIONS = 6
#: a text cut to fit aims at this share of the limit the server named (the estimate is rough)
TRUNCATE_SHARE = 0.9
#: longest wait of a worker that gave its slot up for the next request to start leaving
HANDOVER_WAIT = 0.005

ProgressFn = Callable[[dict], None]
SPEC = Spec("embeddings", EMBEDDING_ERRORS, fk.messages("embeddings"))
BatchFn = Callable[[Sequence[int], np.ndarray], None]

_TOKEN_LIMIT = re.compile(r"(\d[\d,]*)\s*tokens", re.IGNORECASE)
#: a 400 that says the batch has too many inputs ("too many inputs: 256 > 100", "batch size
#: 256 exceeds the maximum of 100", "at most 96 texts")
_TOO_MANY_TEXT = re.compile(
    r"too many (inputs|texts|items|documents|strings)|batch[ _]size|max(imum)?[ _]batch"
    r"|(inputs?|texts?|items|array)\b.{0,40}\b(at most|no more than|maximum|max|limit|exceed)"
    r"|(at most|up to|no more than|maximum of|max(imum)? is) \d+ (inputs|texts|items|strings)",
    re.IGNORECASE)
_LIMIT_NUMBERS = (re.compile(r"(\d[\d,]*)\s*>\s*(\d[\d,]*)"),
                  re.compile(r"(?:at most|no more than|up to|maximum(?: of| is)?|max(?: is)?"
                             r"|limit(?: is| of)?|exceeds?(?: the)?(?: maximum| limit)?(?: of)?)"
                             r"\s*:?\s*(\d[\d,]*)", re.IGNORECASE))


def batch_limit(status: int | None, info: ErrorInfo) -> int | None:
    """For a 400 that says the batch holds too many inputs: the most the server named
    (0 when it named no number); None for any other refusal."""
    if status not in (400, 413, 422) or not _TOO_MANY_TEXT.search(info.message):
        return None
    greater, named = _LIMIT_NUMBERS
    m = greater.search(info.message)
    if m:
        return int(m.group(2).replace(",", ""))
    m = named.search(info.message)
    return int(m.group(1).replace(",", "")) if m else 0


def token_limit(info: ErrorInfo) -> int | None:
    """The first "N tokens" in a too-long message: the model's limit in the usual wordings."""
    m = _TOKEN_LIMIT.search(info.message)
    return int(m.group(1).replace(",", "")) if m else None


def l2_normalize(vectors: np.ndarray) -> tuple[np.ndarray, int]:
    """Rows scaled to unit length; zero rows stay zero. Returns (vectors, zero rows)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors.astype(np.float64), axis=1, keepdims=True)
    zero = norms[:, 0] == 0
    norms[zero] = 1.0
    return (vectors / norms).astype(np.float32), int(zero.sum())


class _TooLong(Exception):
    def __init__(self, info: ErrorInfo) -> None:
        super().__init__(info.message)
        self.info = info


class _Slow(Exception):
    """A request timed out and its batch is now bigger than the pace allows (or the pace was
    just halved): the batch goes back to the job's queue in pieces of the new size."""

    def __init__(self, changed: bool) -> None:
        super().__init__("the server is slower than the pace")
        self.changed = changed  #: this timeout halved the pace


class EmbeddingClient:
    """Embeds texts through an OpenAI-compatible ``/embeddings`` endpoint.

    ``base_url`` follows the rules in :mod:`ragdash.services.urls`. ``api_key`` is sent as
    ``Authorization: Bearer`` (``api-key`` for Azure, or any header named by
    ``api_key_header``); None sends no key (local servers). ``dimensions`` is sent only when
    set; ``encoding_format`` ("float" or "base64") always.
    """

    def __init__(self, base_url: str | None, model: str, *, api_key: str | None = None,
                 dimensions: int | None = None, batch_size: int = 256,
                 max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS, concurrency: int = 4,
                 encoding_format: str = "float", api_version: str | None = None,
                 api_key_header: str | None = None, timeout: float = 60.0,
                 max_retries: int = MAX_RETRIES, session: requests.Session | None = None,
                 seed: int | None = None) -> None:
        if not model or not str(model).strip():
            raise error(RetrievalError, "embed.no_model_given")
        _check_range("batch size", batch_size, 1, MAX_BATCH_SIZE)
        _check_range("concurrency", concurrency, 1, 64)
        _check_range("max batch tokens", max_batch_tokens, 1, 10**9)
        _check_range("max retries", max_retries, 0, 100)
        if dimensions is not None:
            _check_range("dimensions", dimensions, 1, 65536)
        if encoding_format not in ("float", "base64"):
            raise error(RetrievalError, "embed.unknown_encoding", format=encoding_format)
        if not timeout or timeout <= 0:
            raise error(RetrievalError, "embed.bad_timeout")
        self.model = str(model).strip()
        self.endpoint = resolve_endpoint(base_url, model=self.model, api_version=api_version)
        self.dimensions = int(dimensions) if dimensions else None
        self.batch_size = int(batch_size)
        self.max_batch_tokens = int(max_batch_tokens)
        self.concurrency = int(concurrency)
        self.encoding_format = encoding_format
        self.api_version = api_version
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        #: the batch size and concurrency in use now: halved on timeouts, grown back on
        #: successes (:class:`~ragdash.embeddings.batching.Pace`); shared by this client's jobs
        self.pace = Pace(self.batch_size, self.concurrency)
        self._lock = threading.Lock()
        self.dimension: int | None = None  #: the run's vector size, once known
        self.dimension_source = "an earlier reply"
        self.usage = {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0,
                      "cached_texts": 0, "retries": 0, "truncated_texts": 0}
        self._zero_vectors = 0
        self._estimated_tokens = False
        self._no_index = False
        self.service = Service(
            self.endpoint.url, SPEC, api_key=api_key,
            api_key_header=api_key_header or ("api-key" if self.endpoint.azure
                                              else "Authorization"),
            params=self.endpoint.params, timeout=self.timeout, concurrency=self.concurrency,
            max_retries=self.max_retries, session=session, seed=seed, usage=self.usage,
            lock=self._lock, model=self.model, warn_url=self.endpoint.base,
            alternate=self.endpoint.alternate, on_moved=self._moved)
        #: the URL as typed, when it got 404 and its other form answered (then used)
        self.moved_from: str | None = None
        self.api_key_header = self.service.api_key_header
        #: sentences for the user before the run (a key over plain http to another machine)
        self.warnings = self.service.warnings
        self.transport = self.service.transport
        self.session = self.transport.session

    # -- identity ------------------------------------------------------------------------

    def expect_dimension(self, dimension: int, *, source: str) -> None:
        """Vectors of this run must have ``dimension`` (known from ``source``, e.g. "the
        cache"): the first reply that disagrees stops the run, before paying for the rest.
        A size already known is kept."""
        if self.dimension is None:
            self.dimension, self.dimension_source = int(dimension), source

    def __repr__(self) -> str:
        return f"EmbeddingClient({self.endpoint.base!r}, {self.model!r})"

    @property
    def cache_base(self) -> str:
        return self.endpoint.base

    def _moved(self, typed: str, used: str) -> None:
        """The URL as typed got 404, its other form ``used`` answered: it is the endpoint
        (and the cache's base) from now on."""
        self.endpoint = moved_to(self.endpoint, used)
        self.moved_from = typed

    def config(self) -> dict:
        """Settings, JSON-safe; never the key (only whether one is set). ``base_url`` is
        spelled so that it reaches the endpoint used again (:func:`typed_form`); after a move
        ``moved_from`` is the URL as typed."""
        moved = {"moved_from": self.moved_from} if self.moved_from else {}
        return {**moved, "base_url": typed_form(self.endpoint), "endpoint": self.endpoint.url,
                "model": self.model, "dimensions": self.dimensions,
                "batch_size": self.batch_size, "max_batch_tokens": self.max_batch_tokens,
                "concurrency": self.concurrency, "encoding_format": self.encoding_format,
                "api_version": self.endpoint.params.get("api-version"),
                "api_key_header": self.api_key_header, "api_key_set": self.service.has_key,
                "timeout": self.timeout, "max_retries": self.max_retries}

    @property
    def notes(self) -> list[str]:
        out = []
        if self.moved_from:
            out.append(text("services.moved", typed=self.moved_from, used=self.endpoint.url))
        if self.usage["truncated_texts"]:
            out.append(f"{self.usage['truncated_texts']} text(s) were longer than the model "
                       "accepts and were cut to fit (by a token estimate).")
        if self._zero_vectors:
            out.append(f"{self._zero_vectors} text(s) got a zero vector (empty text, or the "
                       "server returned zeros); they score 0 against every query.")
        if self._no_index:
            out.append("The server sent its vectors without an 'index' field; they were "
                       "taken in the order they came, which is the only evidence.")
        if self._estimated_tokens:
            out.append("The server did not report token usage for some requests; "
                       "prompt_tokens includes an estimate for them.")
        if self.pace.slowest is not None:
            batch, at_once = self.pace.slowest
            out.append(text("adaptive.note", batch_set=self.batch_size, batch=batch,
                            at_once_set=self.concurrency, at_once=at_once))
        return out

    def close(self) -> None:
        self.transport.close()

    # -- embedding -----------------------------------------------------------------------
    def embed(self, texts: Sequence[str], *, progress: ProgressFn | None = None,
              cancel: threading.Event | None = None, on_batch: BatchFn | None = None,
              stage: str = "documents") -> np.ndarray:
        """Vectors for ``texts``: float32, shape (len(texts), d), rows of unit length.

        ``on_batch(indices, vectors)`` runs in this thread after each batch (to cache it);
        ``progress`` gets ``{stage, done, total, calls, tokens}``, and ``pace`` while the
        server is too slow for the configured batch size and concurrency (see
        :meth:`Pace.event <ragdash.embeddings.batching.Pace.event>`; an event comes at once
        when the pace changes). When ``cancel`` is set,
        no new batch starts; batches in flight finish (and reach ``on_batch``), then
        :class:`~ragdash.errors.Cancelled` is raised.
        """
        texts = list(texts)
        n = len(texts)

        def report(done: int) -> None:
            if progress is not None:
                progress({"stage": stage, "done": done, "total": n,
                          "calls": self.usage["requests"], "tokens": self.usage["prompt_tokens"],
                          **self.pace.event()})

        def handle(batch: Sequence[int], vectors: np.ndarray) -> None:
            if on_batch is not None:
                on_batch(batch, vectors)
            report(job.done + len(batch))

        report(0)
        with self.job(cancel=cancel, on_batch=handle,
                      on_pace=lambda: report(job.done)) as job:
            job.add(texts)
            vectors = job.join()
        if job.empty:
            report(n)
        return vectors

    def job(self, *, cancel: threading.Event | None = None,
            on_batch: BatchFn | None = None,
            on_pace: Callable[[], None] | None = None) -> EmbeddingJob:
        """An :class:`EmbeddingJob`: :meth:`embed` for texts that arrive in parts."""
        return EmbeddingJob(self, cancel=cancel, on_batch=on_batch, on_pace=on_pace)

    def _embed_batch(self, texts: list[str], cancel: threading.Event | None,
                     slot: _Slot | None = None, *, adapt: bool = False) -> np.ndarray:
        """One planned batch; halves it while the server says it is too long. ``adapt``: a
        timeout may hand the batch back to the job (:class:`_Slow`) to be sent at the new
        pace, instead of being retried as it is."""
        try:
            vectors = self._post_with_retries(texts, cancel, slot, adapt=adapt)
        except _TooLong as exc:
            if len(texts) == 1:
                vectors = self._embed_cut(texts[0], exc.info, cancel, slot)
            else:
                mid = len(texts) // 2
                return np.concatenate([self._embed_batch(texts[:mid], cancel, slot),
                                       self._embed_batch(texts[mid:], cancel, slot)])
        with self._lock:
            self.usage["embedded_texts"] += len(texts)
        return vectors

    def _embed_cut(self, text: str, info: ErrorInfo, cancel: threading.Event | None,
                   slot: _Slot | None = None) -> np.ndarray:
        """Cut one text shorter until the server takes it."""
        current = text
        for _ in range(MAX_TRUNCATIONS):
            limit = token_limit(info)
            estimate = estimate_tokens(current)
            target = int(limit * TRUNCATE_SHARE) if limit and limit * TRUNCATE_SHARE < estimate \
                else estimate // 2
            shorter = truncate_to_tokens(current, max(1, target))
            if len(shorter) >= len(current):
                shorter = current[: len(current) // 2]
            if not shorter:
                break
            current = shorter
            try:
                vectors = self._post_with_retries([current], cancel, slot)
            except _TooLong as exc:
                info = exc.info
                continue
            with self._lock:
                self.usage["truncated_texts"] += 1
            log.warning("a text of %d characters was cut to %d characters to fit the model",
                        len(text), len(current))
            return vectors
        too_long = EMBEDDING_ERRORS[fk.TOO_LONG]
        raise error(too_long, "embed.text_too_long", chars=len(text),
                    model=self.model, cut=len(current))

    def _post_with_retries(self, texts: list[str], cancel: threading.Event | None,
                           slot: _Slot | None = None, *, adapt: bool = False) -> np.ndarray:
        """One request for ``texts``, retried by the policy; ``slot``: see :class:`_Slot`.
        A timeout halves the pace (:class:`~ragdash.embeddings.batching.Pace`); with
        ``adapt``, a batch now bigger than the pace goes back to the job (:class:`_Slow`)
        instead of being retried as it is."""
        pace = self.pace
        sent_at = [pace.generation]  # the pace when the last attempt left

        def before() -> None:
            if slot is not None:
                slot.take()
            sent_at[0] = pace.generation

        def timed_out(failure: Failure) -> None:
            changed = pace.timed_out(sent_at[0], len(texts))
            if changed:
                log.warning("%s timed out: the batch size is now %d and %d request(s) go "
                            "at once", self.endpoint.url, pace.batch_size, pace.concurrency)
                if slot is not None:
                    slot.job._paced()
            if adapt and len(texts) > pace.batch_size:  # else retried as it is, as before
                with self._lock:
                    self.usage["retries"] += 1
                raise _Slow(changed)

        def refusal(failure: Failure) -> None:
            if is_too_long(failure.status, failure.info):
                raise _TooLong(failure.info)
            most = batch_limit(failure.status, failure.info)
            if most is not None:  # the server's own limit: nothing to retry
                stop()
                said = self.service.scrub(failure.info.message)
                values = {"url": self.endpoint.url, "status": failure.status,
                          "said": f": {said}" if said else "", "most": most}
                refused = EMBEDDING_ERRORS[fk.REFUSED]
                if most:
                    raise error(refused, "embed.batch_too_large", **values)
                raise error(refused, "embed.batch_smaller", **values)

        def stop() -> None:
            if slot is not None:
                slot.job._stop()  # while the slot is still held: no new batch starts

        vectors = self.service.request(
            self._body(texts), max_bytes=self._reply_cap(len(texts)), cancel=cancel,
            parse=lambda obj: self._vectors(obj, texts), refusal=refusal, on_final=stop,
            before=before, on_timeout=timed_out,
            on_send=slot.sending if slot is not None else None,
            on_reply=slot.hand_over if slot is not None else None)
        if pace.succeeded(sent_at[0]) and slot is not None:
            slot.job._paced()
        return vectors

    def _reply_cap(self, n: int) -> int:
        """Decoded bytes a reply for ``n`` texts may take (see
        :func:`ragdash.services.http.reply_limit`)."""
        return reply_limit(n, self.dimensions or self.dimension)

    def _body(self, texts: list[str]) -> bytes:
        body = {"input": texts, "model": self.model, "encoding_format": self.encoding_format}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    def _vectors(self, obj, texts: list[str]) -> np.ndarray:
        """A reply's JSON -> unit vectors for ``texts``, usage counted; or a Failure."""
        vectors, tokens = self._parse(obj, len(texts))
        vectors, zeros = l2_normalize(vectors)
        with self._lock:
            if tokens is None:
                self._estimated_tokens = True
                tokens = sum(estimate_tokens(t) for t in texts)
            self.usage["prompt_tokens"] += tokens
            self._zero_vectors += zeros
        if zeros:
            log.warning("the server returned %d zero vector(s); kept as zeros", zeros)
        return vectors

    def _parse(self, obj, n: int) -> tuple[np.ndarray, int | None]:
        """Vectors in input order and the reported prompt tokens, or a Failure."""
        data = obj.get("data") if isinstance(obj, dict) else None
        if not isinstance(data, list):
            raise Failure("malformed", status=200, detail=text("embed.no_data_list"))
        if len(data) != n:
            raise Failure("invalid", status=200, detail=text(
                "embed.vector_count", url=self.endpoint.url, got=len(data), n=n))
        try:
            indices = self._indices(data)
            rows = [_decode(item["embedding"]) for item in data]
            vectors = np.asarray(rows, dtype=np.float32)
        except (AttributeError, KeyError, TypeError, ValueError, binascii.Error):
            raise Failure("invalid", status=200, detail=text(
                "embed.unreadable_vectors", url=self.endpoint.url)) from None
        if sorted(indices) != list(range(n)):
            raise Failure("invalid", status=200, detail=text(
                "embed.bad_indices", url=self.endpoint.url, last=n - 1))
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise Failure("invalid", status=200, detail=text(
                "embed.empty_vectors", url=self.endpoint.url))
        ordered = np.empty_like(vectors)
        ordered[indices] = vectors
        if not np.isfinite(ordered).all():
            raise Failure("invalid", status=200, detail=text(
                "embed.not_finite", url=self.endpoint.url))
        self._check_dimension(ordered.shape[1])
        usage = obj.get("usage")
        return ordered, reported_count(usage.get("prompt_tokens") if isinstance(usage, dict)
                                       else None)

    def _indices(self, data: list) -> list[int]:
        """Each item's ``index``. When no item has one, the order is the only evidence and is
        taken (with a note); when only some have one, the reply cannot be placed."""
        has = [isinstance(item, dict) and "index" in item for item in data]
        if not any(has):
            if not all(isinstance(item, dict) for item in data):
                raise TypeError("an item is not an object")
            if len(data) > 1:
                with self._lock:
                    self._no_index = True
            return list(range(len(data)))
        if not all(has):
            raise Failure("invalid", status=200, detail=text(
                "embed.some_indices", url=self.endpoint.url, without=has.count(False),
                n=len(data)))
        out = []
        for item in data:
            index = item["index"]
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError("an index is not a whole number")
            out.append(index)
        return out

    def _check_dimension(self, d: int) -> None:
        if self.dimensions and d != self.dimensions:
            raise Failure("invalid", status=200, detail=text(
                "embed.dimensions_unsupported", url=self.endpoint.url, asked=self.dimensions,
                got=d))
        with self._lock:
            if self.dimension is None:
                self.dimension = d
                return
            if d == self.dimension:
                return
        raise Failure("invalid", status=200, detail=text(
            "embed.dimension_changed", url=self.endpoint.url, got=d, before=self.dimension,
            source=self.dimension_source, model=self.model))


class EmbeddingJob:
    """One embedding pass whose texts may arrive in parts (``with client.job() as job``).

    ``add(texts)`` plans batches over every text added so far, exactly as one
    :meth:`EmbeddingClient.embed` call over all of them would, and hands each complete batch
    to the worker threads at once, so the first requests leave while the caller is still
    preparing the rest. ``close()`` plans the last batch. ``join()`` runs
    ``on_batch(indices, vectors)`` in the calling thread for each finished batch (indices
    count across all ``add`` calls), in the order they finish, and returns the vectors of
    every added text (empty texts get zero vectors without a request).

    Up to ``concurrency`` requests are in flight; each worker thread takes the next batch as
    soon as its last one is done, without waiting for the calling thread. The batch size and
    the concurrency in use are the client's :attr:`~EmbeddingClient.pace`: when a request
    times out and the pace is halved, its batch goes back to the front of the queue in pieces
    of the new size (a planned batch bigger than the pace is cut when it is taken), and fewer
    requests leave at once; ``on_pace()`` runs in the calling thread after each change, so a
    progress line can say so at once. When ``cancel`` is
    set, or a batch has failed, no new batch starts; the batches in flight finish and reach
    ``on_batch``, then :class:`~ragdash.errors.Cancelled` or the failure is raised. Leaving
    the ``with`` block on an exception stops the job the same way before the exception goes
    on.
    """

    def __init__(self, client: EmbeddingClient, *, cancel: threading.Event | None = None,
                 on_batch: BatchFn | None = None,
                 on_pace: Callable[[], None] | None = None) -> None:
        self.client = client
        self.pace = client.pace
        self.cancel = cancel
        self.on_batch = on_batch
        self.on_pace = on_pace
        client.transport.new_job()  # the environment is read again for each job
        self.texts: list[str] = []
        self.empty: list[int] = []  #: positions of empty texts
        self.done = 0  #: texts handed to on_batch
        self._carry: list[int] = []  # the last planned batch, which the next texts may extend
        self._carry_tokens: list[int] = []
        self._ready: deque[list[int]] = deque()
        self._batches = 0
        self._cond = threading.Condition()
        self._closed = False
        self._stopped = False  # a batch failed, or the caller is leaving early
        self._workers: list[threading.Thread] = []
        self._running = 0  # started workers that have not reported that they are done
        self._results: queue.SimpleQueue = queue.SimpleQueue()
        self._finished: list[tuple[list[int], np.ndarray]] = []
        self._error: BaseException | None = None
        self._handing_over = True  # False once on_batch has raised
        self._in_use = 0  # HTTP slots taken, of pace.concurrency (see _Slot)
        self._urgent = 0  # batches under way waiting for a slot again
        self._sends = 0  # requests that have started to go out

    def __enter__(self) -> EmbeddingJob:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._workers and (exc_type is not None or self._running):
            self._stop()
            self._collect(quiet=True)  # what is in flight still reaches on_batch
        self._join_threads()

    def _cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def add(self, texts: Sequence[str]) -> None:
        """Plan ``texts`` after those added before; complete batches start at once."""
        if self._closed:
            raise RuntimeError("add() after close()")
        base = len(self.texts)
        texts = [str(t) for t in texts]
        self.texts += texts
        self.empty += [base + i for i, t in enumerate(texts) if t == ""]
        todo = [base + i for i, t in enumerate(texts) if t != ""]
        if not todo:
            return
        items = self._carry + todo
        tokens = self._carry_tokens + estimate_tokens_many([self.texts[i] for i in todo]).tolist()
        c = self.client
        planned = list(plan_batches(tokens, c.batch_size, c.max_batch_tokens))
        last = planned.pop()  # it may still grow with the next texts
        self._carry, self._carry_tokens = items[last.start:last.stop], tokens[last.start:]
        self._submit([items[r.start:r.stop] for r in planned])

    def close(self) -> None:
        """No more texts: the last batch is planned."""
        if self._closed:
            return
        if self._carry:
            self._submit([self._carry])
            self._carry, self._carry_tokens = [], []
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._start_workers(2 * self.client.concurrency)

    def _start_workers(self, most: int) -> None:
        """Up to ``most`` worker threads, one per batch: ``concurrency`` to send the first
        requests, as many again (started last) to have requests ready when slots free."""
        if self._stopped or self._cancelled():
            return
        while len(self._workers) < min(most, self._batches):
            worker = threading.Thread(target=self._work, daemon=True,
                                      name=f"ragdash-embed-{len(self._workers)}")
            self._workers.append(worker)
            self._running += 1
            worker.start()

    def _submit(self, batches: list[list[int]]) -> None:
        if not batches:
            return
        with self._cond:
            self._ready.extend(batches)
            self._batches += len(batches)
            self._cond.notify(len(batches))
        self._start_workers(self.client.concurrency)

    def _slot_free(self) -> bool:  # caller holds _cond
        return self._in_use < self.pace.concurrency

    def _next(self, slot: _Slot) -> list[int] | None:
        """A free slot, then the next batch (cut to the pace's batch size); None when there
        is none to start."""
        with self._cond:
            while True:
                if self._stopped or self._cancelled() or (self._closed and not self._ready):
                    return None
                if self._ready and self._slot_free() and not self._urgent:
                    self._in_use += 1
                    slot.holding = True
                    batch = self._ready.popleft()
                    size = self.pace.batch_size
                    if len(batch) > size:  # planned before the server slowed down
                        self._ready.appendleft(batch[size:])
                        self._batches += 1
                        batch = batch[:size]
                    return batch
                self._cond.wait()

    def _again(self, batch: list[int]) -> None:
        """A batch that timed out, back at the front of the queue in pieces of the pace."""
        size = self.pace.batch_size
        pieces = [batch[i:i + size] for i in range(0, len(batch), size)]
        with self._cond:
            self._ready.extendleft(reversed(pieces))
            self._batches += len(pieces) - 1
            self._cond.notify_all()

    def _paced(self) -> None:
        """The pace changed (in a worker): waiting workers look again at the free slots, and
        the calling thread tells ``on_pace``."""
        self._results.put(_PACE)
        with self._cond:
            self._cond.notify_all()

    def _work(self) -> None:
        try:
            while True:
                slot = _Slot(self)
                batch = self._next(slot)
                if batch is None:
                    return
                try:
                    vectors = self.client._embed_batch([self.texts[i] for i in batch],
                                                       self.cancel, slot, adapt=True)
                except _Slow:  # sent again at the new pace
                    self._again(batch)
                    continue
                except BaseException as exc:  # raised by join(), after the batches in flight
                    self._stop()
                    self._results.put((batch, None, exc))
                    return
                finally:
                    slot.give_back()
                self._results.put((batch, vectors, None))
        finally:
            self._results.put(None)  # this worker is done

    def _stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def _collect(self, *, quiet: bool = False) -> None:
        """Hand finished batches to on_batch until every worker is done. ``quiet``: the caller
        is already leaving on an exception, so on_batch failing now is not raised."""
        while self._running:
            item = self._results.get()
            if item is None:
                self._running -= 1
                continue
            if item is _PACE:
                if self.on_pace is not None and self._handing_over:
                    self._hand_over(self.on_pace, quiet=quiet)
                continue
            batch, vectors, exc = item
            if exc is not None:
                self._error = self._error or exc
                continue
            self._finished.append((batch, vectors))
            if self.on_batch is not None and self._handing_over \
                    and not self._hand_over(self.on_batch, batch, vectors, quiet=quiet):
                continue
            self.done += len(batch)

    def _hand_over(self, callback: Callable, *args, quiet: bool) -> bool:
        """Call the caller's ``callback``; when it raises, stop handing over: quietly (returns
        False) while draining after a failure, else stop the workers and raise."""
        try:
            callback(*args)
        except BaseException:
            self._handing_over = False
            if quiet:
                return False
            self._stop()
            raise
        return True

    def _join_threads(self) -> None:
        for worker in self._workers:
            worker.join()

    def join(self, *, vectors: bool = True) -> np.ndarray | None:
        """Wait for every batch (handing each to on_batch); the vectors of all added texts
        (``vectors=False``: None, for a caller that keeps what on_batch got)."""
        self.close()
        self._collect()
        self._join_threads()
        c = self.client
        n = len(self.texts)
        if self._cancelled() and self.done < n - len(self.empty):
            raise error(Cancelled, "embed.cancelled_after", done=self.done, n=n)
        if self._error is not None:
            raise self._error
        if self.empty:
            if c.dimension is None:
                raise error(EmbeddingError, "embed.all_empty")
            with c._lock:
                c._zero_vectors += len(self.empty)
            log.warning("%d empty text(s) got a zero vector", len(self.empty))
        if not vectors:
            return None
        d = self._finished[0][1].shape[1] if self._finished else (c.dimension or 0)
        out = np.zeros((n, d), dtype=np.float32)  # empty texts keep their zero rows
        for batch, vectors in self._finished:
            out[batch] = vectors
        return out


#: a worker's note to the calling thread: the pace changed
_PACE = object()


class _Slot:
    """A batch's claim on one of its job's HTTP slots (in a worker thread): there are as many
    as the pace's concurrency, which a timeout may halve while slots are taken.

    A worker takes a free slot first and then the next batch, so requests leave in the
    planned order. The batch holds the slot from its first request to the last byte of a
    successful reply — through retries and the waits before them — and gives it up to parse
    that reply, while the next batch's request leaves (a job runs twice as many worker threads
    as slots for this). It takes a slot again only
    when it must send again (a retry after an unreadable reply, the halves of a batch the
    server found too long, a text cut shorter), ahead of batches that have not started.
    """

    def __init__(self, job: EmbeddingJob) -> None:
        self.job = job
        self.holding = False

    def take(self) -> None:
        """Wait for a slot, ahead of batches that have not started."""
        if self.holding:
            return
        job = self.job
        with job._cond:
            job._urgent += 1
            while not job._slot_free():
                job._cond.wait()
            job._urgent -= 1
            job._in_use += 1
        self.holding = True

    def sending(self) -> None:
        """The request is about to go out."""
        job = self.job
        with job._cond:
            job._sends += 1
            job._cond.notify_all()

    def hand_over(self) -> None:
        """Give the slot up before parsing a good reply. When a request is waiting for it,
        wait (briefly) until that request is leaving: parsing at once would keep the
        interpreter lock from it for up to the switch interval (5 ms)."""
        job = self.job
        self.give_back()
        with job._cond:
            if job._ready or job._urgent:
                sends = job._sends
                job._cond.wait_for(lambda: job._sends > sends or job._stopped,
                                   timeout=HANDOVER_WAIT)

    def give_back(self) -> None:
        if self.holding:
            self.holding = False
            job = self.job
            with job._cond:
                job._in_use -= 1
                job._cond.notify_all()


def _decode(embedding) -> np.ndarray | list:
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4")
    if not isinstance(embedding, list):
        raise TypeError("embedding is neither a list nor base64")
    return embedding


#: the settings _check_range names, with words in the catalog (message ids)
_SETTING_IDS = {"batch size": "embed.setting.batch_size",
                "concurrency": "embed.setting.concurrency",
                "max batch tokens": "embed.setting.max_batch_tokens",
                "max retries": "embed.setting.max_retries",
                "dimensions": "embed.setting.dimensions"}


def _check_range(what: str, value, lo: int, hi: int) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) \
            or not lo <= value <= hi:
        key = _SETTING_IDS.get(what)
        raise error(RetrievalError, "embed.bad_setting", lo=lo, hi=hi, value=value,
                    what=text(key) if key else what)
