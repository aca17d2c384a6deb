"""The command line: ``python -m ragdash <command> ...``.

Each command lives in its own module under ``ragdash.cli`` and exposes
``register(subparsers)`` (adds its parser, sets ``func``) and a ``run(args) -> int``.
Errors that ragdash raises on purpose become one line on stderr and exit code 2; nothing
reaches the user as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import RagdashError

#: command modules, in the order --help lists them
COMMANDS = ["score", "evaluate", "sweep", "fuse", "rerank", "compare", "frontier", "cost",
            "cache", "index"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that command's (start-up matters: ``compare`` pulls in
    scipy and ``cache`` requests, which ``score`` has no use for)."""
    parser = argparse.ArgumentParser(
        prog="python -m ragdash",
        description="Evaluate retrieval for RAG: load a dataset, retrieve, score Recall / MRR / "
                    "NDCG / Precision / Hit rate / MAP at every K, compare runs, estimate cost.",
    )
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"ragdash {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in [only] if only in COMMANDS else COMMANDS:
        try:
            module = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(only=first)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RagdashError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
