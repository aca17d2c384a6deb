"""A generated set against human queries: do both rank the same systems in the same order?

``validate(generated, human)`` runs the same retrievers on both datasets and compares, per
metric, the order of the systems (Kendall's τ-b, :func:`ragdash.stats.agreement.kendall_tau`)
and each system's score (generated − human). The systems are BM25 at several settings of
``k1`` and ``b`` (:data:`BM25_SYSTEMS`; they differ enough to be ordered, and need no key) and
any further retrievers given (a dense model). The published reference goes beside the figure:
synthetic queries that are filtered and judged ranked TREC DL 2023's systems at
τ ≈ 0.83–0.85 against human queries (:data:`PUBLISHED_TAU`); with a handful of systems τ moves
in steps of 2 / (k (k − 1)) and says little more than the direction. ``same_corpus`` says
whether both sets search the same documents (when not, the orders compare two collections as
well as two query sets; the command line says so).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dataset import Dataset
from ..stats.agreement import kendall_tau

__all__ = ["BM25_SYSTEMS", "METRICS", "PUBLISHED_TAU", "validate"]

#: (name, k1, b) of the BM25 systems scored on both sets
BM25_SYSTEMS = (("BM25", 1.2, 0.75), ("BM25 k1=0.5 b=0.3", 0.5, 0.3),
                ("BM25 k1=2 b=1", 2.0, 1.0), ("BM25 b=0", 1.2, 0.0),
                ("BM25 k1=0.1", 0.1, 0.75))
METRICS = ("ndcg@10", "recall@10", "mrr@10")
#: Kendall's τ between system orders under synthetic and human queries, as published for
#: TREC DL 2023 (Rahmani et al., "Synthetic Test Collections for Retrieval Evaluation", 2024;
#: SynDL, 2024)
PUBLISHED_TAU = (0.83, 0.85)


def validate(generated: Dataset, human: Dataset, *, extra: Sequence = (),
             kmax: int = 10, cancel=None) -> dict:
    """Scores of every system on both datasets, Kendall's τ per metric, differences."""
    from ..pipeline import run_evaluation
    from ..retrieval import make_retriever

    systems = [(name, lambda k1=k1, b=b: make_retriever("bm25", k1=k1, b=b))
               for name, k1, b in BM25_SYSTEMS]
    systems += [(getattr(r, "name", "dense"), lambda r=r: r) for r in extra]
    rows = []
    for name, make in systems:
        scores = {}
        for side, ds in (("generated", generated), ("human", human)):
            table = run_evaluation(ds, make(), kmax=kmax, cancel=cancel).table()
            scores[side] = {m: float(table.mean(m)) for m in METRICS}
        rows.append({"system": name, **scores,
                     "difference": {m: scores["generated"][m] - scores["human"][m]
                                    for m in METRICS}})
    tau = {m: kendall_tau([r["generated"][m] for r in rows], [r["human"][m] for r in rows])
           for m in METRICS}
    ours, theirs = set(generated.doc_ids), set(human.doc_ids)
    return {"systems": rows, "tau": tau, "published_tau": list(PUBLISHED_TAU),
            "queries": {"generated": len(generated.evaluated_queries()),
                        "human": len(human.evaluated_queries())},
            "same_corpus": ours == theirs,
            "documents": {"generated": len(ours), "human": len(theirs),
                          "shared": len(ours & theirs)}}
