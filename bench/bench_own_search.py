"""ragdash's own cost per query around a user's search function (``evaluate_search``).

    python bench/bench_own_search.py [--queries 10000] [--docs 10000] [--hits 10]
                                     [--concurrency 1] [--repeat 3]

A synthetic dataset (``--docs`` documents, ``--queries`` judged queries) and a function that
returns at once: ``--hits`` (id, score) pairs it computed before the run, so the time is
ragdash's alone — calling it, reading what it returned into hits, mapping them to the corpus,
folding chunks, timing each query, writing each answer to the resume store as it arrives, the
ranking and the run. Printed: the wall time of ``evaluate_search`` (metric table not
included), the function's own time, and ragdash's cost per query; with and without the
resume store (``resume=False``). Goal: ≤ 2 ms per query at concurrency 1 (10,000 queries).
Runs in a temporary RAGDASH_HOME; the best of ``--repeat`` runs is reported with the machine's
load (/proc/loadavg) before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--hits", type=int, default=10)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ["RAGDASH_HOME"] = tempfile.mkdtemp(prefix="ragdash-bench-own-")

    import ragdash
    from ragdash.dataset import Dataset, Document, Query

    docs = [Document(f"d{i}", f"document {i}") for i in range(args.docs)]
    queries = [Query(f"q{i}", f"query number {i}") for i in range(args.queries)]
    qrels = {q.id: {f"d{(i * 7) % args.docs}": 1} for i, q in enumerate(queries)}
    dataset = Dataset(docs, queries, qrels, name="synthetic")
    answers = {q.text: [(f"d{(i * 7 + j) % args.docs}", float(args.hits - j))
                        for j in range(args.hits)] for i, q in enumerate(queries)}
    spent = [0.0]

    def search(query, k):  # returns at once: what it returns was made before the run
        t0 = time.perf_counter()
        got = answers[query]
        spent[0] += time.perf_counter() - t0
        return got

    print(f"{args.queries:,} queries, {args.docs:,} documents, {args.hits} hits a query, "
          f"concurrency {args.concurrency}; load before: {_load()}", flush=True)
    for resume in (True, False):
        best = None
        for _ in range(args.repeat):
            spent[0] = 0.0
            t0 = time.perf_counter()
            run = ragdash.evaluate_search(dataset, search, k=args.hits,
                                          concurrency=args.concurrency, resume=resume)
            wall = time.perf_counter() - t0
            own = (wall - spent[0]) / args.queries * 1000.0
            if best is None or own < best[0]:
                best = (own, wall, spent[0], run)
        own, wall, fn, run = best
        assert len(run.query_ids) == args.queries and run.usage["failed_queries"] == 0
        print(f"resume store {'on ' if resume else 'off'}: evaluate_search {wall:7.2f} s, "
              f"the function {fn * 1000:7.1f} ms, ragdash {own:.3f} ms per query "
              f"(latency p50 {run.resources['latency_probe']['p50_ms']:.3f} ms)", flush=True)
    print(f"load after: {_load()}")


if __name__ == "__main__":
    main()
