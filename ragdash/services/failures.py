"""From a failed request to the kind of failure: one table for every remote service.

A request that failed (one attempt) is a :class:`Failure`: what the transport or the reply
said (``attempt`` kind, HTTP status, the server's error body, its headers). When the retry
policy (:mod:`ragdash.services.retry`) gives up, :func:`kind_of` names the failure's *kind* and the
service raises its exception of that kind (``ragdash.errors.EMBEDDING_ERRORS[kind]``, …),
worded by its own message of that kind. So a wrong key ends the same way from every service:
an :class:`~ragdash.errors.AuthenticationError`, message id ``<service>.bad_key``, exit code 2.

========================  =============================================  ======================
kind                      what the server or the network did             exception
========================  =============================================  ======================
``auth``                  401, 403                                       AuthenticationError
``not_found``             404                                            NotFoundError
``quota``                 429 (or 402) with a quota / credit code         QuotaExceededError
``rate_limited``          429 after every retry                          RateLimitedError
``too_long``              413; 400/422 saying the input is too long       InputTooLongError
``server``                5xx, 408, 409 after every retry                ServerError
``unreachable``           refused, unknown host, TLS, timeout, dropped    ServerUnreachableError
``bad_reply``             not JSON, too large, bad encoding, wrong shape  BadReplyError
``refused``               any other 4xx; a 2xx carrying an error body;    RefusedError
                          a redirect to another host
========================  =============================================  ======================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .http import ErrorInfo
from .retry import is_quota_code

AUTH = "auth"
NOT_FOUND = "not_found"
QUOTA = "quota"
RATE_LIMITED = "rate_limited"
TOO_LONG = "too_long"
SERVER = "server"
UNREACHABLE = "unreachable"
BAD_REPLY = "bad_reply"
REFUSED = "refused"

#: an attempt that got no usable HTTP answer (``ragdash.services.http.TransportError.kind``, or a
#: reply that could not be used) -> the failure's kind
ATTEMPT_KINDS: Mapping[str, str] = {
    "timeout": UNREACHABLE, "connection": UNREACHABLE, "unreachable": UNREACHABLE,
    "tls": UNREACHABLE, "redirect": REFUSED, "too_large": BAD_REPLY, "encoding": BAD_REPLY,
    "malformed": BAD_REPLY, "invalid": BAD_REPLY,
}
#: HTTP statuses whose kind does not depend on what the server said
STATUS_KINDS: Mapping[int, str] = {401: AUTH, 403: AUTH, 404: NOT_FOUND, 413: TOO_LONG,
                                   408: SERVER, 409: SERVER}

_TOO_LONG_CODES = frozenset({"context_length_exceeded", "string_above_max_length",
                             "input_too_long", "too_many_tokens"})
_TOO_LONG_TEXT = re.compile(
    r"maximum (context|input|sequence) length|context length|too long|too many tokens"
    r"|less than \d+ tokens|exceeds? the (max|context|limit)"
    r"|reduce (the|your) (length|input|prompt)|max(imum)?[ _]tokens",
    re.IGNORECASE)


class Failure(Exception):
    """One failed attempt. ``attempt``: ``"http"`` (a status that is not 2xx, or a 2xx with an
    error body), a transport kind, ``"malformed"`` (a reply worth asking again for: cut, not
    JSON) or ``"invalid"`` (a reply that parsed but cannot be right: never asked again)."""

    def __init__(self, attempt: str, *, status: int | None = None,
                 info: ErrorInfo | None = None, headers: Mapping[str, str] | None = None,
                 detail: str = "") -> None:
        super().__init__(detail or attempt)
        self.attempt = attempt
        self.status = status
        self.info = info or ErrorInfo()
        self.headers = dict(headers or {})
        self.detail = detail
        #: what a 2xx body that is not JSON looked like: "html", "empty" or None
        self.shape: str | None = None

    @property
    def code(self) -> str | None:
        """The code that decides retrying (a quota code wherever the server put it)."""
        from .http import error_code

        return error_code(self.info)


def is_too_long(status: int | None, info: ErrorInfo) -> bool:
    """Whether a refusal says the input is longer than the model accepts."""
    if status == 413:
        return True
    return status in (400, 422) and (
        (info.code or "").lower() in _TOO_LONG_CODES or bool(_TOO_LONG_TEXT.search(info.message)))


def kind_of(failure: Failure) -> str:
    """The kind of a failure the retry policy gave up on (the table in the module docstring)."""
    if failure.attempt != "http":
        return ATTEMPT_KINDS.get(failure.attempt, BAD_REPLY)
    status = failure.status
    if status in (402, 429) and is_quota_code(failure.code):
        return QUOTA
    if status == 429:
        return RATE_LIMITED
    if is_too_long(status, failure.info):
        return TOO_LONG
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    if status is not None and 500 <= status <= 599:
        return SERVER
    return REFUSED


@dataclass(frozen=True)
class Messages:
    """A service's message ids, one per way a request ends (a column of :data:`MESSAGE_IDS`).
    Each is formatted with ``url``, ``status``, ``said`` (": what the server said", or
    nothing), ``model``, ``code``, ``timeout``, ``tried`` and ``detail``; a message names only
    those it needs."""

    bad_key: str
    no_key: str
    no_model: str
    quota: str
    rate_limited: str
    too_long: str
    server_error: str
    timeout: str
    unreachable: str
    malformed: str
    too_large: str
    encoding: str
    redirect: str
    refused: str
    cancelled: str
    #: a reply that is JSON but cannot be read (nested too deeply, a number too long):
    #: formatted with ``url`` and ``detail``
    unreadable: str
    #: the sentence around a reply that cannot be right (``detail``: the check's sentence);
    #: None: the check's sentence is said as it is
    invalid: str | None = None


SERVICES = ("embeddings", "rerank", "chat")
#: each way a request ends -> its message id in each service (literal ids, so the catalog test
#: sees them). A service that never reaches a row (embeddings and rerank split what is too
#: long) names its refusal there.
MESSAGE_IDS: Mapping[str, tuple[str | None, ...]] = {
    # way             embeddings                 rerank                    chat
    "bad_key":       ("embed.bad_key",          "rerank.bad_key",         "chat.bad_key"),
    "no_key":        ("embed.no_key",           "rerank.no_key",          "chat.no_key"),
    "no_model":      ("embed.no_model",         "rerank.no_model",        "chat.no_model"),
    "quota":         ("embed.quota",            "rerank.quota",           "chat.quota"),
    "rate_limited":  ("embed.rate_limited",     "rerank.rate_limited",    "chat.rate_limited"),
    "too_long":      ("embed.refused",          "rerank.refused",         "chat.too_long"),
    "server_error":  ("embed.server_error",     "rerank.server_error",    "chat.server_error"),
    "timeout":       ("embed.timeout",          "rerank.timeout",         "chat.timeout"),
    "unreachable":   ("embed.unreachable",      "rerank.unreachable",     "chat.unreachable"),
    "malformed":     ("embed.malformed",        "rerank.malformed",       "chat.malformed"),
    "too_large":     ("embed.too_large",        "rerank.too_large",       "chat.too_large"),
    "encoding":      ("embed.encoding",         "rerank.encoding",        "chat.encoding"),
    "redirect":      ("embed.redirect",         "rerank.redirect",        "chat.redirect"),
    "refused":       ("embed.refused",          "rerank.refused",         "chat.refused"),
    "cancelled":     ("embed.cancelled",        "rerank.cancelled",       "chat.cancelled"),
    "unreadable":    ("embed.unreadable_reply", "rerank.bad.unreadable",  "chat.unreadable"),
    "invalid":       (None,                     "rerank.invalid",         None),
}


def messages(service: str) -> Messages:
    """``service``'s column of :data:`MESSAGE_IDS`."""
    column = SERVICES.index(service)
    return Messages(**{way: ids[column] for way, ids in MESSAGE_IDS.items()})
