"""Benchmark: pooling the top ``depth`` of several runs for the LLM judge (ragdash.judge.pool).

Workload (issue 22): 10 runs × 10,000 queries × 100 documents each, doc ids drawn from a
corpus of 200,000 with a shared head (the runs overlap, as real systems do), human qrels of 3
judged documents per query; the pool is the union of every run's top 20. Time and peak memory
(tracemalloc: Python and numpy allocations) of ``build_pool``, best of N; the pool is checked
against a plain Python set union so a fast wrong answer fails.

    python bench/bench_pool.py [--runs 10] [--queries 10000] [--depth 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from ragdash.judge.pool import build_pool
from ragdash.ranking import Ranking


def make_runs(runs: int, queries: int, per_query: int, docs: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in range(queries)]
    names = np.array([f"doc{i}" for i in range(docs)], dtype=object)
    head = rng.integers(0, docs, (queries, per_query))  # what every system tends to find
    out = []
    for r in range(runs):
        own = rng.integers(0, docs, (queries, per_query))
        pick = np.where(rng.random((queries, per_query)) < 0.6, head, own)
        scores = np.sort(rng.random((queries, per_query)), axis=1)[:, ::-1]
        offsets = np.arange(queries + 1, dtype=np.int64) * per_query
        out.append(Ranking(qids, offsets, names[pick.ravel()], scores.ravel(),
                           name=f"run{r}"))
    qrels = {q: {str(names[head[i, j]]): 1.0 for j in (0, 3, 7)} for i, q in enumerate(qids)}
    return out, qrels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--per-query", type=int, default=100)
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    runs, qrels = make_runs(a.runs, a.queries, a.per_query, a.docs)
    best = float("inf")
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        pool = build_pool(runs, a.depth, qrels)
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    pool = build_pool(runs, a.depth, qrels)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    want = set()
    for run in runs:
        for q, docs, _ in run.truncate(a.depth).items():
            want.update((q, d) for d in docs)
    got = set(zip(pool.query_ids.tolist(), pool.doc_ids.tolist()))
    judged = sum(1 for q, d in want if d in qrels.get(q, {}))
    assert got == want and int(pool.judged.sum()) == judged, "pool differs from a set union"
    print(f"pooling {a.runs} runs × {a.queries:,} queries × depth {a.depth}: "
          f"{len(pool):,} distinct pairs ({judged:,} judged), best of {a.repeat}: "
          f"{best:.3f} s, peak traced memory {peak / 2**20:.1f} MiB; same pairs as a set union")


if __name__ == "__main__":
    main()
