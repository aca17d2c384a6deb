"""The price catalog: USD per 1M input tokens for embedding models, with source and date.

The defaults ship in ``ragdash/data/prices.csv``; a user's additions and edits live in
``$RAGDASH_HOME/prices.user.csv`` (default ``./.ragdash/``) and are merged over the defaults
by (provider, model), case-insensitively. The package file is never written.

Columns (a user file needs only the first three)::

    provider, model, usd_per_1m, batch_usd_per_1m, source_url, as_of, jpy_per_usd, notes,
    truncatable

``batch_usd_per_1m`` is empty when the provider has no batch price. ``jpy_per_usd`` is a row's
own effective exchange rate (a reseller billing ¥1 per $1 of list price has 1 here); empty
means the global rate (:mod:`ragdash.cost.currency`). A row whose model is ``*`` prices every
model of its provider (``local,*`` = any model run on this machine) and is used only when the
provider is named.

``truncatable`` says whether the model was trained so that its vectors can be cut to fewer
dimensions and re-normalized (Matryoshka representation learning: text-embedding-3-*,
jina-embeddings-v3, voyage-3.5, ...): ``yes``, ``no`` or empty (not known). The dimension sweep
warns when it truncates a model that is not marked ``yes``.
"""

from __future__ import annotations

import csv
import difflib
import io
import os
import re
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path

from ..errors import CostError
from ..home import ragdash_home, remove_file
from ..i18n import error, has, t, text

DEFAULT_PRICES = Path(__file__).resolve().parent.parent / "data" / "prices.csv"
USER_PRICES_NAME = "prices.user.csv"
COLUMNS = ["provider", "model", "usd_per_1m", "batch_usd_per_1m", "source_url", "as_of",
           "jpy_per_usd", "notes", "truncatable"]
REQUIRED = ["provider", "model", "usd_per_1m"]
WILDCARD = "*"

#: sane ranges, so that a typo (1e308, a rate of 1e30) is refused with a sentence rather than
#: saved to turn into an infinite cost or a 31-digit yen amount later: no price list charges
#: more than $10,000 per unit (1M tokens, 1k searches), and no currency has been worth more
#: than 10,000 yen or less than 0.01 yen per dollar (a reseller's ¥1 = $1 is 1)
MAX_USD_PER_UNIT = 10_000.0
MIN_JPY_PER_USD = 0.01
MAX_JPY_PER_USD = 10_000.0


def rate_in_range(value: float) -> bool:
    return MIN_JPY_PER_USD <= value <= MAX_JPY_PER_USD


def user_prices_path() -> Path:
    return ragdash_home() / USER_PRICES_NAME


def catalog_error(msg_id: str, /, *, file: str | Path | None = None, line: int | None = None,
                  **params: object) -> CostError:
    """A :class:`CostError` worded ``"<file>, line <n>: <problem>. <fix>."`` from the
    catalog's ``msg.<msg_id>`` and ``msg.<msg_id>.fix``; it carries the id (and, like a
    DatasetError, ``problem``, ``file``, ``line``, ``fix``) so the app says it in Japanese."""
    problem = t(f"msg.{msg_id}", "en", **params)
    fix = t(f"msg.{msg_id}.fix", "en", **params) if has(f"msg.{msg_id}.fix") else None
    msg = problem.rstrip(".") + "."
    where = ", ".join(x for x in (str(file) if file else "",
                                  f"line {line}" if line is not None else "") if x)
    if where:
        msg = f"{where}: {msg}"
    if fix:
        msg += " " + fix.rstrip(".") + "."
    err = CostError(msg)
    err.problem, err.file, err.line, err.fix = problem, (str(file) if file else None), line, fix
    err.msg_id, err.params = msg_id, dict(params)
    return err


@dataclass(frozen=True)
class PriceRow:
    """One model's price. ``origin`` is ``"default"`` or ``"user"``."""

    provider: str
    model: str
    usd_per_1m: float
    batch_usd_per_1m: float | None = None
    source_url: str = ""
    as_of: str = ""
    jpy_per_usd: float | None = None
    notes: str = ""
    origin: str = "default"
    truncatable: bool | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.provider.casefold(), self.model.casefold())

    @property
    def label(self) -> str:
        return f"{self.provider} / {self.model}"

    @property
    def is_wildcard(self) -> bool:
        return self.model == WILDCARD

    def to_dict(self) -> dict:
        return asdict(self)

    def __post_init__(self) -> None:
        problems = validate_values(self)
        if problems:  # "<label>: <problem>. <Fix>." with message ids (cost.row_*)
            problem, fix = problems[0]
            err = error(CostError, "cost.row_invalid", label=self.label, problem=problem,
                        fix=fix)
            err.file, err.line, err.fix = None, None, str(fix)
            raise err


def validate_values(row: PriceRow) -> list[tuple[str, str]]:
    """(problem, fix) pairs for a row's values; empty when the row is fine."""
    out = []
    if not row.provider.strip():
        out.append((text("cost.row_no_provider"), text("cost.row_no_provider_fix")))
    if not row.model.strip():
        out.append((text("cost.row_no_model"), text("cost.row_no_model_fix")))
    for name in ("usd_per_1m", "batch_usd_per_1m"):
        value = getattr(row, name)
        if value is not None and not value >= 0:
            out.append((text("cost.row_negative", column=name, value=value),
                        text("cost.row_negative_fix", column=name)))
        elif value is not None and value > MAX_USD_PER_UNIT:
            out.append((text("cost.row_price_too_high", column=name, value=f"{value:g}",
                             most=f"{MAX_USD_PER_UNIT:,.0f}"),
                        text("cost.row_negative_fix", column=name)))
    if row.jpy_per_usd is not None and not row.jpy_per_usd > 0:
        out.append((text("cost.row_bad_rate", value=row.jpy_per_usd),
                    text("cost.row_bad_rate_fix")))
    elif row.jpy_per_usd is not None and not rate_in_range(row.jpy_per_usd):
        out.append((text("cost.row_rate_out_of_range", value=f"{row.jpy_per_usd:g}",
                         low=f"{MIN_JPY_PER_USD:g}", high=f"{MAX_JPY_PER_USD:,.0f}"),
                    text("cost.row_bad_rate_fix")))
    return out


# -- reading and writing files -----------------------------------------------------------------

def _number(text: str, column: str, file, line: int, *, optional: bool) -> float | None:
    text = text.strip()
    if not text:
        if optional:
            return None
        raise catalog_error("cost.cat_empty_cell", file=file, line=line, column=column)
    cleaned = text.lstrip("$").replace(",", "") if column != "jpy_per_usd" else \
        text.lstrip("¥").replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise (catalog_error("cost.cat_not_number", file=file, line=line, column=column,
                             text=text) if column != "jpy_per_usd" else
               catalog_error("cost.cat_rate_not_number", file=file, line=line, column=column,
                             text=text)) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise catalog_error("cost.cat_not_finite", file=file, line=line, column=column,
                            text=text)
    if value < 0:
        raise catalog_error("cost.cat_negative", file=file, line=line, column=column,
                            text=text)
    if column == "jpy_per_usd" and value == 0:
        raise catalog_error("cost.cat_zero_rate", file=file, line=line)
    if column == "jpy_per_usd" and not rate_in_range(value):
        raise catalog_error("cost.cat_rate_out_of_range", file=file, line=line, text=text,
                            low=f"{MIN_JPY_PER_USD:g}", high=f"{MAX_JPY_PER_USD:,.0f}")
    if column != "jpy_per_usd" and value > MAX_USD_PER_UNIT:
        raise catalog_error("cost.cat_price_too_high", file=file, line=line, column=column,
                            text=text, most=f"{MAX_USD_PER_UNIT:,.0f}")
    return value


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_catalog(text: str, *, file: str | Path = "<prices>", origin: str = "default"
                  ) -> list[PriceRow]:
    """Rows from CSV text, validated. Errors name the file, the line and the fix."""
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    rows: list[PriceRow] = []
    seen: dict[tuple[str, str], int] = {}
    for record in reader:
        line = reader.line_num
        if not record or all(not c.strip() for c in record) or \
                record[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = _header(record, file, line)
            continue
        row = _row(header, record, file, line, origin)
        if row.key in seen:
            raise catalog_error("cost.cat_twice", file=file, line=line, provider=row.provider,
                                model=row.model, first=seen[row.key])
        seen[row.key] = line
        rows.append(row)
    if header is None:
        raise catalog_error("cost.cat_empty_file", file=file, line=1, columns=",".join(COLUMNS))
    return rows


def _header(record: list[str], file, line: int) -> list[str]:
    """The header line's column names (casefolded), checked."""
    header = [c.strip().casefold() for c in record]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        said = {"file": file, "line": line, "missing": ", ".join(missing),
                "header": ", ".join(record), "columns": ",".join(COLUMNS)}
        raise (catalog_error("cost.cat_missing_columns", **said) if len(missing) > 1
               else catalog_error("cost.cat_missing_column", **said))
    dupes = sorted({c for c in header if c and header.count(c) > 1})
    if dupes:
        raise catalog_error("cost.cat_column_twice", file=file, line=line, column=dupes[0])
    return header


def _row(header: list[str], record: list[str], file, line: int, origin: str) -> PriceRow:
    """One data line as a row, each cell checked."""
    if len(record) > len(header):
        raise catalog_error("cost.cat_too_many_fields", file=file, line=line,
                            fields=len(record), width=len(header))
    cells = dict(zip(header, (c.strip() for c in record)))
    provider, model = cells.get("provider", ""), cells.get("model", "")
    if not provider:
        raise catalog_error("cost.cat_no_provider", file=file, line=line)
    if not model:
        raise catalog_error("cost.cat_no_model", file=file, line=line)
    as_of = cells.get("as_of", "")
    if as_of and not _is_date(as_of):
        raise catalog_error("cost.cat_bad_date", file=file, line=line, as_of=as_of)
    return PriceRow(
        provider=provider, model=model,
        usd_per_1m=_number(cells.get("usd_per_1m", ""), "usd_per_1m", file, line,
                           optional=False),
        batch_usd_per_1m=_number(cells.get("batch_usd_per_1m", ""), "batch_usd_per_1m",
                                 file, line, optional=True),
        source_url=cells.get("source_url", ""), as_of=as_of,
        jpy_per_usd=_number(cells.get("jpy_per_usd", ""), "jpy_per_usd", file, line,
                            optional=True),
        notes=cells.get("notes", ""), origin=origin,
        truncatable=_yes_no(cells.get("truncatable", ""), file, line),
    )


def _is_date(text: str) -> bool:
    if not _ISO_DATE.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


_YES = {"yes": True, "y": True, "true": True, "1": True, "no": False, "n": False,
        "false": False, "0": False}


def _yes_no(text: str, file, line: int) -> bool | None:
    text = text.strip().casefold()
    if not text:
        return None
    if text not in _YES:
        raise catalog_error("cost.cat_bad_yes_no", file=file, line=line, text=text)
    return _YES[text]


def read_catalog_file(path: str | Path, *, origin: str = "default") -> list[PriceRow]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise catalog_error("cost.cat_not_found", file=path) from None
    except UnicodeDecodeError as exc:
        raise catalog_error("cost.cat_not_utf8", file=path, reason=exc.reason) from None
    except OSError as exc:
        raise catalog_error("cost.cat_unreadable", file=path, reason=exc.strerror) from None
    return parse_catalog(text, file=path, origin=origin)


def _fmt(value: float | None) -> str:
    return "" if value is None else repr(float(value)) if value != int(value) else str(int(value))


def rows_to_csv(rows: list[PriceRow]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([r.provider, r.model, _fmt(r.usd_per_1m), _fmt(r.batch_usd_per_1m),
                         r.source_url, r.as_of, _fmt(r.jpy_per_usd), r.notes,
                         "" if r.truncatable is None else "yes" if r.truncatable else "no"])
    return buf.getvalue()


# -- the catalog ---------------------------------------------------------------------------

_VENDOR_PREFIX = re.compile(r"^(?:models/|[a-z]+\.)")
_VERSION_SUFFIX = re.compile(r":\d+$")


def _loose(name: str) -> str:
    """``amazon.titan-embed-text-v2:0`` → ``titan-embed-text-v2``; ``models/x`` → ``x``."""
    name = name.casefold().strip()
    name = _VERSION_SUFFIX.sub("", name)
    return _VENDOR_PREFIX.sub("", name)


@dataclass
class Catalog:
    """The merged price list: defaults, then the user's rows over them."""

    rows: list[PriceRow]
    sources: list[str] = field(default_factory=list)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def providers(self) -> list[str]:
        seen: dict[str, str] = {}
        for r in self.rows:
            seen.setdefault(r.provider.casefold(), r.provider)
        return list(seen.values())

    def priced_rows(self) -> list[PriceRow]:
        """Every concrete model row (no ``*`` rows), cheapest first."""
        rows = [r for r in self.rows if not r.is_wildcard]
        return sorted(rows, key=lambda r: (r.usd_per_1m, r.provider.casefold(),
                                           r.model.casefold()))

    def find(self, model: str, provider: str | None = None) -> PriceRow:
        """The row for ``model`` (and ``provider`` when given); case-insensitive.

        Without a provider, a model sold by several providers resolves to the first in
        catalog order (the defaults list the model's maker first). ``provider/model`` is
        accepted when ``provider`` names a known provider. A vendor prefix or version suffix
        (``amazon.titan-embed-text-v2:0``, ``models/gemini-embedding-001``) is tolerated.
        Unknown names raise :class:`CostError` listing close matches.
        """
        model = (model or "").strip()
        if not model:
            wild = [r for r in self.rows if r.is_wildcard and provider is not None
                    and r.provider.casefold() == provider.strip().casefold()]
            if wild:  # e.g. a local model whose name is not typed yet: still free
                return wild[0]
            raise error(CostError, "cost.no_model_given")
        if provider is None and "/" in model:
            head, tail = model.split("/", 1)
            if head.casefold() in {p.casefold() for p in self.providers}:
                provider, model = head, tail
        rows = self.rows
        if provider is not None:
            pf = provider.strip().casefold()
            rows = [r for r in self.rows if r.provider.casefold() == pf]
            if not rows:
                close = difflib.get_close_matches(pf, [p.casefold() for p in self.providers],
                                                  n=3, cutoff=0.5)
                names = [p for p in self.providers if p.casefold() in close]
                raise error(CostError, "cost.unknown_provider", provider=provider,
                            mean=text("cost.did_you_mean", names=_or(names)) if names else "",
                            known=", ".join(self.providers))
        mf = model.casefold()
        for match in (lambda r: r.model.casefold() == mf,
                      lambda r: _loose(r.model) == _loose(model)):
            hits = [r for r in rows if not r.is_wildcard and match(r)]
            if hits:
                return hits[0]
        if provider is not None:
            wild = [r for r in rows if r.is_wildcard]
            if wild:
                return wild[0]
        raise self._unknown(model, provider, rows)

    def _unknown(self, model: str, provider: str | None, rows: list[PriceRow]) -> CostError:
        pool = [r for r in (rows if provider is not None else self.rows) if not r.is_wildcard]
        providers_of: dict[str, list[str]] = {}
        spelled: dict[str, str] = {}
        for r in pool:
            providers_of.setdefault(r.model.casefold(), []).append(r.provider)
            spelled.setdefault(r.model.casefold(), r.model)
        close = difflib.get_close_matches(model.casefold(), list(providers_of), n=5,
                                          cutoff=0.5)
        labels = [f"{spelled[c]} ({', '.join(providers_of[c])})" for c in close]
        # one sentence of parts with message ids (catalog/core.toml cost.*)
        head = (text("cost.unknown_model_for", model=model, provider=provider) if provider
                else text("cost.unknown_model", model=model))
        matches = (text("cost.close_matches", names=", ".join(labels)) if labels
                   else text("cost.known_models", names=", ".join(sorted(spelled.values()))))
        local = (text("cost.local_hint") if provider is None
                 and any(r.is_wildcard for r in self.rows) else "")
        return error(CostError, "cost.unknown", head=head, matches=matches, local=local,
                     add=text("cost.add_row", path=str(user_prices_path())))

    def to_frame(self):
        """A pandas DataFrame of the rows (pandas imported only here, for the app)."""
        import pandas as pd

        return pd.DataFrame([r.to_dict() for r in self.rows],
                            columns=[*COLUMNS, "origin"])


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else text("cost.or_names", names=", ".join(names[:-1]),
                                                 last=names[-1])


def merge_rows(defaults: list[PriceRow], user: list[PriceRow]) -> list[PriceRow]:
    """User rows replace defaults with the same (provider, model) in place; new ones follow.
    A user row that leaves ``truncatable`` empty keeps the default's (a price edit is not a
    statement about the model's training)."""
    by_key = {r.key: r for r in user}
    merged = []
    for r in defaults:
        mine = by_key.pop(r.key, None)
        if mine is not None and mine.truncatable is None and r.truncatable is not None:
            mine = replace(mine, truncatable=r.truncatable)
        merged.append(mine or r)
    merged.extend(r for r in user if r.key in by_key)
    return merged


def load_default_rows() -> list[PriceRow]:
    return read_catalog_file(DEFAULT_PRICES, origin="default")


def load_user_rows(user_path: str | Path | None = None) -> list[PriceRow]:
    path = Path(user_path) if user_path is not None else user_prices_path()
    if not path.exists():
        return []
    return read_catalog_file(path, origin="user")


def load_catalog(user_path: str | Path | None = None, *, include_user: bool = True) -> Catalog:
    """The defaults merged with the user's rows (``$RAGDASH_HOME/prices.user.csv``)."""
    defaults = load_default_rows()
    sources = [str(DEFAULT_PRICES)]
    user: list[PriceRow] = []
    if include_user:
        path = Path(user_path) if user_path is not None else user_prices_path()
        user = load_user_rows(path)
        if user:
            sources.append(str(path))
    return Catalog(merge_rows(defaults, user), sources)


def _atomic_write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise catalog_error("cost.cat_unwritable", file=path, reason=exc.strerror) from None


def save_user_rows(rows: list[PriceRow], user_path: str | Path | None = None) -> Path:
    """Write the user's complete set of rows (replacing the file); returns its path.

    Rows are validated; duplicates (same provider and model) are refused.
    """
    path = Path(user_path) if user_path is not None else user_prices_path()
    rows = [replace(r, origin="user") for r in rows]
    seen: set[tuple[str, str]] = set()
    for r in rows:
        if r.key in seen:
            raise catalog_error("cost.cat_given_twice", file=path, label=r.label)
        seen.add(r.key)
    _atomic_write(path, rows_to_csv(rows))
    return path


def upsert_user_row(row: PriceRow, user_path: str | Path | None = None) -> Path:
    """Add ``row`` to the user's rows, replacing one with the same provider and model."""
    rows = [r for r in load_user_rows(user_path) if r.key != row.key]
    rows.append(row)
    return save_user_rows(rows, user_path)


def delete_user_row(provider: str, model: str, user_path: str | Path | None = None) -> bool:
    """Remove the user's row for (provider, model); the default (if any) shows again."""
    key = (provider.casefold(), model.casefold())
    rows = load_user_rows(user_path)
    kept = [r for r in rows if r.key != key]
    if len(kept) == len(rows):
        return False
    save_user_rows(kept, user_path)
    return True


def reset_user_catalog(user_path: str | Path | None = None) -> bool:
    """Delete the user's price file: back to the shipped defaults. True if one existed."""
    return remove_file(user_path if user_path is not None else user_prices_path())
