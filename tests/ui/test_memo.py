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
