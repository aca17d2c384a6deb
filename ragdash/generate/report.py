"""What a generation job says to people, as sentences with message ids (the command line
prints them in English or Japanese, the Generate page in the page's language)."""

from __future__ import annotations

from ..cost.currency import format_money
from ..i18n import Joined, Text, text
from .filters import REASON_KEYS, REASONS
from .job import Generated

__all__ = ["estimate_text", "kept_text", "money", "pool_text", "spent_text"]


def _n(value) -> str:
    """A count with thousands separators (every language writes 1,234)."""
    return f"{int(value):,}"


def money(cost: dict) -> str:
    """``$0.0123 (¥1.9)``, or the sentence that the model has no price."""
    if cost.get("usd") is None:
        return str(text("generate.no_price"))
    return f"{format_money(cost['usd'], 'USD')} ({format_money(cost['jpy'], 'JPY')})"


def kept_text(result: Generated) -> Text:
    """"200 written, 163 kept: 14 copied the passage, 9 not in the passage's language, …"."""
    parts = [text(REASON_KEYS[r], n=int(result.reasons[r])) for r in REASONS
             if result.reasons.get(r)]
    if not parts:
        return text("generate.kept_all", written=_n(result.written), kept=_n(result.kept))
    return text("generate.kept", written=_n(result.written), kept=_n(result.kept),
                reasons=Joined(parts))


def pool_text(result: Generated) -> Text:
    """How far beyond the source the judge went, and what one-source generators miss."""
    pool = result.pool
    return text("generate.pool", pairs=_n(pool.get("judged", 0)),
                retrievers=" + ".join(pool.get("retrievers") or ["BM25"]),
                other=_n(pool.get("with_other_relevant", 0)),
                answers=_n(pool.get("with_other_answer", 0)), n=_n(result.kept))


def spent_text(result: Generated) -> Text:
    usage = result.usage
    return text("generate.spent", writing=_n(usage["writing"]["requests"]),
                judge=_n(usage["judge"]["requests"]), cost=money(result.cost["total"]),
                seconds=f"{result.seconds:.1f}")


def estimate_text(est: dict) -> list[Text]:
    """The plan before anything is sent: the sample, then the cost (upper bound)."""
    languages = ", ".join(f"{k} {v:,}" for k, v in sorted(est["languages"].items()))
    lines = [text("generate.plan", sampled=_n(est["sampled"]), documents=_n(est["documents"]),
                  sources=_n(est["sources"]), languages=languages)]
    if est["too_short"]:
        lines.append(text("generate.too_short", n=est["too_short"]))
    if est["chunked"]:
        lines.append(text("generate.chunked", n=est["chunked"]))
    if est["cached"]:
        lines.append(text("generate.cached", n=est["cached"]))
    lines.append(text("generate.cost_writing", requests=_n(est["writing"]["requests"]),
                      tokens=_n(est["writing"]["input_tokens"]), cost=money(est["writing"])))
    judge = {k: est["answerability"][k] + est["pool_at_most"][k]
             for k in ("requests", "input_tokens")}
    judge_cost = {"usd": None if est["answerability"]["usd"] is None else
                  est["answerability"]["usd"] + est["pool_at_most"]["usd"],
                  "jpy": None if est["answerability"]["jpy"] is None else
                  est["answerability"]["jpy"] + est["pool_at_most"]["jpy"]}
    lines.append(text("generate.cost_judge", requests=_n(judge["requests"]),
                      tokens=_n(judge["input_tokens"]), cost=money(judge_cost)))
    lines.append(text("generate.cost_total", cost=money(est["total_at_most"]),
                      method=est["token_method"]))
    return lines
