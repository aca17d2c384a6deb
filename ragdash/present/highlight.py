"""The query's words marked in a document, for people who judge it (the Judge page).

The words are the BM25 tokenizer's (:mod:`ragdash.retrieval.tokenize`): Latin words, and for
Japanese (no spaces) character bigrams, so ``東京都の人口`` marks ``東京`` ``京都`` ``人口`` in a
passage. A word of a script written with spaces (Latin, Greek, Cyrillic, digits) is marked only
as a whole word: ``is`` is not marked inside ``listed``, nor ``in`` inside ``decreasing`` (a
letter or digit of such a script on either side means it is part of another word; a kanji or
kana beside it does not: ``AI`` is marked in ``AI研究``). Bigrams are marked wherever they
occur, as Japanese has no spaces to mark a word's edge. English stopwords (``the``, ``is``,
``what``, ...) are not marked unless the query has nothing else. Tokens of one character (a lone
kanji, a one-letter word) would mark half a Japanese passage; they are used only when the query
has nothing longer. Matching is on the normalized
text (NFKC, lower case: ``ＡＩ`` matches ``ai``), and the marks are put back on the document as
written, character for character. Overlapping matches (``東京`` and ``京都`` in ``東京都``) merge
into one mark. The result is HTML: the text escaped, the marks as ``<mark>``.
"""

from __future__ import annotations

import html
import re
import unicodedata

from ..retrieval.tokenize import _CJK, tokenize_one

__all__ = ["STOPWORDS", "highlight_html", "highlight_spans"]

#: English words too common to be worth marking (words of questions and of every sentence)
_STOPWORDS_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers herself him himself his how i if in into is it its itself just
me more most my myself no nor not of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then there these they
this those through to too under until up very was we were what when where which while who whom
whose why will with would you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

#: a character of a word in a script written with spaces: a letter or digit outside the CJK
#: scripts (what the tokenizer joins into one word)
_WORD_CHAR = rf"[^\W_{_CJK}]"
_CJK_TOKEN = re.compile(rf"[{_CJK}]+")


def _query_tokens(query: str) -> list[str]:
    tokens = set(tokenize_one(query or ""))
    tokens = (tokens - STOPWORDS) or tokens
    long = {t for t in tokens if len(t) >= 2}
    return sorted(long or tokens, key=lambda t: (-len(t), t))


def _pattern(tokens: list[str]) -> re.Pattern:
    """Every occurrence of a token, overlapping ones too (a lookahead): CJK tokens anywhere,
    words of other scripts as whole words only."""
    words = [re.escape(t) for t in tokens if not _CJK_TOKEN.fullmatch(t)]
    cjk = [re.escape(t) for t in tokens if _CJK_TOKEN.fullmatch(t)]
    options = []
    if words:
        options.append(f"(?<!{_WORD_CHAR})(?:{'|'.join(words)})(?!{_WORD_CHAR})")
    options.extend(cjk)
    return re.compile("(?=(" + "|".join(options) + "))")


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
    pattern = _pattern(tokens)
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
