"""Peak memory of exact cosine ranking over 100,000 x 1,536-dim documents (614 MB in float32).

    python bench/bench_memory.py [--docs 100000] [--dims 1536] [--queries 1000] [--k 100]

Each backend runs in a fresh subprocess. The child builds the document matrix in chunks (so
creating the data never holds a second copy), then resets the kernel's peak-RSS counter
(``/proc/self/clear_refs``) and tracemalloc's peak, ranks, and reports:

- the resident-set growth during ranking (peak RSS during ranking minus RSS before it), which
  counts every allocation, faiss's C++ buffers included;
- tracemalloc's peak for the same step (numpy's allocations only);
- the ratios (matrix + growth) / matrix (the goal is at most 1.5x) and growth / matrix.

The documents are random Gaussian rows, not unit vectors, so the ranking has to normalize
them (a unit-norm float32 matrix is used in place and needs even less).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_kib(field: str = "VmRSS") -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child(args) -> None:
    from ragdash.retrieval.cosine import top_k_cosine

    rng = np.random.default_rng(0)
    docs = np.empty((args.docs, args.dims), dtype=np.float32)
    for lo in range(0, args.docs, 4096):
        rng.standard_normal(out=docs[lo:lo + 4096], dtype=np.float32)
    queries = rng.standard_normal((args.queries, args.dims), dtype=np.float32)
    # Warm up imports and thread pools on a small problem, so they are not counted.
    top_k_cosine(queries[:4], docs[:2048], 10, backend=args.backend)

    before = rss_kib()
    exact_peak = reset_peak_rss()
    tracemalloc.start()
    t = time.perf_counter()
    indices, _ = top_k_cosine(queries, docs, args.k, backend=args.backend)
    seconds = time.perf_counter() - t
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = rss_kib("VmHWM")
    assert indices.shape == (args.queries, args.k) and (indices >= 0).all()
    print(json.dumps({"backend": args.backend, "matrix_bytes": docs.nbytes,
                      "rss_before": before * 1024, "rss_peak": peak * 1024,
                      "peak_is_for_ranking_only": exact_peak,
                      "traced_peak": traced_peak, "seconds": seconds}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--dims", type=int, default=1536)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--backend", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.backend:
        child(args)
        return

    matrix_mb = args.docs * args.dims * 4 / 1e6
    print(f"{args.queries:,} queries x {args.docs:,} docs x {args.dims} dims, top-{args.k}; "
          f"float32 document matrix {matrix_mb:,.1f} MB")
    for backend in ("auto", "numpy"):
        proc = subprocess.run(
            [sys.executable, __file__, "--backend", backend, "--docs", str(args.docs),
             "--dims", str(args.dims), "--queries", str(args.queries), "--k", str(args.k)],
            capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        grow = r["rss_peak"] - r["rss_before"]
        m = r["matrix_bytes"]
        note = "" if r["peak_is_for_ranking_only"] else " (peak RSS includes data creation)"
        print(f"backend={backend:<5}  ranking {r['seconds']:6.2f} s   RSS growth "
              f"{grow / 1e6:7.1f} MB, numpy peak (tracemalloc) {r['traced_peak'] / 1e6:7.1f} MB"
              f"   (matrix + growth) / matrix = {(m + grow) / m:.3f}x,"
              f" growth / matrix = {grow / m:.3f}x{note}")


if __name__ == "__main__":
    main()
