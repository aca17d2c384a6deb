"""Rerank request counts and time on tests/data/jsquad-valid through a fake rerank server.

    python bench/bench_rerank.py [--depth 50] [--protocol cohere] [--max-documents N]

BM25 first stage (kmax 100) on every judged query, then a rerank of the top --depth through
tests/fake_rerank.py (a real HTTP server on 127.0.0.1, in this process) with an empty score
cache, then the same rerank again (the rerun), then a deeper one. Prints queries, requests,
pairs scored, cached pairs and seconds for each pass, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--protocol", default="cohere")
    parser.add_argument("--max-documents", type=int, default=None,
                        help="the fake server's documents-per-request limit")
    args = parser.parse_args(argv)
    os.environ["RAGDASH_HOME"] = tempfile.mkdtemp(prefix="ragdash-bench-rerank-")

    from fake_rerank import FakeRerank

    from ragdash.loaders import load_dataset
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever
    from ragdash.retrieval.rerank import RerankCache, RerankClient, Reranker

    dataset = load_dataset(ROOT / "tests" / "data" / "jsquad-valid")
    first = run_evaluation(dataset, make_retriever("bm25"), kmax=100)
    rows = []
    with FakeRerank(args.protocol, max_documents=args.max_documents) as server:
        for label, depth in (("first", args.depth), ("rerun", args.depth),
                             ("deeper", args.depth * 2)):
            before = len(server.requests)
            client = RerankClient(server.url, "bench-reranker", protocol=args.protocol)
            reranker = Reranker(client, depth=depth, cache=RerankCache())
            t0 = time.perf_counter()
            out = reranker.rerank(first.ranking, dataset, query_ids=first.query_ids)
            seconds = time.perf_counter() - t0
            rows.append({"pass": label, "depth": depth, "queries": len(out.query_ids),
                         "http_requests": len(server.requests) - before,
                         **reranker.usage, "seconds": round(seconds, 3),
                         "notes": reranker.notes})
    print(json.dumps({"rows": rows, "load_average": os.getloadavg()}, indent=1,
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
