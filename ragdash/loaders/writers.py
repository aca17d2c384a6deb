"""Write a dataset out in BEIR's layout (what the samples ship and the tests round-trip).

``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``, ``text``),
``qrels/<split>.tsv`` with the header ``query-id corpus-id score``. Integral grades are
written as integers ("2", not "2.0"), so the files read like BEIR's own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..dataset import Dataset


def _grade(g: float) -> str:
    return str(int(g)) if float(g).is_integer() else repr(float(g))


def write_beir(dataset: Dataset, folder: str | os.PathLike, *, split: str = "test") -> Path:
    """Write ``dataset`` under ``folder`` (created); returns the folder."""
    out = Path(folder)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for d in dataset.documents:
            f.write(json.dumps({"_id": d.id, "title": d.title, "text": d.text},
                               ensure_ascii=False) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for q in dataset.queries:
            f.write(json.dumps({"_id": q.id, "text": q.text}, ensure_ascii=False) + "\n")
    with open(out / "qrels" / f"{split}.tsv", "w", encoding="utf-8", newline="\n") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, row in dataset.qrels.items():
            for did, g in row.items():
                f.write(f"{qid}\t{did}\t{_grade(g)}\n")
    return out
