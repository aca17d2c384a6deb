"""Calibration: how well the judge agrees with the human labels, before its gap labels are used.

**The sample.** ``N`` pool pairs that the human qrels judge are sent to the judge as well,
stratified by human grade: each grade gets an equal share (so a rare grade is checked too),
a grade with fewer pairs gives all it has and its unused share goes to the others; within a
grade the pairs are drawn at random with a fixed seed.

**The report** (:func:`agreement_report`), on the sampled pairs the judge gave a grade:

- the confusion counts, human grade × judge grade;
- Cohen's κ at the relevance level (relevant = grade > 0, or ≥ the level when one is set: the
  rule every binary metric uses), with a 95% bootstrap interval over pairs;
- weighted κ on the grades (quadratic weights), with its interval;
- with two runs or more, Kendall's τ between the runs' order by mean nDCG@10 under the human
  labels and under the judge's labels of the same pairs (each run scored over the same
  queries: those of the sampled pairs).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..metrics import evaluate, is_relevant
from ..stats.agreement import cohen_kappa, confusion_counts, kendall_tau
from .pool import Pool

#: pairs sent for calibration when the pool touches human-labeled pairs and nothing was said
DEFAULT_CALIBRATION = 100
#: the cutoff of the run ordering compared by τ
TAU_K = 10
#: published reference points, said beside the figures: UMBRELA's per-label κ against TREC
#: assessors is "fair" (Landis and Koch: 0.21–0.40); runs ordered under its labels and under
#: the assessors' agree at Kendall's τ ≈ 0.87–0.89 (TREC DL, TREC RAG 2024)
REFERENCE = {"umbrela_kappa": "fair (0.21-0.40)", "ranking_tau": [0.87, 0.89],
             "source": "UMBRELA (Upadhyay et al. 2024) on TREC DL and TREC RAG 2024"}

__all__ = ["DEFAULT_CALIBRATION", "agreement_report", "sample_calibration"]


def sample_calibration(pool: Pool, n: int, *, seed: int = 0) -> np.ndarray:
    """Indices of ``n`` judged pool pairs (or all, when fewer), stratified by human grade."""
    judged = np.flatnonzero(pool.judged)
    if n <= 0 or not len(judged):
        return np.empty(0, dtype=np.int64)
    if n >= len(judged):
        return judged
    rng = np.random.default_rng(seed)
    grades = pool.human[judged]
    levels = np.unique(grades)
    members = [rng.permutation(judged[grades == g]) for g in levels]
    sizes = np.array([len(m) for m in members])
    take = np.zeros(len(levels), dtype=np.int64)
    left = int(n)
    while left > 0:  # equal shares; a full stratum's share goes to the others
        open_ = np.flatnonzero(take < sizes)
        share = max(1, left // len(open_))
        for i in open_:
            add = min(share, sizes[i] - take[i], left)
            take[i] += add
            left -= add
            if left == 0:
                break
    return np.sort(np.concatenate([m[:t] for m, t in zip(members, take)]))


def _qrels(queries: Sequence[str], docs: Sequence[str], grades: Sequence[float]) -> dict:
    out: dict[str, dict[str, float]] = {}
    for q, d, g in zip(queries, docs, grades):
        out.setdefault(q, {})[d] = float(g)
    return out


def agreement_report(human: np.ndarray, judge: np.ndarray, *, queries: Sequence[str],
                     docs: Sequence[str], rankings: Sequence | None = None,
                     names: Sequence[str] | None = None,
                     relevance_level: float | None = None, seed: int = 0) -> dict:
    """Agreement of ``judge`` grades with ``human`` grades on the same pairs (see the module
    docstring); JSON-safe: ``{pairs, confusion: [[human, judge, count], ...], kappa, kappa_ci,
    weighted_kappa, weighted_kappa_ci, weights, relevance_level, tau, runs, reference}``."""
    human = np.asarray(human, dtype=np.float64)
    judge = np.asarray(judge, dtype=np.float64)
    out: dict = {"pairs": len(human), "weights": "quadratic",
                 "relevance_level": relevance_level}
    cats, counts = confusion_counts(human, judge)
    out["confusion"] = [[_plain(cats[i]), _plain(cats[j]), int(counts[i, j])]
                        for i in range(len(cats)) for j in range(len(cats)) if counts[i, j]]
    binary = cohen_kappa(is_relevant(human, relevance_level).astype(int),
                         is_relevant(judge, relevance_level).astype(int), seed=seed)
    graded = cohen_kappa(human, judge, weights="quadratic", seed=seed)
    out.update(kappa=binary.to_dict()["value"], kappa_ci=binary.to_dict()["ci"],
               weighted_kappa=graded.to_dict()["value"],
               weighted_kappa_ci=graded.to_dict()["ci"])
    out["tau"], out["runs"] = _tau(human, judge, queries, docs, rankings or [], names)
    out["reference"] = REFERENCE
    return out


def _tau(human, judge, queries, docs, rankings, names) -> tuple[float | None, list[dict]]:
    if len(rankings) < 2 or not len(human):
        return None, []
    qids = list(dict.fromkeys(queries))
    by_human = _qrels(queries, docs, human)
    by_judge = _qrels(queries, docs, judge)
    runs = []
    for i, ranking in enumerate(rankings):
        h = evaluate(ranking, by_human, kmax=TAU_K, queries=qids).mean(f"ndcg@{TAU_K}")
        j = evaluate(ranking, by_judge, kmax=TAU_K, queries=qids).mean(f"ndcg@{TAU_K}")
        runs.append({"run": names[i] if names else ranking.name,
                     f"ndcg@{TAU_K}_human": float(h), f"ndcg@{TAU_K}_judge": float(j)})
    tau = kendall_tau([r[f"ndcg@{TAU_K}_human"] for r in runs],
                      [r[f"ndcg@{TAU_K}_judge"] for r in runs])
    return (None if not np.isfinite(tau) else float(tau)), runs


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)

