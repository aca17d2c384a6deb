"""Token estimates, request batches, and truncation of a text that is too long.

The estimate only sizes requests and cuts texts a server refused, so it errs on the high side
and needs no tokenizer file: with OpenAI's cl100k encoding a CJK ideograph costs about 1.4
tokens, kana and other non-ASCII letters about 1, English about one token per 4 characters.
We count 1.5, 1, 2 for characters outside the Basic Multilingual Plane (emoji), and one per 3
ASCII characters, plus one. ragdash.cost counts tokens for prices; this is deliberately cruder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

#: CJK unified ideographs (with extension A and compatibility ideographs)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: OpenAI's embeddings endpoint refuses requests above 300,000 tokens; the estimate stays under
DEFAULT_MAX_BATCH_TOKENS = 250_000
MAX_BATCH_SIZE = 2048


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for one text (see the module docstring)."""
    n = len(text)
    ascii_chars = len(text.encode("ascii", "ignore"))
    cjk = len(_CJK.findall(text)) if ascii_chars < n else 0
    astral = len(text.encode("utf-16-le")) // 2 - n
    other = n - ascii_chars - cjk - astral
    return 1 + math.ceil(ascii_chars / 3 + 1.5 * cjk + other + 2 * astral)


def plan_batches(token_estimates: Sequence[int], batch_size: int,
                 max_batch_tokens: int) -> list[range]:
    """Consecutive index ranges, each with at most ``batch_size`` texts and (unless a single
    text is bigger by itself) at most ``max_batch_tokens`` estimated tokens."""
    batches: list[range] = []
    start, tokens = 0, 0
    for i, t in enumerate(token_estimates):
        if i > start and (i - start >= batch_size or tokens + t > max_batch_tokens):
            batches.append(range(start, i))
            start, tokens = i, 0
        tokens += t
    if start < len(token_estimates):
        batches.append(range(start, len(token_estimates)))
    return batches


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` whose estimate is at most ``max_tokens`` (binary search;
    the estimate only grows with the prefix)."""
    if estimate_tokens(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)  # estimate(text[:lo]) <= max_tokens < estimate(text[:hi])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if estimate_tokens(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid
    return text[:lo]
