"""A dense run at a million documents: time per stage and peak RSS, vectors memory-mapped.

    python bench/make_synthetic_beir.py /tmp/syn-1m --docs 1000000 --queries 1000
    python bench/bench_dense_scale.py /tmp/syn-1m --dim 384            # vectors from a file
    python bench/bench_dense_scale.py /tmp/syn-100k --dim 384 --build  # through the server

The embeddings server is tests/fake_openai.py in its own process on 127.0.0.1 (vectors drawn
from shake_256 of each text). Without ``--build`` the documents' vector file is written
first, directly (the same vectors the server would send, normalized, under the key the
retriever looks for: ``DenseRetriever.vector_file``), so the run measures what a user's
second run costs: open the file memory-mapped, embed the queries through the server, rank,
score. With ``--build`` the run embeds every document through the server and writes the
file itself.

Each measurement is a whole process (peak RSS from ``wait4``'s ``ru_maxrss``):

1. ``python -m ragdash evaluate FOLDER --retriever openai ...`` as a user runs it;
2. a driver that times each stage in one process (load, fingerprint, vectors = open the file
   + embed the queries, rank = ``top_k_cosine``, score = the metric table) and reads
   ``ru_maxrss`` after each; with ``--in-ram`` also the same ranking with the matrix read
   into RAM (``np.array`` of the file), for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = "fake-embed"
KEY = "sk-bench-not-a-real-key"

PREPARE = r'''
import sys, time, hashlib
import numpy as np
from ragdash.loaders import load_dataset
from ragdash.retrieval.dense import make_dense_retriever
folder, url, model, dim, home = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
t0 = time.perf_counter()
ds = load_dataset(folder)
r = make_dense_retriever("openai", model=model, base_url=url, api_key="x", cache_dir=home)
vf = r.vector_file(ds)
if vf.open(len(ds.documents)) is None:
    texts = ds.doc_texts()
    w = vf.writer(len(texts), dim)
    for lo in range(0, len(texts), 20000):
        block = np.empty((min(20000, len(texts) - lo), dim), dtype=np.float32)
        for i, t in enumerate(texts[lo:lo + 20000]):
            raw = np.frombuffer(hashlib.shake_256(t.encode("utf-8")).digest(4 * dim), dtype="<u4")
            block[i] = raw / 2**32 - 0.5    # FakeOpenAI.vector's direction (its scale drops out)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        w.append(block)
    w.commit()
print(f"vector file {vf.path} ({vf.path.stat().st_size / 2**30:.2f} GiB) in "
      f"{time.perf_counter() - t0:.1f} s")
'''

DRIVER = r'''
import json, resource, sys, time
import numpy as np
folder, url, model, home = sys.argv[1:5]
in_ram = sys.argv[5] == "1"
out = {}
def mark(stage, t0):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    out[stage] = {"seconds": round(time.perf_counter() - t0, 2), "peak_rss_gb": round(peak, 3)}
t0 = time.perf_counter()
from ragdash.loaders import load_dataset
from ragdash.retrieval.cosine import top_k_cosine
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.ranking import Ranking
from ragdash.run import Run
ds = load_dataset(folder); mark("load", t0)
t0 = time.perf_counter(); fp = ds.fingerprint(); mark("fingerprint", t0)
queries = ds.evaluated_queries()
r = make_dense_retriever("openai", model=model, base_url=url, api_key="sk-bench", cache_dir=home)
t0 = time.perf_counter()
docs, qvecs = r.vectors(ds, [q.text for q in queries])
mark("vectors (open file + embed queries)", t0)
if in_ram:
    t0 = time.perf_counter(); docs = np.array(docs); mark("read the file into RAM", t0)
t0 = time.perf_counter()
idx, sc = top_k_cosine(qvecs, docs, 100, doc_ids=ds.doc_ids); mark("rank (top_k_cosine, k=100)", t0)
t0 = time.perf_counter()
ranking = Ranking.from_topk([q.id for q in queries], ds.doc_ids, idx, sc, name=r.name)
run = Run(dataset=ds, ranking=ranking, query_ids=[q.id for q in queries], kmax=100,
          retriever=r.name, dataset_fingerprint=fp)
ndcg = run.table().mean("ndcg@10"); mark("score (metric table)", t0)
out["ndcg@10"] = ndcg
out["usage"] = r.usage
out["docs"] = len(ds.documents); out["dim"] = int(docs.shape[1]); out["dtype"] = str(docs.dtype)
print(json.dumps(out))
'''


def run_measured(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (GB) and stdout of one whole process."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=devnull, env=env, cwd=ROOT)
        chunks = []
        while True:
            data = proc.stdout.read(65536)
            if not data:
                break
            chunks.append(data)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:5]} failed (exit {os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_maxrss / 2**20, b"".join(chunks).decode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--build", action="store_true",
                    help="embed every document through the server (else write the file first)")
    ap.add_argument("--in-ram", action="store_true",
                    help="also rank with the matrix read into RAM, for comparison")
    ap.add_argument("--home", type=Path, default=Path("/tmp/bench-dense-home"))
    ap.add_argument("--port", type=int, default=18731,
                    help="the fake server's port: the vector file is keyed by its base URL, so "
                         "a fixed port lets the next run reuse it (default 18731)")
    args = ap.parse_args(argv)
    env = dict(os.environ, RAGDASH_HOME=str(args.home), PYTHONPATH=str(ROOT),
               OPENAI_API_KEY=KEY)
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_openai.py"),
                               "--dim", str(args.dim), "--port", str(args.port)],
                              stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True, cwd=ROOT,
                              env=env)
    try:
        url = server.stdout.readline().strip()
        if not args.build:
            subprocess.run([sys.executable, "-c", PREPARE, str(args.folder), url, MODEL,
                            str(args.dim), str(args.home)], env=env, check=True, cwd=ROOT)
        cli = [sys.executable, "-m", "ragdash", "evaluate", str(args.folder), "--retriever",
               "openai", "--model", MODEL, "--base-url", url, "--k", "10,100", "--format",
               "json"]
        wall, peak, out = run_measured(cli, env)
        result = json.loads(out)
        print(f"{args.folder}: load average {os.getloadavg()[0]:.2f}, dim {args.dim}, "
              f"{'built through the server' if args.build else 'vector file written first'}")
        print(f"  python -m ragdash evaluate --retriever openai: {wall:.2f} s, peak RSS "
              f"{peak:.2f} GB (usage {result.get('usage')})")
        modes = [False, True] if args.in_ram else [False]
        for in_ram in modes:
            wall, peak, out = run_measured([sys.executable, "-c", DRIVER, str(args.folder), url,
                                            MODEL, str(args.home), "1" if in_ram else "0"], env)
            stages = json.loads(out)
            print(f"  stages ({'matrix in RAM' if in_ram else 'memory-mapped'}), whole process "
                  f"{wall:.2f} s, peak RSS {peak:.2f} GB; {stages['docs']:,} x {stages['dim']} "
                  f"{stages['dtype']}")
            for name, v in stages.items():
                if isinstance(v, dict) and "seconds" in v:
                    print(f"    {name:<40} {v['seconds']:8.2f} s   peak RSS so far "
                          f"{v['peak_rss_gb']:.2f} GB")
    finally:
        server.stdin.close()
        server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
