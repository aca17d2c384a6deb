"""Parsing JSON text from a dataset file: the two inputs Python's ``json`` accepts or rejects in
ways that would otherwise escape as tracebacks, as one :class:`DatasetError` naming the file
and line.

- An integer of more than 4,300 digits: ``json.loads`` raises a bare ``ValueError`` (Python's
  limit on int-from-string conversion), with no position.
- A lone surrogate escape (``"\\ud800"``): ``json.loads`` accepts it and returns a string that
  cannot be encoded as UTF-8, so it failed later, at fingerprinting or when sent to a server.
  Such a string holds half of a UTF-16 pair, not a character, and is refused here.

Both checks cost nothing on ordinary input: the digit limit is only looked for after a
``ValueError``, and strings are only walked when the raw text has a surrogate escape in it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

from ..i18n import dataset_error

#: Python's int-from-string limit (``sys.get_int_max_str_digits()``, 4,300 by default)
_INT_DIGITS = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
_LONG_INT = re.compile(r"-?\d{" + str(_INT_DIGITS + 1) + ",}")
#: a \\uD800-\\uDFFF escape preceded by an even number of backslashes (so really an escape)
_SURROGATE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")
_SURROGATE = re.compile("[\ud800-\udfff]")

SURROGATE_FIX = ("write the character itself (or both halves of its UTF-16 pair, e.g. "
                 "\\ud83d\\ude00), or remove the escape")


def loads(text: str, *, file: str, line: int | None = None,
          object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """``json.loads(text)``; a too-long integer or a lone surrogate is a DatasetError.

    ``line`` is the line ``text`` starts on (JSONL: that line; a whole file: None, and the
    line is found in ``text``). ``json.JSONDecodeError`` and ``RecursionError`` pass through
    for the caller's own wording.
    """
    try:
        obj = json.loads(text) if object_pairs_hook is None else json.loads(
            text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        found = _LONG_INT.search(text)
        if found is None or "digit" not in str(exc):
            raise
        digits = len(found.group().lstrip("-"))
        raise dataset_error("load.json_long_int", file=file,
                            line=_line_of(text, found.start(), line),
                            digits=digits, most=_INT_DIGITS) from exc
    # a one-character test first (memchr: most lines have no backslash at all; the 3-character
    # tests scan at about 1 ns a character, 1.8 us a 560-byte JSONL line), then the regex
    if "\\" in text and ("\\ud" in text or "\\uD" in text) \
            and _SURROGATE_ESCAPE.search(text) is not None and _has_surrogate(obj):
        escape = _first_lone_escape(text) or "\\ud800"
        raise dataset_error("load.json_surrogate", file=file,
                            line=_line_of(text, _first_lone_position(text), line),
                            escape=escape)
    return obj


def parse_json_text(text: str, *, file: str, about: str = "export") -> Any:
    """A whole JSON document from a user's file, every failure one DatasetError naming
    ``file`` (and the line where known): invalid JSON, nesting too deep for Python's parser,
    an integer over 4,300 digits, a lone surrogate. ``about``: ``"export"`` (a run export) or
    ``"run"`` (a run JSON given to compare), which says what to give instead."""
    run = about == "run"
    try:
        return loads(text, file=file)
    except json.JSONDecodeError as exc:
        where = {"file": file, "line": exc.lineno, "reason": exc.msg, "column": exc.colno}
        raise (dataset_error("json.invalid_run", **where) if run
               else dataset_error("json.invalid_export", **where)) from exc
    except RecursionError as exc:
        raise (dataset_error("json.deep_run", file=file) if run
               else dataset_error("json.deep_export", file=file)) from exc


def _line_of(text: str, pos: int | None, first: int | None) -> int | None:
    if pos is None:
        return first
    return (first or 1) + text.count("\n", 0, pos)


def _has_surrogate(obj: Any) -> bool:
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if _SURROGATE.search(x):
                return True
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _lone_escapes(text: str):
    """(position, escape) of each surrogate escape in ``text`` that is not half of a pair."""
    for m in _SURROGATE_ESCAPE.finditer(text):
        start = m.start(1)
        pair = text[start:start + 12]
        try:
            decoded = json.loads(f'"{pair}"') if len(pair) == 12 else ""
        except ValueError:
            decoded = ""
        if not decoded or _SURROGATE.search(decoded[0]):
            # not a valid high+low pair starting here; a low half right after a high one was
            # part of the pair before it
            before = text[max(0, start - 6):start]
            if re.fullmatch(r"\\u[dD][89abAB][0-9a-fA-F]{2}", before) and \
                    m.group(1)[2].lower() in "cdef":
                continue
            yield start, m.group(1)


def _first_lone_position(text: str) -> int | None:
    return next((pos for pos, _ in _lone_escapes(text)), None)


def _first_lone_escape(text: str) -> str | None:
    return next((esc for _, esc in _lone_escapes(text)), None)
