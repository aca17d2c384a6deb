"""``python -m ragdash cache info`` and ``python -m ragdash cache clear [--model NAME]``.

The embeddings cache is ``$RAGDASH_HOME/embeddings.sqlite`` (default ``./.ragdash``); see
:mod:`ragdash.embeddings.cache`. ``info`` shows where it is, its size, and how many vectors it
holds per model, and the memory-mapped vector files of dense runs
(``$RAGDASH_HOME/vectors/``); ``clear`` deletes all of them, or one model's.
"""

from __future__ import annotations

import argparse

from ..embeddings.cache import EmbeddingCache, clear_vector_files, vector_files
from ..i18n import t, text
from ..judge.cache import JudgeCache
from ..retrieval.rerank.cache import RerankCache
from . import _output
from ._output import add_format_option, emit, format_table, note, to_json


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "cache", help="show or clear the embeddings, rerank and judge caches",
        description="The embeddings cache keeps every vector paid for, keyed by base URL, "
                    "model, dimensions, prefix and a hash of the text (never the API key), in "
                    "$RAGDASH_HOME/embeddings.sqlite (default ./.ragdash); the rerank cache "
                    "keeps every (query, document) score, keyed by base URL, model and hashes "
                    "of both texts, in $RAGDASH_HOME/rerank.sqlite; the judge cache keeps "
                    "every LLM judge's answer (a grade or why there is none), keyed by "
                    "endpoint, model, prompt version and hashes of both texts, in "
                    "$RAGDASH_HOME/judge.sqlite.")
    sub = p.add_subparsers(dest="cache_command")
    sub.required = True
    info = sub.add_parser("info", help="where the cache is, its size, vectors per model",
                          description="Show the cache file, its size on disk and how many "
                                      "vectors it holds per model.")
    add_format_option(info)
    _add_home(info)
    clear = sub.add_parser("clear", help="delete cached vectors (all, or one model's)",
                           description="Delete cached vectors: all of them, or with --model "
                                       "those of one model (as `cache info` names it). The "
                                       "next run pays for them again.")
    clear.add_argument("--model", metavar="NAME",
                       help="only this model's vectors (the name as `cache info` shows it)")
    _add_home(clear)
    p.set_defaults(func=run)


def _add_home(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", metavar="DIR", default=None,
                        help="the folder holding the cache (default: $RAGDASH_HOME, else "
                             "./.ragdash)")


def run(args: argparse.Namespace) -> int:
    return run_clear(args) if args.cache_command == "clear" else run_info(args)


def run_info(args: argparse.Namespace) -> int:
    info = EmbeddingCache(args.home).info()
    rerank = RerankCache(args.home).info()
    judged = JudgeCache(args.home).info()
    files = vector_files(args.home)
    if args.format == "json":
        emit(to_json({**info, "rerank": rerank, "judge": judged, "vector_files": files}))
        return 0
    if files:
        emit(f"Vector files (memory-mapped document vectors of dense runs): "
             f"{len(files):,}, {_size(sum(f['bytes'] for f in files))}")
        emit(format_table(["model", "base URL", "dimensions", "rows", "dim", "dtype", "size"],
                          [[f.get("model", "?"), f.get("base_url", "?"),
                            str(f.get("dimensions") or "-"), f"{f.get('rows', 0):,}",
                            str(f.get("dim", "?")), f.get("dtype", "?"), _size(f["bytes"])]
                           for f in files]))
        emit("")
    if judged["exists"]:
        emit(t("cli.judge.cache_info", _output.LANG, path=judged["path"],
               size=_size(judged["bytes"]), n=judged["rows"]))
        if judged["models"]:
            emit(format_table([t(k, _output.LANG) for k in (
                "cli.judge.col.model", "cli.judge.col.base_url", "cli.judge.col.prompt",
                "cli.judge.col.answers", "cli.judge.col.graded")],
                              [[m["model"], m["base_url"], m["prompt_version"],
                                f"{m['rows']:,}", f"{m['graded']:,}"]
                               for m in judged["models"]]))
        emit("")
    if rerank["exists"]:
        emit(f"Rerank cache: {rerank['path']}\nSize:  {_size(rerank['bytes'])}, "
             f"{rerank['rows']:,} scores")
        if rerank["models"]:
            emit(format_table(["model", "base URL", "queries", "scores"],
                              [[m["model"], m["base_url"], f"{m['queries']:,}",
                                f"{m['rows']:,}"] for m in rerank["models"]]))
        emit("")
    if not info["exists"]:
        emit(f"No embeddings cache yet at {info['path']}.")
        return 0
    emit(f"Cache: {info['path']}\nSize:  {_size(info['bytes'])}, "
         f"{info['rows']:,} vectors")
    if info["models"]:
        rows = [[m["model"], m["base_url"], str(m["dimensions"] or "-"), str(m["dim"]),
                 repr(m["prefix"]) if m["prefix"] else "-", f"{m['rows']:,}"]
                for m in info["models"]]
        emit(format_table(["model", "base URL", "dimensions", "dim", "prefix", "vectors"],
                          rows))
    return 0


def run_clear(args: argparse.Namespace) -> int:
    cache = EmbeddingCache(args.home)
    rerank = RerankCache(args.home)
    judged = JudgeCache(args.home)
    file_models = {f.get("model") for f in vector_files(args.home)}
    if args.model is not None and args.model not in cache.models() \
            and args.model not in rerank.models() and args.model not in file_models \
            and args.model not in judged.models():
        known = ", ".join(cache.models() + rerank.models() + judged.models()) \
            or text("load.none")
        note(text("cli.cache_no_model", model=args.model, known=known))
        return 1
    which = f" of model {args.model!r}" if args.model is not None else ""
    if args.model is None or args.model in cache.models():
        removed = cache.clear(model=args.model)
        emit(f"Deleted {removed:,} cached vectors{which} from {cache.path}.")
    if rerank.exists() and (args.model is None or args.model in rerank.models()):
        removed = rerank.clear(model=args.model)
        emit(f"Deleted {removed:,} cached rerank scores{which} from {rerank.path}.")
    if judged.exists() and (args.model is None or args.model in judged.models()):
        removed = judged.clear(model=args.model)
        emit(t("cli.judge.cache_cleared", _output.LANG, n=removed, path=judged.path,
               model=args.model or "-"))
    files, freed = clear_vector_files(args.home, model=args.model)
    if files:
        emit(f"Deleted {files:,} vector files{which} ({_size(freed)}).")
    return 0


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")
