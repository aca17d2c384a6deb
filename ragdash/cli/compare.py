"""``python -m ragdash compare QRELS RUN_A RUN_B [RUN_C ...] --metric ndcg@10``

Scores every run against the qrels on one metric and compares all pairs: means with bootstrap
intervals, paired t-test, Wilcoxon, randomization test, Holm correction over all pairs, wins /
ties / losses and a verdict sentence per pair.

Which queries: those in the qrels and in every run (trec_eval's default, extended to several
runs), so no run is scored on a query it never answered. Queries left out are reported per
source. ``--missing-as-zero`` instead scores every qrels query, counting a query absent from a
run as a complete miss (trec_eval's ``-c``).

A run is a TREC run file (``qid Q0 docno rank score tag``, from any engine) or a ragdash run
JSON (``Ranking.to_json_obj``, or a saved run exported by the app, whose ``ranking`` holds it).
Runs are named by their file stems (``bm25.trec`` -> ``bm25``), with the folder added when two
files share a stem.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import StatsError
from ..i18n import LANGUAGES, dataset_error, error, text
from ..ranking import Ranking
from ..runs.exchange import read_run_file as read_run
from ..stats import (
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    Alignment,
    Comparison,
    align_queries,
)
from ..stats.compare import TESTS, compare_runs
from ..stats.verdict import format_count, format_p, format_range, format_signed, format_value
from ._judgments import add_fill_option, add_judged_only_option, labels_line, read_fill
from ._output import add_format_option, emit, format_table, to_json

#: how many query ids to list per source in the table's mismatch report
_SHOW_IDS = 5


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare",
        help="compare two or more runs on one metric, with significance tests",
        description="Compare runs on the same queries: mean with a bootstrap confidence "
                    "interval per run; for every pair the difference with its interval, a "
                    "paired t-test, Wilcoxon signed-rank and randomization test, Holm "
                    "correction over all pairs, per-query wins/ties/losses and a verdict.",
    )
    p.add_argument("qrels", metavar="QRELS",
                   help="relevance judgments: TREC qrels (qid iter docno rel) or BEIR .tsv")
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="two or more runs: TREC run files or ragdash run JSON")
    p.add_argument("--metric", default="ndcg@10",
                   help="metric to compare, e.g. ndcg@10, recall@5, mrr@10 (default ndcg@10)")
    add_format_option(p)
    p.add_argument("--seed", type=int, default=0,
                   help="random seed for resampling and permutations (default 0)")
    p.add_argument("--relevance-level", type=float, default=None, metavar="L",
                   help="binary metrics count grade >= L as relevant (default: grade > 0)")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, metavar="N",
                   help=f"bootstrap resamples, at least 1000 (default {DEFAULT_RESAMPLES})")
    p.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS, metavar="N",
                   help=f"randomization test sign flips (default {DEFAULT_PERMUTATIONS})")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level after Holm correction (default 0.05)")
    p.add_argument("--test", choices=TESTS, default="randomization",
                   help="the test whose p-values are Holm-corrected and decide the verdicts "
                        "(default randomization)")
    p.add_argument("--missing-as-zero", action="store_true",
                   help="score every qrels query; a query absent from a run scores 0 "
                        "(trec_eval -c) instead of being left out")
    add_judged_only_option(p)
    add_fill_option(p)
    p.add_argument("--lang", choices=LANGUAGES, default="en",
                   help="language of the table's labels and the verdict sentences "
                        "(default en)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    comparison = compare_files(
        args.qrels, args.runs, metric=args.metric, seed=args.seed,
        relevance_level=args.relevance_level, n_resamples=args.resamples,
        n_permutations=args.permutations, alpha=args.alpha, test=args.test,
        missing_as_zero=args.missing_as_zero, fill=args.fill, judged_only=args.judged_only)
    if args.format == "json":
        emit(to_json(comparison.to_json_obj()))
    else:
        emit(format_report(comparison, lang=args.lang))
    return 0


def compare_files(qrels_path: str, run_paths: list[str], *, metric: str, seed: int = 0,
                  relevance_level: float | None = None,
                  n_resamples: int = DEFAULT_RESAMPLES,
                  n_permutations: int = DEFAULT_PERMUTATIONS, alpha: float = 0.05,
                  test: str = "randomization", missing_as_zero: bool = False,
                  fill: list[str] = (), judged_only: bool = False) -> Comparison:
    """Load the qrels and runs, evaluate ``metric`` per query and compare every pair.

    ``fill``: judgment files whose labels fill the pairs the qrels leave unjudged;
    ``judged_only``: condensed lists. Each run's Judged@K (K of ``metric``) goes with it."""
    from ..gate import cap_metric, check_draws, check_seed
    from ..judgments.coverage import coverage_k_of
    from ..loaders import load_qrels
    from ..metrics import COVERAGE, evaluate, parse_metric

    if len(run_paths) < 2:
        raise error(StatsError, "cli.compare_two")
    if n_resamples < 1000:
        raise error(StatsError, "cli.resamples", n_resamples=n_resamples)
    if n_permutations < 1:
        raise error(StatsError, "cli.permutations", n_permutations=n_permutations)
    check_seed(seed)
    check_draws(n_resamples, n_permutations)
    _, k = parse_metric(metric)
    qrels = load_qrels(qrels_path)
    names = run_names(run_paths)
    rankings = {name: read_run(path, name=name) for name, path in zip(names, run_paths)}
    qrels_ids = [str(q) for q in qrels]
    if not qrels_ids:
        raise dataset_error("cli.qrels_no_query", file=str(qrels_path))

    notes = []
    if missing_as_zero:
        # Every judged query counts; only unjudged run queries are left out.
        unjudged = set().union(*(r.query_ids for r in rankings.values())) - set(qrels_ids)
        alignment = Alignment(qrels_ids, {"qrels": sorted(unjudged)})
        for name, r in rankings.items():
            absent = len(set(qrels_ids) - set(r.query_ids))
            if absent:
                notes.append(text("cli.cmp_no_results", name=name, absent=absent,
                                  total=len(qrels_ids)))
    else:
        alignment = align_queries({"qrels": qrels_ids,
                                   **{name: r.query_ids for name, r in rankings.items()}})
    common = alignment.common
    if not common:
        raise error(StatsError, "cli.cmp_no_common", samples=_no_common_samples(qrels_ids,
                                                                             rankings))
    depth = max(max(r.kmax for r in rankings.values()), 1)
    metric, capped = cap_metric(metric, depth, clause=True)  # ndcg@100000: ndcg@100
    notes += capped
    _, k = parse_metric(metric)
    kmax = k if k is not None else depth
    filled = read_fill(list(fill), qrels,
                       queries=set(qrels_ids).union(*(r.query_ids for r in rankings.values())))
    scored = qrels if filled is None else filled.qrels
    cov_k = coverage_k_of(metric, kmax)
    per_query, coverage = {}, {}
    for name, ranking in rankings.items():
        table = evaluate(ranking, scored, kmax=kmax, queries=common,
                         relevance_level=relevance_level, judged_only=judged_only)
        per_query[name] = table.value(metric)
        coverage[name] = float(table.value(f"{COVERAGE}@{cov_k}").mean())
    return compare_runs(per_query, metric_name=metric, query_ids=common, seed=seed,
                        n_resamples=n_resamples, n_permutations=n_permutations, alpha=alpha,
                        test=test, alignment=alignment, notes=notes, coverage=coverage,
                        coverage_k=cov_k,
                        labels=("qrels",) if filled is None else filled.labels,
                        judged_only=judged_only)


def run_names(paths: list[str]) -> list[str]:
    """File stems; when stems repeat, the parent folder is prefixed, then a counter."""
    stems = [Path(p).stem or Path(p).name for p in paths]
    names = [s if stems.count(s) == 1 else f"{Path(p).parent.name}/{s}".lstrip("/")
             for s, p in zip(stems, paths)]
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if names.count(name) == 1 else f"{name}#{seen[name]}")
    return out


def _no_common_samples(qrels_ids: list[str], rankings: dict[str, Ranking]) -> str:
    parts = [f"qrels: {_sample(qrels_ids)}"]
    parts += [f"{name}: {_sample(r.query_ids)}" for name, r in rankings.items()]
    return "; ".join(parts)


def _sample(ids: list[str]) -> str:
    shown = ", ".join(ids[:3])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > 3 else "") if ids else "none"


#: each paired test's name (message keys)
_TEST_KEYS = {"randomization": "cli.cmp.test_randomization", "ttest": "cli.cmp.test_ttest",
              "wilcoxon": "cli.cmp.test_wilcoxon"}


# -- table output --------------------------------------------------------------------
def format_report(cmp: Comparison, *, lang: str = "en") -> str:
    """The human-readable report: runs, pairs, verdicts, and what was left out, its labels
    in ``lang`` (``--lang ja``: the table too, not only the verdicts)."""
    from ..i18n import message, t

    def say(key: str, **fmt: object) -> str:
        return t(key, lang, **fmt)

    conf = f"{cmp.confidence * 100:g}%"
    n_pairs = len(cmp.pairs)
    test = say(_TEST_KEYS[cmp.test])
    out = [say("cli.cmp.header", metric=cmp.metric_label, queries=format_count(cmp.n_queries),
               conf=conf, resamples=f"{cmp.n_resamples:,}", test=test, n=n_pairs), ""]
    judged = f"Judged@{cmp.coverage_k}" if cmp.coverage_k is not None else None
    out.append(format_table(
        [say("cli.cmp.run"), say("cli.cmp.mean"), say("cli.cmp.ci", conf=conf),
         *([judged] if judged else [])],
        [[r.name, format_value(r.mean), format_range(r.ci_low, r.ci_high),
          *([format_value(cmp.coverage.get(r.name, float("nan")))] if judged else [])]
         for r in cmp.runs]))
    said = labels_line(cmp)
    if said:
        out += ["", message(said, lang)]
    out.append("")
    out.append(format_table(
        [say("cli.cmp.pair"), say("cli.cmp.mean_a"), say("cli.cmp.mean_b"), "B − A",
         say("cli.cmp.ci", conf=conf), say("cli.cmp.p_ttest"), say("cli.cmp.p_wilcoxon"),
         say("cli.cmp.p_random"), say("cli.cmp.p_holm"), say("cli.cmp.wtl")],
        [[say("cli.cmp.pair_value", a=p.a, b=p.b), format_value(p.mean_a),
          format_value(p.mean_b),
          format_signed(p.diff), format_range(p.ci_low, p.ci_high, signed=True),
          _p(p.p_ttest), _p(p.p_wilcoxon), _p(p.p_randomization), _p(p.p_holm),
          f"{p.wins}/{p.ties}/{p.losses}"] for p in cmp.pairs]))
    out.append("")
    out += [f"- {p.verdict.text(lang)}" for p in cmp.pairs]
    if cmp.alignment is not None and cmp.alignment.dropped:
        out.append("")
        dropped = len(cmp.alignment.dropped)
        out.append(say("cli.cmp.left_out", n=dropped))
        for source, ids in cmp.alignment.missing.items():
            if ids:
                more = say("cli.cmp.more", n=len(ids)) if len(ids) > _SHOW_IDS else ""
                out.append("  " + say("cli.cmp.missing_from", source=source,
                                      ids=", ".join(ids[:_SHOW_IDS]), more=more))
    if cmp.notes:
        out.append("")
        out += [say("cli.cmp.note", note=message(n, lang)) for n in cmp.notes]
    return "\n".join(out)


def _p(p: float) -> str:
    return format_p(p).removeprefix("p = ").removeprefix("p ")
