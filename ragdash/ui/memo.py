"""One cache for the server of what a page derives from saved runs (metric frames, bands,
comparisons, figures): a saved run never changes, so a key made of run ids and the page's
settings (metric, K, language, ...) names one result for every session. A rerun that only
moved a widget then redraws from here instead of recomputing (seconds at 10,000 queries).

Values are shared between sessions: treat them as read-only."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

#: results kept (least recently used dropped first); a few runs' worth of figures and frames
KEPT = 64

_cache: OrderedDict[Hashable, Any] = OrderedDict()
_lock = threading.Lock()


def memo(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per ``key`` (computed outside the lock: two sessions asking at
    once may both compute; either result is the same). A key holding ``None`` (an unsaved
    run has no id) is not cached."""
    if _uncacheable(key):
        return compute()
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    value = compute()
    with _lock:
        _cache[key] = value
        while len(_cache) > KEPT:
            _cache.popitem(last=False)
    return value


def _uncacheable(key: Hashable) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return any(p is None or (isinstance(p, tuple) and _uncacheable(p)) for p in parts)


def clear() -> None:
    with _lock:
        _cache.clear()
