"""Time ragdash.stats on JSQuAD-sized inputs (4,442 queries): compare_runs and curve bands.

    python bench/stats_compare.py [--queries 4442] [--runs 5] [--kmax 100]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragdash.stats import bootstrap_ci, compare_runs, curve_bands


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=4442)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kmax", type=int, default=100)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    base = rng.beta(2, 3, args.queries)
    runs = {f"run{i}": np.clip(base + rng.normal(0.01 * i, 0.1, args.queries), 0, 1)
            for i in range(args.runs)}
    curve = np.cumsum(rng.random((args.queries, args.kmax)) < 0.02, axis=1).clip(0, 1)

    def timed(label, fn):
        t = time.perf_counter()
        fn()
        print(f"{label:<58} {time.perf_counter() - t:6.2f} s")

    n_pairs = args.runs * (args.runs - 1) // 2
    timed(f"bootstrap_ci, {args.queries} queries, 10,000 resamples",
          lambda: bootstrap_ci(base))
    timed(f"curve_bands, {args.queries} x {args.kmax}, 10,000 resamples",
          lambda: curve_bands(curve))
    timed(f"compare_runs, {args.runs} runs ({n_pairs} pairs), 10k resamples, 10k perms",
          lambda: compare_runs(runs, metric_name="ndcg@10"))


if __name__ == "__main__":
    main()
