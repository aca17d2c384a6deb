"""A query's hits mapped to the dataset's documents, and what could not be, counted.

Results are often chunks, and their ids are not always the corpus's:

- several hits of one document keep the document at its first rank (trec_eval's view of a
  ranking of documents); the later ones are ``"duplicate"`` (counted: ``duplicates_folded``);
- a hit whose id is not a document id of the dataset is ``"not_found"`` (counted, with the
  id kept in ``per_hit`` so that it is shown, never silently dropped);
- with ``match="text"`` a hit that carries its text maps to the one document that contains
  it (whitespace-normalised containment); a text in several documents is ``"ambiguous"``, in
  none ``"not_found"`` — counted, never guessed. A hit without text maps by its id.

Scores: the hits' own when every hit of the query has one and they do not increase along the
ranks; otherwise the rank order is made into scores (``n, n-1, ...``) so that trec_eval's
order (score descending) is the order the retriever returned, and the query is counted in
``no_score`` (no scores given) or ``reordered`` (scores that disagreed with the order).

Text matching searches one string that holds every normalised document, separated by a
character no text contains (``str.find`` runs in C over the whole corpus, not a Python loop
per document); every distinct text is looked up once (a chunk returned for many queries
costs one search).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...errors import RetrievalError
from ...i18n import error
from .hits import Hit

__all__ = ["MATCHES", "STATUSES", "CorpusIndex", "Mapped", "normalize_ws"]

#: the ways a hit is mapped to a document: by its id (None), or by its text
MATCHES = (None, "text")
STATUSES = ("in_corpus", "not_found", "ambiguous", "duplicate")

_WS = re.compile(r"\s+")
_SEP = "\x00"


def normalize_ws(text: str) -> str:
    """Every run of whitespace one space, none at either end."""
    return _WS.sub(" ", text).strip()


@dataclass
class Mapped:
    """One query's hits mapped to corpus documents."""

    doc_ids: list[str]  # documents in rank order, each once (first rank kept)
    scores: list[float]  # their scores (rank order made into scores when none given)
    per_hit: list[tuple[Hit, str | None, str]]  # (hit, doc id or None, status)
    not_found: int = 0
    ambiguous: int = 0
    duplicates_folded: int = 0
    no_score: bool = False  # the rank order is the score: the hits had none
    reordered: bool = False  # the rank order is the score: the hits' scores disagreed
    counts: dict = field(default_factory=dict)


class CorpusIndex:
    """The dataset's documents, to map hits to; built once per dataset."""

    def __init__(self, dataset, *, match: str | None = None) -> None:
        if match not in MATCHES:
            raise error(RetrievalError, "own.bad_match", match=match)
        self.match = match
        self.doc_ids: list[str] = list(dataset.doc_ids)
        self._known = set(self.doc_ids)
        self._found: dict[str, tuple[str | None, str]] = {}
        if match == "text":
            texts = [normalize_ws(d.text.replace(_SEP, " ")) for d in dataset.documents]
            self._corpus = _SEP.join(texts)
            starts, pos = [], 0
            for t in texts:
                starts.append(pos)
                pos += len(t) + 1
            self._starts = starts

    def map(self, hits: Sequence[Hit]) -> Mapped:
        """``hits`` (one query's, in rank order) as documents, each once."""
        per_hit: list[tuple[Hit, str | None, str]] = []
        doc_ids: list[str] = []
        kept_scores: list[float | None] = []
        seen: set[str] = set()
        not_found = ambiguous = folded = 0
        for hit in hits:
            doc, status = self._doc_of(hit)
            if doc is not None and doc in seen:
                status = "duplicate"
                folded += 1
            elif status == "in_corpus":
                seen.add(doc)
                doc_ids.append(doc)
                kept_scores.append(hit.score)
            elif status == "ambiguous":
                ambiguous += 1
            else:
                not_found += 1
            per_hit.append((hit, doc, status))
        given = [s for s in kept_scores if s is not None]
        no_score = bool(hits) and all(h.score is None for h in hits)
        ordered = len(given) == len(kept_scores) and all(
            a >= b for a, b in itertools.pairwise(given))
        reordered = not no_score and not ordered and bool(kept_scores)
        if ordered and not no_score:
            scores = [float(s) for s in given]
        else:
            n = len(doc_ids)
            scores = [float(n - i) for i in range(n)]
        return Mapped(doc_ids=doc_ids, scores=scores, per_hit=per_hit, not_found=not_found,
                      ambiguous=ambiguous, duplicates_folded=folded,
                      no_score=no_score and bool(doc_ids), reordered=reordered)

    def _doc_of(self, hit: Hit) -> tuple[str | None, str]:
        if self.match == "text" and hit.text is not None:
            return self._by_text(hit.text)
        if hit.id is not None and hit.id in self._known:
            return hit.id, "in_corpus"
        return None, "not_found"

    def _by_text(self, text: str) -> tuple[str | None, str]:
        got = self._found.get(text)
        if got is None:
            got = self._found[text] = self._search(text)
        return got

    def _search(self, text: str) -> tuple[str | None, str]:
        needle = normalize_ws(text)
        if not needle or _SEP in needle:
            return None, "not_found"
        corpus = self._corpus
        first = corpus.find(needle)
        if first < 0:
            return None, "not_found"
        doc = bisect.bisect_right(self._starts, first) - 1
        # another document holding it: search from the start of the next document
        nxt = self._starts[doc + 1] if doc + 1 < len(self._starts) else len(corpus)
        if corpus.find(needle, nxt) >= 0:
            return None, "ambiguous"
        return self.doc_ids[doc], "in_corpus"
