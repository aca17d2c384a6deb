"""The retry policy as pure functions: no sleeping, no server."""

import email.utils

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.services import retry
from ragdash.services.retry import (
    INITIAL_DELAY,
    JITTER,
    MAX_DELAY,
    MAX_RETRIES,
    RETRY_AFTER_CAP,
    UNREACHABLE_RETRIES,
    retry_delay,
    should_retry,
)


class FixedRandom:
    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


@pytest.mark.parametrize("status, code, kind, expected", [
    (None, None, "timeout", True),
    (None, None, "connection", True),
    (None, None, "unreachable", True),    # refused / unknown host: a couple of quick retries
    (None, None, "tls", False),           # an untrusted certificate stays untrusted
    (200, None, "malformed", True),       # a truncated JSON body
    (200, None, "invalid", False),        # wrong count / NaN / new dimension: same answer again
    (408, None, "http", True),
    (409, None, "http", True),
    (429, "rate_limit_exceeded", "http", True),
    (429, None, "http", True),
    (500, None, "http", True),
    (502, None, "http", True),
    (503, None, "http", True),
    (504, None, "http", True),
    (599, None, "http", True),
    (400, None, "http", False),
    (401, "invalid_api_key", "http", False),
    (403, None, "http", False),
    (404, "model_not_found", "http", False),
    (413, None, "http", False),
    (422, None, "http", False),
    (429, "insufficient_quota", "http", False),
    (429, "INSUFFICIENT_QUOTA", "http", False),
    (429, "billing_hard_limit_reached", "http", False),
    (429, "insufficient_credits", "http", False),
    (429, "credit_exhausted", "http", False),
    (None, None, "invalid", False),
], ids=lambda v: str(v))
def test_should_retry_table(status, code, kind, expected):
    assert should_retry(status, code, 0, kind) is expected


def test_a_refused_connection_or_unknown_host_gets_only_quick_retries():
    assert should_retry(None, None, UNREACHABLE_RETRIES - 1, "unreachable")
    assert not should_retry(None, None, UNREACHABLE_RETRIES, "unreachable")
    assert should_retry(None, None, UNREACHABLE_RETRIES, "connection")  # a dropped one: more
    waited = sum(retry_delay(a, None, FixedRandom(0.0)) for a in range(UNREACHABLE_RETRIES))
    assert waited <= 2.0


def test_attempts_are_bounded():
    assert should_retry(503, None, MAX_RETRIES - 1, "http")
    assert not should_retry(503, None, MAX_RETRIES, "http")
    assert not should_retry(None, None, 2, "timeout", max_retries=2)
    assert not should_retry(429, None, 0, "http", max_retries=0)


@pytest.mark.parametrize("headers, expected", [
    ({"retry-after-ms": "250"}, 0.25),
    ({"Retry-After-Ms": "1500"}, 1.5),
    ({"retry-after": "2"}, 2.0),
    ({"Retry-After": "0.5"}, 0.5),
    ({"retry-after": "0"}, 0.0),
    ({"retry-after-ms": "100", "retry-after": "7"}, 0.1),   # the ms header wins
    ({"retry-after": "3600"}, RETRY_AFTER_CAP),              # capped
    ({"retry-after-ms": "900000"}, RETRY_AFTER_CAP),
], ids=lambda v: str(v))
def test_server_asked_delay_is_honored_up_to_the_cap(headers, expected):
    assert retry_delay(0, headers, FixedRandom(0.5)) == pytest.approx(expected)


def test_retry_after_as_http_date():
    now = 1_750_000_000.0
    later = email.utils.formatdate(now + 5, usegmt=True)
    earlier = email.utils.formatdate(now - 5, usegmt=True)
    assert retry_delay(0, {"retry-after": later}, FixedRandom(0.0), now=now) == pytest.approx(5)
    assert retry_delay(0, {"retry-after": earlier}, FixedRandom(0.0), now=now) == 0.0
    far = email.utils.formatdate(now + 86400, usegmt=True)
    assert retry_delay(0, {"retry-after": far}, FixedRandom(0.0), now=now) == RETRY_AFTER_CAP


@pytest.mark.parametrize("headers", [{}, None, {"retry-after": "soon"}, {"retry-after": "-3"},
                                     {"retry-after-ms": "nan"}, {"retry-after": ""}],
                         ids=str)
def test_without_a_usable_header_backoff_is_exponential(headers):
    no_jitter = FixedRandom(0.0)
    assert retry_delay(0, headers, no_jitter) == INITIAL_DELAY
    assert retry_delay(1, headers, no_jitter) == 2 * INITIAL_DELAY
    assert retry_delay(2, headers, no_jitter) == 4 * INITIAL_DELAY
    assert retry_delay(30, headers, no_jitter) == MAX_DELAY  # capped


def test_jitter_shortens_by_at_most_the_jitter_share():
    assert retry_delay(1, {}, FixedRandom(1.0)) == pytest.approx(2 * INITIAL_DELAY * (1 - JITTER))


@given(attempt=st.integers(0, 50), r=st.floats(0.0, 1.0, exclude_max=True))
def test_backoff_bounds(attempt, r):
    base = min(INITIAL_DELAY * 2 ** attempt, MAX_DELAY)
    delay = retry_delay(attempt, {}, FixedRandom(r))
    assert base * (1 - JITTER) - 1e-12 <= delay <= base
    assert 0 < delay <= MAX_DELAY


def test_constants_are_the_ones_used(monkeypatch):
    monkeypatch.setattr(retry, "INITIAL_DELAY", 0.01)
    assert retry_delay(0, {}, FixedRandom(0.0)) == 0.01
