"""BM25 at scale: ``python -m ragdash evaluate`` against a plain bm25s + pytrec_eval script.

    python bench/make_synthetic_beir.py /tmp/syn-100k --docs 100000 --queries 1000
    python bench/bench_bm25_scale.py /tmp/syn-100k [--repeat 1]

Both run as whole processes on the same folder, one after the other, in this one run (so the
ratio compares like with like on a busy machine): wall time and peak RSS (``wait4``'s
``ru_maxrss``) of each. The plain script is what a user would write: read the JSONL with
``json``, ``bm25s.tokenize`` (its default English tokenizer, no stemmer), ``BM25().index``,
``retrieve(k=100)``, then pytrec_eval for nDCG@10 and Recall@100.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLAIN = r'''
import json, sys, bm25s, pytrec_eval
folder = sys.argv[1]
docs, ids = [], []
with open(f"{folder}/corpus.jsonl", encoding="utf-8") as f:
    for line in f:
        d = json.loads(line)
        ids.append(d["_id"])
        docs.append((d.get("title", "") + " " + d["text"]).strip())
queries = {}
with open(f"{folder}/queries.jsonl", encoding="utf-8") as f:
    for line in f:
        q = json.loads(line); queries[q["_id"]] = q["text"]
qrels = {}
with open(f"{folder}/qrels/test.tsv", encoding="utf-8") as f:
    next(f)
    for line in f:
        q, d, s = line.split("\t"); qrels.setdefault(q, {})[d] = int(s)
qids = [q for q in queries if q in qrels]
model = bm25s.BM25()
model.index(bm25s.tokenize(docs, show_progress=False), show_progress=False)
q_tokens = bm25s.tokenize([queries[q] for q in qids], show_progress=False)
res, scores = model.retrieve(q_tokens, k=100, show_progress=False)
run = {q: {ids[int(i)]: float(s) for i, s in zip(res[n], scores[n])}
       for n, q in enumerate(qids)}
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})
out = ev.evaluate(run)
print(sum(v["ndcg_cut_10"] for v in out.values()) / len(out))
'''


def measure(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in GB, stdout of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed: {err[-2000:]}")
    return wall, usage.ru_maxrss / 2**20, out.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    env = dict(os.environ, RAGDASH_HOME=str(Path("/tmp") / "bench-bm25-home"))
    ours = [sys.executable, "-m", "ragdash", "evaluate", str(args.folder), "--k", "10,100",
            "--format", "json"]
    plain = [sys.executable, "-c", PLAIN, str(args.folder)]
    rows = []
    for _ in range(args.repeat):
        rows.append(("ragdash evaluate (bm25)", *measure(ours, env)))
        rows.append(("plain bm25s + pytrec_eval", *measure(plain, env)))
    load = os.getloadavg()[0]
    print(f"{args.folder}: load average {load:.2f}")
    for name, wall, rss, _ in rows:
        print(f"  {name:<28} {wall:8.2f} s   peak RSS {rss:5.2f} GB")
    best = {name: min(w for n, w, _, _ in rows if n == name) for name, *_ in rows}
    ratio = best["ragdash evaluate (bm25)"] / best["plain bm25s + pytrec_eval"]
    print(f"  ratio (best of {args.repeat}): {ratio:.2f}x the plain script")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
