"""Writing a generated reference page, or checking that it is current.

``docs/cli.md`` (from the argparse parsers, :mod:`ragdash.cli.reference`) and
``docs/setup-file.md`` (from the declared parameters, :mod:`ragdash.setup.reference`) are made
by code, never by hand; each module's ``main`` is :func:`write_or_check` with its own maker, and
the docs test runs the check.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["write_or_check"]


def write_or_check(argv: list[str] | None, *, prog: str, what: str, default_path: Path,
                   make: Callable[[], str]) -> int:
    """``prog [PATH] [--check]``: write ``make()`` to PATH, or with ``--check`` exit 1 (one
    line naming the command to run) when PATH is not what ``make()`` gives."""
    parser = argparse.ArgumentParser(prog=prog, description=f"Write {what}.")
    parser.add_argument("path", nargs="?", default=str(default_path),
                        help=f"where (default {default_path})")
    parser.add_argument("--check", action="store_true",
                        help="only check that the file is current (exit 1 when it is not)")
    args = parser.parse_args(argv)
    path = Path(args.path)
    text = make()
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is not current: run {prog}", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0
