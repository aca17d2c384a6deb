"""What a user's search returns, made into :class:`Hit` s: an id (as a str), a score and text.

A *search* is anything callable as ``search(query, k)`` returning a sequence of hits
(:data:`SearchFn`): :class:`ragdash.retrieval.own.adapters` makes one of a plain function, an
``async`` function, a LangChain / LlamaIndex / Haystack retriever; G2's
:class:`ragdash.retrieval.own.http.HttpSearch` makes one of a search service over HTTP.

:func:`to_hits` reads what a function returned, item by item:

- a ``str`` or an ``int`` id;
- an ``(id, score)`` pair (or ``(id, score, text)``);
- a dict: the id under ``id_field`` (when given, also inside ``metadata`` / ``meta``), else
  ``id``, ``doc_id``, ``docid``, ``_id``, ``document_id``; the score under ``score``,
  ``_score`` or ``relevance_score``; the text under ``text``, ``content`` or ``page_content``;
- a LangChain ``Document`` (``metadata[id_field]``, else ``Document.id``; text
  ``page_content``), a LlamaIndex ``NodeWithScore`` (``node.metadata[id_field]``, else
  ``node.ref_doc_id``, else ``node.node_id``; its ``score``; the node's content), a Haystack
  ``Document`` (``meta[id_field]``, else ``Document.id``; its ``score``; ``content``);
- any other object with an ``id`` (or ``doc_id``) attribute, and ``score`` / ``text`` ones.

Recognised by their attributes: none of those libraries is imported here. What cannot be a
result (None, an id that is a float or a list, a score that is NaN or not a number) raises
:class:`BadResult` with one sentence naming the rank and what was given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...errors import RetrievalError
from ...i18n import error

__all__ = ["BadResult", "Hit", "SearchFn", "to_hits"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One result of one query, as the retriever gave it."""

    id: str | None  # the id as the retriever gave it, made a str (None: it gave none)
    score: float | None  # None: the retriever gave no score
    text: str | None = None  # the result's text, when it carries one (for match="text")


#: a search: anything callable as ``search(query, k)`` returning hits
SearchFn = Callable[[str, int], Sequence[Hit]]


class BadResult(RetrievalError):
    """A search returned something that is not a list of results (counted as a failed
    query, with this sentence)."""


_ID_KEYS = ("id", "doc_id", "docid", "_id", "document_id")
_SCORE_KEYS = ("score", "_score", "relevance_score")
_TEXT_KEYS = ("text", "content", "page_content")


def to_hits(result, *, id_field: str | None = None) -> list[Hit]:
    """``result`` (what a search returned for one query) as hits, in its order."""
    if isinstance(result, Hit):
        return [result]
    if result is None:
        raise error(BadResult, "own.returned_none")
    if isinstance(result, (str, bytes, int, float)) or not _iterable(result):
        raise error(BadResult, "own.not_a_list", got=type(result).__name__)
    hits = []
    for rank, item in enumerate(result, 1):
        hits.append(item if isinstance(item, Hit) else _one(item, rank, id_field))
    return hits


def _iterable(value) -> bool:
    if isinstance(value, Mapping):
        return False
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _one(item, rank: int, id_field: str | None) -> Hit:
    if isinstance(item, (str, int, float, bytes)):  # an id alone (a float one is refused)
        return Hit(_id(item, rank), None)
    if isinstance(item, (tuple, list)):
        if not 1 <= len(item) <= 3:
            raise error(BadResult, "own.bad_pair", rank=rank, n=len(item))
        score = _score(item[1], rank) if len(item) > 1 else None
        text = _text(item[2]) if len(item) > 2 else None
        return Hit(_id(item[0], rank), score, text)
    if isinstance(item, Mapping):
        return _from_mapping(item, rank, id_field)
    if hasattr(item, "node") and hasattr(item, "score"):  # LlamaIndex NodeWithScore
        node = item.node
        raw = _meta_id(getattr(node, "metadata", None), id_field)
        if raw is None and not id_field:
            raw = getattr(node, "ref_doc_id", None) or getattr(node, "node_id", None)
        get = getattr(node, "get_content", None)
        return Hit(_id(raw, rank, allow_none=True), _score(item.score, rank),
                   _text(get() if callable(get) else getattr(node, "text", None)))
    if hasattr(item, "page_content") and hasattr(item, "metadata"):  # LangChain Document
        meta = item.metadata if isinstance(item.metadata, Mapping) else {}
        raw = _meta_id(meta, id_field)
        if raw is None and not id_field:
            raw = getattr(item, "id", None)
        score = next((meta[k] for k in _SCORE_KEYS if meta.get(k) is not None), None)
        return Hit(_id(raw, rank, allow_none=True), _score(score, rank),
                   _text(item.page_content))
    if hasattr(item, "meta") and hasattr(item, "content"):  # Haystack Document
        raw = _meta_id(item.meta if isinstance(item.meta, Mapping) else {}, id_field)
        if raw is None and not id_field:
            raw = getattr(item, "id", None)
        return Hit(_id(raw, rank, allow_none=True), _score(getattr(item, "score", None), rank),
                   _text(item.content))
    raw = getattr(item, id_field, None) if id_field else None
    if raw is None:
        raw = next((getattr(item, k) for k in ("id", "doc_id") if getattr(item, k, None)
                    is not None), None)
    if raw is None and not any(hasattr(item, k) for k in ("id", "doc_id", "text")):
        raise error(BadResult, "own.bad_item", rank=rank, got=type(item).__name__)
    return Hit(_id(raw, rank, allow_none=True), _score(getattr(item, "score", None), rank),
               _text(getattr(item, "text", None)))


def _from_mapping(item: Mapping, rank: int, id_field: str | None) -> Hit:
    raw = None
    if id_field:
        raw = item.get(id_field)
        if raw is None:
            raw = _meta_id(item.get("metadata") or item.get("meta"), id_field)
    else:
        raw = next((item[k] for k in _ID_KEYS if item.get(k) is not None), None)
    score = next((item[k] for k in _SCORE_KEYS if k in item), None)
    text = next((item[k] for k in _TEXT_KEYS if item.get(k) is not None), None)
    return Hit(_id(raw, rank, allow_none=True), _score(score, rank), _text(text))


def _meta_id(meta, id_field: str | None):
    if not id_field or not isinstance(meta, Mapping):
        return None
    return meta.get(id_field)


def _id(raw, rank: int, *, allow_none: bool = False) -> str | None:
    if raw is None and allow_none:
        return None
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    raise error(BadResult, "own.bad_id", rank=rank, got=type(raw).__name__,
                value=_short(raw))


def _score(raw, rank: int) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or (not isinstance(raw, (int, float))
                                 and not hasattr(raw, "__float__")):
        raise error(BadResult, "own.bad_score", rank=rank, value=_short(raw))
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise error(BadResult, "own.bad_score", rank=rank, value=_short(raw)) from None
    if not math.isfinite(value):
        raise error(BadResult, "own.bad_score", rank=rank, value=_short(raw))
    return value


def _text(raw) -> str | None:
    if raw is None:
        return None
    return raw if isinstance(raw, str) else str(raw)


def _short(value, limit: int = 40) -> str:
    shown = repr(value)
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"
