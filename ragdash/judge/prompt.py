"""The judge's prompt: UMBRELA's zero-shot relevance prompt, in English or Japanese.

The wording lives in ``ragdash/data/judge/prompts.toml``, one table per version (see its
header for where it comes from). :data:`PROMPT_VERSION` names the one in use: it goes into
every label's source (``llm:<model>@<version>``) and into the answer cache's key, so answers
to another wording are never mixed with these.

- **The language** is chosen per pair by the texts: Japanese when the query or the passage
  has hiragana or katakana (kanji alone could be Chinese), else English.
- **The passage** is the document's title and text (``title\\ntext``), cut to
  ``doc_tokens`` tokens (cl100k_base when it loads offline, else the script-aware estimate of
  :mod:`ragdash.cost.tokens`); the query is never cut.
- **Delimited.** The query goes between ``<query>`` and ``</query>``, the passage between
  ``<passage>`` and ``</passage>``, and the prompt says that what is inside is material to
  grade, not instructions. Both go in verbatim except for those tags: a ``<passage>``,
  ``</query>``, … written inside a text gets its angle brackets as ``‹ ›``
  (:func:`neutralise_tags`), so a document cannot close its own block and speak as the
  prompt. How the reply is then read (the model's own text only):
  :mod:`ragdash.judge.answers`.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import params as P
from ..cost.tokens import METHOD_ESTIMATE, METHOD_TIKTOKEN, estimate_tokens, load_cl100k

PROMPTS_FILE = Path(__file__).resolve().parent.parent / "data" / "judge" / "prompts.toml"
#: the wording in use (a table of PROMPTS_FILE)
PROMPT_VERSION = "ragdash-umbrela-2"
#: tokens of a document's title and text put in the prompt, unless told otherwise
DEFAULT_DOC_TOKENS = P.JUDGE["doc_tokens"].default
LANGUAGES = ("en", "ja")

_KANA = re.compile("[\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
#: a delimiting tag of the prompt written inside a text
_TAG = re.compile(r"<(\s*/?\s*(?:query|passage)\s*)>", re.IGNORECASE)

__all__ = ["DEFAULT_DOC_TOKENS", "PROMPT_VERSION", "Passages", "cut_passages",
           "is_japanese", "neutralise_tags", "prompt_text", "template", "template_tokens"]


@functools.cache
def _templates() -> dict[str, dict[str, str]]:
    with PROMPTS_FILE.open("rb") as f:
        return tomllib.load(f)


def template(lang: str, version: str = PROMPT_VERSION) -> str:
    return _templates()[version][lang]


def is_japanese(*texts: str) -> bool:
    """True when any text has hiragana or katakana."""
    return any(_KANA.search(t or "") for t in texts)


def neutralise_tags(text: str) -> str:
    """``text`` with every ``<query>``, ``</passage>``, … tag written ``‹query›``,
    ``‹/passage›``: only the prompt's own tags delimit."""
    return _TAG.sub("\u2039\\1\u203a", text)


def prompt_text(query: str, passage: str, lang: str, version: str = PROMPT_VERSION) -> str:
    """The prompt with the query and the passage put in (no brace in them is read as a
    field: the template is filled by plain replacement of its two fields); from
    ``ragdash-umbrela-2`` on, their delimiting tags inside them are neutralised."""
    head, rest = template(lang, version).split("{query}", 1)
    middle, tail = rest.split("{passage}", 1)
    if version != "ragdash-umbrela-1":
        query, passage = neutralise_tags(query), neutralise_tags(passage)
    return head + query + middle + passage + tail


@functools.cache
def template_tokens(lang: str, version: str = PROMPT_VERSION) -> int:
    """Tokens of the prompt around the query and the passage, plus the chat format's
    overhead per message (about 4 for role and separators)."""
    empty = prompt_text("", "", lang, version)
    enc = load_cl100k()
    n = len(enc.encode_ordinary(empty)) if enc is not None else round(estimate_tokens(empty))
    return n + 4


@dataclass(frozen=True)
class Passages:
    """Documents as the judge shows them: ``texts`` (title and text, cut), ``tokens`` of each
    after the cut, ``cut`` (whether it was cut), and the token counting ``method``."""

    texts: list[str]
    tokens: np.ndarray
    cut: np.ndarray
    method: str
    budget: int


def _join(title: str, text: str) -> str:
    return f"{title}\n{text}" if title else text


def cut_passages(titles: Sequence[str], texts: Sequence[str],
                 budget: int = DEFAULT_DOC_TOKENS) -> Passages:
    """Every document's title and text cut to ``budget`` tokens, counted in one batch."""
    joined = [_join(t, x) for t, x in zip(titles, texts)]
    enc = load_cl100k()
    if enc is not None:
        encoded = enc.encode_ordinary_batch(joined)
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        out = list(joined)
        for i in np.flatnonzero(lengths > budget).tolist():
            # cut on a token boundary; a character split across tokens is dropped whole
            out[i] = enc.decode_bytes(encoded[i][:budget]).decode("utf-8", "ignore")
        return Passages(out, np.minimum(lengths, budget), lengths > budget, METHOD_TIKTOKEN,
                        budget)
    est = np.array([estimate_tokens(t) for t in joined], dtype=np.float64)
    out = list(joined)
    for i in np.flatnonzero(est > budget).tolist():
        keep = int(len(joined[i]) * budget / est[i])
        while keep > 0 and estimate_tokens(joined[i][:keep]) > budget:
            keep = int(keep * 0.95)
        out[i] = joined[i][:keep]
    tokens = np.rint(np.minimum(est, budget)).astype(np.int64)
    return Passages(out, tokens, est > budget, METHOD_ESTIMATE, budget)
