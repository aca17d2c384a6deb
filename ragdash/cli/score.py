"""``python -m ragdash score QRELS RUN``: score a TREC run file against qrels, like trec_eval.

Contract (scripts rely on it):

- QRELS: a TREC qrels file (``qid iter docno rel``) or a BEIR qrels .tsv
  (``query-id corpus-id score``, header optional); RUN: a TREC run file
  (``qid Q0 docno rank score tag``; the rank column is ignored, ties are broken by doc id).
- The queries present in both are evaluated (trec_eval's default); how many qrels queries the
  run lacks is reported (stderr with ``--format table``, ``"missing_queries"`` in JSON).
- JSON: ``{"queries": n, "metrics": {"recall@1": ..., ...}, ...,
  "per_query": {qid: {...}}}`` — every family at every K asked for; ``per_query`` only with
  ``--per-query``.
"""

from __future__ import annotations

import argparse

from ..errors import MetricError
from ..i18n import error, text
from ._judgments import (
    add_fill_option,
    add_judged_only_option,
    coverage_note,
    labels_json,
    labels_line,
    read_fill,
)
from ._output import (
    DEFAULT_K_TEXT,
    add_format_option,
    add_judging_options,
    add_k_option,
    emit,
    format_metrics,
    format_table,
    note,
    parse_ks,
    to_json,
)

DESCRIPTION = """\
Score a TREC run file against qrels with trec_eval's rules: Recall, Precision, Hit rate
(success), MRR, nDCG and MAP at every K asked for. Queries present in both files are scored;
qrels queries missing from the run are counted and reported. A query whose judged documents are
all grade 0 scores 0 and counts in the means (as in trec_eval)."""

EPILOG = """\
examples:
  python -m ragdash score qrels/test.tsv run.txt
  python -m ragdash score qrels.txt run.txt --k 1-100 --format json
  python -m ragdash score qrels.txt run.txt --k 10 --relevance-level 2 --per-query

JSON output: {"queries": n, "metrics": {"recall@1": ..., ..., "map@100": ...},
"missing_queries": m, ..., "per_query": {qid: {...}}}; per_query only with --per-query."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score", help="score a TREC run file against qrels (trec_eval's rules)",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS",
                   help="relevance judgements: a TREC qrels file (qid iter docno grade) or a "
                        "BEIR qrels .tsv (query-id, corpus-id, score)")
    p.add_argument("run", metavar="RUN",
                   help="the ranking to score: a TREC run file (qid Q0 docno rank score tag)")
    add_k_option(p, DEFAULT_K_TEXT)
    add_judging_options(p)
    add_judged_only_option(p)
    add_fill_option(p)
    p.add_argument("--per-query", action="store_true",
                   help="also report every metric for every query")
    add_format_option(p)
    p.set_defaults(func=run)


def _unjudged_run(ranking, qrels) -> list[str]:
    """A note when no document of the run is judged in the qrels (every metric is then 0:
    the files' document ids differ, "1" against "1.0"), as the app refuses such a file."""
    judged_docs = {str(d) for docs in qrels.values() for d in docs}
    vocab = getattr(ranking, "_doc_vocab", None)  # the run's distinct doc ids, when parsed
    if vocab is not None:
        words, codes = vocab
        distinct, first = words.tolist(), words[codes[:50]].tolist()
    else:
        distinct = first = [str(d) for d in ranking.doc_ids.tolist()]
    if not len(codes if vocab is not None else distinct) \
            or not judged_docs.isdisjoint(distinct):  # stops at the first judged document
        return []
    run_docs = list(dict.fromkeys(first[:50]))
    return [text("cli.note_no_judged_docs", run_ids=_examples(run_docs),
                 qrels_ids=_examples(sorted(judged_docs)))]


def run(args) -> int:
    ks = parse_ks(args.k)
    from ..metrics import evaluate, metric_names
    from ..ranking import Ranking

    qrels = _load_qrels(args.qrels)
    ranking = Ranking.read_trec(args.run)
    filled = read_fill(args.fill, qrels, queries=set(qrels) | set(ranking.query_ids))
    table = evaluate(ranking, qrels if filled is None else filled.qrels, kmax=max(ks),
                     queries=[q for q in ranking.query_ids if qrels.get(q)],
                     relevance_level=args.relevance_level, gain=args.gain,
                     judged_only=args.judged_only)
    if filled is not None:
        table.labels = filled.labels
    judged = [q for q, docs in qrels.items() if docs]  # trec_eval's qrels queries
    in_qrels = len(table)  # run ∩ qrels
    if in_qrels == 0:
        raise error(MetricError, "cli.score_no_common", n_run=len(ranking),
                    run_ids=_examples(ranking.query_ids), n_qrels=len(judged),
                    qrels_ids=_examples(judged))
    missing = len(judged) - in_qrels
    warnings = _unjudged_run(ranking, qrels)
    for said in warnings:
        note(said)
    names = metric_names(ks)
    summary = table.summary(ks)
    no_relevant = int(table.no_relevant.sum())

    if args.format == "json":
        out = {
            "queries": len(table),
            "metrics": summary,
            "missing_queries": missing,
            "run_only_queries": len(ranking) - in_qrels,
            "queries_without_relevant": no_relevant,
            "k": ks,
            "relevance_level": args.relevance_level,
            "gain": args.gain,
            **labels_json(filled, args.judged_only),
            "qrels": str(args.qrels),
            "run": str(args.run),
            "warnings": warnings,
        }
        if args.per_query:
            out["per_query"] = table.per_query(names)
        emit(to_json(out))
        return 0

    lines = [f"{args.run} against {args.qrels}: {len(table):,} queries scored"
             + (f", {no_relevant:,} of them without a relevant document (they score 0)"
                if no_relevant else ""),
             "", format_metrics(summary)]
    if labels_line(table):
        lines += ["", str(labels_line(table))]
    if args.per_query:
        lines += ["", format_table(["query", *names],
                                   [[q, *vals.values()] for q, vals
                                    in table.per_query(names).items()])]
    emit("\n".join(lines))
    coverage_note(table, str(args.run), ks)
    if missing:
        note(text("cli.note_not_in_run", n=missing, total=len(judged)))
    if len(ranking) > in_qrels:
        note(text("cli.note_no_qrels", n=len(ranking) - in_qrels))
    return 0


def _examples(ids, n: int = 3) -> str:
    return ", ".join(repr(i) for i in list(ids)[:n]) or "none"


def _load_qrels(path):
    """The vectorized reader for plain TREC / BEIR qrels; the loaders for anything else
    (other layouts, and every error message)."""
    from ..formats.qrels import read_qrels_fast

    qrels = read_qrels_fast(path)
    if qrels is not None:
        return qrels
    from ..loaders import load_qrels

    return load_qrels(path)
