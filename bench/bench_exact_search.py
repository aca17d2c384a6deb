"""Exact top-100 cosine over a memory-mapped vector file against faiss IndexFlatIP in RAM,
whole processes, side by side.

    python bench/bench_exact_search.py [--docs 1000000] [--dim 384] [--queries 1000]
                                       [--k 100] [--repeat 3] [--data DIR]

The documents are random unit vectors (float32, seeded) written once with ragdash's own
vector-file writer (:class:`ragdash.embeddings.cache.VectorFile`, which stores each row's
inverse norm beside the file) to ``DIR`` and kept for the next run; the page cache is warmed
by a first untimed read. Then, alternating, best of ``--repeat``, each side is one process
(interpreter, imports, reading, searching, writing its top-k ids):

- ragdash: open the vector file memory-mapped (as ``evaluate`` does), make the 1M doc ids,
  ``top_k_cosine(queries, docs, k, doc_ids=...)`` with the stored norms;
- faiss:   ``np.load`` the matrix into RAM, ``IndexFlatIP.add``, ``search`` (same thread count:
  numpy's BLAS threads).

Peak RSS is ``wait4``'s ``ru_maxrss`` (it counts the file's pages while they are mapped). The
two results are compared: the same documents in the same order for every query, except where
two scores are closer than float32 rounding (counted; ragdash breaks those ties by doc id as
trec_eval does, faiss by position).
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

ROOT = Path(__file__).resolve().parents[1]

PREPARE = r'''
import sys, numpy as np
from ragdash.embeddings.cache import Namespace, VectorFile
folder, n, d, nq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
vf = VectorFile(folder, Namespace("bench", "random", d), "bench")
if vf.open(n) is None:
    rng = np.random.default_rng(0)
    w = vf.writer(n, d)
    for lo in range(0, n, 50_000):
        block = rng.standard_normal((min(50_000, n - lo), d), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        w.append(block)
    w.commit()
q = np.random.default_rng(1).standard_normal((nq, d), dtype=np.float32)
np.save(folder + "/queries.npy", q / np.linalg.norm(q, axis=1, keepdims=True))
print(vf.path)
'''

RAGDASH = r'''
import sys, numpy as np
from ragdash.embeddings.cache import Namespace, VectorFile
from ragdash.retrieval.cosine import top_k_cosine
folder, out = sys.argv[1], sys.argv[5]
n, d, k = map(int, sys.argv[2:5])
vf = VectorFile(folder, Namespace("bench", "random", d), "bench")
docs = vf.open(n)
q = np.load(folder + "/queries.npy")
ids = [f"doc{i:07d}" for i in range(n)]
idx, val = top_k_cosine(q, docs, k, doc_ids=ids, doc_inverse_norms=vf.inverse_norms(n))
np.save(out, idx)
'''

FAISS = r'''
import sys, numpy as np, faiss
from ragdash.embeddings.cache import Namespace, VectorFile
from ragdash.retrieval.cosine import numpy_threads
folder, out = sys.argv[1], sys.argv[5]
n, d, k = map(int, sys.argv[2:5])
faiss.omp_set_num_threads(numpy_threads())
docs = np.load(VectorFile(folder, Namespace("bench", "random", d), "bench").path)
q = np.load(folder + "/queries.npy")
index = faiss.IndexFlatIP(d)
index.add(docs)
D, I = index.search(q, k)
np.save(out, I)
np.save(out + ".scores.npy", D)
'''


def run(code: str, args: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"a side failed (exit {os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_maxrss / 2**20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-exact-search"),
                    help="where the vector file is written once and kept")
    args = ap.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    shape = [str(args.data), str(args.docs), str(args.dim)]
    path = subprocess.run([sys.executable, "-c", PREPARE, *shape, str(args.queries)], env=env,
                          cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    with open(path, "rb") as f:  # warm the page cache: both sides read a cached file
        while f.read(64 << 20):
            pass
    print(f"{args.queries:,} queries x {args.docs:,} docs x {args.dim} dims float32 "
          f"({os.path.getsize(path) / 2**30:.2f} GiB memory-mapped), top {args.k}; load "
          f"average {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory() as tmp:
        outs = {"ragdash": f"{tmp}/ragdash.npy", "faiss": f"{tmp}/faiss.npy"}
        times: dict[str, list[float]] = {"ragdash": [], "faiss": []}
        peaks: dict[str, list[float]] = {"ragdash": [], "faiss": []}
        for _ in range(args.repeat):
            for name, code in (("ragdash", RAGDASH), ("faiss", FAISS)):
                wall, peak = run(code, [*shape, str(args.k), outs[name]], env)
                times[name].append(wall)
                peaks[name].append(peak)
        ours, theirs = np.load(outs["ragdash"]), np.load(outs["faiss"])
        scores = np.load(outs["faiss"] + ".scores.npy")
        same_sets = sum(set(a.tolist()) == set(b.tolist()) for a, b in zip(ours, theirs))
        differ = ours != theirs
        # a difference where faiss's neighbouring scores are within float32 rounding is a tie
        near = np.zeros_like(differ)
        near[:, 1:] |= np.abs(np.diff(scores, axis=1)) <= 1e-6
        near[:, :-1] |= near[:, 1:].copy()
        unexplained = int((differ & ~near).sum())
    for name in times:
        print(f"{name + ':':<9} best {min(times[name]):.2f} s, peak RSS {max(peaks[name]):.2f} GB"
              f"   (runs: {', '.join(f'{t:.2f}' for t in times[name])})")
    ratio = min(times["ragdash"]) / min(times["faiss"])
    print(f"ratio ragdash / faiss IndexFlatIP in RAM: {ratio:.2f}  (goal <= 1.10)")
    print(f"same top-{args.k} set: {same_sets:,} of {len(ours):,} queries; positions that differ "
          f"outside float32 ties: {unexplained}")
    return 0 if unexplained == 0 and same_sets == len(ours) else 1


if __name__ == "__main__":
    raise SystemExit(main())
