"""Words on coverage: where the numbers are read, say when the labels behind them are thin.

A retriever that finds relevant documents nobody judged scores as if it had found nothing, so
a low Judged@K — or one run far less judged than another — makes a metric a lower bound and a
comparison biased toward the better-judged run. :func:`caveat` turns the runs' Judged@K into
the sentence that goes after a verdict, a frontier recommendation and into the report:

    "B's top 10 is 41% unjudged against A's 12%: B's nDCG@10 is a lower bound; judge the gaps
    before deciding."

Thresholds: a run is *thin* below :data:`LOW` (0.8) judged; two runs *differ* when their
Judged@K are :data:`GAP` (0.1) or more apart. On condensed lists (``--judged-only``) the
unjudged documents were left out rather than counted as misses, and the sentence says that
instead of "lower bound".
"""

from __future__ import annotations

from collections.abc import Mapping

from ..i18n import Joined, Text, text

#: below this share of the top K judged, a run's metric is read as a lower bound
LOW = 0.8
#: two runs whose Judged@K differ by this much or more are compared on unequal labels
GAP = 0.1


def coverage_k_of(metric: str, kmax: int) -> int:
    """The K whose Judged@K goes with ``metric`` (``"ndcg@10"`` -> 10; a bare family such as
    ``"mrr"``, read at Kmax -> ``kmax``)."""
    from ..metrics import parse_metric

    _, k = parse_metric(metric)
    return int(k) if k is not None else int(kmax)


def _unjudged(value: float) -> str:
    return f"{round(100 * (1 - float(value)))}%"


def caveat(coverage: Mapping[str, float], *, k: int, metric: str,
           judged_only: bool = False) -> Text | None:
    """The sentence on ``coverage`` (``{run name: mean Judged@k}``), or ``None`` when every
    run is judged at least :data:`LOW` and no two differ by :data:`GAP` or more.

    ``metric``: the label of the metric the numbers are read on (``"nDCG@10"``).
    """
    runs = {str(n): float(v) for n, v in coverage.items() if v == v}  # NaN: no queries
    if not runs:
        return None
    thin = [n for n, v in runs.items() if v < LOW]
    least = min(runs, key=lambda n: (runs[n], n))
    most = max(runs, key=lambda n: (runs[n], n))
    apart = runs[most] - runs[least] >= GAP
    if not thin and not apart:
        return None
    if len(runs) >= 2 and apart and len(thin) <= 1:
        said = text("judgments.caveat.pair", worse=least, u_worse=_unjudged(runs[least]),
                    better=most, u_better=_unjudged(runs[most]), k=k)
        who = [least]
    elif len(thin) == 1:
        said = text("judgments.caveat.one", name=thin[0], u=_unjudged(runs[thin[0]]), k=k)
        who = thin
    else:
        shown = thin if thin else [least]
        said = text("judgments.caveat.many", k=k, runs=Joined(
            [text("judgments.caveat.run_share", name=n, u=_unjudged(runs[n])) for n in shown]))
        who = shown
    if judged_only:
        then = text("judgments.caveat.condensed", metric=metric)
    elif len(who) == 1:
        then = text("judgments.caveat.lower_bound", name=who[0], metric=metric)
    else:
        then = text("judgments.caveat.lower_bounds", metric=metric)
    return text("judgments.caveat", coverage=said, then=then)


def labels_said(labels: tuple[str, ...] | list[str], judged_only: bool = False) -> Text:
    """Which labels the numbers show, as a phrase for a caption or a report line:
    "labels: the human qrels only" / "labels: the human qrels, gaps filled from llm.qrels"
    (and "; condensed lists ..." with ``judged_only``)."""
    added = [str(n) for n in labels if str(n) != "qrels"]
    said = (text("judgments.labels.filled", sets=Joined(added)) if added
            else text("judgments.labels.human"))
    return text("judgments.labels.condensed", labels=said) if judged_only else said
