"""Benchmark: ``python -m ragdash score`` against pytrec_eval on the whole curve.

Workload: a random run of 10,000 queries x 100 documents, with graded qrels;
every metric family at every K = 1..100. Both sides are timed as whole processes (interpreter
start, imports, reading both files, scoring, printing the mean of every measure), side by
side in one run, alternating, best of N:

- ragdash:     python -m ragdash score QRELS RUN --k 1,2,...,100 --format json
- pytrec_eval: a fresh python that reads the same files with pytrec_eval.parse_qrel /
               parse_run and evaluates recall, P, success, ndcg_cut and map_cut at 1..100 plus
               recip_rank (pytrec_eval has no MRR@K; ragdash computes MRR@1..100 on top).

The means the two print are compared (they must agree to 1e-9), so a fast wrong answer fails.

    python bench/bench_score.py [--queries 10000] [--depth 100] [--repeat 3] [--keep DIR]

Goal: ragdash at most 0.5x pytrec_eval's time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

PYTREC_SCRIPT = r"""
import json, sys
import pytrec_eval

qrels_path, run_path, kmax = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
cut = ",".join(str(k) for k in range(1, kmax + 1))
measures = {f"recall.{cut}", f"P.{cut}", f"success.{cut}", f"ndcg_cut.{cut}",
            f"map_cut.{cut}", "recip_rank"}
results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = next(iter(results.values())).keys()
n = len(results)
means = {m: sum(r[m] for r in results.values()) / n for m in names}
print(json.dumps({"queries": n, "metrics": means}))
"""

#: ragdash family -> pytrec_eval measure prefix
PYTREC_NAMES = {"recall": "recall_", "precision": "P_", "hit_rate": "success_",
                "ndcg": "ndcg_cut_", "map": "map_cut_"}


def make_data(folder: Path, queries: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    """A run written as a search engine would (sorted by score, ranks 1..depth, some score
    ties) and TREC qrels with grades 0-3, part retrieved, part not; 1% of the qrels queries
    are missing from the run and 1% of the run queries have no qrels."""
    rng = np.random.default_rng(seed)
    corpus = 100_000
    run_lines, qrel_lines = [], []
    for q in range(queries):
        qid = f"q{q}"
        docs = rng.choice(corpus, size=depth, replace=False)
        scores = np.round(np.sort(rng.random(depth))[::-1] * 30, 3)  # rounding makes ties
        if q % 100 != 1:  # 1% of qrels queries are not in the run
            run_lines.extend(f"{qid} Q0 d{d} {r} {s:.3f} bench\n"
                             for r, (d, s) in enumerate(zip(docs, scores), start=1))
        if q % 100 == 2:  # 1% of run queries have no qrels
            continue
        judged = set(rng.choice(docs, size=int(rng.integers(0, 6)), replace=False).tolist())
        judged |= set(rng.choice(corpus, size=int(rng.integers(1, 6)), replace=False).tolist())
        qrel_lines.extend(f"{qid} 0 d{d} {int(rng.integers(0, 4))}\n" for d in sorted(judged))
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    run_path.write_text("".join(run_lines), encoding="utf-8")
    qrels_path.write_text("".join(qrel_lines), encoding="utf-8")
    return qrels_path, run_path


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd[:4])} ...\n{proc.stderr}")
    return seconds, proc.stdout


def compare(ours: dict, theirs: dict, kmax: int) -> float:
    """Largest difference between the two sets of means (must be ~0)."""
    worst = 0.0
    m_ours, m_theirs = ours["metrics"], theirs["metrics"]
    for fam, prefix in PYTREC_NAMES.items():
        for k in range(1, kmax + 1):
            worst = max(worst, abs(m_ours[f"{fam}@{k}"] - m_theirs[f"{prefix}{k}"]))
    # recip_rank has no cutoff: equal to MRR@K once K covers the whole run
    worst = max(worst, abs(m_ours[f"mrr@{kmax}"] - m_theirs["recip_rank"]))
    if ours["queries"] != theirs["queries"]:
        sys.exit(f"query counts differ: ragdash {ours['queries']}, "
                 f"pytrec_eval {theirs['queries']}")
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3, help="runs per side; the best counts")
    ap.add_argument("--keep", metavar="DIR", help="write the data here and keep it")
    ap.add_argument("--root", metavar="DIR", default=str(ROOT),
                    help="the checkout whose ragdash package runs (default: this one)")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        qrels, run = make_data(folder, args.queries, args.depth)
        script = folder / "pytrec_score.py"
        script.write_text(PYTREC_SCRIPT, encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=args.root + os.pathsep + os.environ.get("PYTHONPATH",
                                                                                 ""))
        ks = ",".join(str(k) for k in range(1, args.depth + 1))
        ours_cmd = [sys.executable, "-m", "ragdash", "score", str(qrels), str(run),
                    "--k", ks, "--format", "json"]
        theirs_cmd = [sys.executable, str(script), str(qrels), str(run), str(args.depth)]
        print(f"workload: {args.queries:,} queries x {args.depth} docs "
              f"({run.stat().st_size / 1e6:.1f} MB run, {qrels.stat().st_size / 1e6:.1f} MB "
              f"qrels), 6 families x K=1..{args.depth}")
        print(f"ragdash:     {' '.join(ours_cmd[1:5])} RUN --k 1,2,...,{args.depth} "
              f"--format json")
        print("pytrec_eval: parse_qrel + parse_run + RelevanceEvaluator("
              f"recall/P/success/ndcg_cut/map_cut at 1..{args.depth}, recip_rank)")
        ours_times, theirs_times, startup_times = [], [], []
        ours_out = theirs_out = ""
        for _ in range(args.repeat):
            t, ours_out = timed(ours_cmd, env, args.root)
            ours_times.append(t)
            t, theirs_out = timed(theirs_cmd, env, args.root)
            theirs_times.append(t)
            startup_times.append(
                timed([sys.executable, "-m", "ragdash", "score", "--help"], env, args.root)[0])
        worst = compare(json.loads(ours_out), json.loads(theirs_out), args.depth)
        best_ours, best_theirs = min(ours_times), min(theirs_times)
        print(f"ragdash score: best {best_ours:.3f} s   (runs: "
              f"{', '.join(f'{t:.3f}' for t in ours_times)})")
        print(f"pytrec_eval:   best {best_theirs:.3f} s   (runs: "
              f"{', '.join(f'{t:.3f}' for t in theirs_times)})")
        print(f"ratio ragdash / pytrec_eval: {best_ours / best_theirs:.2f}  (goal <= 0.50)")
        print(f"of which CLI start-up (python -m ragdash score --help: interpreter and the "
              f"imports score needs): {min(startup_times):.3f} s")
        print(f"largest difference between the means: {worst:.2e}")
        if worst > 1e-9:
            print("MISMATCH: the two disagree", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
