"""What people judge on the Judge page, and how well they agree.

A queue is a list of (query, document) pairs in a fixed order, so that two browsers of one rater
see the same next pair and a closed tab loses nothing (labels are saved as they are given, and
the queue skips what the rater has labeled):

- :func:`pool_queue`: TREC's pool — the union of the chosen runs' top ``depth`` — minus the pairs
  the human qrels judge: the gaps that decide whether a new model is underrated;
- :func:`disagreement_queue`: the pairs where another judgment set (the LLM judge's) and the
  human qrels disagree at the relevance level — the calibration of the judge, by people;
- :func:`sample_queue`: a seeded random sample of human-judged pairs, for a second opinion.

:func:`rater_agreement` says how well raters (people, the LLM judge, the human qrels) agree on
the pairs they all labeled: Cohen's κ (plain, quadratically weighted as the judge's calibration
is, and binary at the relevance level) with the confusion matrix for
two, Fleiss' κ and Krippendorff's α (ordinal) for more, each with a 95% bootstrap interval, and
the pairs where they disagree (the adjudication list).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..metrics import is_relevant
from ..ranking import Ranking
from ..stats.agreement import (
    Agreement,
    cohen_kappa,
    confusion_counts,
    fleiss_kappa,
    krippendorff_alpha,
)
from .pool import build_pool

__all__ = ["GRADES", "Pair", "RaterAgreement", "disagreement_queue", "pool_queue",
           "rater_agreement", "remaining", "sample_queue"]

#: the grades a person gives (UMBRELA's scale, as the LLM judge)
GRADES = (0, 1, 2, 3)

PairKey = tuple[str, str]


@dataclass(frozen=True)
class Pair:
    query_id: str
    doc_id: str

    @property
    def key(self) -> PairKey:
        return (self.query_id, self.doc_id)


def pool_queue(rankings: Sequence[Ranking], depth: int, qrels: Mapping[str, Mapping], *,
               known_queries: Sequence[str] | None = None,
               known_docs: Sequence[str] | None = None) -> list[Pair]:
    """The runs' pooled top ``depth`` that the human qrels leave unjudged, grouped by query
    (the order of :func:`ragdash.judge.pool.build_pool`)."""
    if not rankings:
        return []
    pool = build_pool(rankings, depth, qrels, known_queries=known_queries,
                      known_docs=known_docs)
    todo = ~pool.judged
    return [Pair(str(q), str(d)) for q, d in zip(pool.query_ids[todo], pool.doc_ids[todo])]


def disagreement_queue(human: Mapping[str, Mapping], other: Mapping[PairKey, float], *,
                       relevance_level: float | None = None) -> list[Pair]:
    """Pairs both the human qrels and ``other`` label, on which they disagree about relevance
    (grade > 0, or >= the level), in query then document order."""
    out = []
    for (q, d), grade in sorted(other.items()):
        h = (human.get(q) or {}).get(d)
        if h is not None and is_relevant(float(h), relevance_level) != is_relevant(
                float(grade), relevance_level):
            out.append(Pair(q, d))
    return out


def sample_queue(human: Mapping[str, Mapping], n: int, *, seed: int = 0) -> list[Pair]:
    """``n`` human-judged pairs drawn at random (seeded), for a second opinion."""
    pairs = sorted((str(q), str(d)) for q, docs in human.items() for d in docs)
    if not pairs:
        return []
    pick = np.random.default_rng(seed).choice(len(pairs), size=min(int(n), len(pairs)),
                                              replace=False)
    return [Pair(*pairs[i]) for i in sorted(pick)]


def remaining(queue: Sequence[Pair], done: set[PairKey] | Mapping) -> list[Pair]:
    """The queue without the pairs the rater has labeled (or marked)."""
    return [p for p in queue if p.key not in done]


@dataclass
class RaterAgreement:
    """Agreement of ``raters`` on the ``items`` pairs every one of them labeled (two raters),
    or on the pairs labeled by at least two (Krippendorff's α)."""

    raters: list[str]
    items: int
    cohen: Agreement | None = None           # two raters: plain κ on the grades
    cohen_weighted: Agreement | None = None  # two raters: quadratically weighted κ
    cohen_binary: Agreement | None = None    # two raters: κ on relevant / not relevant
    categories: list[float] = field(default_factory=list)
    confusion: np.ndarray | None = None      # two raters: [first's grade, second's grade]
    fleiss: Agreement | None = None          # three or more, on pairs all of them labeled
    alpha: Agreement | None = None           # Krippendorff's α (ordinal), any number
    disagreements: list[tuple[PairKey, dict[str, float]]] = field(default_factory=list)


def rater_agreement(labels: Mapping[str, Mapping[PairKey, float]], *,
                    relevance_level: float | None = None, seed: int = 0) -> RaterAgreement:
    """Agreement between raters, ``{rater: {(query, doc): grade}}`` (two or more)."""
    raters = list(labels)
    if len(raters) < 2:
        return RaterAgreement(raters, 0)
    every = sorted(set().union(*(set(v) for v in labels.values())))
    matrix = np.array([[labels[r].get(k, np.nan) for r in raters] for k in every],
                      dtype=np.float64).reshape(len(every), len(raters))
    rated = (~np.isnan(matrix)).sum(axis=1)
    out = RaterAgreement(raters, int((rated == len(raters)).sum()))
    disagree = [(k, {r: float(matrix[i, j]) for j, r in enumerate(raters)
                     if not np.isnan(matrix[i, j])})
                for i, k in enumerate(every)
                if rated[i] >= 2 and len(set(matrix[i][~np.isnan(matrix[i])])) > 1]
    out.disagreements = disagree
    if (rated >= 2).any():
        out.alpha = krippendorff_alpha(matrix, level="ordinal", seed=seed)
    complete = matrix[rated == len(raters)]
    if len(complete) == 0:
        return out
    if len(raters) == 2:
        a, b = complete[:, 0], complete[:, 1]
        scale = sorted(set(GRADES) | set(a.tolist()) | set(b.tolist()))
        cats, counts = confusion_counts(a, b, scale)
        out.categories, out.confusion = [float(c) for c in cats], counts
        out.cohen = cohen_kappa(a, b, categories=scale, seed=seed)
        out.cohen_weighted = cohen_kappa(a, b, categories=scale, weights="quadratic", seed=seed)
        out.cohen_binary = cohen_kappa(is_relevant(a, relevance_level).astype(int),
                                       is_relevant(b, relevance_level).astype(int),
                                       categories=[0, 1], seed=seed)
    else:
        out.fleiss = fleiss_kappa(complete, seed=seed)
    return out
