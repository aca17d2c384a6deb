"""Benchmarks of ``ragdash generate`` (issue 26), not timed tests:

1. **Throughput**: a generation of ``--n`` documents from jsquad-valid (1,145 passages)
   through a chat-completions server on 127.0.0.1 that takes ``--latency`` seconds per reply
   (tests/fake_chat.py writing from the passage, tests/generate/world.py), at the default
   concurrency (4), from cold caches: writing, the answerability check and the pooled top 10,
   as ``python -m ragdash generate`` runs them, in this process. The rerun is timed too (every
   reply and grade from the caches: no request).
2. **Sampling**: time to draw ``--sample`` documents from ``--docs`` documents in 1,000 files
   across 20 folders.

    python bench/bench_generate.py [--n 50] [--latency 0.2] [--docs 1000000] [--sample 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "generate")]


def throughput(n: int, latency: float) -> dict:
    from fake_chat import FakeChat
    from world import Writer

    from ragdash.generate import GenerateJob, read_corpus
    from ragdash.services.chat import ChatClient

    corpus = read_corpus(ROOT / "tests" / "data" / "jsquad-valid" / "corpus.jsonl")
    out = {"n": n, "latency": latency, "corpus": len(corpus)}
    with tempfile.TemporaryDirectory() as home, FakeChat(answer=Writer({}),
                                                         latency=latency) as server:
        os.environ["RAGDASH_HOME"] = home
        client = ChatClient(server.url, "gpt-4o-mini")
        for label in ("cold", "rerun"):
            sent = len(server.requests)
            started = time.perf_counter()
            job = GenerateJob(corpus, endpoint=client.endpoint.base, model="gpt-4o-mini",
                              n=n, seed=1)
            result = job.run(client)
            seconds = time.perf_counter() - started
            out[label] = {"seconds": round(seconds, 2),
                          "requests": len(server.requests) - sent,
                          "written": result.written, "kept": result.kept,
                          "pooled_judged": result.pool.get("judged", 0),
                          "dropped": dict(result.reasons)}
        client.close()
    cold = out["cold"]
    cold["requests_per_minute"] = round(60 * cold["requests"] / cold["seconds"], 1)
    return out


def sampling(docs: int, n: int) -> dict:
    from ragdash.generate.sample import sample_documents

    sources = [f"folder{i % 20}/file{i % 1000}.md" for i in range(docs)]
    lengths = np.random.default_rng(0).integers(0, 5_000, docs)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        sample = sample_documents(sources, lengths, n, seed=1)
        best = min(best, time.perf_counter() - started)
    return {"docs": docs, "sources": 1000, "n": n, "seconds_best_of_3": round(best, 3),
            "most_from_one_file": max(sample.per_source.values())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--sample", type=int, default=1_000)
    args = parser.parse_args()
    report = {"throughput": throughput(args.n, args.latency),
              "sampling": sampling(args.docs, args.sample), "cpus": os.cpu_count(),
              "load": os.getloadavg()[0]}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
