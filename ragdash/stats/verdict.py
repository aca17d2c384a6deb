"""One-line verdicts on a paired comparison, for non-engineers, in every catalog language
(the sentences are ``msg.verdict.*`` in ``ragdash/i18n/catalog/stats.toml``).

Four kinds of verdict:

- ``better`` / ``worse``: the (corrected) p-value is below alpha. The sentence names the size of
  the difference, its confidence interval and the p-value.
- ``no_difference``: the data cannot tell the runs apart. The sentence gives an approximate
  number of queries that would be needed to detect a difference of the observed size, from the
  usual power calculation for a paired test (two-sided ``alpha``, power 0.8) with the observed
  standard deviation ``s`` of the per-query differences:

      n ≈ ((z_{1-α/2} + z_{power}) · s / δ)²

  It is a rough guide (it assumes the spread stays the same and ignores the correction for
  several comparisons), and is worded as such.
- ``identical``: the two runs score the same on every query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

from ..i18n import Text, convention, message, text

#: the power assumed when saying how many queries would be needed
DEFAULT_POWER = 0.8
_MINUS = "\u2212"


@dataclass(frozen=True)
class Verdict:
    """A verdict on pair (a, b): ``kind`` plus the sentence (with its message id), said in
    any language by :meth:`text`. ``caveat``: the sentence on the labels' coverage
    (:func:`ragdash.judgments.coverage.caveat`) when the runs' top K is thinly or unequally
    judged; :meth:`text` says it after the verdict, so the verdict is never read without it."""

    kind: str  # "better" | "worse" | "no_difference" | "identical" (b relative to a)
    said: Text
    caveat: Text | None = None

    def text(self, lang: str = "en") -> str:
        return self._said(lang)

    def _said(self, lang: str) -> str:
        if self.caveat is None:
            return message(self.said, lang)
        return (message(self.said, lang) + convention(lang, "sentence_gap")
                + message(self.caveat, lang))

    @property
    def en(self) -> str:
        return self._said("en")

    @property
    def ja(self) -> str:
        return self._said("ja")


# -- power -----------------------------------------------------------------------------
def _z_sum(alpha: float, power: float) -> float:
    return float(norm.ppf(1.0 - alpha / 2.0) + norm.ppf(power))


def queries_needed(sd_diff: float, delta: float, *, alpha: float = 0.05,
                   power: float = DEFAULT_POWER) -> int | None:
    """Approximate number of queries to detect a mean difference ``delta`` with a paired test.

    ``n = ceil(((z_{1-α/2} + z_power) · sd_diff / delta)²)``, at least 2. ``None`` when
    ``delta`` is 0 (nothing to detect) or not finite.
    """
    delta = abs(float(delta))
    if not math.isfinite(delta) or delta == 0.0 or not math.isfinite(sd_diff):
        return None
    return max(2, math.ceil((_z_sum(alpha, power) * float(sd_diff) / delta) ** 2))


def detectable_difference(sd_diff: float, n: int, *, alpha: float = 0.05,
                          power: float = DEFAULT_POWER) -> float:
    """The smallest mean difference ``n`` queries detect with the given power (approximate)."""
    return _z_sum(alpha, power) * float(sd_diff) / math.sqrt(max(n, 1))


# -- number formatting -----------------------------------------------------------------
def format_value(x: float) -> str:
    """A metric value or difference magnitude: 3 decimals, more only for tiny numbers."""
    if x is None or not math.isfinite(x):
        return "n/a"
    ax = abs(x)
    if ax == 0:
        text = "0"
    elif ax < 0.001:
        text = f"{ax:.2g}"
        if "e" in text:  # keep plain decimals: 0.000042, not 4.2e-05
            text = f"{ax:.{-math.floor(math.log10(ax)) + 1}f}"
    elif ax >= 1000:
        text = f"{ax:,.0f}"
    elif ax >= 10:
        text = f"{ax:,.1f}"
    else:
        text = f"{ax:.3f}"
    return (_MINUS + text) if x < 0 else text


def format_signed(x: float) -> str:
    """A difference with its sign: ``+0.012``, ``−0.004``, ``0``."""
    text = format_value(x)
    return "+" + text if x > 0 else text


def _range(low: float, high: float, *, signed: bool = False) -> Text:
    fmt = format_signed if signed else format_value
    if low < 0 or high < 0 or signed:
        return text("verdict.range_to", low=fmt(low), high=fmt(high))
    return text("verdict.range", low=fmt(low), high=fmt(high))


def format_range(low: float, high: float, *, signed: bool = False, lang: str = "en") -> str:
    """An interval: ``0.018–0.066``; ``−0.012 to +0.032`` when a bound is negative."""
    return message(_range(low, high, signed=signed), lang)


def format_p(p: float, *, alpha: float = 0.05) -> str:
    """``p = 0.041``, ``p < 0.001``; never rounds a p-value onto alpha (0.0496 stays 0.0496)."""
    if p is None or not math.isfinite(p):
        return "p = n/a"
    if p < 0.001:
        return "p < 0.001"
    text = f"{p:.2g}"
    if float(text) == alpha and p != alpha:
        text = f"{p:.3g}"
    if "e" in text:
        text = f"{p:.4f}"
    return f"p = {text}"


def format_count(n: int) -> str:
    return f"{int(n):,}"


# -- sentences -------------------------------------------------------------------------
def make_verdict(*, a: str, b: str, metric: str, n: int, mean_a: float, mean_b: float,
                 ci_low: float, ci_high: float, p: float, sd_diff: float,
                 n_comparisons: int = 1, alpha: float = 0.05, confidence: float = 0.95,
                 identical: bool = False, power: float = DEFAULT_POWER) -> Verdict:
    """The verdict on ``b`` against ``a``; ``ci_low``/``ci_high`` bound ``mean(b - a)``.

    ``p`` is the p-value that decides (already corrected when ``n_comparisons > 1``).
    """
    diff = mean_b - mean_a
    conf = f"{confidence * 100:g}%"
    queries = format_count(n)
    names = {"a": a, "b": b, "metric": metric}
    if identical:
        return Verdict("identical", text("verdict.identical", queries=queries, **names))
    p_text = format_p(p, alpha=alpha)
    if p < alpha and diff != 0:
        kind = "better" if diff > 0 else "worse"
        # The interval of the size of the gap, in the direction the sentence speaks.
        low, high = (ci_low, ci_high) if diff > 0 else (-ci_high, -ci_low)
        said_p = (text("verdict.p_corrected", p=p_text, n=n_comparisons)
                  if n_comparisons > 1 else p_text)
        figures = {"size": format_value(abs(diff)), "conf": conf, "range": _range(low, high),
                   "p": said_p, **names}
        return Verdict(kind, text("verdict.better", **figures) if kind == "better"
                       else text("verdict.worse", **figures))
    needed = queries_needed(sd_diff, diff, alpha=alpha, power=power)
    if needed is not None and needed > n:
        tail = text("verdict.needed", needed=format_count(needed), size=format_value(abs(diff)))
    elif needed is None:
        mde = detectable_difference(sd_diff, n, alpha=alpha, power=power)
        tail = text("verdict.detectable", queries=queries, mde=format_value(mde))
    else:
        # Enough queries for this size in one comparison; the correction or the test's
        # discreteness is what keeps it from being called.
        tail = (text("verdict.too_weak_corrected", n=n_comparisons) if n_comparisons > 1
                else text("verdict.too_weak"))
    return Verdict("no_difference", text(
        "verdict.no_difference", queries=queries, diff=format_signed(diff), conf=conf,
        range=_range(ci_low, ci_high, signed=True),
        p=text("verdict.p_after_correction", p=p_text) if n_comparisons > 1 else p_text,
        tail=tail, **names))
