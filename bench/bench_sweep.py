"""Benchmark: an 8-point dimension/precision sweep of a cached dense run, and its HTTP count.

    PYTHONPATH=. python bench/bench_sweep.py --docs 5000 --queries 4000 --dim 1536

Builds a synthetic BEIR dataset (bench/make_synthetic_beir.py), embeds it once through the
tests' fake OpenAI server (tests/fake_openai.py, a real HTTP server on 127.0.0.1) into a fresh
embeddings cache, then times `sweep` over 8 points (256 / 512 / 1024 / full x float32 and
int8 by default) with the same model and cache, counting the server's requests during the
sweep (the goal: 0, and under 10 s on 2 cores). Prints one line per stage and one per point.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from fake_openai import FakeOpenAI  # noqa: E402
from make_synthetic_beir import main as make_beir  # noqa: E402

from ragdash.loaders import load_dataset  # noqa: E402
from ragdash.retrieval.dense import make_dense_retriever  # noqa: E402
from ragdash.retrieval.sweep import parse_dims, parse_precisions, sweep  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=4000)
    ap.add_argument("--dim", type=int, default=1536)
    ap.add_argument("--dims", default="256,512,1024,full")
    ap.add_argument("--precision", default="float32,int8")
    ap.add_argument("--kmax", type=int, default=100)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    make_beir([str(work / "beir"), "--docs", str(args.docs), "--queries", str(args.queries)])
    dataset = load_dataset(work / "beir")
    os.environ["RAGDASH_HOME"] = str(work / "home")
    with FakeOpenAI(dim=args.dim) as server:
        def retriever():
            return make_dense_retriever("openai", model="text-embedding-3-small",
                                        base_url=server.url, cache_dir=work / "home",
                                        batch_size=512)
        t0 = time.perf_counter()
        warm = retriever()
        warm.embed_groups([("documents", "", dataset.doc_texts()),
                           ("queries", "", [q.text for q in dataset.evaluated_queries()])])
        embed_s = time.perf_counter() - t0
        before = len(server.requests)
        print(f"embedding {args.docs:,} documents + {args.queries:,} queries at {args.dim} "
              f"dims through the fake server: {embed_s:.2f} s, {before} requests")
        t0 = time.perf_counter()
        result = sweep(dataset, retriever(), dims=parse_dims(args.dims),
                       precisions=parse_precisions(args.precision), kmax=args.kmax)
        runs = result.runs()
        for run in runs:
            run.table()  # the metrics are part of the sweep's answer
        sweep_s = time.perf_counter() - t0
        during = len(server.requests) - before
    print(f"sweep of {len(runs)} points (plus the full-size parent), cached vectors, metrics "
          f"included: {sweep_s:.2f} s, {during} HTTP requests during the sweep "
          f"(goal: < 10 s, 0 requests)")
    for run in runs:
        r = run.resources
        print(f"  {r['dimensions']:>5} dims {r['precision']:<15} ndcg@10 "
              f"{run.table().mean('ndcg@10'):.4f}  search {r['search_seconds']:.2f} s  "
              f"index {r['index_bytes'] / 1e6:,.1f} MB")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    return 0 if during == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
