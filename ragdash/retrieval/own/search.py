"""A user's search object (or ``--entry``) made into an :class:`OwnRetriever`.

    retriever = own_retriever(my_search, id_field="doc_id", concurrency=4)
    retriever = own_retriever(entry="my_rag.search:retriever")      # the python kind

Used by :func:`ragdash.evaluate_search`, the command line's ``--retriever python`` and a
setup file's ``kind = "python"`` (:mod:`ragdash.setup.build`).
"""

from __future__ import annotations

from pathlib import Path

from ...errors import RetrievalError
from ...i18n import error
from .adapters import adapt, identity_of
from .answers import AnswerStore
from .entry import load_entry
from .retriever import DEFAULT_TIMEOUT, OwnRetriever

__all__ = ["own_retriever"]


def own_retriever(search=None, *, entry: str | None = None, base: Path | None = None,
                  name: str | None = None, id_field: str | None = None,
                  match: str | None = None, concurrency: int = 1,
                  allow_failures: bool = False, timeout: float | None = DEFAULT_TIMEOUT,
                  resume: bool = True, home: Path | None = None) -> OwnRetriever:
    """An :class:`OwnRetriever` over ``search`` (a function, a retriever object) or over the
    object ``entry`` names (``module:attribute`` / ``path/file.py:attribute``; a relative
    path from ``base``). ``resume``: keep answers in ``$RAGDASH_HOME`` (``home``) as they
    arrive, so that a restart asks only for the queries not answered yet."""
    if (search is None) == (entry is None):
        raise error(RetrievalError, "own.search_or_entry")
    id_field = str(id_field).strip() or None if id_field is not None else None
    source = None
    if entry is not None:
        search, source = load_entry(entry, base=base)
    adapted = adapt(search, id_field=id_field)
    label = name or (f"python:{entry}" if entry else adapted.name)
    config = {"retriever": "python", "entry": entry or adapted.name,
              "framework": adapted.framework, "id_field": id_field}
    identity = identity_of(config, source or adapted.source)
    store = AnswerStore(home) if resume else None
    return OwnRetriever(adapted.call, name=label, config=config, match=match,
                        concurrency=concurrency, allow_failures=allow_failures,
                        timeout=timeout, is_async=adapted.is_async, store=store,
                        identity=identity, id_field=None)
