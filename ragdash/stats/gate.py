"""A regression gate: does a candidate run keep the baseline's quality, on paired queries?

A fixed threshold ("nDCG@10 >= 0.7") fails on noise for a small query set and passes a real
regression on a large one. The gate decides on the paired per-query differences
``d = candidate - baseline`` of each metric instead, with the same bootstrap interval and sign-flip
randomization test as ``compare``, Holm-corrected over the metrics.

Two rules, each a one-sided randomization test on the shifted differences ``d + margin`` (at the
null hypothesis' boundary, a mean difference of exactly ``-margin``, they are symmetric around 0):

- ``not-worse`` (the default): H0 "the candidate is at most ``margin`` worse", H1 "worse by more
  than ``margin``" (``alternative="less"``). The metric *fails* when the Holm-corrected p is below
  alpha. Noise alone fails it at most alpha of the time, over all metrics together.
- ``non-inferior``: H0 "worse by ``margin`` or more", H1 "worse by less than ``margin``"
  (``alternative="greater"``). The metric *passes* only when the corrected p is below alpha and
  the interval's lower end is above ``-margin``: the candidate is shown to be no worse than the
  margin. Stricter: a small query set cannot show it.

The smallest drop the gate catches: with ``s`` the standard deviation of the paired differences
and ``n`` queries, a one-sided test at level ``alpha / m`` (Holm's first step over ``m`` metrics)
detects a mean shift of ``r = (z_{1-alpha/m} + z_{0.8}) · s / sqrt(n)`` with power 0.8 (the
normal approximation). Under ``not-worse`` a drop is caught when it exceeds ``margin + r``; ``r``
is the query set's *resolution*, and when it is above the margin the gate cannot see drops the
margin asks it to guard (said as a warning). Runs that score the same on every query give no
spread to estimate ``r`` from; the figure is then unknown and said so.

Deterministic: the resampling and sign patterns depend only on the seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm

from ..errors import StatsError
from ..i18n import Text, convention, error, message, text
from ..judgments.coverage import GAP as COVERAGE_GAP  # runs judged this far apart: said
from ..metrics import metric_label
from .bootstrap import DEFAULT_RESAMPLES, bootstrap_means
from .correction import holm
from .significance import DEFAULT_PERMUTATIONS, randomization_tests
from .verdict import format_count, format_p, format_range, format_signed, format_value

RULES = ("not-worse", "non-inferior")
DEFAULT_MARGIN = 0.01
DEFAULT_POWER = 0.8
#: |d| at or below this is no difference (rounding noise)
_TIE = 1e-12


@dataclass(frozen=True)
class GateMetric:
    """The decision on one metric; ``diff`` and its interval are of ``mean(candidate - base)``."""

    metric: str
    label: str
    baseline: float
    candidate: float
    diff: float
    ci_low: float
    ci_high: float
    p: float          # one-sided randomization p of the rule's alternative
    p_holm: float     # ... Holm-corrected over the metrics
    passed: bool
    resolution: float | None   # r: the shift n queries detect with power 0.8 (None: no spread)
    detectable: float | None   # the drop caught with power 0.8 (margin + r)
    wins: int
    ties: int
    losses: int

    def to_json_obj(self) -> dict:
        return {"metric": self.metric, "baseline": _num(self.baseline),
                "candidate": _num(self.candidate), "difference": _num(self.diff),
                "ci": [_num(self.ci_low), _num(self.ci_high)], "p": _num(self.p),
                "p_corrected": _num(self.p_holm),
                "decision": "pass" if self.passed else "fail",
                "detectable_effect": _num(self.detectable),
                "resolution": _num(self.resolution),
                "wins": self.wins, "ties": self.ties, "losses": self.losses}


@dataclass(frozen=True)
class GateDecision:
    baseline: str
    candidate: str
    rule: str
    margin: float
    alpha: float
    confidence: float
    seed: int | None
    n_resamples: int
    n_permutations: int
    query_ids: list[str]
    metrics: list[GateMetric]
    coverage: dict[str, float] = field(default_factory=dict)  # run name -> judged@10
    notes: list[Text] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(m.passed for m in self.metrics)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def exit_code(self) -> int:
        """0 pass, 1 regression found (2, an input error, is the command line's)."""
        return 0 if self.passed else 1

    def warnings(self) -> list[Text]:
        """What a reader must see beside the decision: a margin finer than the query set can
        resolve, labels too sparse for the candidate's new documents, the notes."""
        said: list[Text] = []
        for m in self.metrics:
            if m.resolution is None:
                said.append(text("gate.no_spread", metric=m.label))
            elif m.resolution > self.margin:
                said.append(text("gate.margin_below", metric=m.label,
                                 margin=format_value(self.margin),
                                 resolution=format_value(m.resolution),
                                 queries=format_count(self.n_queries)))
        base = self.coverage.get(self.baseline)
        cand = self.coverage.get(self.candidate)
        if base is not None and cand is not None and base - cand >= COVERAGE_GAP:
            said.append(text("gate.coverage", base=self.baseline, cand=self.candidate,
                             base_unjudged=_percent(1 - base), cand_unjudged=_percent(1 - cand)))
        return said + list(self.notes)

    def sentence(self, lang: str = "en") -> str:
        """One sentence: the decision, what decided it, and the detectable drop."""
        failed = [m for m in self.metrics if not m.passed]
        corrected = len(self.metrics) > 1
        if self.rule == "not-worse":
            if failed:
                worst = min(failed, key=lambda m: m.p_holm)
                figures = {"cand": self.candidate, "base": self.baseline,
                           "metric": worst.label, "diff": format_signed(worst.diff),
                           "margin": format_value(self.margin),
                           "range": format_range(worst.ci_low, worst.ci_high, signed=True,
                                                 lang=lang),
                           "p": format_p(worst.p_holm), "n": len(self.metrics)}
                said = (text("gate.fail_corrected", **figures) if corrected
                        else text("gate.fail", **figures))
            else:
                said = text("gate.pass", cand=self.candidate, base=self.baseline,
                            margin=format_value(self.margin), n=len(self.metrics),
                            queries=format_count(self.n_queries))
        elif failed:
            said = text("gate.not_shown", cand=self.candidate, base=self.baseline,
                        metrics=", ".join(m.label for m in failed),
                        margin=format_value(self.margin))
        else:
            said = text("gate.shown", cand=self.candidate, base=self.baseline,
                        margin=format_value(self.margin), n=len(self.metrics))
        parts = [message(said, lang)]
        if self.rule == "not-worse" and len(failed) > 1:
            parts.append(message(text("gate.also_failed", n=len(failed) - 1), lang))
        for m in self.metrics:
            if m.detectable is not None:
                parts.append(message(text("gate.catches", queries=format_count(self.n_queries),
                                          drop=format_value(m.detectable), metric=m.label),
                                     lang))
        return convention(lang, "sentence_gap").join(parts)

    def to_json_obj(self) -> dict:
        return {
            "decision": "pass" if self.passed else "fail",
            "baseline": self.baseline, "candidate": self.candidate, "rule": self.rule,
            "margin": self.margin, "queries": self.n_queries,
            "metrics": [m.to_json_obj() for m in self.metrics],
            "coverage": {name: {"judged@10": _num(v)} for name, v in self.coverage.items()},
            "sentence": self.sentence("en"),
            "warnings": [message(w, "en") for w in self.warnings()],
            "settings": {"alpha": self.alpha, "confidence": self.confidence,
                         "seed": self.seed, "resamples": self.n_resamples,
                         "permutations": self.n_permutations, "power": DEFAULT_POWER,
                         "holm_over": len(self.metrics)},
        }


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def resolution(sd_diff: float, n: int, *, alpha: float, power: float = DEFAULT_POWER
               ) -> float | None:
    """The mean shift a one-sided paired test at level ``alpha`` detects with ``power`` over
    ``n`` queries whose differences spread with ``sd_diff`` (normal approximation); None when
    there is no spread to estimate it from."""
    if not (math.isfinite(sd_diff) and sd_diff > _TIE) or n < 2:
        return None
    return float((norm.ppf(1.0 - alpha) + norm.ppf(power)) * sd_diff / math.sqrt(n))


def decide(baseline: Mapping[str, np.ndarray], candidate: Mapping[str, np.ndarray], *,
           query_ids: Sequence[str], baseline_name: str = "baseline",
           candidate_name: str = "candidate", rule: str = "not-worse",
           margin: float = DEFAULT_MARGIN, alpha: float = 0.05, confidence: float = 0.95,
           seed: int | None = 0, n_resamples: int = DEFAULT_RESAMPLES,
           n_permutations: int = DEFAULT_PERMUTATIONS, labels: Mapping[str, str] | None = None,
           coverage: Mapping[str, float] | None = None,
           notes: Sequence[Text] = ()) -> GateDecision:
    """The gate's decision from ``{metric: per-query values}`` of both runs, aligned on
    ``query_ids`` (the same metrics in both, in the order to report them)."""
    if rule not in RULES:
        raise error(StatsError, "gate.rule", rule=rule, rules=", ".join(RULES))
    if not (math.isfinite(margin) and 0 <= margin < 1e6):
        raise error(StatsError, "gate.margin", margin=margin)
    if not 0 < alpha < 1:
        raise error(StatsError, "stats.alpha", alpha=alpha)
    if not 0 < confidence < 1:
        raise error(StatsError, "stats.confidence", confidence=confidence)
    metrics = list(baseline)
    if not metrics or list(candidate) != metrics:
        raise StatsError("baseline and candidate need the same metrics, in the same order")
    n = len(query_ids)
    if n < 2:
        raise error(StatsError, "stats.too_few", n=n)
    base = np.column_stack([np.asarray(baseline[m], dtype=np.float64) for m in metrics])
    cand = np.column_stack([np.asarray(candidate[m], dtype=np.float64) for m in metrics])
    if base.shape != (n, len(metrics)) or cand.shape != base.shape:
        raise StatsError(f"every metric needs one value per query ({n} queries)")
    if not (np.isfinite(base).all() and np.isfinite(cand).all()):
        raise error(StatsError, "stats.not_finite_values")
    d = cand - base
    d[np.abs(d) <= _TIE] = 0.0

    means = bootstrap_means(d, n_resamples=n_resamples, seed=seed)
    tail = (1.0 - confidence) / 2.0
    lows, highs = np.quantile(means, [tail, 1.0 - tail], axis=0)
    alternative = "less" if rule == "not-worse" else "greater"
    p = randomization_tests(d + margin, n_permutations=n_permutations, seed=seed,
                            alternative=alternative)
    p_holm = holm(p)
    level = alpha / len(metrics)  # Holm's first, strictest step: the power figure holds
    labels = dict(labels or {})
    out = []
    for c, name in enumerate(metrics):
        diff = float(d[:, c].mean())
        sd = float(d[:, c].std(ddof=1))
        r = resolution(sd, n, alpha=level)
        if rule == "not-worse":
            passed = not p_holm[c] < alpha
        else:
            passed = bool(p_holm[c] < alpha and lows[c] > -margin)
        out.append(GateMetric(
            metric=name, label=labels.get(name) or metric_label(name),
            baseline=float(base[:, c].mean()), candidate=float(cand[:, c].mean()), diff=diff,
            ci_low=float(lows[c]), ci_high=float(highs[c]), p=float(p[c]),
            p_holm=float(p_holm[c]), passed=passed, resolution=r,
            detectable=None if r is None else margin + r,
            wins=int((d[:, c] > 0).sum()), ties=int((d[:, c] == 0).sum()),
            losses=int((d[:, c] < 0).sum())))
    return GateDecision(
        baseline=baseline_name, candidate=candidate_name, rule=rule, margin=float(margin),
        alpha=alpha, confidence=confidence, seed=seed, n_resamples=int(n_resamples),
        n_permutations=int(n_permutations), query_ids=[str(q) for q in query_ids],
        metrics=out, coverage=dict(coverage or {}), notes=list(notes))


def format_markdown(decision: GateDecision, *, lang: str = "en",
                    report: str | None = None) -> str:
    """A pull-request comment: the decision, a short table, one sentence, the warnings."""
    from ..i18n import t

    icon = "✅" if decision.passed else "❌"
    head = t("gate.md.pass" if decision.passed else "gate.md.fail", lang)
    lines = [f"### {icon} {head}: `{decision.candidate}` vs `{decision.baseline}`", ""]
    conf = f"{decision.confidence * 100:g}%"
    lines.append("| " + " | ".join([
        t("gate.col.metric", lang), t("gate.col.baseline", lang), t("gate.col.candidate", lang),
        t("gate.col.diff", lang), t("gate.col.ci", lang, conf=conf),
        t("gate.col.p", lang), t("gate.col.detectable", lang), t("gate.col.decision", lang)])
        + " |")
    lines.append("|" + "---|" * 8)
    for m in decision.metrics:
        lines.append("| " + " | ".join([
            m.label, format_value(m.baseline), format_value(m.candidate),
            format_signed(m.diff), format_range(m.ci_low, m.ci_high, signed=True, lang=lang),
            format_p(m.p_holm), "—" if m.detectable is None else format_value(m.detectable),
            t("gate.pass_word" if m.passed else "gate.fail_word", lang)]) + " |")
    lines += ["", decision.sentence(lang)]
    warnings = decision.warnings()
    if warnings:
        lines.append("")
        lines += [f"- ⚠️ {message(w, lang)}" for w in warnings]
    lines += ["", t("gate.md.settings", lang, rule=decision.rule,
                    margin=format_value(decision.margin), alpha=f"{decision.alpha:g}",
                    seed=decision.seed, queries=format_count(decision.n_queries))]
    if report:
        lines.append(t("gate.md.report", lang, path=report))
    return "\n".join(lines) + "\n"


__all__ = ["COVERAGE_GAP", "DEFAULT_MARGIN", "RULES", "GateDecision", "GateMetric", "decide",
           "format_markdown", "resolution"]
