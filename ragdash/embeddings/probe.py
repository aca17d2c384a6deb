"""A short online latency probe of an embeddings endpoint, run only when the user asks.

    texts = probe_texts(run)                    # 20 of the run's query texts
    probe_cost(texts, model)                    # tokens and USD, shown before anything is sent
    result = probe_latency(client, texts)       # {"p50_ms", "p95_ms", "requests", "date", ...}
    store.update_resources(run.id, {"latency_probe": result})

Each request embeds one query (what a search does per query), never through the cache, and
the requests are spaced evenly over a few seconds (``spacing`` seconds from one start to the
next) so the figures are of a server at rest rather than of a burst. p50 and p95 are numpy's
linear-interpolation percentiles of the 20 round trips, in milliseconds; the result keeps its
date, the endpoint and the tokens the probe was billed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..cost import CostSettings, count_tokens, load_catalog, price_tokens
from ..errors import Cancelled, CostError, RetrievalError
from ..i18n import error
from ..run import now_iso

if TYPE_CHECKING:
    from ..run import Run

__all__ = ["PROBE_REQUESTS", "PROBE_SPACING", "latency_summary", "probe_cost", "probe_latency",
           "probe_texts", "timed_calls"]

#: single-query requests per probe
PROBE_REQUESTS = 20
#: seconds from one request's start to the next (20 requests: about 5 s in all)
PROBE_SPACING = 0.25


def probe_texts(run: Run, n: int = PROBE_REQUESTS) -> list[str]:
    """``n`` query texts of the run (its evaluated queries, repeated when fewer), with the
    run's query prefix."""
    texts = {q.id: q.text for q in run.dataset.queries}
    pool = [texts[q] for q in run.query_ids if texts.get(q)]
    if not pool:
        raise error(RetrievalError, "probe.no_texts")
    prefix = str(run.config.get("query_prefix") or "")
    return [prefix + pool[i % len(pool)] for i in range(n)]


def probe_cost(texts: Sequence[str], model: str, provider: str | None = None, *,
               settings: CostSettings | None = None) -> tuple[int, float | None]:
    """(tokens, USD or None when the model has no price) of sending ``texts``."""
    tokens = int(count_tokens(list(texts)).tokens)
    try:
        row = load_catalog().find(model, provider)
    except CostError:
        return tokens, None
    return tokens, price_tokens(tokens, row, settings).usd


def probe_latency(client, texts: Sequence[str], *, spacing: float = PROBE_SPACING,
                  cancel: threading.Event | None = None,
                  clock: Callable[[], float] = time.perf_counter,
                  sleep: Callable[[float], None] = time.sleep) -> dict:
    """Send each text alone to ``client`` (an :class:`EmbeddingClient`), ``spacing`` seconds
    apart, and return the round-trip figures (see the module docstring). A failed request
    raises the client's error sentence; nothing is kept."""
    texts = list(texts)
    before = int(client.usage.get("prompt_tokens", 0))
    calls = [lambda text=text: client.embed([text], stage="queries") for text in texts]
    ms = timed_calls(calls, spacing=spacing, cancel=cancel, clock=clock, sleep=sleep)
    config = client.config()
    return {"kind": "embedding", **latency_summary(ms, spacing),
            "endpoint": config.get("endpoint") or config.get("base_url"),
            "model": config.get("model"),
            "prompt_tokens": int(client.usage.get("prompt_tokens", 0)) - before}


def timed_calls(calls: Sequence[Callable[[], object]], *, spacing: float = PROBE_SPACING,
                cancel: threading.Event | None = None,
                clock: Callable[[], float] = time.perf_counter,
                sleep: Callable[[float], None] = time.sleep) -> list[float]:
    """Milliseconds of each call, the calls started ``spacing`` seconds apart."""
    if not calls:
        raise RetrievalError("a latency probe needs at least one request")
    times = []
    start = clock()
    for i, call in enumerate(calls):
        wait = start + i * spacing - clock()
        if wait > 0:
            sleep(wait)
        if cancel is not None and cancel.is_set():
            raise error(Cancelled, "probe.cancelled")
        t0 = clock()
        call()
        times.append(1000.0 * (clock() - t0))
    return times


def latency_summary(times_ms: Sequence[float], spacing: float) -> dict:
    """p50 / p95 (numpy's linear percentiles), min and max, the count and the date."""
    ms = np.asarray(times_ms, dtype=float)
    return {"requests": len(ms), "p50_ms": round(float(np.percentile(ms, 50)), 3),
            "p95_ms": round(float(np.percentile(ms, 95)), 3),
            "min_ms": round(float(ms.min()), 3), "max_ms": round(float(ms.max()), 3),
            "spacing_s": spacing, "date": now_iso()}
