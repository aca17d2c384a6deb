"""The drill-down of a chunked run: which chunk of each ranked document matched.

A chunked run keeps, per query, the number of the chunk that matched each ranked document
(``run.resources["chunks"]["matched"]``, written by
:class:`ragdash.retrieval.chunking.ChunkedRetriever`). The drill-down's top-K table gets a
``chunk`` column (1-based) and shows that chunk's text instead of the document's opening.
"""

from __future__ import annotations

import pandas as pd

from ..errors import RagdashError
from ..present.tables import snippet
from ..retrieval.chunking import chunk_text, matched_chunk


def with_matched_chunks(run, qid: str, top: pd.DataFrame, *, chars: int = 200) -> pd.DataFrame:
    """``top`` (the drill-down's rows, with ``rank`` and ``doc_id``) with the matched chunk of
    each document; unchanged for a run that was not chunked."""
    info = (run.resources or {}).get("chunks")
    if not info or "rank" not in top or "doc_id" not in top:
        return top
    size, overlap = int(info.get("size", 0)), int(info.get("overlap", 0))
    numbers, texts = [], []
    for rank, doc_id in zip(top["rank"], top["doc_id"]):
        n = matched_chunk(run.resources, qid, int(rank))
        numbers.append(None if n is None else n + 1)
        text = None
        if n is not None and str(doc_id) in run.dataset.doc_index:
            try:
                text = snippet(chunk_text(run.dataset, str(doc_id), n, size, overlap), chars)
            except RagdashError:
                text = None
        texts.append(text)
    out = top.copy()
    out["chunk"] = numbers
    if "snippet" in out:
        out["snippet"] = [t if t is not None else s for t, s in zip(texts, out["snippet"])]
    return out
