"""Which labels a command scores with: ``--fill FILE`` (repeatable) and ``--judged-only``.

- :func:`add_fill_option`: labels from each FILE (TREC qrels, with its ``.sources.tsv``
  sidecar when there is one) fill the pairs the human qrels leave unjudged; a human label is
  never overridden. The counts — used, refused, left out as unknown — go to stderr, and to
  JSON as ``"judgments"``.
- :func:`add_judged_only_option`: condensed lists (trec_eval ``-J``).
- :func:`coverage_note`: the sentence on a thinly judged top K, on stderr.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Mapping

from ..i18n import text
from ._output import note


def add_fill_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fill", action="append", default=[], metavar="FILE",
        help="judgments from FILE (TREC qrels; its FILE.sources.tsv sidecar names each "
             "label's source) fill the pairs the human qrels do not judge; a human label is "
             "never overridden; repeatable, the first file to label a pair wins")


def add_judged_only_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--judged-only", action="store_true",
        help="condensed lists (trec_eval -J): remove unjudged documents from each ranking "
             "before scoring, so a run is neither rewarded nor punished for documents nobody "
             "judged (judged@K still describes the ranking as retrieved)")


def read_fill(paths: list[str], human: Mapping, *, queries: Collection[str] | None = None,
              docs: Collection[str] | None = None, quiet: bool = False):
    """:func:`ragdash.judgments.fill` of the human qrels with the files ``paths`` (``None``
    when there are none); what each file gave, refused and left out is said on stderr."""
    if not paths:
        return None
    from ..judgments import fill, read_judgments

    sets = [read_judgments(p, name=str(p)) for p in paths]
    filled = fill(human, *sets, queries=queries, docs=docs)
    if not quiet:
        for use in filled.sets:
            note(text("judgments.cli.filled", file=use.name, n=use.used, labels=use.labels))
            if use.refused:
                note(text("judgments.cli.refused", file=use.name, n=use.refused,
                          disagree=use.disagree))
            if use.earlier:
                note(text("judgments.cli.earlier", file=use.name, n=use.earlier))
            unknown = use.unknown_queries + use.unknown_docs
            if unknown:
                note(text("judgments.cli.unknown", file=use.name, n=unknown,
                          queries=use.unknown_queries, docs=use.unknown_docs,
                          examples=", ".join(use.examples)))
    return filled


def labels_json(filled, judged_only: bool) -> dict:
    """The JSON keys that say which labels the numbers show."""
    out: dict = {"labels": list(filled.labels) if filled is not None else ["qrels"],
                 "judged_only": bool(judged_only)}
    if filled is not None:
        out["judgments"] = filled.summary()
    return out


def labels_line(shown):
    """The report's line on which labels ``shown`` (a metric table or a comparison) shows,
    when not the human qrels alone: a :class:`ragdash.i18n.Text` (``str()`` is English)."""
    from ..judgments.coverage import labels_said

    if tuple(shown.labels) == ("qrels",) and not shown.judged_only:
        return None
    return labels_said(shown.labels, shown.judged_only)


def coverage_note(table, name: str, ks: list[int]) -> None:
    """On stderr, when the run's top K (10, or the deepest asked below it) is thinly
    judged: the sentence of :func:`ragdash.judgments.coverage.caveat`."""
    from ..judgments.coverage import caveat
    from ..metrics import metric_label

    k = 10 if table.kmax >= 10 else max(k for k in ks if k <= table.kmax)
    said = caveat({name: table.mean(f"judged@{k}")}, k=k, metric=metric_label(f"ndcg@{k}"),
                  judged_only=table.judged_only)
    if said is not None:
        note(said)
