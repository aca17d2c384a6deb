"""Benchmark: ``python -m ragdash score`` against pytrec_eval on the whole curve.

Workload: a random run of 10,000 queries x 100 documents, with graded qrels;
every metric family at every K = 1..100. Both sides are timed as whole processes (interpreter
start, imports, reading both files, scoring, printing the mean of every measure), side by
side in one run, alternating, best of N:

- ragdash:     python -m ragdash score QRELS RUN --k 1,2,...,100 --format json
- pytrec_eval: a fresh python that reads the same files with pytrec_eval.parse_qrel /
               parse_run and evaluates recall, P, success, ndcg_cut and map_cut at 1..100 plus
               recip_rank (pytrec_eval has no MRR@K; ragdash computes MRR@1..100 on top);
- trec_eval:   with ``--trec-eval PATH`` (trec_eval built from its C source), the same
               measures with ``-m``; left out when not given.

The means the sides print are compared (they must agree to 1e-9), so a fast wrong answer fails.

    python bench/bench_score.py [--queries 10000] [--depth 100] [--repeat 3] [--keep DIR]
                                [--trec-eval PATH] [--no-pytrec]

With ``--queries 100000 --depth 1000`` (a 1.5 GB run) the data is written vectorized with
fixed-width ids (``q000001``, ``d000001``); the 10,000 x 100 run keeps the generator the
figures in docs/benchmarks.md were measured on. Goal: ragdash at most 0.25x pytrec_eval and
0.35x trec_eval.
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


def make_big_data(folder: Path, queries: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    """The same kind of run and qrels as :func:`make_data`, written vectorized (fixed-width
    ids and scores, so each line is a row of a byte matrix): for 100,000 x 1,000."""
    rng = np.random.default_rng(seed)
    corpus = 1_000_000
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"

    def digits(values: np.ndarray, width: int) -> np.ndarray:
        out = np.empty((len(values), width), dtype=np.uint8)
        v = values.astype(np.int64).copy()
        for j in range(width - 1, -1, -1):
            out[:, j] = 48 + v % 10
            v //= 10
        return out

    def lines(*parts) -> bytes:
        return np.concatenate(parts, axis=1).tobytes()

    def text(s: str, n: int) -> np.ndarray:
        return np.frombuffer(s.encode(), dtype=np.uint8)[None, :].repeat(n, axis=0)

    # query q's document at rank r is (base[q] + stride[q] * r) mod corpus: stride odd and
    # not a multiple of 5, so prime to 10**6, and a query's documents are distinct
    stride = rng.integers(1, corpus // 10, size=queries) * 2 + 1
    stride[stride % 5 == 0] += 2
    base = rng.integers(0, corpus, size=queries)
    with run_path.open("wb") as f:
        for q0 in range(0, queries, 1000):
            qs = np.arange(q0, min(queries, q0 + 1000))
            qs = qs[qs % 100 != 1]  # 1% of qrels queries are not in the run
            n = len(qs) * depth
            docs = (base[qs, None] + stride[qs, None] * np.arange(depth)) % corpus
            scores = np.round(np.sort(rng.random((len(qs), depth)), axis=1)[:, ::-1] * 30, 3)
            milli = (scores * 1000).round().astype(np.int64).ravel()
            f.write(lines(text("q", n), digits(np.repeat(qs, depth), 6), text(" Q0 d", n),
                          digits(docs.ravel(), 6), text(" ", n),
                          digits(np.tile(np.arange(1, depth + 1), len(qs)), 4), text(" ", n),
                          digits(milli // 1000, 2), text(".", n), digits(milli % 1000, 3),
                          text(" bench\n", n)))
    with qrels_path.open("wb") as f:
        qs = np.arange(queries)
        qs = qs[qs % 100 != 2]  # 1% of run queries have no qrels
        # three retrieved documents (distinct ranks) and three never retrieved
        ranks = np.stack([rng.integers(0, depth // 3, size=len(qs)),
                          rng.integers(depth // 3, 2 * depth // 3, size=len(qs)),
                          rng.integers(2 * depth // 3, depth, size=len(qs)),
                          np.full(len(qs), depth), np.full(len(qs), depth + 1),
                          np.full(len(qs), depth + 2)], axis=1)
        judged = (base[qs, None] + stride[qs, None] * ranks) % corpus
        per = ranks.shape[1]
        grades = rng.integers(0, 4, size=(len(qs), per))
        n = len(qs) * per
        f.write(lines(text("q", n), digits(np.repeat(qs, per), 6), text(" 0 d", n),
                      digits(judged.ravel(), 6), text(" ", n), digits(grades.ravel(), 1),
                      text("\n", n)))
    return qrels_path, run_path


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, str, float]:
    """Wall seconds, stdout and peak RSS (GB) of one whole process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.exit(f"command failed ({code}): {' '.join(cmd[:4])} ...\n"
                     f"{err.read().decode()[-2000:]}")
        return seconds, out.read().decode(), usage.ru_maxrss / 2**20


def trec_eval_means(text: str) -> dict:
    """``{"queries": n, "metrics": {name: mean}}`` from trec_eval's ``name all value`` lines,
    named as pytrec_eval names them (``P_10``, ``ndcg_cut_10``)."""
    means, n = {}, 0
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            if parts[0] == "num_q":
                n = int(parts[2])
            else:
                means[parts[0]] = float(parts[2])
    return {"queries": n, "metrics": means}


def compare(ours: dict, theirs: dict, kmax: int, depth: int) -> float:
    """Largest difference between the two sets of means (must be ~0)."""
    worst = 0.0
    m_ours, m_theirs = ours["metrics"], theirs["metrics"]
    for fam, prefix in PYTREC_NAMES.items():
        for k in range(1, kmax + 1):
            worst = max(worst, abs(m_ours[f"{fam}@{k}"] - m_theirs[f"{prefix}{k}"]))
    # recip_rank has no cutoff: equal to MRR@K once K covers the whole run
    if kmax >= depth:
        worst = max(worst, abs(m_ours[f"mrr@{kmax}"] - m_theirs["recip_rank"]))
    if ours["queries"] != theirs["queries"]:
        sys.exit(f"query counts differ: ragdash {ours['queries']}, "
                 f"the other side {theirs['queries']}")
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3, help="runs per side; the best counts")
    ap.add_argument("--kmax", type=int, help="the deepest cutoff scored (default: --depth)")
    ap.add_argument("--keep", metavar="DIR", help="write the data here and keep it (a folder "
                                                  "that already holds it is reused)")
    ap.add_argument("--root", metavar="DIR", default=str(ROOT),
                    help="the checkout whose ragdash package runs (default: this one)")
    ap.add_argument("--trec-eval", metavar="PATH",
                    help="a trec_eval binary (built from usnistgov/trec_eval's C source)")
    ap.add_argument("--no-pytrec", action="store_true",
                    help="leave pytrec_eval out (its dicts take ~10x the run's size in memory)")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        qrels, run = folder / "qrels.txt", folder / "run.txt"
        if not (args.keep and qrels.exists() and run.exists()):
            big = args.queries * args.depth > 5_000_000
            qrels, run = (make_big_data if big else make_data)(folder, args.queries,
                                                               args.depth)
        script = folder / "pytrec_score.py"
        script.write_text(PYTREC_SCRIPT, encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=args.root + os.pathsep + os.environ.get("PYTHONPATH",
                                                                                 ""))
        kmax = args.kmax or args.depth
        ks = ",".join(str(k) for k in range(1, kmax + 1))
        sides = {"ragdash score": [sys.executable, "-m", "ragdash", "score", str(qrels),
                                   str(run), "--k", ks, "--format", "json"]}
        if not args.no_pytrec:
            sides["pytrec_eval"] = [sys.executable, str(script), str(qrels), str(run),
                                    str(kmax)]
        if args.trec_eval:
            cut = ",".join(str(k) for k in range(1, kmax + 1))
            sides["trec_eval (C)"] = [args.trec_eval, *[a for m in (
                f"recall.{cut}", f"P.{cut}", f"success.{cut}", f"ndcg_cut.{cut}",
                f"map_cut.{cut}", "recip_rank", "num_q") for a in ("-m", m)],
                str(qrels), str(run)]
        print(f"workload: {args.queries:,} queries x {args.depth} docs "
              f"({run.stat().st_size / 1e6:.1f} MB run, {qrels.stat().st_size / 1e6:.1f} MB "
              f"qrels), 6 families x K=1..{kmax}; load average "
              f"{os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M')}")
        times = {name: [] for name in sides}
        peaks = {name: [] for name in sides}
        outs = {}
        for _ in range(args.repeat):  # alternating: one run of each side per round
            for name, cmd in sides.items():
                t, outs[name], peak = timed(cmd, env, args.root)
                times[name].append(t)
                peaks[name].append(peak)
        ours = json.loads(outs["ragdash score"])
        # trec_eval prints 4 decimals: its means agree to half a unit of the last one
        tolerance = {"pytrec_eval": 1e-9, "trec_eval (C)": 5.0001e-5}
        differences = {}
        for name, out in outs.items():
            if name == "pytrec_eval":
                differences[name] = compare(ours, json.loads(out), kmax, args.depth)
            elif name == "trec_eval (C)":
                differences[name] = compare(ours, trec_eval_means(out), kmax, args.depth)
        best = {name: min(ts) for name, ts in times.items()}
        for name, ts in times.items():
            print(f"{name + ':':<15} best {best[name]:.3f} s, peak RSS {max(peaks[name]):.2f} GB"
                  f"   (runs: {', '.join(f'{t:.3f}' for t in ts)})")
        goals = {"pytrec_eval": 0.25, "trec_eval (C)": 0.35}
        for name, goal in goals.items():
            if name in best:
                print(f"ratio ragdash / {name}: {best['ragdash score'] / best[name]:.2f}  "
                      f"(goal <= {goal:.2f})")
        start = min(timed([sys.executable, "-m", "ragdash", "score", "--help"], env,
                          args.root)[0] for _ in range(args.repeat))
        print(f"of which start-up (python -m ragdash score --help): {start:.3f} s")
        for name, worst in differences.items():
            print(f"largest difference between the means, ragdash - {name}: {worst:.2e}")
            if worst > tolerance[name]:
                print(f"MISMATCH: ragdash and {name} disagree", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
