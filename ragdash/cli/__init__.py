"""The command line: ``python -m ragdash <command> ...``.

Each command lives in its own module under ``ragdash.cli`` and exposes
``register(subparsers)`` (adds its parser, sets ``func``) and a ``run(args) -> int``.
Errors that ragdash raises on purpose become one line on stderr and exit code 2; nothing
reaches the user as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ..errors import RagdashError
from ..i18n import LANGUAGES, normalize_lang

#: command modules, in the order --help lists them
COMMANDS = ["score", "evaluate", "run", "sweep", "fuse", "rerank", "judge", "compare", "check",
            "frontier", "cost", "cache", "index", "generate", "judgments"]


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
    parser.add_argument("--lang", choices=LANGUAGES, default=None, dest="cli_lang",
                        help="the language of error messages (default en; also RAGDASH_LANG); "
                             "given before the command: python -m ragdash --lang ja evaluate …")
    parser.add_argument("--verbose", action="store_true",
                        help="also show the log lines of the libraries ragdash drives (Milvus "
                             "Lite, pymilvus) on stderr; also RAGDASH_VERBOSE=1")
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


def _command(argv: list[str]) -> str | None:
    """The command's name: the first word that is not an option (nor --lang's value)."""
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--lang":
            skip = True
        elif not a.startswith("-"):
            return a
    return None


def _lang(args) -> str:
    """Errors in English unless --lang ja (before the command, or a command's own --lang) or
    RAGDASH_LANG=ja (ja-JP, any catalog language) says otherwise."""
    chosen = getattr(args, "cli_lang", None) or getattr(args, "lang", None) \
        or os.environ.get("RAGDASH_LANG", "")
    return normalize_lang(str(chosen))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=_command(argv))
    args = parser.parse_args(argv)
    from . import _output

    _output.LANG = _lang(args)  # what note() prints: warnings and notes
    before = os.environ.get("RAGDASH_VERBOSE")
    if getattr(args, "verbose", False):
        os.environ["RAGDASH_VERBOSE"] = "1"  # read where an engine's library is imported
    try:
        return _run(args)
    finally:
        if before is None:
            os.environ.pop("RAGDASH_VERBOSE", None)
        else:
            os.environ["RAGDASH_VERBOSE"] = before


def _check_name(name) -> None:
    """``--name`` (evaluate, fuse, rerank, sweep) is a run's name: one line, at most
    :data:`ragdash.params.NAME_MAX` characters; else a usage error, the value shown escaped."""
    if not isinstance(name, str):
        return
    from ..params import NAME_MAX, name_problem

    if name_problem(name) is not None:
        from ..errors import RetrievalError
        from ..i18n import error
        from ..setup.model import show

        raise error(RetrievalError, "gatechecks.bad_name_flag", flag="--name", max=NAME_MAX,
                    value=show(name))


def _run(args) -> int:
    """The command, with ragdash's own errors as one line on stderr (exit 2)."""
    try:
        _check_name(getattr(args, "name", None))
        return int(args.func(args) or 0)
    except RagdashError as exc:
        lang = _lang(args)
        from ..i18n import message, t

        said = str(exc) if lang == "en" else message(exc, lang)
        from ._output import safe_text

        print(safe_text(t("cli.error", lang, message=said)), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        from ..i18n import message, text

        print(message(text("cli.interrupted"), _lang(args)), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
