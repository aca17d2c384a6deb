"""The server-wide memo of the pages: one computation per key, keys with None never kept,
the least recently used entry dropped first."""

from __future__ import annotations

import pytest

from ragdash.ui import memo as memo_module
from ragdash.ui.memo import memo


@pytest.fixture(autouse=True)
def fresh():
    memo_module.clear()
    yield
    memo_module.clear()


def test_one_computation_per_key_and_none_keys_are_not_kept(monkeypatch):
    calls = []

    def compute(value):
        calls.append(value)
        return [value]

    first = memo(("run1", "ndcg@10", "en"), lambda: compute(1))
    assert memo(("run1", "ndcg@10", "en"), lambda: compute(2)) is first
    assert memo(("run1", "ndcg@10", "ja"), lambda: compute(3)) == [3]
    assert memo(("unsaved", None, "en"), lambda: compute(4)) == [4]
    assert memo(("unsaved", None, "en"), lambda: compute(5)) == [5]
    assert memo(("x", ("labels", None)), lambda: compute(6)) == [6]
    assert memo(("x", ("labels", None)), lambda: compute(7)) == [7]
    assert calls == [1, 3, 4, 5, 6, 7]
    monkeypatch.setattr(memo_module, "KEPT", 2)
    memo("a", lambda: compute("a"))
    memo("b", lambda: compute("b"))
    memo("a", lambda: compute("a again"))  # a is now the most recent
    memo("c", lambda: compute("c"))        # b goes
    memo("a", lambda: compute("a third"))
    memo("b", lambda: compute("b again"))
    assert calls[6:] == ["a", "b", "c", "b again"]


# -- released when no session holds it ------------------------------------------------------
def _wait_until(condition, seconds: float = 10.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _langs() -> set:
    """The languages of the kept results whose key names one (the curve figure, the
    histogram)."""
    with memo_module._lock:
        keys = list(memo_module._cache)
    return {part for key in keys if isinstance(key, tuple) for part in key
            if part in ("en", "ja")}


def test_results_no_live_session_holds_are_released_and_the_store_lets_its_runs_go(sample):
    """Two sessions open a run's link, one in Japanese: each holds what it drew. When the
    Japanese session is gone its own results go (the shared ones stay, the other session
    holds them); when the last one is gone nothing is left, without anyone asking again —
    and the run store no longer keeps the run in memory."""
    import gc

    from app_support import new_app, open_page, save_bm25_run

    from ragdash.runs import get_store

    run_id = save_bm25_run(sample, name="bm25")
    english = open_page(new_app(run=run_id, lang="en"), "results")
    japanese = open_page(new_app(run=run_id, lang="ja"), "results")
    assert not english.exception and not japanese.exception
    assert _langs() == {"en", "ja"}
    shared = len(memo_module._cache)
    kept_run = get_store().load(run_id)
    assert get_store().load(run_id) is kept_run  # the store keeps it while it is looked at
    del japanese
    gc.collect()
    assert _wait_until(lambda: _langs() == {"en"}), _langs()
    assert 0 < len(memo_module._cache) < shared
    del english
    gc.collect()
    assert _wait_until(lambda: not memo_module._cache), len(memo_module._cache)
    assert get_store().load(run_id) is not kept_run  # read again: nothing was kept


def test_a_result_made_outside_any_session_is_kept_by_the_lru_only(monkeypatch):
    monkeypatch.setattr(memo_module, "SWEEP_SECONDS", 0.01)
    memo("plain", lambda: [1])
    assert memo_module.sweep() == 0 and memo_module.size() == 1
