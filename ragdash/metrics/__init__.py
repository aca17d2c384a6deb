"""Retrieval metrics with trec_eval's semantics, at every cutoff K in one vectorized pass.

    >>> table = evaluate(ranking, qrels, kmax=100)
    >>> table.mean("ndcg@10"), table.curve("recall")[:5], table.summary([1, 5, 10])

Families (:data:`FAMILIES`): ``recall``, ``precision``, ``hit_rate``, ``mrr``, ``ndcg``,
``map``, ``bpref`` and ``judged`` (Judged@K, the share of the top K that has a label: a
measure of the labels, shown beside the others), named with a cutoff as ``ndcg@10``.
Semantics (those of trec_eval, and tested against pytrec_eval):

- the ranking order is canonical: score descending, ties by doc id descending;
- a document is relevant when its grade is > 0, or ≥ ``relevance_level`` when given;
- NDCG's gains are the grades (``gain="linear"``, trec_eval's ndcg_cut) or ``2^grade − 1``
  (``gain="exponential"``); the ideal ranking uses every judged document; negative grades
  count as 0;
- P@K divides by K; Recall@K and MAP@K divide by all relevant documents of the query;
- a query without any relevant document scores 0 everywhere and counts in the mean, unless a
  view is asked to ``drop_no_relevant``;
- ``judged_only=True`` scores condensed lists (trec_eval ``-J``): unjudged documents are
  removed from each ranking before it is cut at K; Judged@K still describes the ranking as
  retrieved.

Importing this package loads numpy only; pandas is imported by :meth:`MetricTable.to_frame`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from ..errors import MetricError
from ..i18n import error
from .judging import GAINS, is_relevant, judge, query_list
from .kernels import compute_all
from .registry import (
    COVERAGE,
    FAMILIES,
    FAMILY_NAMES,
    QUALITY_NAMES,
    Family,
    family,
    metric_label,
    metric_names,
    parse_metric,
)
from .table import DEFAULT_KS, MetricTable

__all__ = ["COVERAGE", "DEFAULT_KS", "FAMILIES", "FAMILY_NAMES", "GAINS", "QUALITY_NAMES",
           "Family", "MetricError", "MetricTable", "evaluate", "family", "is_relevant",
           "metric_label", "metric_names", "parse_metric"]


def evaluate(ranking, qrels: Mapping, *, kmax: int | None = None,
             queries: Iterable | None = None, relevance_level: float | None = None,
             gain: str = "linear", judged_only: bool = False) -> MetricTable:
    """Score ``ranking`` (a :class:`ragdash.Ranking`) against ``qrels`` at K = 1..``kmax``.

    ``qrels``: ``{query id: {doc id: grade}}``; keys that are not strings are normalised with
    ``str()``, so ``{1: {7: 2}}`` judges query ``"1"``, document ``"7"``.
    ``kmax``: deepest cutoff (default: the ranking's depth, at least 1). Cutoffs deeper than
    the run are well defined (P@K still divides by K).
    ``queries``: ``None`` evaluates the queries in both the run and the qrels (trec_eval's
    default; a qrels entry with no judgement at all does not count), in run order; a list
    evaluates exactly those, in that order — a query absent from the run scores 0, one absent
    from the qrels has no relevant document and scores 0.
    ``relevance_level``: binary metrics count grade ≥ this as relevant (default: grade > 0).
    ``gain``: ``"linear"`` (NDCG gain = grade) or ``"exponential"`` (2^grade − 1).
    ``judged_only``: score condensed lists (unjudged documents removed before the cut;
    trec_eval ``-J``).
    """
    if kmax is None:
        kmax = max(ranking.kmax, 1)
    elif isinstance(kmax, bool) or not isinstance(kmax, (int, np.integer)) or kmax < 1:
        raise error(MetricError, "metric.kmax", kmax=kmax)
    kmax = int(kmax)
    qids = query_list(ranking, qrels, queries)
    judged, in_run = judge(ranking, qrels, qids, kmax, relevance_level=relevance_level,
                           gain=gain, judged_only=judged_only)
    return MetricTable(qids, compute_all(judged), judged.num_relevant, in_run,
                       relevance_level=None if relevance_level is None
                       else float(relevance_level), gain=gain, judged_only=judged_only)
