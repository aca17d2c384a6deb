"""``python -m ragdash rerank DATASET RUN --model M``: rerank the top N of a run and score it.

Contract (scripts rely on it):

- DATASET: anything :func:`ragdash.loaders.load_dataset` reads (the reranker needs the query
  and document texts); RUN: a TREC run file (``qid Q0 docno rank score tag``) or a ragdash run
  JSON export, made on that dataset.
- The top ``--depth`` (default 50) documents of each judged query are scored by the reranker;
  those below keep their first-stage order beneath them.
- JSON: ``{"queries": n, "metrics": {...}, "first_stage_metrics": {...}, "usage":
  {"requests", "pairs_scored", "cached_pairs", "search_units" | "tokens", "retries"},
  "cost": {"estimate": {...}, "actual": {...}}, "reranker": {...}, "depth": N, "notes": [...],
  ...}``.
- The API key comes from the environment (the provider's variable, e.g. ``COHERE_API_KEY``,
  or the one named by ``--api-key-env``), never from the command line, and is never printed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import RetrievalError
from ..i18n import dataset_error, error, text
from ._checks import report_warnings
from ._judgments import add_fill_option, labels_json, labels_line, read_fill
from ._output import (
    DEFAULT_K_TEXT,
    add_format_option,
    add_judging_options,
    add_k_option,
    emit,
    format_metrics,
    note,
    note_if_reused,
    parse_ks,
    to_json,
)
from ._params import RERANK_BY_KIND, add_params, rerank_setup

DESCRIPTION = """\
Rerank the top documents of a first-stage run (a TREC run file from any engine, or a ragdash
run JSON) with a cross-encoder, then score the result with trec_eval's rules beside the
first stage. --reranker http (the default) speaks Cohere (/v2/rerank, billed in search units),
Jina and Voyage (/v1/rerank, tokens), text-embeddings-inference (/rerank) and vLLM
(/v1/rerank); --reranker local runs a sentence-transformers CrossEncoder from a folder or an
installed package, offline. Each query's documents go in one request while the server allows
(at most 1,000 per request by default). Scores are cached under $RAGDASH_HOME (default
./.ragdash): a rerun makes no request, a deeper --depth pays only for the new pairs."""

EPILOG = """\
examples:
  COHERE_API_KEY=... python -m ragdash rerank data/jsquad-valid bm25.run --model rerank-v3.5 \\
      --base-url https://api.cohere.com --depth 50 --save-run reranked.run
  python -m ragdash rerank data/jsquad-valid bm25.run --model BAAI/bge-reranker-v2-m3 \\
      --base-url http://localhost:8080          (TEI on this machine: no key needed)
  python -m ragdash rerank data/jsquad-valid bm25.run --model rerank-v3.5 \\
      --base-url https://api.cohere.com --estimate          (the cost, no request)
  python -m ragdash rerank data/jsquad-valid bm25.run --reranker local --model ./my-cross-encoder

the API key: read from the provider's variable (COHERE_API_KEY, JINA_API_KEY, VOYAGE_API_KEY)
or the one named by --api-key-env; never a command-line value. Servers on this machine
(localhost, 127.0.0.1, ::1) may run without one.

JSON output: {"queries": n, "metrics": {...}, "first_stage_metrics": {...}, "usage":
{"requests", "pairs_scored", "cached_pairs", "search_units" or "tokens", "retries"},
"cost": {"estimate", "actual"}, "reranker": {...}, "depth": N, "notes": [...], ...}"""

def register(subparsers) -> None:
    from .. import params as P

    p = subparsers.add_parser(
        "rerank", help="rerank the top N of a run with a cross-encoder and score it",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET",
                   help="the dataset the run was made on (queries and document texts)")
    p.add_argument("run", metavar="RUN",
                   help="the first-stage ranking: a TREC run file or a ragdash run JSON")
    add_params(p, [P.RERANK_KIND], keep_default=("kind",))
    add_params(p, [P.RERANK_HTTP["model"], P.RERANK_HTTP["depth"]], by_kind=RERANK_BY_KIND)
    add_k_option(p, DEFAULT_K_TEXT)
    p.add_argument("--split", default="test", metavar="NAME",
                   help="BEIR qrels split: qrels/NAME.tsv (default test)")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N",
                   help="rerank only the first N queries that have qrels (file order)")
    p.add_argument("--save-run", default=None, metavar="FILE",
                   help="also write the reranked ranking to FILE as a TREC run")
    p.add_argument("--store", action="store_true",
                   help="also save the reranked run in the run store ($RAGDASH_HOME) as a "
                        "pipeline run (the first stage's stages and the rerank, usage and cost "
                        "per stage), and print its id and the app's Results?run=<id> path")
    p.add_argument("--name", default=None, metavar="TEXT",
                   help="the stored run's name (with --store; default: the stages in words)")
    p.add_argument("--estimate", action="store_true",
                   help="only show what the rerank would cost (pairs not in the cache, "
                        "requests, search units or tokens, USD and JPY); no request is made")
    add_judging_options(p)
    add_fill_option(p)
    add_format_option(p)
    add_params(p.add_argument_group("rerank API options (--reranker http)"),
               [q for q in P.RERANK_HTTP if q.name not in ("model", "depth")])
    p.set_defaults(func=run)


def run(args) -> int:
    ks = parse_ks(args.k)
    if args.limit_queries is not None and args.limit_queries < 1:
        raise error(RetrievalError, "cli.limit_queries", value=args.limit_queries)
    from ..retrieval.rerank.stage import actual_cost, estimate_cost
    from ..setup import Stages, build_reranker, environment_keys

    if args.name is not None and not args.store:
        raise error(RetrievalError, "cli.name_needs_store")
    rerank = rerank_setup(args)
    depth = rerank["depth"]
    built = Stages(first=[])
    reranker = build_reranker(rerank, keys=environment_keys(), into=built)
    scorer = reranker.scorer
    store = None
    if args.store and not args.estimate:
        from ..runs import get_store

        store = get_store()  # before paying for anything
    for warning in getattr(scorer, "warnings", ()):
        note(text("cli.warning", warning=warning))  # e.g. a key over plain http to another machine

    from ..loaders import load_dataset
    from ..metrics import metric_names

    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)  # stderr now; JSON "warnings"
    filled = read_fill(args.fill, dataset.qrels, queries=dataset.query_ids,
                       docs=dataset.doc_ids)  # before paying: a bad file stops here
    first = _first_stage(args, dataset, ks, store)
    query_ids = first.query_ids
    plan = reranker.plan(first.ranking, dataset, query_ids)
    estimate = estimate_cost(plan, scorer)
    if args.estimate:
        if args.format == "json":
            emit(to_json({"queries": len(query_ids), "depth": depth, "estimate": estimate,
                          "warnings": warnings}))
        else:
            emit(_estimate_line(estimate, depth, len(query_ids)))
        return 0
    ranking_out, saved = _rerank(args, first, reranker, plan, estimate, store, rerank,
                                 built.secrets)
    usage = reranker.usage
    result = first.derive(ranking_out, transform=reranker.transform(),
                          retriever=f"{first.retriever} → {scorer.label}@{depth}",
                          usage=usage, source="rerank", seconds=reranker.seconds,
                          cost={"estimate": estimate, "actual": actual_cost(usage, scorer)})
    run_id = saved.id if saved is not None else None
    if args.save_run:
        try:
            ranking_out.write_trec(args.save_run, tag=f"rerank_{depth}")
        except OSError as exc:
            raise error(RetrievalError, "cli.cannot_write_run", path=args.save_run,
                        reason=exc.strerror or exc) from exc
    names = metric_names(ks)
    after = result.table(filled).summary(ks)
    before = first.table(filled).summary(ks)
    if args.format == "json":
        emit(to_json({
            "queries": len(query_ids),
            "metrics": {n: after[n] for n in names},
            "first_stage_metrics": {n: before[n] for n in names},
            "usage": usage,
            "cost": result.cost,
            "reranker": reranker.config(),
            "depth": depth,
            "seconds": round(reranker.seconds or 0.0, 3),
            "k": ks,
            "notes": reranker.notes,
            "run_file": args.save_run,
            "run_id": run_id,
            "dataset": result.dataset_info(),
            **labels_json(filled, False),
            "warnings": warnings,
        }))
        return 0
    lines = [f"{args.run} reranked by {scorer.label} (top {depth}) on {dataset.name}: "
             f"{len(query_ids):,} queries", "", "reranked:", format_metrics(after), "",
             "first stage:", format_metrics(before), "",
             *([str(labels_line(result.table(filled))), ""] if filled is not None else []),
             f"requests: {usage['requests']:,}, pairs scored: {usage['pairs_scored']:,}, "
             f"from cache: {usage['cached_pairs']:,}"
             + "".join(f", {k.replace('_', ' ')}: {usage[k]:,}" for k in ("search_units",
                                                                          "tokens")
                       if k in usage)]
    actual = result.cost["actual"]
    if actual.get("usd") is not None and scorer.billing:
        lines.append(f"cost: ${actual['usd']:.4f} (¥{actual['jpy']:.2f}) at the catalog price "
                     f"of {actual['as_of']}")
    if run_id:
        from .evaluate import results_path

        lines.append(f"stored as run {run_id} ({saved.name}): open {results_path(run_id)} in "
                     f"the app")
    emit("\n".join(lines))
    for said in reranker.notes:
        note(text("cli.note", note=said))
    if args.save_run:
        note(text("cli.run_written", path=args.save_run))
    return 0


def _first_stage(args, dataset, ks, store):
    """The run to rerank, on the dataset's judged queries it answers."""
    from ..run import Run

    ranking, meta = _read_run(args.run)
    judged = [q.id for q in dataset.evaluated_queries(args.limit_queries)]
    query_ids = [q for q in judged if q in ranking]
    if not query_ids:
        raise dataset_error("cli.rerank_no_common", file=args.run, n=len(ranking),
                            run_ids=ranking.query_ids[:1], judged=judged[:1])
    first_id = meta.get("id")
    if store is not None and not (first_id and store.exists(first_id)):
        first_id = None  # a parent is a run of this store
    return Run(dataset, ranking.subset(query_ids), query_ids,
               kmax=max(max(ks), ranking.kmax), retriever=meta.get("retriever") or "trec",
               # an unnamed ragdash run is called by what made it ("BM25"); a file by its stem
               name=meta.get("name") or ("" if meta.get("config") else Path(args.run).stem),
               config=meta.get("config") or {},
               id=first_id, usage=meta.get("usage") or {}, cost=meta.get("cost"),
               relevance_level=args.relevance_level, gain=args.gain, source="trec")


def _rerank(args, first, reranker, plan, estimate, store, rerank: dict, secrets: list[str]):
    """(reranked ranking, the saved pipeline run or None). With ``--store`` the rerank is a
    pipeline run (:func:`ragdash.pipeline.rerank_pipeline`): the first stage's stages and the
    rerank, usage and cost per stage; when the first stage recorded its setup (a ragdash run
    JSON made from one), the pipeline records it with the rerank added."""
    if store is None:
        return reranker.rerank(first.ranking, first.dataset, query_ids=first.query_ids,
                               plan=plan), None
    from ..pipeline import rerank_pipeline

    saved = rerank_pipeline(first, reranker, estimate=estimate,
                            name=(args.name or "").strip() or None)
    recorded = (first.config or {}).get("setup")
    if recorded:
        from dataclasses import replace

        from ..setup import setup_from_config, setup_record

        setup = replace(setup_from_config(first.config), rerank=rerank, name=None)
        saved.config = {**saved.config, "setup": setup_record(setup)}
    store.save(saved, secrets=secrets)
    note_if_reused(saved)
    return saved.ranking, saved


def _estimate_line(est: dict, depth: int, queries: int) -> str:
    units = (f"{est['search_units']:,} search units" if "search_units" in est else
             f"{est['tokens']:,} tokens ({est.get('token_method', '')})" if "tokens" in est
             else "no billed units")
    money = (f"${est['usd']:.4f} (¥{est['jpy']:.2f})" if est.get("usd") is not None
             else "not in the price catalog")
    return (f"rerank top {depth} of {queries:,} queries: {est['pairs']:,} pairs, "
            f"{est['cached_pairs']:,} in the cache, {est['due_pairs']:,} to score in "
            f"{est['requests']:,} requests; {units}; {money}")


def _read_run(path: str):
    """(Ranking, metadata) from a TREC run file or a ragdash run JSON export."""
    from ..ranking import Ranking

    p = Path(path)
    try:
        head = p.open("rb").read(1)
    except OSError as exc:
        raise dataset_error("cli.cannot_read_run", file=path, reason=exc.strerror) from exc
    if head != b"{":
        return Ranking.read_trec(p), {}
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
        ranking = Ranking.from_json_obj(obj["ranking"])
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise dataset_error("cli.not_run_export", file=path) from exc
    meta = {k: obj.get(k) for k in ("retriever", "name", "config", "id", "usage", "cost")}
    return ranking, meta


__all__ = ["register", "run"]
