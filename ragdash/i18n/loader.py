"""Reading the catalog's data files (``ragdash/i18n/catalog/*.toml``, format in its README).

``languages.toml`` declares the languages (order, own name, plural rule); every other file
is one area of messages, ``["key"]`` tables with one value per language. Parsing all of them
with :mod:`tomllib` takes ~40 ms, more than the rest of the import, so the parse is kept
(marshal) in the user's cache folder (``$XDG_CACHE_HOME/ragdash``, else ``~/.cache/ragdash``),
checked against each file's size and modification time. Nothing is written beside the
package, and a cache folder that cannot be written means parsing each time, nothing worse.
"""

from __future__ import annotations

import ast
import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path

CATALOG_DIR = Path(__file__).with_name("catalog")
LANGUAGES_FILE = "languages.toml"
#: The plural categories a form may be named after (CLDR's names; ``other`` is required).
PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")
_CACHE_FORMAT = 1  # bump when the cached shape changes


def area_files(folder: Path = CATALOG_DIR) -> list[Path]:
    return sorted(p for p in folder.glob("*.toml") if p.name != LANGUAGES_FILE)


def _parse(path: Path) -> dict:
    import tomllib  # only when the cache is stale (its import alone costs ~5 ms)

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _check_shape(path: Path, data: dict) -> None:
    for key, entry in data.items():
        if not isinstance(entry, dict):
            raise ValueError(f'{path}: {key!r} is not a table; write it as ["{key}"] with one '
                             'line per language')
        for lang, value in entry.items():
            if isinstance(value, dict):
                if not all(isinstance(v, str) for v in value.values()):
                    raise ValueError(f"{path}: {key!r} {lang}: plural forms must be strings")
            elif not isinstance(value, str):
                raise ValueError(f"{path}: {key!r} {lang}: a text must be a string or a table "
                                 "of plural forms { one = ..., other = ... }")


def cache_file(folder: Path = CATALOG_DIR) -> Path:
    """Where the parse of ``folder`` is kept (one file per catalog folder and Python)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    tag = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:12]
    return Path(base) / "ragdash" / f"catalog-{tag}.{sys.implementation.cache_tag}.marshal"


def read(folder: Path = CATALOG_DIR) -> tuple[dict, dict[str, dict]]:
    """``(languages, {area: {key: entry}})`` as the files say, from the cache when it is
    current."""
    files = [folder / LANGUAGES_FILE, *area_files(folder)]
    stamp = [_CACHE_FORMAT]
    for f in files:
        st = f.stat()
        stamp.append((f.name, st.st_size, st.st_mtime_ns))
    cache = cache_file(folder)
    try:
        saved_stamp, data = marshal.loads(cache.read_bytes())
        if saved_stamp == stamp:
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass
    languages = _parse(files[0])
    areas = {}
    for f in files[1:]:
        areas[f.stem] = _parse(f)
        _check_shape(f, areas[f.stem])
    data = (languages, areas)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps((stamp, data)))
        os.replace(tmp, cache)  # whole or not at all, whoever reads it meanwhile
    except OSError:  # a cache folder we cannot write: parse each time
        pass
    return data


# -- plural rules -----------------------------------------------------------------------------
_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare,
            ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.BinOp,
            ast.Mod, ast.Name, ast.Load, ast.Constant, ast.Tuple, ast.List)


def plural_rule(rules: dict[str, str], where: str = "") -> Callable[[int], str]:
    """A function count -> plural category from ``{category: condition}``, conditions being
    Python-style expressions of ``n`` (``n == 1``, ``n % 10 in (2, 3, 4)``), tried in the
    order given; a count no condition takes is ``other``."""
    compiled = []
    for category, condition in rules.items():
        if category not in PLURAL_CATEGORIES or category == "other":
            raise ValueError(f"{where}: unknown plural category {category!r} (use "
                             f"{', '.join(PLURAL_CATEGORIES[:-1])}; other is the rest)")
        tree = ast.parse(condition, mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED) or (isinstance(node, ast.Name) and node.id != "n"):
                raise ValueError(f"{where}: plural condition {condition!r} may use only n, "
                                 "whole numbers, %, comparisons, in, and, or, not")
        compiled.append((category, compile(tree, where or "<plural>", "eval")))

    def category(count: object) -> str:
        if isinstance(count, float) and not count.is_integer():
            return "other"
        try:
            n = abs(int(count))  # type: ignore[call-overload]
        except (TypeError, ValueError):
            return "other"
        for name, code in compiled:
            if eval(code, {"__builtins__": {}}, {"n": n}):
                return name
        return "other"

    return category
