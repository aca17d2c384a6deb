"""What the per-service price tables (rerank, chat) share: reading a CSV of rows keyed by
(provider, model), the user's file laid over the shipped one, and finding a model's row.

A table is a CSV with ``provider`` and ``model`` columns and the service's own price columns;
``row(cells, line)`` turns one record's stripped cells into the service's price object (and
checks its numbers with :func:`ragdash.cost.catalog._number`). A user's rows in
``$RAGDASH_HOME/<name>`` replace the shipped row of the same (provider, model) or add one. A
``*`` model prices every model of its provider (``local,*``: a model on this machine, free).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ..home import ragdash_home
from .catalog import catalog_error

Row = TypeVar("Row")

__all__ = ["find_row", "load_rows", "read_rows"]


def read_rows(text: str, *, file: str | Path, columns: Sequence[str], required: int,
              missing: Callable[..., Exception], row: Callable[[dict, int], Row]) -> list[Row]:
    """The rows of a price table's ``text``; a missing column (of the first ``required``:
    ``missing(file=, line=, missing=, columns=)`` is the table's own error) or a row without
    provider or model is one sentence naming the file and the line."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    absent = [c for c in columns[:required] if c not in (reader.fieldnames or [])]
    if absent:
        raise missing(file=file, line=1, missing=", ".join(absent), columns=",".join(columns))
    rows = []
    for record in reader:
        line = reader.line_num
        cells = {k: (v or "").strip() for k, v in record.items() if k}
        if not cells.get("provider") or not cells.get("model"):
            raise catalog_error("cost.rr_empty", file=file, line=line)
        rows.append(row(cells, line))
    return rows


def load_rows(parse: Callable[..., list[Row]], shipped: Path, user_name: str,
              user_path: str | Path | None = None) -> list[Row]:
    """The shipped rows, then the user's rows over them (by provider and model)."""
    rows = parse(shipped.read_text(encoding="utf-8"), file=shipped)
    path = Path(user_path) if user_path else ragdash_home() / user_name
    if path.exists():
        user = parse(path.read_text(encoding="utf-8"), file=path)
        keys = {(r.provider.casefold(), r.model.casefold()) for r in user}
        rows = [r for r in rows if (r.provider.casefold(), r.model.casefold()) not in keys]
        rows += user
    return rows


def find_row(rows: Sequence[Row], model: str, provider: str | None = None) -> Row | None:
    """The row for ``model`` (of ``provider`` when given; that provider's ``*`` row as a last
    resort); None when it is not priced."""
    mf = (model or "").casefold()
    pf = provider.casefold() if provider else None
    for r in rows:
        if r.model.casefold() == mf and (pf is None or r.provider.casefold() == pf):
            return r
    if pf is not None:
        for r in rows:
            if r.model == "*" and r.provider.casefold() == pf:
                return r
    return None
