"""``python -m ragdash frontier RUN... --x memory --metric ndcg@10``: quality against what each
run costs to operate, the Pareto-optimal runs, and the recommendation sentence.

RUN is a run id from the run store (``evaluate --store``, ``sweep --store``, the app) or a
ragdash run JSON file (the app's or ``export`` download). All runs must be of one dataset.

JSON: ``{"metric", "x", "unit", "queries", "points": [{"run", "run_id", "x", "y", "ci_low",
"ci_high", "pareto", "best", "indistinguishable_from_best", "p_vs_best", "config"}],
"sentence", "sentence_ja"}``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import RunStoreError
from ..i18n import LANGUAGES, error, message
from ._judgments import add_fill_option, labels_line, read_fill
from ._output import add_format_option, emit, format_table, to_json

X_CHOICES = ("index-cost", "query-cost", "memory", "latency")

DESCRIPTION = """\
Put runs of one dataset on one chart: the metric's mean with its 95% bootstrap interval
against indexing cost, cost per 1,000 queries, index memory or latency. Prints each run's
point, whether it is Pareto-optimal, whether it is distinguishable from the best run (the
paired test of compare, Holm-corrected over all pairs), and the recommendation: the cheapest
(smallest, fastest) run not distinguishable from the best, what it keeps and what it saves."""

EPILOG = """\
examples:
  python -m ragdash frontier 3k2x9a0b1c 7hq0d2mmx1 --x memory --metric ndcg@10
  python -m ragdash frontier runs/*.json --x index-cost --format json
  python -m ragdash frontier RUN RUN RUN --x memory --project-to 10000000 --lang ja"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "frontier", help="quality against cost, memory or latency: the Pareto runs and a "
                         "recommendation",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="saved run ids (the run store under $RAGDASH_HOME) or ragdash run "
                        "JSON files, all of one dataset")
    p.add_argument("--x", choices=X_CHOICES, default="index-cost", dest="x_axis",
                   help="the x axis: index-cost (embedding the corpus, USD), query-cost (USD "
                        "per 1,000 queries), memory (index bytes) or latency (ms per query; "
                        "a probe's p95 when one was kept with the run). Default index-cost")
    p.add_argument("--metric", default="ndcg@10",
                   help="the quality metric, e.g. ndcg@10, recall@5 (default ndcg@10)")
    p.add_argument("--project-to", type=int, default=None, metavar="N",
                   help="with --x memory: project each index linearly to N vectors (e.g. "
                        "10000000), marked as a projection")
    p.add_argument("--lang", choices=LANGUAGES, default="en",
                   help="language of the recommendation sentence in the table output "
                        "(JSON carries both)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed for the bootstrap and the permutation test (default 0)")
    add_fill_option(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..stats import build_frontier

    if args.project_to is not None and args.project_to < 1:
        raise error(RunStoreError, "cli.project_to", value=args.project_to)
    runs = load_runs(args.runs)
    data = runs[0].dataset if runs else None
    filled = read_fill(args.fill, data.qrels, queries=data.query_ids,
                       docs=data.doc_ids) if data is not None else None
    frontier = build_frontier(runs, metric=args.metric, x=args.x_axis,
                              project_to=args.project_to, seed=args.seed,
                              tables=[r.table(filled) for r in runs])
    if args.format == "json":
        report = frontier.to_json()
        if filled is not None:
            report["judgments"] = filled.summary()
        if args.project_to is not None:
            report["project_to"] = args.project_to
            for point, p in zip(report["points"], frontier.points):
                point["projected_bytes"] = p.operating.projected_bytes
        emit(to_json(report))
        return 0
    emit(_text(frontier, args.lang, args.project_to))
    return 0


def load_runs(items: list[str]):
    """Each item as a Run: a JSON file when such a file exists, else a stored run's id."""
    from ..runs import get_store
    from ..runs.exchange import run_from_json_obj

    store = get_store()
    runs = []
    for item in items:
        path = Path(item)
        if path.is_file():
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise error(RunStoreError, "cli.cannot_read", item=item,
                            reason=exc.strerror or exc) from exc
            runs.append(run_from_json_obj(store, data, filename=str(path)))
            continue
        if "/" in item or item.endswith(".json"):
            raise error(RunStoreError, "cli.no_such_run_file", item=item)
        try:
            run = store.load(item)
        except RunStoreError:
            run = None
        if run is None:
            raise error(RunStoreError, "cli.no_such_run", item=item, path=store.path)
        runs.append(run)
    return runs


def _text(frontier, lang: str, project_to: int | None) -> str:
    from ..stats.frontier import format_x
    from ..stats.verdict import format_p

    def x_text(p) -> str:
        text = format_x(frontier.x_axis, p.x)
        if p.x is not None and frontier.x_axis == "memory" and project_to is not None:
            text += f" (at {project_to:,})"
        elif p.x is not None and frontier.x_axis == "latency":
            text += f" ({p.operating.latency_kind})"
        return text

    rows = [[p.name, x_text(p), f"{p.y:.4f}", f"{p.ci_low:.4f}–{p.ci_high:.4f}",
             "yes" if p.pareto else "", "best" if p.best else
             ("same" if p.indistinguishable_from_best else "worse"),
             "" if p.p_vs_best is None else format_p(p.p_vs_best).removeprefix("p = "),
             f"{frontier.coverage.get(p.name, float('nan')):.4f}"]
            for p in frontier.points]
    table = format_table(["run", frontier.x_axis, frontier.metric, "95% CI", "pareto",
                          "vs best", "p (Holm)", f"judged@{frontier.coverage_k}"], rows)
    said = labels_line(frontier)
    shown = f"\n\n{message(said, lang)}" if said else ""
    merged = "".join(f"\n{note}" for note in frontier.merged_notes(lang))
    return f"{table}{shown}\n\n{frontier.recommendation(lang)}{merged}"
