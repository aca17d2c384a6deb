"""One remote endpoint, as every client speaks to it: key, headers, retries, final errors.

A client (embeddings, rerank, chat) makes its request body and parses its reply; a
:class:`Service` does the rest::

    svc = Service(url, spec, api_key=key, api_key_header=None, timeout=60.0,
                  concurrency=4, max_retries=6, usage=usage, lock=lock)
    obj = svc.request(body_bytes, max_bytes=cap, cancel=event,
                      parse=lambda obj: ...,         # a JSON value -> the client's result,
                                                     # or raise Failure("invalid", ...)
                      refusal=lambda failure: ...)   # optional: a client's own reaction to a
                                                     # refusal (split a batch) before retrying

- **Key placement**: ``Authorization: Bearer KEY`` unless ``api_key_header`` names another
  header (``api-key`` for Azure, ``X-Api-Key``, …), which then carries the key as it is. The
  key is checked for characters no header can carry before anything is sent.
- **Masking**: :meth:`Service.scrub` takes the key (and anything shaped like one) out of
  what a server sends back, before it reaches a message.
- **Retries**: the policy of :mod:`ragdash.services.retry` (pure functions), waiting on ``cancel``.
- **Final errors**: :func:`ragdash.services.failures.kind_of` names the kind; the service's
  class of that kind is raised with the service's message of that kind.
"""

from __future__ import annotations

import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import Cancelled, RagdashError, with_id
from ..i18n import Text, error, text
from ..secrets import scrub_secrets
from . import failures as fk
from .failures import Failure, Messages
from .http import (
    ErrorInfo,
    HeaderValueError,
    ReplyError,
    Transport,
    TransportError,
    check_header_value,
    parse_error_body,
    parse_json,
    plain_http_warning,
)
from .retry import MAX_RETRIES, retry_delay, should_retry

log = logging.getLogger("ragdash.services")


@dataclass(frozen=True)
class Spec:
    """What tells one service from another: its name in logs, its exception class for each
    failure kind (``ragdash.errors.EMBEDDING_ERRORS``, …) and its messages."""

    name: str
    errors: Mapping[str, type[RagdashError]]
    messages: Messages


def reported_count(value) -> int | None:
    """A count a server reported (tokens, search units), or None for one that cannot be one
    (negative, not finite — ``1e999`` in JSON is infinity —, not a number, a bool)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) and 0 <= value < 2**53
    return int(value) if ok else None


def key_headers(api_key: str | None, header: str = "Authorization") -> dict[str, str]:
    """The headers that carry ``api_key``: ``Authorization: Bearer KEY``, or ``header: KEY``
    for any other header name; none without a key."""
    if api_key is None:
        return {}
    if header.lower() == "authorization":
        return {"Authorization": f"Bearer {api_key}"}
    return {header: api_key}


class Service:
    """One endpoint URL with its key, transport, retry policy and failure messages."""

    def __init__(self, url: str, spec: Spec, *, api_key: str | None = None,
                 api_key_header: str | None = None, params: Mapping[str, str] | None = None,
                 timeout: float = 60.0, concurrency: int = 4, max_retries: int = MAX_RETRIES,
                 session=None, seed: int | None = None, usage: dict | None = None,
                 lock: threading.Lock | None = None, model: str = "",
                 warn_url: str | None = None, values: Mapping[str, object] | None = None,
                 alternate: str | None = None,
                 on_moved: Callable[[str, str], None] | None = None) -> None:
        self.url = url
        self.typed_url = url
        #: the other form of ``url`` (with or without /v1), tried once when the first
        #: request gets a 404; ``on_moved(typed, used)`` runs when it answered instead
        self.alternate = alternate
        self.on_moved = on_moved
        self._route_lock = threading.Lock()
        self._answered = False  # some HTTP reply other than 404 came from self.url
        self._tried_other = False
        self.spec = spec
        self.params = dict(params or {})
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.model = model
        self.values = dict(values or {})  #: more values for every message (a protocol)
        self.api_key_header = api_key_header or "Authorization"
        self._api_key = (api_key or "").strip() or None
        try:  # before anything is sent: a line break or a curly quote in a pasted key
            check_header_value(self.api_key_header, self._api_key or "")
        except HeaderValueError as exc:
            raise with_id(exc.msg_id, spec.errors[fk.AUTH](str(exc)), **exc.params) from None
        #: sentences for the user before the run (a key over plain http to another machine)
        self.warnings: list[str] = []
        insecure = plain_http_warning(warn_url or url, key_set=self._api_key is not None)
        if insecure:
            self.warnings.append(insecure)
            log.warning("%s", insecure)
        self.usage = usage if usage is not None else {"requests": 0, "retries": 0}
        self.usage.setdefault("requests", 0)
        self.usage.setdefault("retries", 0)
        self.lock = lock or threading.Lock()
        self._rng = random.Random(seed)
        self.transport = Transport(url, concurrency=concurrency, timeout=self.timeout,
                                   session=session)

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    def close(self) -> None:
        self.transport.close()

    # -- one request ---------------------------------------------------------------------
    def headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Accept": "application/json",
                "User-Agent": "ragdash", **key_headers(self._api_key, self.api_key_header)}

    def send(self, data: bytes, *, max_bytes: int, on_send: Callable[[], None] | None = None,
             url: str | None = None, method: str = "POST"):
        """One POST (or a GET, without a body); a 2xx reply's decoded body, or a
        :class:`Failure`."""
        with self.lock:
            self.usage["requests"] += 1
        try:
            reply = self.transport.post(url or self.url, data=data, headers=self.headers(),
                                        params=self.params, max_bytes=max_bytes,
                                        on_send=on_send, method=method)
        except TransportError as exc:
            raise Failure(exc.kind, status=exc.status, headers=exc.headers,
                          detail=exc.detail) from None
        if not 200 <= reply.status < 300:
            raise Failure("http", status=reply.status, info=parse_error_body(reply.body),
                          headers=dict(reply.headers))
        return reply

    def read_json(self, body: bytes, *, status: int = 200):
        """A 2xx body as JSON; a :class:`Failure` for one that is not JSON (``malformed``,
        asked again once at most), cannot be read (``invalid``) or is an error object
        (``http``: the server's own message is kept)."""
        try:
            obj = parse_json(body)
        except ReplyError as exc:
            if exc.retry:
                failure = Failure("malformed", status=status, detail=exc.detail)
                start = bytes(body[:256]).lstrip().lower()
                failure.shape = ("empty" if not start else
                                 "html" if start.startswith((b"<!doctype", b"<html", b"<"))
                                 else None)
                raise failure from None
            raise Failure("invalid", status=status, detail=text(
                self.spec.messages.unreadable, url=self.url, detail=exc.detail)) from None
        if isinstance(obj, dict) and obj.get("error") and not obj.get("data") \
                and not obj.get("results") and not obj.get("choices"):
            raise Failure("http", status=status, info=parse_error_body(body))
        return obj

    def request(self, data: bytes, *, max_bytes: int, parse: Callable[[object], object],
                cancel: threading.Event | None = None,
                refusal: Callable[[Failure], None] | None = None,
                before: Callable[[], None] | None = None,
                on_send: Callable[[], None] | None = None,
                on_reply: Callable[[], None] | None = None,
                on_final: Callable[[], None] | None = None,
                url: str | None = None, method: str = "POST",
                on_timeout: Callable[[Failure], None] | None = None):
        """POST ``data`` until a reply parses or the policy gives up (``method="GET"``: GET
        ``url``, a URL of this request's own on the service's host, such as a search
        service's query string; messages name :attr:`url`).

        ``parse(obj)`` turns the reply's JSON into the result (raising :class:`Failure` for
        a reply that cannot be right); ``refusal(failure)`` may raise the client's own
        exception for a refusal it handles (a batch too large: split it); ``before`` runs
        before each attempt (take a connection slot), ``on_send`` as the request leaves,
        ``on_reply`` once a whole good reply is in, ``on_final`` before the final error is
        raised; ``on_timeout(failure)`` after an attempt that timed out, before the policy
        decides: it may raise the client's own exception to send the request otherwise (the
        embeddings client halves its batch and its concurrency).
        """
        own_url, attempt = url, 0
        while True:
            if before is not None:
                before()
            self._check_cancel(cancel)
            url = self.url
            try:
                reply = self.send(data, max_bytes=max_bytes, on_send=on_send,
                                  url=own_url or url, method=method)
                self._route_answered(url)
                if on_reply is not None:
                    on_reply()
                return parse(self.read_json(reply.body, status=reply.status))
            except Failure as failure:
                if failure.status is not None and failure.status != 404:
                    self._route_answered(url)
                elif failure.status == 404 and self._other_form(url, failure):
                    continue  # the same request, at once, to the other form
                if refusal is not None and failure.attempt == "http":
                    refusal(failure)
                if on_timeout is not None and failure.attempt == "timeout":
                    on_timeout(failure)
                if not should_retry(failure.status, failure.code, attempt, failure.attempt,
                                    max_retries=self.max_retries):
                    if on_final is not None:
                        on_final()
                    raise self.final_error(failure, attempt + 1) from None
                with self.lock:
                    delay = retry_delay(attempt, failure.headers, self._rng)
                    self.usage["retries"] += 1
                log.info("%s request failed (%s); retry %d in %.2f s", self.spec.name,
                         failure.status or failure.attempt, attempt + 1, delay)
                attempt += 1
                if before is not None:
                    before()
                if cancel is None:
                    time.sleep(delay)
                elif cancel.wait(delay):
                    self._check_cancel(cancel)

    # -- the URL as typed, or its other form ---------------------------------------------
    def _route_answered(self, url: str) -> None:
        """A reply other than 404 came from ``url``: the route is settled."""
        if self._answered:
            return
        with self._route_lock:
            if self._answered or url != self.url:
                return
            self._answered = True
        if url != self.typed_url:
            log.info("%s", text("services.moved", typed=self.typed_url, used=url))
            if self.on_moved is not None:
                self.on_moved(self.typed_url, url)

    def _other_form(self, url: str, failure: Failure) -> bool:
        """Whether to send again at once to ``self.url``: after a first 404 that does not
        name the model, the other form of the URL is tried once; when it 404s too, the URL as
        typed is what the final error names."""
        with self._route_lock:
            if url != self.url:
                return True  # another request has moved on meanwhile
            if url == self.alternate and not self._answered:
                self.url = self.typed_url  # neither form: the error names the URL as typed
                return False
            said = failure.info.message
            named = failure.code == "model_not_found" or bool(
                self.model and "model" in said.lower()
                and re.search(rf"(?<![\w.-]){re.escape(self.model)}(?![\w.-])", said))
            if self._answered or self._tried_other or self.alternate is None or named:
                return False
            self._tried_other = True
            self.url = self.alternate
            return True

    def _check_cancel(self, cancel: threading.Event | None) -> None:
        if cancel is not None and cancel.is_set():
            raise error(Cancelled, self.spec.messages.cancelled)

    # -- messages ------------------------------------------------------------------------
    def scrub(self, said: str) -> str:
        """``said`` without the key, nor anything shaped like a key or a Bearer token."""
        key = self._api_key if self._api_key and len(self._api_key) >= 4 else None
        out = scrub_secrets(said, [key] if key else [])
        return said if out == said else out  # unchanged: a phrase keeps its message id

    def final_error(self, f: Failure, attempts: int) -> RagdashError:
        """The failure in one sentence, as the service's exception of the failure's kind."""
        kind = fk.kind_of(f)
        cls = self.spec.errors[kind]
        m = self.spec.messages
        if f.attempt == "invalid":
            exc = self._invalid(cls, f.detail)
            exc.kind, exc.failure = kind, f
            return exc
        said = self.scrub(f.info.message)
        values = dict(self.values, url=self.url, status=f.status, said=f": {said}" if said else "",
                      model=repr(self.model), code=f.code, timeout=f"{self.timeout:g}",
                      tried=text("embed.tried", n=attempts), detail=self.scrub(f.detail))
        key = _message_key(f, kind, m, self.has_key)
        exc = error(cls, key, **values)
        exc.kind, exc.failure = kind, f
        return exc


    def _invalid(self, cls: type[RagdashError], detail: str) -> RagdashError:
        """A reply that cannot be right, in the check's own sentence (with its id)."""
        detail = self.scrub(detail)
        if self.spec.messages.invalid:  # a phrase with an id has no final stop
            return error(cls, self.spec.messages.invalid,
                         detail=detail if isinstance(detail, Text) else detail.rstrip("."))
        if isinstance(detail, Text):
            return error(cls, detail.msg_id, **detail.params)
        return cls(detail)


def _message_key(f: Failure, kind: str, m: Messages, has_key: bool) -> str:
    """Which of a service's messages says ``f`` (of ``kind``)."""
    if f.attempt != "http":
        return {"timeout": m.timeout, "redirect": m.redirect, "too_large": m.too_large,
                "encoding": m.encoding}.get(
            f.attempt, m.unreachable if kind == fk.UNREACHABLE else m.malformed)
    return {fk.AUTH: m.bad_key if has_key else m.no_key, fk.NOT_FOUND: m.no_model,
            fk.QUOTA: m.quota, fk.RATE_LIMITED: m.rate_limited, fk.TOO_LONG: m.too_long,
            fk.SERVER: m.server_error}.get(kind, m.refused)


__all__ = ["ErrorInfo", "Failure", "Service", "Spec", "key_headers", "reported_count"]
