"""The query writer's prompt, in the passage's language.

The wording lives in ``ragdash/data/generate/prompts.toml`` (one table per version, English
and Japanese); :data:`PROMPT_VERSION` names the one in use. It goes into every query's record,
into the source label's source (``generated:<model>@<version>``) and into the reply cache's
key.

- **Language**: ``auto`` writes Japanese for a passage with hiragana or katakana (kanji alone
  could be Chinese) and English otherwise; ``ja`` / ``en`` force one.
- **Style**: ``question`` (a natural question), ``keyword`` (a short keyword query), or
  ``mixed`` (each document gets one of the two, drawn with the seed; about half each).
- **Examples**: up to :data:`MAX_EXAMPLES` of the user's real queries, drawn with the seed,
  shown as the manner to follow (not the topics).
- **The passage**: the document's title and text; a document longer than ``passage_tokens``
  is cut into chunks by :func:`ragdash.retrieval.chunking.chunk_spans` and one chunk, drawn
  with the seed, is shown (said in the report as ``chunked``).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..dataset import Document
from ..judge.prompt import is_japanese
from .settings import DEFAULT_PASSAGE_TOKENS, LANGUAGES, STYLES

PROMPTS_FILE = Path(__file__).resolve().parent.parent / "data" / "generate" / "prompts.toml"
PROMPT_VERSION = "ragdash-gen-1"
#: example queries put in one prompt at most
MAX_EXAMPLES = 8

__all__ = ["DEFAULT_PASSAGE_TOKENS", "LANGUAGES", "MAX_EXAMPLES", "PROMPT_VERSION", "STYLES",
           "Passage", "build_prompt", "passage_of", "pick_examples", "read_examples"]


@functools.cache
def _templates() -> dict:
    with PROMPTS_FILE.open("rb") as f:
        return tomllib.load(f)


@dataclass(frozen=True)
class Passage:
    """What the writer is shown of one document: ``text``, whether it is a chunk of a longer
    document (``chunk`` its number, ``chunks`` how many there were), and its language."""

    text: str
    language: str
    chunk: int = 0
    chunks: int = 1


def passage_of(doc: Document, *, language: str, budget: int,
               rng: np.random.Generator) -> Passage:
    """The passage shown for ``doc`` (module docstring)."""
    from ..retrieval.chunking import chunk_spans

    body = doc.text
    spans, _ = chunk_spans(body, budget) if len(body) > budget else ([(0, len(body), 0)], "")
    chunk = int(rng.integers(len(spans))) if len(spans) > 1 else 0
    if spans:
        start, end, _ = spans[chunk]
        body = body[start:end].strip()
    shown = f"{doc.title}\n{body}" if doc.title else body
    lang = language if language in ("ja", "en") else ("ja" if is_japanese(shown) else "en")
    return Passage(shown, lang, chunk, max(1, len(spans)))


def build_prompt(passage: Passage, style: str, examples: Sequence[str] = (),
                 version: str = PROMPT_VERSION) -> str:
    """The prompt for one passage in ``style`` ("question" or "keyword")."""
    table = _templates()[version]
    lang = passage.language
    said = ""
    if examples:
        said = table["examples"][lang] + "\n" + "\n".join(f"  {e}" for e in examples) + "\n"
    out = table[lang]
    for field_, value in (("{task}", table["task"][style][lang]), ("{examples}", said)):
        out = out.replace(field_, value)
    head, tail = out.split("{passage}", 1)
    return head + passage.text + tail


def read_examples(path: str | Path) -> list[str]:
    """Example queries from a file: one query a line, or a queries table (JSONL / CSV / TSV
    with a text column); blank lines and exact repeats dropped."""
    from ..loaders import Source
    from ..loaders.notes import LoadLog
    from ..loaders.tables import read_documents

    src = Source.from_path(path)
    if src.ext in (".jsonl", ".ndjson", ".csv", ".tsv", ".json"):
        items, _ = read_documents(src, LoadLog(), kind="queries")
        found = [q.text for q in items]
    else:
        from ..loaders._source import decode_all

        found = decode_all(src)[0].splitlines()
    return list(dict.fromkeys(" ".join(q.split()) for q in found if q.strip()))


def pick_examples(examples: Sequence[str], language: str, rng: np.random.Generator,
                  most: int = MAX_EXAMPLES) -> list[str]:
    """Up to ``most`` examples in the passage's language when there are any, else any."""
    same = [e for e in examples if is_japanese(e) == (language == "ja")]
    pool = same or list(examples)
    if len(pool) <= most:
        return list(pool)
    return [pool[i] for i in sorted(rng.choice(len(pool), size=most, replace=False))]
