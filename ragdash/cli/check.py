"""``python -m ragdash check QRELS BASELINE CANDIDATE --metric ndcg@10``: a regression gate.

Contract (CI relies on it):

- BASELINE / CANDIDATE: a TREC run file or ragdash run JSON, ``store:<id>`` (a saved run), or
  a setup file (``*.toml``: run first; cached embeddings are reused, so an unchanged setup sends
  no request).
- The decision per metric is made on the paired per-query differences (candidate − baseline)
  with a one-sided randomization test against the margin, Holm-corrected over the metrics
  (``ragdash.stats.gate`` says the rules). Seeded: the same inputs give the same decision.
- Exit code: 0 pass, 1 regression found, 2 usage or input error (one sentence on stderr).
- ``--format table`` for people, ``json`` for scripts, ``markdown`` for a pull-request comment.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..i18n import LANGUAGES
from ..stats.gate import DEFAULT_MARGIN, RULES
from ._output import emit, note, to_json

DESCRIPTION = """\
Decide whether CANDIDATE keeps BASELINE's retrieval quality, with statistics instead of a
fixed threshold: per metric, the paired per-query differences, a bootstrap interval and a
one-sided randomization test against the margin, Holm-corrected over the metrics. Says the
smallest drop the query set can detect, and when the candidate's top 10 is much less judged
than the baseline's. Exit code 0 pass, 1 regression, 2 input error."""

EPILOG = """\
examples:
  python -m ragdash check qrels.tsv baseline.trec candidate.trec
  python -m ragdash check qrels.tsv store:3f2a9c candidate.toml --metric ndcg@10 --metric recall@100
  python -m ragdash check qrels.tsv base.trec cand.trec --rule non-inferior --margin 0.02
  python -m ragdash check qrels.tsv base.trec cand.trec --format markdown > comment.md"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "check", help="a regression gate for CI: is the candidate worse than the baseline?",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS",
                   help="relevance judgments: TREC qrels (qid iter docno rel) or BEIR .tsv")
    p.add_argument("baseline", metavar="BASELINE",
                   help="a TREC run file or run JSON, store:<id>, or a setup file (.toml)")
    p.add_argument("candidate", metavar="CANDIDATE",
                   help="a TREC run file or run JSON, store:<id>, or a setup file (.toml)")
    p.add_argument("--metric", action="append", default=None, metavar="METRIC",
                   help="a metric to guard, repeatable (default ndcg@10), e.g. recall@100")
    p.add_argument("--margin", type=float, default=DEFAULT_MARGIN,
                   help=f"how much worse the candidate may be (default {DEFAULT_MARGIN})")
    p.add_argument("--rule", choices=RULES, default="not-worse",
                   help="not-worse: fail when significantly worse by more than the margin "
                        "(default); non-inferior: pass only when shown no worse than the "
                        "margin (stricter, for release gates)")
    p.add_argument("--fill", action="append", default=[], metavar="FILE",
                   help="extra judgments (TREC qrels) used only for pairs QRELS leaves "
                        "unjudged; repeatable")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table",
                   help="table for people (default), json for scripts, markdown for a "
                        "pull-request comment")
    p.add_argument("--report", default=None, metavar="FILE",
                   help="also write the standalone HTML report of both runs to FILE")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed for resampling and sign flips (default 0; printed)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level after Holm correction (default 0.05)")
    p.add_argument("--resamples", type=int, default=None, metavar="N",
                   help="bootstrap resamples (default 10000)")
    p.add_argument("--permutations", type=int, default=None, metavar="N",
                   help="randomization test sign flips (default 10000)")
    p.add_argument("--relevance-level", type=float, default=None, metavar="L",
                   help="binary metrics count grade >= L as relevant (default: grade > 0)")
    p.add_argument("--lang", choices=LANGUAGES, default="en",
                   help="language of the table, the Markdown and the sentences (default en)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..gate import check, check_options, report_runs, resolve_side

    # usage errors before a setup file runs
    metrics = check_options(args.metric or ["ndcg@10"], seed=args.seed,
                            n_resamples=args.resamples, n_permutations=args.permutations)
    sides = [resolve_side(spec, note=note) for spec in (args.baseline, args.candidate)]
    decision = check(args.qrels, sides[0], sides[1], metrics=metrics, margin=args.margin,
                     rule=args.rule, alpha=args.alpha, seed=args.seed,
                     n_resamples=args.resamples, n_permutations=args.permutations,
                     relevance_level=args.relevance_level, fill=args.fill, note=note)
    if args.report:
        _write_report(args, report_runs(args.qrels, sides), decision)
    if args.format == "json":
        obj = decision.to_json_obj()
        if args.report:
            obj["report"] = args.report
        emit(to_json(obj))
    elif args.format == "markdown":
        from ..stats.gate import format_markdown

        emit(format_markdown(decision, lang=args.lang, report=args.report))
    else:
        emit(format_table_report(decision, lang=args.lang))
    return decision.exit_code


def _write_report(args, runs, decision) -> None:
    """The HTML report draws its charts with plotly, the app extra: without it, one sentence
    (the gate itself needs only the core)."""
    import importlib.util

    if importlib.util.find_spec("plotly") is None:
        from ..errors import RagdashError
        from ..i18n import error

        raise error(RagdashError, "gate.report_needs_app")
    from ..present.report import build_report

    html = build_report(runs, lang=args.lang, metric=decision.metrics[0].metric,
                        title=f"ragdash check: {decision.candidate} vs {decision.baseline}")
    Path(args.report).write_text(html, encoding="utf-8")


def format_table_report(decision, *, lang: str = "en") -> str:
    from ..i18n import message, t
    from ..stats.verdict import format_count, format_p, format_range, format_signed, format_value
    from ._output import format_table

    conf = f"{decision.confidence * 100:g}%"
    rows = [[m.label, format_value(m.baseline), format_value(m.candidate), format_signed(m.diff),
             format_range(m.ci_low, m.ci_high, signed=True, lang=lang), format_p(m.p_holm),
             "-" if m.detectable is None else format_value(m.detectable),
             t("gate.pass_word" if m.passed else "gate.fail_word", lang)]
            for m in decision.metrics]
    out = [t("gate.table.header", lang, base=decision.baseline, cand=decision.candidate,
             rule=decision.rule, margin=format_value(decision.margin),
             queries=format_count(decision.n_queries), seed=decision.seed), ""]
    out.append(format_table(
        [t("gate.col.metric", lang), t("gate.col.baseline", lang), t("gate.col.candidate", lang),
         t("gate.col.diff", lang), t("gate.col.ci", lang, conf=conf), t("gate.col.p", lang),
         t("gate.col.detectable", lang), t("gate.col.decision", lang)], rows))
    out += ["", decision.sentence(lang)]
    for w in decision.warnings():
        out.append(t("gate.table.warning", lang, warning=message(w, lang)))
    for name, v in decision.coverage.items():
        out.append(t("gate.table.coverage", lang, name=name, judged=f"{v:.3f}"))
    return "\n".join(out)


__all__ = ["format_table_report", "register", "run"]
