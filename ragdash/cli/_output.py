"""Output helpers shared by the CLI commands: --k and --format options, tables, JSON.

- :func:`add_k_option` / :func:`parse_ks`: ``--k 1,5,10`` (ranges allowed: ``1-10``, so
  ``--k 1-100`` asks for the whole curve), with one-line errors.
- :func:`add_judging_options`: ``--relevance-level`` and ``--gain``.
- :func:`add_format_option`: ``--format table|json``.
- :func:`format_metrics`: ``{"ndcg@10": 0.81, ...}`` as an aligned table, one row per metric
  family (registry order), one column per K, wrapped into blocks when too wide.
- :func:`format_table`: any aligned table (first column is the row label), wrapped likewise.
- :func:`to_json`: ``ensure_ascii=False``, insertion key order (callers build dicts in a fixed
  order, so output is stable), NaN/inf become ``null``, numpy scalars become numbers.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence

from ..errors import MetricError
from ..i18n import error
from ..params import EVALUATION

FORMATS = ("table", "json")

#: ``--k`` when not given: the usual reporting cutoffs
DEFAULT_K_TEXT = ",".join(map(str, EVALUATION["k"].default))

#: the largest K accepted (a guard against typos like 1000000)
MAX_K = int(EVALUATION["k"].high)


# -- options -------------------------------------------------------------------------------
def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> ``[1, 5, 10]``; ``"1-3,10"`` -> ``[1, 2, 3, 10]``.

    Sorted ascending, duplicates removed. Raises :class:`MetricError` (one line) on anything
    else: empty items, non-integers, K < 1, K > :data:`MAX_K`, reversed ranges.
    """
    items = [p.strip() for p in str(text).split(",")]
    if not any(items):
        raise error(MetricError, "cli.k_empty")
    ks: set[int] = set()
    for item in items:
        if not item:
            raise error(MetricError, "cli.k_empty_item", text=text)
        lo_text, dash, hi_text = item.partition("-")
        try:
            lo = int(lo_text)
            hi = int(hi_text) if dash else lo
        except ValueError:
            raise error(MetricError, "cli.k_not_whole", item=item) from None
        if lo < 1 or hi < 1:
            raise error(MetricError, "cli.k_below_one", item=item)
        if hi < lo:
            raise error(MetricError, "cli.k_backwards", item=item, hi=hi, lo=lo)
        if hi > MAX_K:
            raise error(MetricError, "cli.k_too_large", hi=hi, most=MAX_K)
        ks.update(range(lo, hi + 1))
    return sorted(ks)


def add_k_option(parser: argparse.ArgumentParser, default: str = DEFAULT_K_TEXT) -> None:
    """``--k``: parse the value with :func:`parse_ks` inside the command's ``run``."""
    parser.add_argument(
        "--k", default=default, metavar="LIST",
        help=f"cutoffs K to report, comma separated, ranges allowed (e.g. 1,5,10 or 1-100); "
             f"default {default}")


def add_judging_options(parser: argparse.ArgumentParser) -> None:
    """``--relevance-level N`` and ``--gain linear|exponential``: how the grades are read
    (``evaluate`` and ``score``; passed on to :func:`ragdash.metrics.evaluate`)."""
    from ._flags import add_params

    add_params(parser, [EVALUATION["relevance_level"], EVALUATION["gain"]],
               keep_default=("gain",))


def add_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=FORMATS, default="table",
        help="table: aligned text for people (default); json: one JSON object on stdout "
             "for scripts")


# -- text tables ---------------------------------------------------------------------------
def format_number(value, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return f"{int(value):,}"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    return "n/a" if not math.isfinite(v) else f"{v:.{digits}f}"


def _width(text: str) -> int:
    """Display width: East Asian wide and fullwidth characters take two columns."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(0, width - _width(text))
    return gap + text if right else text + gap


def terminal_width(default: int = 100) -> int:
    return shutil.get_terminal_size((default, 24)).columns if sys.stdout.isatty() else default


def format_table(headers: Sequence[str], rows: Iterable[Sequence], *, digits: int = 4,
                 max_width: int | None = None, gap: int = 2) -> str:
    """An aligned text table; the first column (row labels) is left aligned, the others right.

    Cells that are not strings go through :func:`format_number`. When the table is wider than
    ``max_width`` (default: the terminal, or 100), value columns are split into blocks that
    each repeat the label column.
    """
    text_rows = [[c if isinstance(c, str) else format_number(c, digits) for c in r]
                 for r in rows]
    headers = [str(h) for h in headers]
    ncol = len(headers)
    widths = [max([_width(headers[j])] + [_width(r[j]) for r in text_rows]) for j in range(ncol)]
    limit = max_width or terminal_width()
    blocks: list[list[int]] = []
    current: list[int] = []
    used = widths[0] if ncol else 0
    for j in range(1, ncol):
        if current and used + gap + widths[j] > limit:
            blocks.append(current)
            current, used = [], widths[0]
        current.append(j)
        used += gap + widths[j]
    if current or not blocks:
        blocks.append(current)
    sep = " " * gap
    out: list[str] = []
    for b, cols in enumerate(blocks):
        if b:
            out.append("")
        idx = [0, *cols] if ncol else []
        out.append(sep.join(_pad(headers[j], widths[j], j > 0) for j in idx).rstrip())
        out.append(sep.join("-" * widths[j] for j in idx))
        for r in text_rows:
            out.append(sep.join(_pad(r[j], widths[j], j > 0) for j in idx).rstrip())
    return "\n".join(out)


def format_metrics(metrics: Mapping[str, float], *, digits: int = 4,
                   max_width: int | None = None, layout: str = "auto") -> str:
    """``{"recall@1": .., "recall@10": .., "ndcg@10": ..}`` as an aligned table.

    ``layout="families"``: one row per family (registry order), one column per K;
    ``layout="ks"``: one row per K, one column per family (for long K lists, e.g. 1-100);
    ``"auto"``: families as rows when that fits ``max_width``, else K as rows.
    Names that are not ``family@k`` are listed after the table, one per line.
    """
    from ..metrics import FAMILIES, parse_metric  # light: registry only

    grid: dict[str, dict[int, float]] = {}
    ks: set[int] = set()
    extra: dict[str, float] = {}
    for name, value in metrics.items():
        try:
            fam, k = parse_metric(name)
        except MetricError:
            fam, k = None, None
        if fam is None or k is None:
            extra[name] = value
            continue
        grid.setdefault(fam, {})[k] = value
        ks.add(k)
    k_list = sorted(ks)
    fams = [f for f in FAMILIES if f in grid]
    rows = [[FAMILIES[f].label, *(grid[f].get(k) for k in k_list)] for f in fams]
    parts = []
    if rows:
        limit = max_width or terminal_width()
        label_w = max(len("metric"), *(len(FAMILIES[f].label) for f in fams))
        fits = label_w + len(k_list) * (digits + 4) <= limit
        if layout == "ks" or (layout == "auto" and not fits):
            parts.append(format_table(["K", *(FAMILIES[f].label for f in fams)],
                                      [[str(k), *(grid[f].get(k) for f in fams)]
                                       for k in k_list], digits=digits, max_width=max_width))
        else:
            parts.append(format_table(["metric", *(f"@{k}" for k in k_list)], rows,
                                      digits=digits, max_width=max_width))
    parts.extend(f"{n}: {format_number(v, digits)}" for n, v in extra.items())
    return "\n".join(parts)


# -- JSON ----------------------------------------------------------------------------------
def _jsonable(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return _jsonable(obj.tolist())
    return str(obj)


def _default(obj):
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return obj.tolist()
    raise TypeError


def to_json(obj, *, indent: int | None = 2) -> str:
    """JSON text: non-ASCII kept as is, keys in insertion order, NaN/inf as null."""
    try:  # fast path: plain data, all finite
        return json.dumps(obj, ensure_ascii=False, indent=indent, allow_nan=False,
                          default=_default)
    except (ValueError, TypeError):
        return json.dumps(_jsonable(obj), ensure_ascii=False, indent=indent, allow_nan=False)


#: control characters a terminal acts on (ESC starts a colour or a title, BEL rings, CR
#: overwrites the line, C1's CSI as ESC [): a name or id from a file is never printed raw
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe_text(text: str) -> str:
    """``text`` with every control character but the tab and the line break written as
    ``\\u001b``: what a terminal shows as text (and still valid inside a JSON string)."""
    if not _TERMINAL_CONTROLS.search(text):
        return text
    return _TERMINAL_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def emit(text: str, *, stream=None) -> None:
    stream = sys.stdout if stream is None else stream
    text = safe_text(text)
    stream.write(text if text.endswith("\n") else text + "\n")


#: the language note() speaks (ragdash.cli.main sets it from --lang / RAGDASH_LANG)
LANG = "en"


def note(text: str) -> None:
    """A line for people on stderr (counts, warnings), so stdout stays parseable; a text
    with a message id (ragdash.i18n.text) is said in :data:`LANG`."""
    if LANG != "en":
        from ..i18n import message

        text = message(text, LANG)
    print(safe_text(str(text)), file=sys.stderr)


def note_if_reused(run) -> None:
    """Say on stderr when saving ``run`` found the same run already saved (the store then
    returns that run's id and writes nothing)."""
    if getattr(run, "reused", False):
        from ..i18n import text

        note(text("cli.already_stored", run_id=run.id))
