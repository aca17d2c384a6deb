"""Judgment sets as files: TREC qrels, with each label's source and date in a sidecar.

``write_judgments(jset, "labels.qrels")`` writes two files:

- ``labels.qrels`` — TREC qrels, ``qid 0 docno grade`` (trec_eval, pytrec_eval, ir_measures
  and ``ragdash score`` read it as it is);
- ``labels.qrels.sources.tsv`` — the sidecar: a header ``query-id  doc-id  source  date``,
  then one tab-separated line per label.

``read_judgments(path)`` reads any qrels file ragdash reads, and its sidecar when there is
one; a label the sidecar does not name gets the source ``file:<file name>`` (or the one
given) and the file's modification date.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from ..i18n import dataset_error
from .sets import JudgmentSet, check_source

#: appended to a qrels file's name for its sidecar
SIDECAR_SUFFIX = ".sources.tsv"
_HEADER = ("query-id", "doc-id", "source", "date")


def sidecar_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def _grade_text(grade: float) -> str:
    return str(int(grade)) if float(grade).is_integer() else repr(float(grade))


def qrels_text(jset: JudgmentSet) -> str:
    """The set as TREC qrels text (``qid 0 docno grade`` per line)."""
    return "".join(f"{lb.query_id} 0 {lb.doc_id} {_grade_text(lb.grade)}\n" for lb in jset)


def sidecar_text(jset: JudgmentSet) -> str:
    """The sources sidecar of the set (header, then one line per label, in qrels order)."""
    lines = ["\t".join(_HEADER)]
    lines += [f"{lb.query_id}\t{lb.doc_id}\t{lb.source}\t{lb.date}" for lb in jset]
    return "\n".join(lines) + "\n"


def write_judgments(jset: JudgmentSet, path: str | os.PathLike) -> tuple[Path, Path]:
    """Write the set as TREC qrels at ``path`` and its sidecar beside it; returns both paths.

    TREC qrels separate fields by white space, so an id with a space cannot be written:
    that is a :class:`DatasetError` naming the id, before anything is written."""
    for lb in jset:
        for value in (lb.query_id, lb.doc_id):
            if not value or any(c.isspace() for c in value):
                raise dataset_error("judgments.id_with_space", file=str(path), value=value)
    out = Path(path)
    side = sidecar_path(out)
    try:
        out.write_text(qrels_text(jset), encoding="utf-8")
        side.write_text(sidecar_text(jset), encoding="utf-8")
    except OSError as exc:
        raise dataset_error("judgments.cannot_write", file=str(out), exc=exc) from exc
    return out, side


def read_judgments(path: str | os.PathLike, *, source: str | None = None,
                   name: str | None = None) -> JudgmentSet:
    """A qrels file (any layout ragdash reads) as a :class:`JudgmentSet`.

    Sources and dates come from the sidecar (``<path>.sources.tsv``) where it names the
    pair; else ``source`` (default ``file:<file name>``) and the file's modification date.
    """
    from ..formats.qrels import read_qrels_fast
    from ..loaders import load_qrels

    p = Path(path)
    qrels = read_qrels_fast(p)
    if qrels is None:
        qrels = load_qrels(p)
    fallback = check_source(source) if source else f"file:{p.name}"
    try:
        day = dt.datetime.fromtimestamp(p.stat().st_mtime, dt.UTC).date().isoformat()
    except OSError:
        day = ""
    side = _read_sidecar(sidecar_path(p))
    jset = JudgmentSet(name or (source or p.name))
    for q, judged in qrels.items():
        for d, g in judged.items():
            src, when = side.get((q, d), (fallback, day))
            jset.add(q, d, g, src, when)
    return jset


def _read_sidecar(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise dataset_error("judgments.sidecar_unreadable", file=str(path),
                            kind=type(exc).__name__) from exc
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or (number == 1 and line.split("\t")[0] == _HEADER[0]):
            continue
        fields = line.split("\t")
        if len(fields) != 4:
            raise dataset_error("judgments.sidecar_fields", file=str(path), line=number,
                                found=len(fields))
        q, d, src, when = fields
        try:
            src = check_source(src)
        except Exception as exc:  # a DatasetError without the place: say the line
            raise dataset_error("judgments.sidecar_source", file=str(path), line=number,
                                source=src[:80]) from exc
        out[(q, d)] = (src, when.strip())
    return out
