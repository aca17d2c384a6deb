"""Helpers for a project's own test suite: retrieval quality as a pytest assertion.

    from ragdash.testing import assert_not_worse

    def test_retrieval_did_not_regress():
        assert_not_worse("qrels.tsv", "baseline.trec", "setup.toml", metric="ndcg@10")

It runs the same gate as ``ragdash check`` (:func:`ragdash.check`) and fails the test with the
gate's one-sentence verdict, its warnings after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .gate import check
from .i18n import message
from .stats.gate import DEFAULT_MARGIN, GateDecision

__all__ = ["RetrievalRegression", "assert_not_worse"]


class RetrievalRegression(AssertionError):
    """The gate found the candidate worse than the baseline (``.decision`` has the figures)."""

    def __init__(self, decision: GateDecision, said: str) -> None:
        super().__init__(said)
        self.decision = decision


def assert_not_worse(qrels, baseline, candidate, *, metric: str | Sequence[str] = "ndcg@10",
                     margin: float = DEFAULT_MARGIN, rule: str = "not-worse",
                     lang: str = "en", **options) -> GateDecision:
    """Raise :class:`RetrievalRegression` (an ``AssertionError``) unless the gate passes;
    return the decision when it does. ``options`` go to :func:`ragdash.check`."""
    metrics = [metric] if isinstance(metric, str) else list(metric)
    decision = check(qrels, baseline, candidate, metrics=metrics, margin=margin, rule=rule,
                     **options)
    if not decision.passed:
        said = [decision.sentence(lang), *(message(w, lang) for w in decision.warnings())]
        raise RetrievalRegression(decision, "\n".join(said))
    return decision
