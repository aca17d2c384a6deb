"""Judgment sets: the labels behind every number, where each came from, and the gaps filled.

    >>> llm = read_judgments("llm.qrels")                 # + llm.qrels.sources.tsv if present
    >>> filled = fill(dataset.qrels, llm, queries=dataset.query_ids, docs=dataset.doc_ids)
    >>> table = evaluate(ranking, filled.qrels, ...)       # filled.labels says what it shows
    >>> write_judgments(filled.to_set(), "all.qrels")      # TREC qrels + sources sidecar

- :class:`JudgmentSet`, :class:`Label` (:mod:`.sets`): labels with ``source`` (``qrels``,
  ``file:<name>``, ``llm:<model>@<prompt version>``, ``person:<name>``) and date;
- :func:`fill` (:mod:`.fill`): human labels plus added sets for the pairs the human qrels do
  not judge — a human label is never overridden; the counts say what was used, refused and
  left out (unknown queries and documents);
- :func:`read_judgments` / :func:`write_judgments` (:mod:`.files`): TREC qrels and a sources
  sidecar. Stored per dataset in the run store (:meth:`ragdash.runs.RunStore.save_judgments`).
"""

from __future__ import annotations

from .files import SIDECAR_SUFFIX, read_judgments, sidecar_path, write_judgments
from .fill import Filled, SetUse, fill
from .sets import (
    HUMAN,
    UNSURE_PREFIX,
    JudgmentSet,
    Label,
    as_set,
    check_source,
    is_unsure_set,
    today,
)

__all__ = [
    "HUMAN",
    "SIDECAR_SUFFIX",
    "UNSURE_PREFIX",
    "Filled",
    "JudgmentSet",
    "Label",
    "SetUse",
    "as_set",
    "check_source",
    "fill",
    "is_unsure_set",
    "read_judgments",
    "sidecar_path",
    "today",
    "write_judgments",
]
