"""Benchmarks of the LLM judge (issue 22), not timed tests:

1. **Throughput**: pairs per minute through a chat-completions server on 127.0.0.1 that takes
   ``--latency`` seconds (default 0.2) per reply, at the judge's default concurrency, from a
   cold answer cache — ``python -m ragdash judge`` as a user runs it, in this process, against
   tests/fake_chat.py answering from JSQuAD's full labels (tests/judge_world.py). A rerun is
   timed too (every answer from the cache: no request).
2. **Pooling**: time and peak memory (tracemalloc: Python and numpy allocations) of pooling
   ``--runs`` runs × ``--queries`` queries × depth ``--depth`` (each run 100 documents per
   query from a 200,000-document corpus with a shared head, 3 human labels per query), best of
   ``--repeat``; the pool is checked against a plain Python set union.

    python bench/bench_judge.py [--latency 0.2] [--queries 60] [--runs 10] [--pool-queries
    10000] [--depth 20] [--repeat 3] [--skip-pool] [--skip-throughput]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def make_runs(runs: int, queries: int, per_query: int, docs: int, seed: int = 0):
    from ragdash.ranking import Ranking

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
        out.append(Ranking(qids, offsets, names[pick.ravel()], scores.ravel(), name=f"run{r}"))
    qrels = {q: {str(names[head[i, j]]): 1.0 for j in (0, 3, 7)} for i, q in enumerate(qids)}
    return out, qrels


def bench_pool(a) -> None:
    from ragdash.judge.pool import build_pool

    runs, qrels = make_runs(a.runs, a.pool_queries, 100, 200_000)
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
    print(f"pooling {a.runs} runs × {a.pool_queries:,} queries × depth {a.depth}: "
          f"{len(pool):,} distinct pairs ({judged:,} judged), best of {a.repeat}: "
          f"{best:.3f} s, peak traced memory {peak / 2**20:.1f} MiB; same pairs as a set union")


def bench_throughput(a) -> None:
    from fake_chat import FakeChat
    from judge_world import LabelOracle, make_world

    from ragdash.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        world = make_world(queries=a.queries, depth=5)
        paths = world.write(Path(tmp))
        os.environ["RAGDASH_HOME"] = str(Path(tmp) / "home")
        oracle = LabelOracle(world, error_rate=0.1)
        args = ["judge", str(paths["dataset"]), str(paths["good"]), str(paths["fair"]),
                str(paths["poor"]), "--depth", "5", "--calibrate", "50", "--format", "json"]
        with FakeChat(answer=oracle, latency=a.latency) as server:
            args += ["--base-url", server.url, "--model", "judge-bench"]
            timings = []
            for _ in range(2):
                out, err = io.StringIO(), io.StringIO()
                t0 = time.perf_counter()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    rc = main(args)
                timings.append(time.perf_counter() - t0)
                assert rc == 0, err.getvalue()
                timings.append(json.loads(out.getvalue()))
            sent = len(server.requests)
    cold, got, warm, again = timings
    pairs = got["usage"]["pairs_sent"]
    judge_seconds = got["seconds"]
    print(f"judge through a server with {a.latency * 1000:.0f} ms latency at the default "
          f"concurrency: {pairs:,} pairs ({got['to_judge']:,} gaps + "
          f"{got['calibration']['sent']} calibration) in {judge_seconds:.2f} s of requests "
          f"({cold:.2f} s for the whole command): {pairs / judge_seconds * 60:,.0f} pairs/minute "
          f"({pairs / cold * 60:,.0f} counting the whole command); requests {sent:,}")
    print(f"rerun: {again['requests']} requests, {again['usage']['cached_pairs']:,} answers from "
          f"the cache, {warm:.2f} s")
    cal = got["calibration"]
    print(f"calibration (server error rate 10%): kappa {cal['kappa']:.3f} "
          f"{cal['kappa_ci']}, weighted kappa {cal['weighted_kappa']:.3f}, tau {cal['tau']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--pool-queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-pool", action="store_true")
    ap.add_argument("--skip-throughput", action="store_true")
    a = ap.parse_args()
    if not a.skip_throughput:
        bench_throughput(a)
    if not a.skip_pool:
        bench_pool(a)


if __name__ == "__main__":
    main()
