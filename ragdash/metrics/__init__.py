"""Retrieval metrics with trec_eval's semantics, at every cutoff K in one vectorized pass.

    >>> table = evaluate(ranking, qrels, kmax=100)
    >>> table.mean("ndcg@10"), table.curve("recall")[:5], table.summary([1, 5, 10])

Six families (:data:`FAMILIES`): ``recall``, ``precision``, ``hit_rate``, ``mrr``, ``ndcg``,
``map``, named with a cutoff as ``ndcg@10``. Semantics (those of trec_eval, and tested
against pytrec_eval):

- the ranking order is canonical: score descending, ties by doc id descending;
- a document is relevant when its grade is > 0, or ≥ ``relevance_level`` when given;
- NDCG's gains are the grades (``gain="linear"``, trec_eval's ndcg_cut) or ``2^grade − 1``
  (``gain="exponential"``); the ideal ranking uses every judged document; negative grades
  count as 0;
- P@K divides by K; Recall@K and MAP@K divide by all relevant documents of the query;
- a query without any relevant document scores 0 everywhere and counts in the mean, unless a
  view is asked to ``drop_no_relevant``.

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
    FAMILIES,
    FAMILY_NAMES,
    Family,
    family,
    metric_label,
    metric_names,
    parse_metric,
)
from .table import DEFAULT_KS, MetricTable

__all__ = ["DEFAULT_KS", "FAMILIES", "FAMILY_NAMES", "GAINS", "Family", "MetricError",
           "MetricTable", "evaluate", "family", "is_relevant", "metric_label", "metric_names",
           "parse_metric"]


def evaluate(ranking, qrels: Mapping, *, kmax: int | None = None,
             queries: Iterable | None = None, relevance_level: float | None = None,
             gain: str = "linear") -> MetricTable:
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
    """
    if kmax is None:
        kmax = max(ranking.kmax, 1)
    elif isinstance(kmax, bool) or not isinstance(kmax, (int, np.integer)) or kmax < 1:
        raise error(MetricError, "metric.kmax", kmax=kmax)
    kmax = int(kmax)
    qids = query_list(ranking, qrels, queries)
    judged, in_run = judge(ranking, qrels, qids, kmax, relevance_level=relevance_level,
                           gain=gain)
    return MetricTable(qids, compute_all(judged), judged.num_relevant, in_run,
                       relevance_level=None if relevance_level is None
                       else float(relevance_level), gain=gain)
