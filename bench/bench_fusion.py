"""Benchmark: RRF of two runs with ragdash against ``ranx.fuse``, as whole processes.

Workload: two TREC runs of 10,000 queries x 100 documents each (doc ids drawn from
a corpus of 200,000, so the runs overlap a little, as BM25 and a dense run do). Each side is a
fresh python that reads both files, fuses them with reciprocal rank fusion (k = 60) and writes
the fused TREC run:

- ragdash: ``Ranking.read_trec`` x 2, ``ragdash.retrieval.fusion.fuse(..., "rrf")``,
  ``Ranking.write_trec``;
- ranx:    ``ranx.Run.from_file(kind="trec")`` x 2, ``ranx.fuse(norm=None, method="rrf")``,
  ``Run.save(kind="trec")``.

ranx's numba cache is warmed by one untimed ranx run first; then the two alternate, best of N.
Both keep the whole union of the inputs (ranx's output; ragdash's default would cut at the
inputs' depth), and the two fused runs are compared document by document (scores to 1e-9), so
a fast wrong answer fails.

    python bench/bench_fusion.py [--queries 10000] [--depth 100] [--repeat 2] [--keep DIR]

Goal: ragdash at most 0.5x ranx's time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

RANX_SCRIPT = r"""
import sys, warnings
warnings.filterwarnings("ignore")
from ranx import Run, fuse
a = Run.from_file(sys.argv[1], kind="trec")
b = Run.from_file(sys.argv[2], kind="trec")
fuse([a, b], norm=None, method="rrf").save(sys.argv[3], kind="trec")
"""

RAGDASH_SCRIPT = r"""
import sys
from ragdash.ranking import Ranking
from ragdash.retrieval.fusion import fuse
a = Ranking.read_trec(sys.argv[1])
b = Ranking.read_trec(sys.argv[2])
fuse([a, b], "rrf", depth=10**9).write_trec(sys.argv[3], tag="rrf")
"""


def make_data(folder: Path, queries: int, depth: int, corpus: int = 200_000,
              seed: int = 0) -> list[Path]:
    rng = np.random.default_rng(seed)
    paths = []
    for name in ("a", "b"):
        docs = np.argsort(rng.random((queries, corpus // 100)), axis=1)[:, :depth]
        docs = docs * 100 + rng.integers(0, 100, (queries, 1))  # distinct within a query
        scores = np.sort(rng.random((queries, depth)) * 10, axis=1)[:, ::-1]
        qcol = np.repeat([f"q{q}" for q in range(queries)], depth)
        ranks = np.tile(np.arange(1, depth + 1), queries)
        lines = [f"{q} Q0 d{d} {r} {s!r} {name}\n" for q, d, r, s in
                 zip(qcol.tolist(), docs.ravel().tolist(), ranks.tolist(),
                     scores.ravel().tolist())]
        path = folder / f"{name}.trec"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(path)
    return paths


def timed(script: str, args: list[Path]) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", script, *map(str, args)], check=True, env=env,
                   cwd=ROOT)
    return time.perf_counter() - t


def same_output(ours: Path, theirs: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from ragdash.ranking import Ranking

    a, b = Ranking.read_trec(ours), Ranking.read_trec(theirs)
    if sorted(a.query_ids) != sorted(b.query_ids):
        raise SystemExit("the fused runs have different queries")
    b = b.subset(a.query_ids)
    n = 0
    for (q, da, sa), (_, db, sb) in zip(a.items(), b.items()):
        ra, rb = dict(zip(da, sa)), dict(zip(db, sb))
        if ra.keys() != rb.keys() or any(abs(ra[d] - rb[d]) > 1e-9 for d in ra):
            raise SystemExit(f"the fused runs differ on query {q}")
        n += len(ra)
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None, help="keep the files in this folder")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="ragdash-fusion-"))
    folder.mkdir(parents=True, exist_ok=True)
    a, b = make_data(folder, args.queries, args.depth)
    out_r, out_x = folder / "fused-ragdash.trec", folder / "fused-ranx.trec"
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"warming ranx's numba cache: {timed(RANX_SCRIPT, [a, b, out_x]):.2f} s")
    ours, theirs = [], []
    for _ in range(args.repeat):
        ours.append(timed(RAGDASH_SCRIPT, [a, b, out_r]))
        theirs.append(timed(RANX_SCRIPT, [a, b, out_x]))
        print(f"  ragdash {ours[-1]:.2f} s   ranx {theirs[-1]:.2f} s")
    rows = same_output(out_r, out_x)
    print(f"same output: {rows:,} (query, document) scores agree to 1e-9")
    best_r, best_x = min(ours), min(theirs)
    print(f"{args.queries:,} queries x {args.depth} docs x 2 runs, RRF: ragdash {best_r:.2f} s, "
          f"ranx {best_x:.2f} s, ratio {best_r / best_x:.3f}x (goal <= 0.5x); load average "
          f"after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
