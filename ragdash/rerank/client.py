"""One HTTP client for the rerank APIs: Cohere, Jina, Voyage, text-embeddings-inference, vLLM.

``RerankClient(base_url, model).score_groups(groups, on_scores=...)`` scores every
``(query, documents)`` group with as few requests as the server allows: one request per query
while its documents fit the server's limits (so Q queries at depth N take exactly Q requests
when the server takes N documents at once), never one request per document.

- Limits: at most ``max_documents`` documents per request (default 1,000, the most Cohere and
  Voyage document; ``--max-documents`` to set it) and, where the provider caps a request's
  tokens (Voyage), at most ``max_request_tokens`` estimated tokens. A group beyond either is
  split, and :attr:`RerankClient.notes` says so. A server that refuses a request for having
  too many documents ("batch size 50 > maximum allowed batch size 32", as TEI says, or "at most
  N documents") has its limit learned from the message — the refused request is not billed —
  and every later request is planned under it. A request the server finds too long is split
  in halves; a single document still too long is cut shorter by a token estimate (counted in
  ``usage["truncated_documents"]``).
- Requests run ``concurrency`` at a time (:func:`ragdash.services.pool.run_parallel`) over
  one ``requests.Session`` (connections kept alive). Each reply is handed to ``on_scores``
  in the calling thread as soon as it is in, so the caller caches it at once: a killed run
  loses at most the requests in flight.
- Retries, key handling and final errors are the service layer's
  (:class:`ragdash.services.service.Service`, as for embeddings and chat): the policy of
  :mod:`ragdash.services.retry` (timeouts, dropped connections, 408/409/429/5xx, with
  ``retry-after`` honored; an HTML or empty 200 asked again once at most), the key sent only
  in a header (``Authorization: Bearer`` unless ``api_key_header`` names another) and
  scrubbed from anything the server sends back, a 200 carrying an error object said in the
  server's own words, and one sentence per final failure, whose class is the failure's kind
  (:data:`ragdash.errors.RERANK_ERRORS`: a wrong key is an AuthenticationError).
- Replies are checked by :func:`.protocols.parse_reply` (one score per document, indexes in
  range and distinct, finite scores). A reply that fails a check is not retried — asking again
  would pay again for an answer that cannot be trusted — and nothing of it is cached.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import deque
from collections.abc import Callable, Sequence

import numpy as np
import requests

from ..embeddings.batching import estimate_tokens, estimate_tokens_many, truncate_to_tokens
from ..errors import RERANK_ERRORS, Cancelled, RetrievalError
from ..i18n import error, text
from ..services import failures as fk
from ..services.failures import Failure, is_too_long
from ..services.http import REPLY_FLOOR, ErrorInfo
from ..services.pool import run_parallel
from ..services.retry import MAX_RETRIES
from ..services.service import Service, Spec
from .protocols import (
    BILLING,
    DEFAULT_MAX_DOCUMENTS,
    DEFAULT_MAX_REQUEST_TOKENS,
    BadReply,
    parse_reply,
    request_body,
    resolve_rerank_endpoint,
    search_units_for,
)

log = logging.getLogger("ragdash.rerank")

#: how many times one document is cut shorter before giving up
MAX_TRUNCATIONS = 6
#: the most documents per request the command line accepts
MAX_DOCUMENTS_CAP = 10_000

#: ``on_scores(group, positions, scores)``: scores of ``groups[group][1][positions]``
ScoresFn = Callable[[int, np.ndarray, np.ndarray], None]
ProgressFn = Callable[[dict], None]
SPEC = Spec("rerank", RERANK_ERRORS, fk.messages("rerank"))

_TOO_MANY = re.compile(
    r"maximum allowed batch size\s*(?:is\s*)?(\d[\d,]*)"
    r"|(?:at most|maximum(?: number)? of|max(?:imum)?|no more than|up to|more than|limit(?: is|"
    r" of)?|exceed(?:s|ed|ing)?(?: the (?:maximum|limit) of)?)\s*(\d[\d,]*)\s*"
    r"(?:documents|docs|texts|inputs|items|passages)"
    r"|too many (?:documents|docs|texts|inputs|passages)",
    re.IGNORECASE)


def too_many_documents(status: int | None, info: ErrorInfo) -> tuple[bool, int | None]:
    """Whether a refusal says the request had too many documents, and the most it allows
    (None when it names no number)."""
    if status not in (400, 413, 422):
        return False, None
    m = _TOO_MANY.search(info.message)
    if not m:
        return False, None
    number = m.group(1) or m.group(2)
    return True, (int(number.replace(",", "")) if number else None)


class _TooMany(Exception):
    def __init__(self, limit: int | None, said: str) -> None:
        super().__init__(said)
        self.limit = limit
        self.said = said


class _TooLong(Exception):
    pass


class RerankClient:
    """Scores (query, document) pairs through a rerank API (see the module docstring)."""

    def __init__(self, base_url: str | None, model: str, *, protocol: str | None = None,
                 api_key: str | None = None, api_key_header: str | None = None,
                 timeout: float = 60.0, max_retries: int = MAX_RETRIES, concurrency: int = 4,
                 max_documents: int | None = None, max_request_tokens: int | None = None,
                 session: requests.Session | None = None, seed: int | None = None) -> None:
        if not model or not str(model).strip():
            raise error(RetrievalError, "rerank.no_model_given")
        self.endpoint = resolve_rerank_endpoint(base_url, protocol=protocol)
        self.protocol = self.endpoint.protocol
        self.model = str(model).strip()
        _check(text("rerank.setting.concurrency"), concurrency, 1, 64)
        _check(text("rerank.setting.retries"), max_retries, 0, 100)
        if max_documents is not None:
            _check(text("rerank.setting.documents"), max_documents, 1, MAX_DOCUMENTS_CAP)
        if max_request_tokens is not None:
            _check(text("rerank.setting.tokens"), max_request_tokens, 1, 10**9)
        if not timeout or timeout <= 0:
            raise error(RetrievalError, "rerank.bad_timeout")
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.concurrency = int(concurrency)
        self.max_documents = int(max_documents or DEFAULT_MAX_DOCUMENTS[self.protocol])
        self.max_request_tokens = (int(max_request_tokens) if max_request_tokens
                                   else DEFAULT_MAX_REQUEST_TOKENS.get(self.protocol))
        self._lock = threading.Lock()
        self.usage = {"requests": 0, "pairs_scored": 0, "retries": 0, "split_requests": 0,
                      "truncated_documents": 0, "refused_requests": 0}
        billing = BILLING[self.protocol]
        if billing:
            self.usage[billing] = 0
        self._estimated = False  # some reply did not report its billed units
        self._learned_limit: tuple[int, str] | None = None  # (limit, what the server said)
        self._split_by_tokens = False
        self.service = Service(
            self.endpoint.url, SPEC, api_key=api_key, api_key_header=api_key_header,
            timeout=self.timeout, concurrency=self.concurrency, max_retries=self.max_retries,
            session=session, seed=seed, usage=self.usage, lock=self._lock, model=self.model,
            values={"protocol": self.protocol})
        self.api_key_header = self.service.api_key_header
        #: sentences for the user before the run (a key over plain http to another machine)
        self.warnings = self.service.warnings
        self.transport = self.service.transport
        self.session = self.transport.session

    def __repr__(self) -> str:
        return f"RerankClient({self.endpoint.url!r}, {self.model!r}, {self.protocol})"

    @property
    def cache_base(self) -> str:
        return self.endpoint.base

    @property
    def label(self) -> str:
        return self.model

    @property
    def billing(self) -> str | None:
        return BILLING[self.protocol]

    def config(self) -> dict:
        """Settings, JSON-safe; never the key (only whether one is set)."""
        return {"reranker": "http", "base_url": self.endpoint.base,
                "endpoint": self.endpoint.url, "protocol": self.protocol, "model": self.model,
                "max_documents": self.max_documents,
                "max_request_tokens": self.max_request_tokens,
                "concurrency": self.concurrency, "api_key_header": self.api_key_header,
                "api_key_set": self.service.has_key, "timeout": self.timeout,
                "max_retries": self.max_retries}

    @property
    def notes(self) -> list[str]:
        out = []
        if self._learned_limit:
            limit, said = self._learned_limit
            out.append(f"{self.endpoint.url} takes at most {limit} documents per request (it "
                       f"said: {said}); longer lists went in several requests.")
        elif self.usage["split_requests"] and not self._split_by_tokens:
            out.append(f"Lists longer than {self.max_documents} documents went in several "
                       "requests (--max-documents).")
        if self._split_by_tokens:
            out.append(f"Some queries' documents went in several requests to stay under "
                       f"{self.max_request_tokens:,} estimated tokens per request.")
        if self.usage["truncated_documents"]:
            out.append(f"{self.usage['truncated_documents']} document(s) were longer than the "
                       "reranker accepts and were cut to fit (by a token estimate).")
        if self._estimated and self.billing:
            unit = "search units" if self.billing == "search_units" else "tokens"
            out.append(f"The server did not report billed {unit} for some requests; the "
                       "usage includes an estimate for them.")
        return out

    def close(self) -> None:
        self.transport.close()

    # -- planning ------------------------------------------------------------------------
    def plan(self, query: str, documents: Sequence[str]) -> list[list[int]]:
        """Positions of ``documents`` in each request, in order, under the current limits."""
        n = len(documents)
        if n == 0:
            return []
        limit = self.max_documents
        budget = self.max_request_tokens
        if budget is None:
            return [list(range(lo, min(lo + limit, n))) for lo in range(0, n, limit)]
        q = estimate_tokens(query)
        cost = (estimate_tokens_many(list(documents)) + q).tolist()
        out: list[list[int]] = []
        current: list[int] = []
        used = 0
        for i, c in enumerate(cost):
            if current and (len(current) >= limit or used + c > budget):
                out.append(current)
                current, used = [], 0
            current.append(i)
            used += c
        out.append(current)
        if len(out) > -(-n // limit):
            self._split_by_tokens = True
        return out

    # -- scoring -------------------------------------------------------------------------
    def score_groups(self, groups: Sequence[tuple[str, Sequence[str]]], *,
                     on_scores: ScoresFn | None = None, progress: ProgressFn | None = None,
                     cancel: threading.Event | None = None) -> list[np.ndarray]:
        """Scores of every ``(query, documents)`` group (float64 arrays, document order).

        ``on_scores(group, positions, scores)`` runs in this thread after each reply. When
        ``cancel`` is set, or a request has failed for good, no new request starts; the
        requests in flight finish and reach ``on_scores``; then
        :class:`~ragdash.errors.Cancelled` or the failure is raised.
        """
        groups = [(str(q), [str(d) for d in docs]) for q, docs in groups]
        out = [np.full(len(docs), np.nan) for _, docs in groups]
        total = sum(len(docs) for _, docs in groups)
        done = 0

        def report() -> None:
            if progress is not None:
                progress({"stage": "rerank", "done": done, "total": total,
                          "calls": self.usage["requests"],
                          "tokens": self.usage.get("tokens", 0)})

        def work(g: int, emit, halt: threading.Event) -> None:
            query, docs = groups[g]
            self._score_group(query, docs, emit, halt)

        def handle(g: int, payload) -> None:
            nonlocal done
            positions, scores = payload
            out[g][positions] = scores
            done += len(positions)
            if on_scores is not None:
                on_scores(g, positions, scores)
            report()

        report()
        run_parallel([g for g, (_, docs) in enumerate(groups) if docs], work,
                     concurrency=self.concurrency, on_result=handle, cancel=cancel,
                     name="ragdash-rerank")
        if cancel is not None and cancel.is_set() and done < total:
            raise error(Cancelled, "rerank.cancelled_after", done=done, total=total)
        return out

    def _score_group(self, query: str, docs: list[str], emit: Callable[[object], None],
                     halt: threading.Event) -> None:
        """Every request of one query (a pool thread); ``emit((positions, scores))``."""
        pending: deque[list[int]] = deque(self.plan(query, docs))
        if len(pending) > 1:
            with self._lock:
                self.usage["split_requests"] += len(pending) - 1
        texts = list(docs)
        cuts: dict[int, int] = {}
        while pending:
            positions = pending.popleft()
            if len(positions) > self.max_documents:  # a limit learned since this was planned
                parts = [positions[i: i + self.max_documents]
                         for i in range(0, len(positions), self.max_documents)]
                with self._lock:
                    self.usage["split_requests"] += len(parts) - 1
                pending.extendleft(reversed(parts))
                continue
            if halt.is_set():
                return
            try:
                scores = self._post_with_retries(query, [texts[p] for p in positions], halt)
            except _TooMany as exc:
                self._learn_limit(exc, len(positions))
                pending.appendleft(positions)  # re-split under the new limit
                continue
            except _TooLong:
                if len(positions) > 1:
                    mid = len(positions) // 2
                    with self._lock:
                        self.usage["split_requests"] += 1
                    pending.extendleft([positions[mid:], positions[:mid]])
                    continue
                p = positions[0]
                cuts[p] = cuts.get(p, 0) + 1
                shorter = truncate_to_tokens(texts[p], max(1, estimate_tokens(texts[p]) // 2))
                if len(shorter) >= len(texts[p]):
                    shorter = texts[p][: len(texts[p]) // 2]
                if cuts[p] > MAX_TRUNCATIONS or not shorter:
                    too_long = RERANK_ERRORS[fk.TOO_LONG]
                    raise error(too_long, "rerank.doc_too_long",
                                chars=len(docs[p]), model=repr(self.model),
                                cut=len(texts[p])) from None
                if cuts[p] == 1:
                    with self._lock:
                        self.usage["truncated_documents"] += 1
                texts[p] = shorter
                pending.appendleft(positions)
                continue
            emit((np.asarray(positions, dtype=np.int64), scores))

    def _learn_limit(self, exc: _TooMany, sent: int) -> None:
        limit = exc.limit if exc.limit and exc.limit < sent else max(1, sent // 2)
        with self._lock:
            self.usage["refused_requests"] += 1
            if limit < self.max_documents:
                self.max_documents = limit
                self._learned_limit = (limit, self.service.scrub(exc.said))
        log.info("the server takes at most %d documents per request", limit)

    # -- one request ---------------------------------------------------------------------
    def _post_with_retries(self, query: str, documents: list[str],
                           cancel: threading.Event | None) -> np.ndarray:
        data = json.dumps(request_body(self.protocol, self.model, query, documents),
                          ensure_ascii=False).encode("utf-8")

        def refusal(failure: Failure) -> None:
            many, limit = too_many_documents(failure.status, failure.info)
            if many and len(documents) > 1:
                raise _TooMany(limit, failure.info.message)
            if is_too_long(failure.status, failure.info):
                raise _TooLong()

        # a reply holds a score per document, and at most echoes the request's texts
        cap = max(REPLY_FLOOR, 2 * len(data) + 1024 * self.max_documents)
        return self.service.request(data, max_bytes=cap, cancel=cancel, refusal=refusal,
                                    parse=lambda obj: self._scores(obj, query, documents))

    def _scores(self, obj, query: str, documents: list[str]) -> np.ndarray:
        """A reply's JSON -> the scores in the order sent, usage counted; or a Failure."""
        try:
            reply = parse_reply(obj, len(documents), self.endpoint.url)
        except BadReply as exc:
            raise Failure("invalid", status=200,
                          detail=exc.args[0] if exc.args else str(exc)) from None
        with self._lock:
            self.usage["pairs_scored"] += len(documents)
            if self.billing == "search_units":
                units = reply.search_units
                if units is None:
                    self._estimated = True
                    units = search_units_for(len(documents))
                self.usage["search_units"] += units
            elif self.billing == "tokens":
                tokens = reply.tokens
                if tokens is None:
                    self._estimated = True
                    tokens = pair_tokens(query, documents)
                self.usage["tokens"] += tokens
        return reply.scores


def pair_tokens(query: str, documents: Sequence[str]) -> int:
    """Estimated tokens of scoring ``documents`` against ``query``, as Jina and Voyage
    count them: the query once per document plus every document."""
    if not documents:
        return 0
    return int(estimate_tokens(query)) * len(documents) + int(
        estimate_tokens_many(list(documents)).sum())


def _check(what: str, value, lo: int, hi: int) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) \
            or not lo <= value <= hi:
        raise error(RetrievalError, "rerank.bad_setting", what=what, lo=lo, hi=hi,
                    value=repr(value))


__all__ = ["RerankClient", "pair_tokens", "too_many_documents"]
