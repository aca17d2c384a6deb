"""The query's words marked in a document, for people who judge it (the Judge page).

The words are the BM25 tokenizer's (:mod:`ragdash.retrieval.tokenize`): Latin words, and for
Japanese (no spaces) character bigrams, so ``東京都の人口`` marks ``東京`` ``京都`` ``人口`` in a
passage. Tokens of one character (a lone kanji, a one-letter word) would mark half a Japanese
passage; they are used only when the query has nothing longer. Matching is on the normalized
text (NFKC, lower case: ``ＡＩ`` matches ``ai``), and the marks are put back on the document as
written, character for character. Overlapping matches (``東京`` and ``京都`` in ``東京都``) merge
into one mark. The result is HTML: the text escaped, the marks as ``<mark>``.
"""

from __future__ import annotations

import html
import re
import unicodedata

from ..retrieval.tokenize import tokenize_one

__all__ = ["highlight_html", "highlight_spans"]


def _query_tokens(query: str) -> list[str]:
    tokens = set(tokenize_one(query or ""))
    long = {t for t in tokens if len(t) >= 2}
    return sorted(long or tokens, key=lambda t: (-len(t), t))


def _normalized(text: str) -> tuple[str, list[int]]:
    """The text normalized as the tokenizer does, and for each normalized character the index
    of the written character it came from."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    back: list[int] = []
    for i, ch in enumerate(text):
        n = unicodedata.normalize("NFKC", ch).lower()
        out.append(n)
        back.extend([i] * len(n))
    return "".join(out), back


def highlight_spans(query: str, text: str) -> list[tuple[int, int]]:
    """Merged ``(start, end)`` spans of ``text`` (as written) where the query's words occur."""
    tokens = _query_tokens(query)
    if not tokens or not text:
        return []
    normalized, back = _normalized(text)
    pattern = re.compile("(?=(" + "|".join(map(re.escape, tokens)) + "))")
    spans: list[tuple[int, int]] = []
    for m in pattern.finditer(normalized):
        start, end = m.start(1), m.end(1)
        if end <= start:
            continue
        a, b = back[start], back[end - 1] + 1
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


def highlight_html(query: str, text: str) -> str:
    """``text`` as escaped HTML with the query's words in ``<mark>``."""
    parts: list[str] = []
    at = 0
    for start, end in highlight_spans(query, text):
        parts.append(html.escape(text[at:start]))
        parts.append(f"<mark>{html.escape(text[start:end])}</mark>")
        at = end
    parts.append(html.escape(text[at:]))
    return "".join(parts)
