"""``python -m ragdash generate CORPUS``: write an evaluation set from a corpus with a chat
model, check every query, and judge beyond the one source passage.

Contract (scripts rely on it):

- CORPUS: a corpus table (``corpus.jsonl``, CSV, TSV; a ``source`` column spreads the sample
  across its values), text files (``.txt``, ``.md``, cut into passages), or a folder / .zip
  of them (each file a source). See :mod:`ragdash.generate.corpus`.
- The sample and the cost (USD and JPY, an upper bound for judging) are said before anything
  is sent; ``--estimate`` stops there.
- Output: a BEIR folder (``--out``; default ``<corpus>-generated``) with ``corpus.jsonl``,
  ``queries.jsonl`` (source document and generator per query), ``qrels/test.tsv`` (the source
  passage, grade 3, and the judged pool), ``qrels/test.tsv.sources.tsv`` (each label's source)
  and ``manifest.json`` (the report); kept in the run store too unless ``--no-store``.
- A run that keeps no query (every request failed, every reply dropped, a judge that gave
  no grade) writes and stores nothing and exits 2 with one sentence; so does a corpus with
  an id holding a control character (before anything is sent).
- ``--validate DATASET``: the same systems scored on the generated set and on DATASET's human
  queries; Kendall's τ per metric and each system's difference.
- JSON: ``{"estimate": {...}, "written": n, "kept": k, "dropped": {reason: n}, "failures":
  {...}, "pool": {...}, "usage": {...}, "cost": {...}, "out": DIR, "stored": fingerprint,
  "validation": {...}}``.
- The API key comes from the environment (``OPENAI_API_KEY`` or ``--api-key-env``), never
  from the command line; it is never in a prompt, a cache key, a file or a log.
"""

from __future__ import annotations

import argparse
import os

from ..errors import AuthenticationError
from ..i18n import error, message, text
from . import _output
from ._output import add_format_option, emit, format_number, format_table, note, to_json

DESCRIPTION = """\
Write an evaluation set from a corpus that has no queries: documents are drawn with a seed,
spread across sources (files, folders, a source column) and lengths; a chat model behind any
OpenAI-compatible endpoint writes one query per document in the passage's language and the style
asked; every query is checked (one query, the passage's language, not copied, not a duplicate,
answerable from the passage by the LLM judge) and each reason counted; the kept queries are run
with BM25 (and a dense model if given) and their pooled top 10, minus the source, is judged, so
other relevant documents are not counted as misses. Every reply and grade is cached under
$RAGDASH_HOME: a rerun with the same seed sends nothing. Synthetic queries are a different thing
from human ones; every page that shows their metrics says so, and --validate measures how
closely they order systems against human queries."""

EPILOG = """\
examples:
  python -m ragdash generate docs/ --n 200 --base-url https://api.openai.com/v1 \\
      --model gpt-4o-mini --estimate
  OPENAI_API_KEY=... python -m ragdash generate corpus.jsonl --n 200 --seed 1 \\
      --base-url https://api.openai.com/v1 --model gpt-4o-mini --out my-eval
  python -m ragdash generate manuals/ --n 100 --style keyword --examples logs.txt \\
      --base-url http://localhost:11434/v1 --model qwen2.5:7b     (Ollama: no key needed)
  python -m ragdash generate data/jsquad-valid --n 100 --base-url ... --model ... \\
      --validate data/jsquad-valid

the API key: read from $OPENAI_API_KEY, or from the variable named by --api-key-env; never a
command-line value. Servers on this machine (localhost, 127.0.0.1, ::1) may run without one.

JSON output: {"estimate", "written", "kept", "dropped", "failures", "pool", "usage", "cost",
"out", "stored", "validation"}"""


def register(subparsers) -> None:
    from ..generate.filters import COPY_SHARE
    from ..generate.settings import (
        DEFAULT_CHUNK_TOKENS,
        DEFAULT_DEPTH,
        DEFAULT_N,
        DEFAULT_PASSAGE_TOKENS,
        LANGUAGES,
        STYLES,
    )

    p = subparsers.add_parser(
        "generate", help="write an evaluation set from a corpus (checked, judged beyond the "
                         "source)",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus", metavar="CORPUS",
                   help="a corpus table, text files, or a folder / .zip of them")
    p.add_argument("--n", type=int, default=DEFAULT_N, metavar="N",
                   help=f"documents to write a query from (default {DEFAULT_N})")
    p.add_argument("--base-url", required=True, metavar="URL",
                   help="the chat completions server (https://api.openai.com/v1, "
                        "http://localhost:11434/v1, an Azure deployment, ...)")
    p.add_argument("--model", required=True, metavar="M", help="the model that writes")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="the environment variable holding the API key (default "
                        "OPENAI_API_KEY)")
    p.add_argument("--seed", type=int, default=1, metavar="N",
                   help="the sample's seed: the same seed draws the same documents (default 1)")
    p.add_argument("--per-source", type=int, default=None, metavar="N",
                   help="at most N documents from any one source")
    p.add_argument("--language", choices=LANGUAGES, default="auto",
                   help="the queries' language: auto (Japanese for passages with kana, else "
                        "English; default), ja or en")
    p.add_argument("--style", choices=STYLES, default="question",
                   help="natural questions, keyword queries, or a mix (default question)")
    p.add_argument("--examples", default=None, metavar="FILE",
                   help="real queries to imitate in manner (one a line, or a queries table)")
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_TOKENS, metavar="T",
                   help="text files (.txt, .md) are cut into passages of T tokens, each a "
                        f"document (default {DEFAULT_CHUNK_TOKENS})")
    p.add_argument("--passage-tokens", type=int, default=DEFAULT_PASSAGE_TOKENS, metavar="T",
                   help="a longer document shows the writer one chunk of T tokens, drawn "
                        f"with the seed (default {DEFAULT_PASSAGE_TOKENS})")
    p.add_argument("--copy-share", type=float, default=COPY_SHARE, metavar="S",
                   help="drop a query when this share of its character 8-grams occurs in the "
                        f"passage (default {COPY_SHARE}; 1 drops only whole copies)")
    p.add_argument("--judge-model", default=None, metavar="M",
                   help="the judge's model (default: --model)")
    p.add_argument("--judge-base-url", default=None, metavar="URL",
                   help="the judge's server (default: --base-url; same key variable)")
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH, metavar="D",
                   help=f"pooled top D of each retriever judged (default {DEFAULT_DEPTH})")
    p.add_argument("--embed-model", default=None, metavar="M",
                   help="also pool a dense retriever with this embedding model")
    p.add_argument("--embed-base-url", default=None, metavar="URL",
                   help="its OpenAI-compatible embeddings server (default: --base-url)")
    p.add_argument("--concurrency", type=int, default=4, metavar="N",
                   help="requests in flight at once (default 4)")
    p.add_argument("--estimate", action="store_true",
                   help="only show the sample and what it would cost; nothing is sent")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the BEIR folder to write (default <corpus name>-generated)")
    p.add_argument("--no-store", action="store_true",
                   help="do not keep the set in the run store (the app opens stored sets)")
    p.add_argument("--validate", default=None, metavar="DATASET",
                   help="a dataset with human queries over the same corpus: score the same "
                        "systems on both and report Kendall's tau")
    add_format_option(p)
    p.set_defaults(func=run)


def _key(args, url: str) -> str | None:
    from ..setup.build import is_loopback_url

    key = os.environ.get(args.api_key_env, "").strip()
    if not key and not args.estimate and not is_loopback_url(url):
        raise error(AuthenticationError, "cli.no_api_key", env=args.api_key_env)
    return key or None


def _chunk_size(size: int) -> int:
    from ..retrieval.chunking import check_chunking

    return check_chunking(size)[0]  # one sentence for a size too small


def _say(said) -> str:
    return message(said, _output.LANG)


def run(args) -> int:
    from ..generate import GenerateJob, read_corpus, save_generated, write_generated
    from ..generate.prompt import read_examples
    from ..services.chat import ChatClient

    corpus = read_corpus(args.corpus, passage_tokens=_chunk_size(args.chunk_size))
    examples = read_examples(args.examples) if args.examples else []
    key = _key(args, args.base_url)
    client = ChatClient(args.base_url, args.model, api_key=key,
                        concurrency=args.concurrency)
    judge_client = client
    if args.judge_base_url or args.judge_model:
        judge_client = ChatClient(args.judge_base_url or args.base_url,
                                  args.judge_model or args.model, api_key=key,
                                  concurrency=args.concurrency)
    dense = _dense(args, key) if args.embed_model else None
    job = GenerateJob(corpus, endpoint=client.endpoint.base, base_url=args.base_url,
                      model=args.model, n=args.n, seed=args.seed, per_source=args.per_source,
                      language=args.language, style=args.style, examples=examples,
                      passage_tokens=args.passage_tokens, depth=args.depth,
                      judge_endpoint=judge_client.endpoint.base,
                      judge_base_url=args.judge_base_url, judge_model=args.judge_model,
                      retrievers=2 if dense is not None else 1, copy_share=args.copy_share)
    estimate = job.estimate()
    for note_ in corpus.notes:
        note(_say(note_))
    plan = [_say(line) for line in _estimate_lines(estimate)]
    if args.estimate or args.format != "json":
        if args.format == "json":
            emit(to_json({"estimate": estimate}))
        else:
            emit("\n".join(plan))
    if args.estimate:
        client.close()
        return 0
    try:
        result = job.run(client, judge_client=judge_client, dense=dense,
                         progress=_progress() if args.format != "json" else None)
    finally:
        client.close()
        judge_client.close()
    out = write_generated(result, args.out or f"{corpus.name}-generated")
    stored = None
    if not args.no_store:
        from ..runs import get_store

        stored = save_generated(result, get_store())
    validation = None
    if args.validate:
        from ..generate.validate import validate
        from ..loaders import load_dataset

        validation = validate(result.dataset, load_dataset(args.validate),
                              extra=[dense] if dense is not None else [])
    if args.format == "json":
        emit(to_json({"estimate": estimate, **result.summary(), "out": str(out),
                      "stored": stored, "validation": validation}))
        return 0
    lines = ["", _say(_kept(result)), _say(_pool(result)), _say(_spent(result)),
             _say(text("generate.wrote", out=str(out)))]
    if stored:
        lines.append(_say(text("generate.stored", fp=stored[:12])))
    synthetic = _synthetic(result.dataset)
    if synthetic is not None:
        lines.append(_say(synthetic))
    if validation is not None:
        lines += ["", _validation_text(validation)]
    emit("\n".join(line for line in lines if line is not None))
    return 0


def _estimate_lines(estimate):
    from ..generate.report import estimate_text

    return estimate_text(estimate)


def _kept(result):
    from ..generate.report import kept_text

    return kept_text(result)


def _pool(result):
    from ..generate.report import pool_text

    return pool_text(result)


def _spent(result):
    from ..generate.report import spent_text

    return spent_text(result)


def _synthetic(dataset):
    from ..dataset import synthetic_note

    return synthetic_note(dataset)


def _dense(args, key):
    from ..retrieval import make_retriever

    return make_retriever("openai", model=args.embed_model,
                          base_url=args.embed_base_url or args.base_url, api_key=key)


def _progress():
    import sys

    def show(p: dict) -> None:
        done = p.get("done") == p.get("total")
        if done or p.get("done", 0) % 50 == 0:
            print(f"\r{p['stage']}: {p['done']:,} / {p['total']:,}", end="\n" if done else "",
                  file=sys.stderr, flush=True)

    return show


def _validation_text(validation: dict) -> str:
    from ..generate.validate import METRICS

    tau = validation["tau"]
    lo, hi = validation["published_tau"]
    head = _say(text("generate.validate_tau",
                     tau=", ".join(f"{m} {format_number(tau[m], 2)}" for m in METRICS),
                     lo=f"{lo:.2f}", hi=f"{hi:.2f}", n=len(validation["systems"]),
                     generated=validation["queries"]["generated"],
                     human=validation["queries"]["human"]))
    rows = [[r["system"], *(r["generated"][m] for m in METRICS),
             *(r["human"][m] for m in METRICS), *(r["difference"][m] for m in METRICS)]
            for r in validation["systems"]]
    headers = ["system", *(f"gen {m}" for m in METRICS), *(f"human {m}" for m in METRICS),
               *(f"diff {m}" for m in METRICS)]
    out = head + "\n" + format_table(headers, rows, digits=3)
    if not validation["same_corpus"]:
        docs = validation["documents"]
        out += "\n" + _say(text("generate.validate_corpus", shared=f"{docs['shared']:,}",
                                 generated=f"{docs['generated']:,}",
                                 human=f"{docs['human']:,}"))
    return out


__all__ = ["register", "run"]
