"""Embedding a real dataset through a server with 50 ms latency: calls and wall time.

    python bench/bench_embeddings.py [--data ../shared/data/jsquad-valid] [--latency 0.05]
        [--batch-size 256] [--concurrency 4] [--dim 8] [--encoding-format float]
        [--slice-queries 2 --slice-docs 20] [--json]

The fake OpenAI server of the tests (tests/fake_openai.py) runs in its own process, so client
and server do not share a GIL; every request sleeps ``--latency`` before answering. Measured:

1. ragdash: ``DenseRetriever.rank`` on every document and every query (a fresh cache), split
   into the embedding part and the ranking part; ``--repeat`` runs, the median reported.
   Goals: calls = ceil((N + Q) / batch) plus retries; wall time of the embedding part
   <= 1.2 x calls x latency / concurrency.
2. The same run again: everything comes from the cache, no call at all.
3. The article's approach — for every query, embed the query and then every document, one
   ``requests.post`` per text, no session (a new connection per call): Q x (N + 1) calls. It
   is timed on a slice (``--slice-queries`` queries x ``--slice-docs`` documents) and
   extrapolated to the whole dataset by the time per call.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragdash.loaders import load_dataset  # noqa: E402
from ragdash.retrieval.dense import make_dense_retriever  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "jsquad-valid"


class FakeServerProcess:
    """tests/fake_openai.py in a child process; ``stats()`` asks it for its counters."""

    def __init__(self, latency: float, dim: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "fake_openai.py"), "--latency", str(latency),
             "--dim", str(dim)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"the fake server did not start: {self.url!r}")

    def stats(self) -> dict:
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def article_style(url: str, texts_per_query: list[tuple[str, list[str]]]) -> tuple[int, float]:
    """The article's RAGEvaluator.retrieve_top_k: one POST per text, no session."""
    calls = 0
    start = time.perf_counter()
    for query, docs in texts_per_query:
        for text in [query, *docs]:
            r = requests.post(f"{url}/embeddings", json={"input": text, "model": "bench"},
                              headers={"Authorization": "Bearer bench"}, timeout=30)
            r.raise_for_status()
            r.json()["data"][0]["embedding"]
            calls += 1
    return calls, time.perf_counter() - start


def measure(server: FakeServerProcess, ds, home: str, args) -> dict:
    """One ragdash run on a fresh cache, then the same run again (all cached)."""
    def retriever():
        return make_dense_retriever(
            "openai", model="bench", base_url=server.url, api_key="bench", cache_dir=home,
            batch_size=args.batch_size, concurrency=args.concurrency,
            encoding_format=args.encoding_format)

    connections = server.stats()["connections"]
    r = retriever()
    marks: dict[str, float] = {}

    def progress(event: dict) -> None:
        if event["stage"] not in marks:
            marks[event["stage"]] = (time.perf_counter(), time.process_time())

    start, cpu = time.perf_counter(), time.process_time()
    r.rank(ds, ds.queries, 100, progress=progress)
    total = time.perf_counter() - start
    embed = marks["ranking"][0] - start
    out = {"calls": r.usage["requests"], "retries": r.usage["retries"],
           "texts": r.usage["embedded_texts"], "seconds": round(total, 3),
           "embed_seconds": round(embed, 3),
           "embed_cpu_seconds": round(marks["ranking"][1] - cpu, 3),
           "rank_seconds": round(total - embed, 3),
           "connections": server.stats()["connections"] - connections}
    again = retriever()
    start = time.perf_counter()
    again.rank(ds, ds.queries, 100)
    out["rerun"] = {"calls": again.usage["requests"],
                    "cached_texts": again.usage["cached_texts"],
                    "seconds": round(time.perf_counter() - start, 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--dim", type=int, default=8,
                        help="vector size; small keeps JSON out of the way of the latency")
    parser.add_argument("--encoding-format", choices=("float", "base64"), default="float")
    parser.add_argument("--slice-queries", type=int, default=2)
    parser.add_argument("--slice-docs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3,
                        help="ragdash runs, each on a fresh cache; the median is reported")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    ds = load_dataset(args.data)
    n_docs, n_queries = len(ds.documents), len(ds.queries)
    unique = len({d.embed_text for d in ds.documents}) + len({q.text for q in ds.queries})
    server = FakeServerProcess(args.latency, args.dim)
    try:
        runs = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as home:
                runs.append(measure(server, ds, home, args))
        runs.sort(key=lambda run: run["embed_seconds"])
        first = runs[len(runs) // 2]  # the median run
        second = runs[0]["rerun"]
        for run in runs:
            del run["rerun"]
        first["embed_seconds_all"] = [run["embed_seconds"] for run in runs]
        embed_wall = first["embed_seconds"]

        slice_ = [(q.text, [d.embed_text for d in ds.documents[: args.slice_docs]])
                  for q in ds.queries[: args.slice_queries]]
        before = server.stats()["connections"]
        calls, seconds = article_style(server.url, slice_)
        new_connections = server.stats()["connections"] - before
    finally:
        server.close()

    goal_calls = math.ceil((n_docs + n_queries) / args.batch_size)
    goal_wall = 1.2 * first["calls"] * args.latency / args.concurrency
    article_calls = n_queries * (n_docs + 1)
    per_call = seconds / calls
    article_seconds = article_calls * per_call
    out = {
        "dataset": {"documents": n_docs, "queries": n_queries, "unique_texts": unique},
        "settings": {"latency": args.latency, "batch_size": args.batch_size,
                     "concurrency": args.concurrency, "dim": args.dim,
                     "encoding_format": args.encoding_format},
        "ragdash": {**first, "goal_calls": goal_calls, "goal_embed_seconds": round(goal_wall, 3),
                    "calls_ok": first["calls"] - first["retries"] <= goal_calls,
                    "wall_ok": embed_wall <= goal_wall},
        "ragdash_cached_rerun": second,
        "article": {"slice_calls": calls, "slice_seconds": round(seconds, 3),
                    "seconds_per_call": round(per_call, 4),
                    "new_connections_in_slice": new_connections,
                    "calls": article_calls, "seconds_extrapolated": round(article_seconds),
                    "hours_extrapolated": round(article_seconds / 3600, 1)},
        "ratio": {"calls": round(article_calls / first["calls"]),
                  "wall": round(article_seconds / first["seconds"])},
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    rd = out["ragdash"]
    print(f"jsquad-valid: {n_docs:,} documents + {n_queries:,} queries ({unique:,} unique "
          f"texts); server latency {args.latency * 1000:.0f} ms, batch {args.batch_size}, "
          f"concurrency {args.concurrency}, {args.dim} dims, {args.encoding_format}")
    print(f"ragdash:  {rd['calls']} calls ({rd['retries']} retries; goal {goal_calls}) over "
          f"{rd['connections']} connections; embedding {rd['embed_seconds']:.3f} s (goal <= "
          f"{goal_wall:.3f} s; median of {', '.join(map(str, rd['embed_seconds_all']))}; "
          f"client CPU {rd['embed_cpu_seconds']:.3f} s), ranking {rd['rank_seconds']:.2f} s, "
          f"total {rd['seconds']:.2f} s")
    print(f"rerun:    {second['calls']} calls, {second['cached_texts']:,} texts from the cache, "
          f"{second['seconds']:.2f} s")
    print(f"article:  {calls} calls in {seconds:.2f} s on a {args.slice_queries} x "
          f"({args.slice_docs} + 1) slice ({per_call * 1000:.1f} ms per call, "
          f"{new_connections} new connections); {article_calls:,} calls for the dataset = "
          f"{article_seconds:,.0f} s ({article_seconds / 3600:.1f} h)")
    print(f"ratio:    {out['ratio']['calls']:,}x fewer calls, {out['ratio']['wall']:,}x less "
          f"wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
