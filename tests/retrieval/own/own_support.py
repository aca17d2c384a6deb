"""Helpers of the own-retriever tests: a deterministic embedding (hashed character n-grams, no
model), a small dataset, and pytrec_eval's means on the ranking a retriever returned."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
import pytrec_eval

from ragdash.dataset import Dataset, Document, Query

DIM = 256
MEASURES = {"ndcg_cut_10", "recall_10", "recip_rank", "P_5", "map_cut_100"}
OURS = {"ndcg_cut_10": "ndcg@10", "recall_10": "recall@10", "recip_rank": "mrr@100",
        "P_5": "precision@5", "map_cut_100": "map@100"}


def hashed_vector(text: str, n: int = 2) -> list[float]:
    """Character n-grams hashed into DIM buckets (md5, stable across processes), L2-normed."""
    vec = np.zeros(DIM)
    grams = [text[i:i + n] for i in range(max(1, len(text) - n + 1))]
    for g in grams:
        h = int.from_bytes(hashlib.md5(g.encode("utf-8")).digest()[:4], "little")
        vec[h % DIM] += 1.0
    norm = math.sqrt(float(vec @ vec)) or 1.0
    return (vec / norm).tolist()


def chunks_of(text: str, size: int = 60) -> list[str]:
    """A document cut into pieces of ``size`` characters (the last may be shorter)."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [text]


def folded(ids_scores) -> dict[str, float]:
    """The first rank of each document (trec_eval's view of a ranking of documents), with
    the scores given, or the rank order made into scores when none were."""
    seen: dict[str, float | None] = {}
    for doc, score in ids_scores:
        if doc not in seen:
            seen[doc] = score
    if not seen:
        return {}
    if any(s is None for s in seen.values()):
        n = len(seen)
        return {d: float(n - i) for i, d in enumerate(seen)}
    return {d: float(s) for d, s in seen.items()}


def pytrec_means(dataset: Dataset, run: dict[str, dict[str, float]], query_ids) -> dict:
    """pytrec_eval's means over ``query_ids`` (a query missing from ``run`` scores 0)."""
    qrels = {q: {d: int(g) for d, g in dataset.qrels[q].items()} for q in query_ids}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, MEASURES)
    got = evaluator.evaluate({q: run.get(q) or {"__none__": 0.0} for q in query_ids})
    return {OURS[m]: float(np.mean([got[q][m] for q in query_ids])) for m in MEASURES}


def assert_equals_pytrec(run_obj, dataset: Dataset, returned: dict[str, dict[str, float]]):
    """``run_obj``'s means equal pytrec_eval's on ``returned`` ({qid: {doc: score}})."""
    want = pytrec_means(dataset, returned, run_obj.query_ids)
    table = run_obj.table()
    for name, value in want.items():
        assert table.mean(name) == pytest.approx(value, abs=1e-9), name


def tiny_dataset() -> Dataset:
    """Five documents, three judged queries."""
    docs = [Document("d1", "the cat sat on the mat"), Document("d2", "dogs chase cats"),
            Document("d3", "a bird on a wire"), Document("d4", "cats and dogs and birds"),
            Document("d5", "nothing to see here")]
    queries = [Query("q1", "cat"), Query("q2", "dog"), Query("q3", "bird")]
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d2": 1, "d4": 1}, "q3": {"d3": 2, "d4": 1}}
    return Dataset(docs, queries, qrels, name="tiny")


def keyword_search(dataset: Dataset):
    """A function search(query, k): documents containing the query word, scored by the
    count of its occurrences (ties by document id)."""
    def search(query: str, k: int):
        scored = [(d.id, float(d.text.count(query))) for d in dataset.documents
                  if query in d.text]
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]

    return search
