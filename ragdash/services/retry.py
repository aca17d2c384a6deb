"""When to retry a request to a remote service (embeddings, rerank, chat), and how
long to wait.

Two small pure functions over named constants, so the policy is tested without sleeping:

- :func:`should_retry` — retry timeouts, dropped connections, an unreadable reply (once:
  :data:`MALFORMED_RETRIES`), HTTP 408, 409, 429 and 5xx, while attempts remain. Never retry
  400, 401, 403, 404 (or any other 4xx), nor a 429 whose error code says the quota or credit
  is exhausted: waiting does not bring credit back, and every retry of a doomed request
  costs the user time.
- :func:`retry_delay` — the server's ``retry-after-ms`` or ``retry-after`` (seconds or an
  HTTP date) when it sends one, capped at :data:`RETRY_AFTER_CAP`; otherwise capped
  exponential backoff, ``min(INITIAL_DELAY * 2**attempt, MAX_DELAY)``, shortened by up to
  :data:`JITTER` at random so that parallel workers do not retry in lockstep.

``attempt`` counts retries already made: 0 before the first retry. ``exc_kind`` is a
:class:`ragdash.services.http.TransportError` kind (or ``"malformed"`` / ``"invalid"`` for a reply a
client could not use); kinds outside :data:`RETRY_KINDS` — ``"too_large"``, ``"redirect"``,
``"tls"``, ``"invalid"`` — are never retried: asking again would get (and pay for) the same.

Lives beside :mod:`ragdash.services.http` in the service layer (no import of any client).
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from collections.abc import Mapping

#: retries after the first attempt (so at most MAX_RETRIES + 1 requests per batch)
MAX_RETRIES = 6
#: first backoff delay, seconds; doubles each retry
INITIAL_DELAY = 0.5
#: longest backoff delay, seconds
MAX_DELAY = 8.0
#: backoff delays are multiplied by a random factor in [1 - JITTER, 1]
JITTER = 0.25
#: longest wait a retry-after header can ask for, seconds; longer asks are cut to this
RETRY_AFTER_CAP = 60.0

#: HTTP statuses worth retrying besides 5xx: request timeout, conflict (a lock), rate limit
RETRY_STATUSES = frozenset({408, 409, 429})
#: failures without an HTTP status that are worth retrying
RETRY_KINDS = frozenset({"timeout", "connection", "malformed"})
#: "unreachable" (connection refused, unknown host) is most often a wrong URL or a server that
#: is not running: a couple of quick retries cover a restart or a DNS hiccup, without making
#: the user wait ~20 s of full backoff for the one-sentence answer
UNREACHABLE_RETRIES = 2
#: a 2xx whose body cannot be read (an HTML page, an empty or cut body) is asked again this
#: many times at most: a proxy's hiccup passes, but each retry of a billed request may be billed
MALFORMED_RETRIES = 1
#: error codes (or types) that mean the account has no quota or credit left: never retried
QUOTA_CODES = frozenset({
    "insufficient_quota", "billing_hard_limit_reached", "billing_not_active",
    "insufficient_credits", "insufficient_balance", "credit_exhausted", "credits_exhausted",
    "quota_exceeded", "quota_exhausted", "payment_required",
})


def is_quota_code(code: str | None) -> bool:
    return bool(code) and str(code).strip().lower() in QUOTA_CODES


def should_retry(status: int | None, error_code: str | None, attempt: int,
                 exc_kind: str | None, *, max_retries: int = MAX_RETRIES) -> bool:
    """Whether a failed attempt is worth another try.

    ``status`` is the HTTP status (None when no response came back); ``exc_kind`` is one of
    :data:`RETRY_KINDS` or ``"invalid"`` (a reply that parsed but cannot be right: wrong count,
    NaN, a changed dimension — asking again would pay again for the same answer).
    """
    if attempt >= max_retries:
        return False
    if status is None:
        if exc_kind == "unreachable":
            return attempt < UNREACHABLE_RETRIES
        return exc_kind in RETRY_KINDS
    if status == 429 and is_quota_code(error_code):
        return False
    if status is not None and 200 <= status <= 299:  # e.g. a truncated JSON body
        if exc_kind == "malformed":
            return attempt < MALFORMED_RETRIES
        return exc_kind in RETRY_KINDS
    return status in RETRY_STATUSES or 500 <= status <= 599


def retry_delay(attempt: int, headers: Mapping[str, str] | None,
                rng: random.Random | None = None, *, now: float | None = None) -> float:
    """Seconds to wait before retry number ``attempt + 1``.

    A ``retry-after-ms`` header wins over ``retry-after``; a value that is negative or not a
    number is ignored; a value above :data:`RETRY_AFTER_CAP` is cut to it.
    """
    asked = _server_asked_delay(headers or {}, time.time() if now is None else now)
    if asked is not None:
        return min(asked, RETRY_AFTER_CAP)
    backoff = min(INITIAL_DELAY * 2.0 ** attempt, MAX_DELAY)
    r = (rng or random).random()
    return backoff * (1.0 - JITTER * r)


def _server_asked_delay(headers: Mapping[str, str], now: float) -> float | None:
    lower = {str(k).lower(): str(v).strip() for k, v in headers.items()}
    ms = _non_negative_float(lower.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000.0
    value = lower.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_float(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - now)


def _non_negative_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if math.isfinite(x) and x >= 0 else None
