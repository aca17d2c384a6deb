"""The retriever a team ships, evaluated as it is: a Python function (plain or ``async``), a
LangChain / LlamaIndex / Haystack retriever, or a search service over HTTP.

- :mod:`.hits`: :class:`Hit` (id, score, text) and :data:`SearchFn`, what every search is
  made into; :func:`to_hits` reads what a function returned.
- :mod:`.mapping`: :class:`CorpusIndex`, the hits of a query mapped to the corpus's documents
  (chunks folded to their document, ids not in the corpus counted, ``match="text"``).
- :mod:`.retriever`: :class:`OwnRetriever`, the Retriever protocol over a search: timed,
  concurrent, failures retried and counted, answers kept for a restart.
"""

from __future__ import annotations

from .hits import BadResult, Hit, SearchFn, to_hits
from .mapping import CorpusIndex, Mapped
from .retriever import MIN_MAPPED, OwnRetriever

__all__ = ["MIN_MAPPED", "BadResult", "CorpusIndex", "Hit", "Mapped", "OwnRetriever",
           "SearchFn", "to_hits"]
