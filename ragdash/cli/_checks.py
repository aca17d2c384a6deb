"""What the command line says about a dataset before anything is retrieved or paid for.

- :func:`report_warnings`: the validation findings the app's Data page shows (qrels naming
  unknown documents or queries, duplicates, negative grades, empty texts, ...), on stderr, one
  line each with its count and first examples; returned as dicts for ``--format json``'s
  ``"warnings"``; and the encoding of any file that was not UTF-8.
- :func:`refuse_errors`: a finding of level error (no judged document in the corpus, no query
  with qrels) stops the command before anything is retrieved, exit 2.
- :func:`refuse_untrec_ids`: with ``--save-run``, an id that a TREC run file cannot hold (it
  would be split into more columns, and ``score`` could not read the file back) stops the
  command before the first request, naming the id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..formats.trec_run import first_unsafe_id, unsafe_id_error
from ..i18n import dataset_error, text
from ..validation import CHECKS
from . import _output
from ._output import note

if TYPE_CHECKING:
    from ..dataset import Dataset

#: how many findings are printed on stderr before "... and N more"
SHOWN = 10


def report_warnings(dataset: Dataset) -> list[dict]:
    """Print the dataset's validation errors and warnings on stderr; return them as dicts
    (``{"code", "level", "message", "count", "examples"}``) for JSON output."""
    found = [issue for check in CHECKS for issue in check(dataset)
             if issue.level in ("error", "warning")]
    if found:
        note(text("cli.findings", n=len(found), dataset=dataset.name))
    for issue in found[:SHOWN]:
        said = issue.said(_output.LANG)
        note(text("cli.level_error", issue=said) if issue.level == "error" else
             text("cli.level_warning", issue=said))
    if len(found) > SHOWN:
        note(text("cli.findings_more", n=len(found) - SHOWN))
    for said in dataset.notes:  # a file read as Shift_JIS, EUC-JP or UTF-16 says so
        if getattr(said, "code", None) == "encoding":
            note(text("cli.note", note=said))
    return [issue.to_dict() for issue in found]


def refuse_errors(dataset: Dataset, found: list[dict]) -> None:
    """Raise a DatasetError (exit 2) when the findings hold an error: no judged document in
    the corpus, no query with qrels, ... — every metric would be 0, so nothing is retrieved
    (or paid for) and no table of zeros is printed."""
    errors = [f for f in found if f["level"] == "error"]
    if errors:
        raise dataset_error("cli.cannot_evaluate", file=dataset.name, n=len(errors))


def refuse_untrec_ids(dataset: Dataset, flag: str = "--save-run") -> None:
    """Raise a DatasetError naming the first evaluated query id or document id that a TREC
    run file cannot hold."""
    fix = (f"remove spaces and tabs from the ids in the dataset, or drop {flag} and keep the "
           f"run with --store (the run store holds any id)")
    bad = first_unsafe_id(q.id for q in dataset.evaluated_queries())
    if bad is not None:
        raise unsafe_id_error("query", bad, fix=fix)
    bad = first_unsafe_id(d.id for d in dataset.documents)
    if bad is not None:
        raise unsafe_id_error("document", bad, fix=fix)
