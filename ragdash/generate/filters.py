"""The checks a written query must pass, each a reason it is dropped (counted and shown).

In order (a query is counted under the first it fails):

0. ``control`` — the reply has a control character other than a tab or a line break
   (NUL, ESC, BEL, DEL, the C1 range): a terminal would run it, a file would carry it, and
   a query with an ANSI colour code in it is not a query anyone types. Such a reply is
   dropped, not cleaned: what is left around an escape sequence (``[31m``) is garbage too.
1. ``not_question`` — the reply is not one query: empty, a refusal ("I can't help with
   that", 申し訳ありません…), several lines (any line ending: ``\\r\\n``, ``\\r``, …) or
   a numbered list, two or more questions, or longer than :data:`MAX_QUERY_CHARS`. Before
   the check, a label (``Query:``, ``質問:``), a list marker and enclosing quotes (``"…"``,
   ``「…」``) are taken off.
2. ``wrong_language`` — script share. A Japanese query must have hiragana or katakana and
   at least :data:`JA_SHARE` of its letters Japanese (kana or kanji): Latin names are fine
   ("Oncorhynchus ketaを日本語で？" is 0.25), an English question quoting a Japanese word
   is not ("What is tsuyu (つゆ)?" is 0.15). Of jsquad-valid's 4,442 human questions one
   fails (a kana-less "American Society for Testing Materials日本語"). An English query
   needs at least :data:`EN_SHARE` Latin letters and no kana.
3. ``copied`` — the query copies the passage: at least :data:`COPY_SHARE` of its character
   :data:`COPY_N`-grams (NFKC, lower case, without spaces and punctuation) occur in the
   passage. Such queries make lexical retrieval look perfect. Queries shorter than one
   n-gram are not checked (a two-word keyword query shares words by nature).
4. ``duplicate`` — a near-duplicate of an earlier kept query: Jaccard similarity of their
   character trigram sets at least :data:`DUPLICATE_JACCARD` (one sparse matrix product).
5. ``not_answerable`` — the LLM judge grades the query against its source passage below 2
   (:mod:`ragdash.generate.job`); ``unjudged`` when the judge gave no readable grade.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from ..judge.answers import looks_like_refusal, unify_line_breaks

__all__ = ["COPY_N", "COPY_SHARE", "DUPLICATE_JACCARD", "EN_SHARE", "JA_SHARE",
           "MAX_QUERY_CHARS", "REASONS", "REASON_KEYS", "clean_reply", "copied_share",
           "has_control", "language_ok", "near_duplicates", "normalize", "visible"]

#: why a query is dropped, in the order the checks run (the report's order)
REASONS = ("failed", "control", "not_question", "wrong_language", "copied", "duplicate",
           "not_answerable", "unjudged")
#: each reason -> its phrase with the count (the report, the sentence of a job that kept none)
REASON_KEYS = {"failed": "generate.reason.failed",
               "control": "generate.reason.control",
               "not_question": "generate.reason.not_question",
               "wrong_language": "generate.reason.wrong_language",
               "copied": "generate.reason.copied",
               "duplicate": "generate.reason.duplicate",
               "not_answerable": "generate.reason.not_answerable",
               "unjudged": "generate.reason.unjudged"}
MAX_QUERY_CHARS = 300
JA_SHARE = 0.2
EN_SHARE = 0.7
COPY_N = 8
COPY_SHARE = 0.6
DUPLICATE_JACCARD = 0.8

_LABEL = re.compile(r"^\s*(?:\*\*)?(?:query|question|search query|keywords?|q|クエリ|質問|"
                    r"検索クエリ|キーワード)\s*(?:\*\*)?\s*[:：]\s*", re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:[-*•・]|\d+[.)．]|[（(]\d+[)）])\s+")
_QUOTES = (('"', '"'), ("'", "'"), ("“", "”"), ("「", "」"), ("『", "』"), ("`", "`"),
           ("**", "**"))
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)
_KANA = re.compile("[\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_JAPANESE = re.compile("[\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
                       "\u3005\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")
_QUESTION_END = re.compile(r"[?？]")
#: control characters: C0 but tab and the line breaks, DEL, C1 (NEL is a line break)
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f]")
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def has_control(text: str) -> bool:
    """Whether ``text`` has a control character other than a tab or a line break."""
    return bool(_CONTROL.search(text or ""))


def visible(text: str) -> str:
    """``text`` with every control character (tab and line breaks too) written ``\\xNN``,
    for a terminal, a report or a sentence."""
    return _ANY_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def clean_reply(reply: str) -> tuple[str | None, str | None]:
    """(query, None) for a reply that is one query, else (None, "control") for a reply with
    a control character or (None, "not_question")."""
    if has_control(reply):
        return None, "control"
    said = unify_line_breaks(reply or "").strip()
    fenced = _FENCE.match(said)
    if fenced:
        said = fenced.group(1).strip()
    lines = [ln.strip() for ln in said.splitlines() if ln.strip()]
    if len(lines) != 1 or looks_like_refusal(said):
        return None, "not_question"
    query = _MARKER.sub("", _LABEL.sub("", lines[0])).strip()
    for left, right in _QUOTES:
        if len(query) > len(left) + len(right) and query.startswith(left) \
                and query.endswith(right):
            query = query[len(left):-len(right)].strip()
    marks = _QUESTION_END.findall(query.rstrip("?？ "))
    if not query or len(query) > MAX_QUERY_CHARS or len(query) < 2 or marks:
        return None, "not_question"
    return query, None


def language_ok(query: str, language: str) -> bool:
    """Whether ``query`` is written in ``language`` ("ja" or "en") by its script share."""
    letters = sum(1 for c in query if c.isalpha())
    if not letters:
        return False
    japanese = len(_JAPANESE.findall(query))
    if language == "ja":
        return bool(_KANA.search(query)) and japanese / letters >= JA_SHARE
    return not _KANA.search(query) and len(_LATIN.findall(query)) / letters >= EN_SHARE


def normalize(text: str) -> str:
    """NFKC, lower case, letters and digits only (spaces and punctuation taken out)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(c for c in folded if c.isalnum())


def _grams(text: str, n: int) -> set[str]:
    return {text[i:i + n] for i in range(len(text) - n + 1)}


def copied_share(query: str, passage: str, n: int = COPY_N) -> float:
    """The share of the query's character n-grams found in the passage (0 for a query
    shorter than n)."""
    q = _grams(normalize(query), n)
    if not q:
        return 0.0
    body = normalize(passage)
    return sum(1 for g in q if g in body) / len(q)


def near_duplicates(queries: Sequence[str], threshold: float = DUPLICATE_JACCARD
                    ) -> np.ndarray:
    """True for each query that is a near-duplicate of an earlier one (module docstring)."""
    from scipy import sparse

    n = len(queries)
    if n < 2:
        return np.zeros(n, bool)
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, q in enumerate(queries):
        norm = normalize(q)
        grams = _grams(norm, 3) or {norm}
        for g in grams:
            rows.append(i)
            cols.append(vocab.setdefault(g, len(vocab)))
    m = sparse.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                          shape=(n, max(1, len(vocab))))
    sizes = np.asarray(m.sum(axis=1)).ravel()
    inter = sparse.triu(m @ m.T, k=1).tocoo()  # pairs i < j sharing a trigram
    union = sizes[inter.row] + sizes[inter.col] - inter.data
    close = inter.data / np.maximum(union, 1) >= threshold
    dup = np.zeros(n, bool)
    # a query is dropped when it is close to an earlier query that is itself kept
    pairs = sorted(zip(inter.col[close].tolist(), inter.row[close].tolist()))
    for later, earlier in pairs:
        if not dup[earlier]:
            dup[later] = True
    return dup
