"""Setup files: TOML read with the standard library's ``tomllib``, written by hand.

    setup = load_setup("bm25.toml")            # checked; errors name the file and the line
    text = setup_to_toml(setup)                # a file load_setup reads back to an equal setup

``tomllib`` says nothing about where a key was, so :class:`LineIndex` reads the lines once
more and remembers the line of every table header and key: a message can then say
"bm25.toml, line 9: unknown key overlapp in [chunking] ...".
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from ..i18n import dataset_error
from .model import Setup, Source, setup_from_dict, setup_to_dict

__all__ = ["LineIndex", "load_setup", "parse_setup", "setup_to_toml"]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_NAME = r"""(?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_NAME}(?:\s*\.\s*{_NAME})*)\s*=")


def _parts(dotted: str) -> tuple[str, ...]:
    out = []
    for piece in re.findall(r"""[A-Za-z0-9_\-]+|"[^"]*"|'[^']*'""", dotted):
        out.append(piece[1:-1] if piece[:1] in "\"'" else piece)
    return tuple(out)


class LineIndex:
    """The line (1-based) of each key and table of a TOML text, by key path: ``("chunking",
    "overlap")``, ``("retrievers", 1, "model")`` for the second ``[[retrievers]]``."""

    def __init__(self, text: str) -> None:
        self.lines: dict[tuple, int] = {}
        table: tuple = ()
        arrays: dict[tuple, int] = {}
        in_string = None
        for number, line in enumerate(text.splitlines(), start=1):
            if in_string:  # inside a multi-line string: no keys here
                if line.count(in_string) % 2 == 1:
                    in_string = None
                continue
            header = _HEADER.match(line)
            if header and not _KEY.match(line):
                names = _parts(header.group(2))
                if header.group(1) == "[[":
                    arrays[names] = arrays.get(names, -1) + 1
                    table = (*names, arrays[names])
                    self.lines.setdefault(names, number)
                else:
                    table = self._within_arrays(names, arrays)
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                path = (*table, *_parts(key.group(1)))
                self.lines.setdefault(path, number)
                rest = line[key.end():]
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        in_string = quote

    @staticmethod
    def _within_arrays(names: tuple, arrays: Mapping[tuple, int]) -> tuple:
        """``[retrievers.chunking]`` after ``[[retrievers]]`` is the last element's table."""
        for n in range(len(names), 0, -1):
            if names[:n] in arrays:
                return (*names[:n], arrays[names[:n]], *names[n:])
        return names

    def __call__(self, path: tuple) -> int | None:
        """The line of ``path``, else of the nearest table or key that holds it."""
        for n in range(len(path), -1, -1):
            if tuple(path[:n]) in self.lines:
                return self.lines[tuple(path[:n])]
        return None


#: the most a setup file may hold: a setup is a few dozen lines (a megabyte is a wrong file,
#: or a name of a hundred megabytes)
MAX_BYTES = 1_000_000
#: how deep a setup file may nest tables and lists (``[[retrievers]]`` > an item >
#: ``chunking`` > a key is 4): thousands of levels are a broken or hostile file, refused
#: before anything walks it (the TOML reader and the checks recurse once per level)
MAX_DEPTH = 16


def parse_setup(text: str, *, file: str | None = None, base: Path | None = None) -> Setup:
    """A checked :class:`Setup` from a setup file's text (``file``: its name, for messages;
    ``base``: the folder a relative dataset path starts from)."""
    if len(text) > MAX_BYTES:
        raise dataset_error("gatechecks.setup_too_big", file=file, size=f"{len(text):,}",
                            max=f"{MAX_BYTES:,}")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        said = str(exc)
        line = re.search(r"line (\d+)", said)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)|\s*\(at end of document\)", "", said)
        raise dataset_error("setup.not_toml", file=file,
                            line=int(line.group(1)) if line else None,
                            reason=reason) from None
    except RecursionError:  # tomllib recurses once per nested list or inline table
        raise dataset_error("gatechecks.setup_too_deep", file=file, max=MAX_DEPTH) from None
    lines = LineIndex(text)
    deep = _too_deep(raw)
    if deep is not None:
        raise dataset_error("gatechecks.setup_too_deep", file=file, line=lines(deep),
                            max=MAX_DEPTH)
    return setup_from_dict(raw, source=Source(file, lines), base=base)


def _too_deep(raw: Mapping) -> tuple | None:
    """The path of a value nested more than :data:`MAX_DEPTH` deep, else None (walked
    without recursion: the point is to refuse what recursion cannot walk)."""
    todo: list[tuple[tuple, object]] = [((), raw)]
    while todo:
        path, value = todo.pop()
        if len(path) > MAX_DEPTH:
            return path
        if isinstance(value, Mapping):
            todo += [((*path, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            todo += [((*path, i), v) for i, v in enumerate(value)]
    return None


def load_setup(path: str | Path) -> Setup:
    """The setup a file describes; a relative ``dataset`` path starts from the file's
    folder."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise dataset_error("gatechecks.setup_too_big", file=str(path), size=f"{size:,}",
                                max=f"{MAX_BYTES:,}")
        raw = p.read_bytes()
    except OSError as exc:
        raise dataset_error("setup.unreadable", file=str(path),
                            reason=exc.strerror or str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise dataset_error("setup.not_utf8", file=str(path),
                            line=raw[:exc.start].count(b"\n") + 1) from None
    return parse_setup(text, file=str(path), base=p.resolve().parent)


# -- writing ---------------------------------------------------------------------------------
def setup_to_toml(setup: Setup, *, comment: str = "") -> str:
    """The setup as a setup file: top-level keys first, then its tables; ``comment``: lines
    put first, each after ``#``."""
    data = setup_to_dict(setup)
    lines = [f"# {c}".rstrip() for c in comment.splitlines()]
    scalars = {k: v for k, v in data.items() if not _is_table(v)}
    lines += [f"{k} = {_value(v)}" for k, v in scalars.items()]
    for key, value in data.items():
        if key in scalars:
            continue
        if isinstance(value, list):  # [[retrievers]]
            for item in value:
                lines += ["", f"[[{key}]]", *_table_lines(item, key)]
        else:
            lines += ["", f"[{key}]", *_table_lines(value, key)]
    return "\n".join(lines) + "\n"


def _is_table(value) -> bool:
    return isinstance(value, Mapping) or (isinstance(value, list) and bool(value)
                                          and all(isinstance(v, Mapping) for v in value))


def _table_lines(table: Mapping, name: str) -> list[str]:
    out = [f"{k} = {_value(v)}" for k, v in table.items() if not isinstance(v, Mapping)]
    for k, v in table.items():
        if isinstance(v, Mapping):
            out += ["", f"[{name}.{k}]", *(f"{kk} = {_value(vv)}" for kk, vv in v.items())]
    return out


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"a setup file holds no {type(v).__name__}")
