"""A search service over HTTP at several concurrencies: queries per second against a service
that takes a fixed time to answer.

    python bench/bench_http_search.py [--latency 0.05] [--queries 200] [--concurrency 1,8]
                                      [--hits 10] [--repeat 3]

A real HTTP server on 127.0.0.1 (a ThreadingHTTPServer, keep-alive) answers every
Elasticsearch-shaped ``_search`` request after ``--latency`` seconds with ``--hits`` ids; the
``http`` retriever kind (:func:`ragdash.retrieval.own.http.http_retriever`: the request
template filled per query, JMESPath paths into the reply, the service layer's transport, the
mapping to the corpus, per-query latency) ranks ``--queries`` judged queries of a synthetic
dataset at each ``--concurrency``. Printed per concurrency: the wall time, queries per second,
the speed-up over the first, and the queries' p50 / p95 latency as measured by the run. Goal:
``--concurrency 8`` reaches at least 6x the queries per second of concurrency 1 at 50 ms.
The best of ``--repeat`` runs, with /proc/loadavg before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REQUEST = '{"query": {"match": {"text": "{query}"}}, "size": {k}}'


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _server(latency: float, hits: int, docs: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # as search servers do (else +40 ms: delayed ACKs)

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            text = body["query"]["match"]["text"]
            n = int(text.rsplit(" ", 1)[-1])
            time.sleep(latency)
            out = json.dumps({"hits": {"hits": [
                {"_id": f"d{(n * 7 + j) % docs}", "_score": float(hits - j)}
                for j in range(min(hits, int(body["size"])))]}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--concurrency", default="1,8")
    ap.add_argument("--hits", type=int, default=10)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ["RAGDASH_HOME"] = tempfile.mkdtemp(prefix="ragdash-bench-http-")

    from ragdash.dataset import Dataset, Document, Query
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval.own.http import http_retriever

    docs = [Document(f"d{i}", f"document {i}") for i in range(args.docs)]
    queries = [Query(f"q{i}", f"query number {i}") for i in range(args.queries)]
    qrels = {q.id: {f"d{(i * 7) % args.docs}": 1} for i, q in enumerate(queries)}
    dataset = Dataset(docs, queries, qrels, name="synthetic")
    server = _server(args.latency, args.hits, args.docs)
    url = f"http://127.0.0.1:{server.server_address[1]}/docs/_search"
    levels = [int(c) for c in args.concurrency.split(",")]
    print(f"load before: {_load()}  ({args.queries} queries, service latency "
          f"{1000 * args.latency:g} ms, {args.hits} hits each)")
    rows = []
    for conc in levels:
        best = None
        for _ in range(args.repeat):
            retriever = http_retriever(url, request=REQUEST, ids="hits.hits[*]._id",
                                       scores="hits.hits[*]._score", concurrency=conc,
                                       resume=False)
            t0 = time.perf_counter()
            run = run_evaluation(dataset, retriever, kmax=args.hits)
            wall = time.perf_counter() - t0
            assert retriever.usage["failed_queries"] == 0 and len(run.query_ids) == args.queries
            if best is None or wall < best[0]:
                best = (wall, run.resources["latency_probe"])
        wall, probe = best
        rows.append((conc, wall, args.queries / wall, probe["p50_ms"], probe["p95_ms"]))
    base = rows[0][2]
    print(f"{'concurrency':>11} {'wall s':>8} {'queries/s':>10} {'speed-up':>9} "
          f"{'p50 ms':>8} {'p95 ms':>8}")
    for conc, wall, qps, p50, p95 in rows:
        print(f"{conc:>11} {wall:>8.2f} {qps:>10.1f} {qps / base:>8.2f}x {p50:>8.1f} "
              f"{p95:>8.1f}")
    print(f"load after: {_load()}")
    server.shutdown()


if __name__ == "__main__":
    main()
