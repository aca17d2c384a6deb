"""Exact top-100 cosine: ragdash's top_k_cosine against faiss-cpu IndexFlatIP, side by side.

    python bench/bench_cosine.py [--queries 1000] [--docs 100000] [--dims 384] [--k 100]

Random unit vectors (float32). faiss and ragdash use the same number of threads (numpy's BLAS
thread count). Each timing is the best of ``--repeat`` runs, measured in this one process, so
the ratios compare like with like even on a busy machine. The results are checked against
faiss: the same documents in the same order, except where two scores differ by less than
float32 rounding (reported).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragdash.retrieval.cosine import numpy_threads, top_k_cosine


def unit_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    out = np.empty((n, d), dtype=np.float32)
    for lo in range(0, n, 8192):
        block = rng.standard_normal((min(8192, n - lo), d), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[lo:lo + len(block)] = block
    return out


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def compare(ref_i, ref_s, got_i, got_s) -> tuple[int, int, float]:
    """(positions, positions differing, largest score gap among the differing ones)."""
    diff = ref_i != got_i
    gap = 0.0
    if diff.any():
        gap = float(np.abs(ref_s[diff] - got_s[diff]).max())
    return ref_i.size, int(diff.sum()), gap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--dims", type=int, default=384)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import faiss

    threads = numpy_threads()
    faiss.omp_set_num_threads(threads)
    rng = np.random.default_rng(0)
    docs = unit_rows(rng, args.docs, args.dims)
    queries = unit_rows(rng, args.queries, args.dims)
    print(f"{args.queries:,} queries x {args.docs:,} docs x {args.dims} dims, top-{args.k}, "
          f"{threads} threads (numpy BLAS = faiss OpenMP)")

    index = faiss.IndexFlatIP(args.dims)
    index.add(docs)
    t_faiss, (f_s, f_i) = best_of(lambda: index.search(queries, args.k), args.repeat)
    t_auto, (a_i, a_s) = best_of(lambda: top_k_cosine(queries, docs, args.k, backend="auto"),
                                 args.repeat)
    t_numpy, (n_i, n_s) = best_of(lambda: top_k_cosine(queries, docs, args.k,
                                                       backend="numpy"), args.repeat)
    print(f"faiss IndexFlatIP.search           {t_faiss:7.3f} s   (index built beforehand)")
    print(f"top_k_cosine backend=auto (faiss) {t_auto:7.3f} s   ratio {t_auto / t_faiss:.2f}x")
    print(f"top_k_cosine backend=numpy        {t_numpy:7.3f} s   ratio {t_numpy / t_faiss:.2f}x")
    for name, gi, gs in (("auto", a_i, a_s), ("numpy", n_i, n_s)):
        total, ndiff, gap = compare(f_i, f_s.astype(np.float64), gi, gs)
        same_sets = sum(set(r) == set(g) for r, g in zip(f_i.tolist(), gi.tolist()))
        print(f"{name:>5} vs faiss: {total - ndiff:,}/{total:,} positions identical, "
              f"{same_sets}/{len(f_i)} queries with the same top-{args.k} set; "
              f"largest score gap where they differ: {gap:.1e}")


if __name__ == "__main__":
    main()
