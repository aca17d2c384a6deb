"""Benchmark: the regression gate's false-fail rate under noise and its power at the drop it
says it detects, by simulation on jsquad-valid (issue 23's measures; figures in
docs/benchmarks.md).

Two real systems, BM25 with default parameters (k1 1.5, b 0.75) and with k1 0.9, b 0.4, are
scored on every jsquad-valid query (nDCG@10 per query). One repetition (seeded):

- draws ``--queries`` queries at random (a CI-sized query set);
- **noise only**: on each query a coin decides which system is the baseline and which the
  candidate — the two sides then differ by realistic per-query noise, and by nothing on
  average — and the gate (default rule, margin, alpha; the repetition's seed) decides. A
  "fail" here is a false fail;
- **injected drop**: the gate's own reported detectable drop ``D`` (margin + resolution) for that
  noise-only pair is subtracted from the candidate's per-query values, and the gate decides
  again. The share of fails is the power at ``D``; the gate promises about 80%.

    python bench/bench_gate.py [--reps 200] [--queries 300] [--margin 0.01]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
JSQUAD = ROOT / "tests" / "data" / "jsquad-valid"


def per_query_ndcg(dataset: Path, flags: list[str]) -> dict[str, float]:
    from ragdash.cli import main
    from ragdash.loaders import load_qrels
    from ragdash.metrics import evaluate
    from ragdash.ranking import Ranking

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.trec"
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["evaluate", str(dataset), "--kmax", "10", "--k", "1,5,10",
                         "--save-run", str(path), "--format", "json", *flags])
        if code != 0:
            raise SystemExit(f"evaluate failed with {code}")
        ranking = Ranking.read_trec(path)
    qrels = load_qrels(dataset / "qrels" / "test.tsv")
    queries = [q for q in ranking.query_ids if q in qrels]
    table = evaluate(ranking, qrels, kmax=10, queries=queries)
    return dict(zip(queries, map(float, table.value("ndcg@10"))))


def main(argv: list[str] | None = None) -> int:
    from ragdash.stats.gate import decide

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", type=Path, default=JSQUAD)
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--margin", type=float, default=0.01)
    p.add_argument("--alpha", type=float, default=0.05)
    args = p.parse_args(argv)

    started = time.perf_counter()
    a = per_query_ndcg(args.dataset, [])
    b = per_query_ndcg(args.dataset, ["--k1", "0.9", "--b", "0.4"])
    shared = sorted(set(a) & set(b))
    va = np.array([a[q] for q in shared])
    vb = np.array([b[q] for q in shared])
    print(f"{len(shared)} queries; nDCG@10 {va.mean():.4f} and {vb.mean():.4f}; "
          f"the two systems differ on {int((va != vb).sum())} queries "
          f"({time.perf_counter() - started:.1f} s to score)", file=sys.stderr)

    false_fails = power_fails = unknown = 0
    detectable = []
    gate_seconds = 0.0
    for rep in range(args.reps):
        rng = np.random.default_rng(rep)
        pick = rng.choice(len(shared), size=min(args.queries, len(shared)), replace=False)
        coin = rng.random(pick.size) < 0.5
        base = np.where(coin, va[pick], vb[pick])
        cand = np.where(coin, vb[pick], va[pick])
        qids = [shared[i] for i in pick]
        t0 = time.perf_counter()
        noise = decide({"ndcg@10": base}, {"ndcg@10": cand}, query_ids=qids,
                       margin=args.margin, alpha=args.alpha, seed=rep)
        false_fails += not noise.passed
        drop = noise.metrics[0].detectable
        if drop is None:
            unknown += 1
            continue
        detectable.append(drop)
        dropped = decide({"ndcg@10": base}, {"ndcg@10": cand - drop}, query_ids=qids,
                         margin=args.margin, alpha=args.alpha, seed=rep)
        power_fails += not dropped.passed
        gate_seconds += time.perf_counter() - t0
    measured = args.reps - unknown
    print("| queries per set | repetitions | margin | false-fail rate (noise only) | "
          "detectable drop reported (median, range) | power at that drop | gate time |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {args.queries} | {args.reps} | {args.margin:g} | "
          f"{false_fails}/{args.reps} = {false_fails / args.reps:.1%} | "
          f"{np.median(detectable):.4f} ({min(detectable):.4f}–{max(detectable):.4f}) | "
          f"{power_fails}/{measured} = {power_fails / max(measured, 1):.1%} | "
          f"{1000 * gate_seconds / max(2 * measured, 1):.0f} ms a decision |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
