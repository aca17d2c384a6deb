"""``python -m ragdash evaluate DATASET``: retrieve for every judged query and score the result.

Contract (scripts rely on it):

- DATASET: the article's JSON, a BEIR folder or .zip, or anything else
  :func:`ragdash.loaders.load_dataset` reads; ``--split`` picks the BEIR qrels split.
- Only queries with qrels are evaluated, in file order (the first N with ``--limit-queries``);
  a judged query that gets no results scores 0.
- JSON: ``{"queries": n, "metrics": {"recall@1": ..., ...}, "dataset": {name, source,
  fingerprint, documents, queries, evaluated_queries}, "retriever": {name, ...config},
  "usage": {requests, prompt_tokens, embedded_texts, cached_texts}, "seconds": s, ...}``.
- ``--save-run FILE`` writes the ranking as a TREC run file (``qid Q0 docno rank score tag``),
  which ``python -m ragdash score`` scores to the same numbers.
- ``--store`` saves the run (a :class:`ragdash.run.Run`) in the run store under
  ``$RAGDASH_HOME`` and prints its id and the app's ``/Results?run=<id>`` path; JSON then
  carries ``"run_id"`` (``null`` without ``--store``).
- The API key comes from the environment (``OPENAI_API_KEY`` or the variable named by
  ``--api-key-env``), never from the command line, and is never printed.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from ..errors import AuthenticationError, MetricError, RetrievalError
from ..i18n import error, text
from ._checks import refuse_untrec_ids, report_warnings
from ._engines import ENGINE_RETRIEVERS, add_engine_options
from ._output import (
    DEFAULT_K_TEXT,
    add_format_option,
    add_judging_options,
    add_k_option,
    emit,
    format_metrics,
    note,
    parse_ks,
    to_json,
)

if TYPE_CHECKING:
    from ..dataset import Dataset
    from ..run import Run

DEFAULT_KMAX = 100
DEFAULT_KEY_ENV = "OPENAI_API_KEY"

DESCRIPTION = """\
Retrieve the top documents for every query that has relevance judgements, then score the
ranking with trec_eval's rules: Recall, Precision, Hit rate, MRR, nDCG and MAP at every K asked
for. BM25 (the default) needs no key and no network. --retriever openai embeds with any
OpenAI-compatible /embeddings endpoint (OpenAI, Azure OpenAI, Ollama, vLLM, TEI, LiteLLM, ...);
--retriever local uses a sentence-transformers model installed on this machine. Embeddings are
cached under $RAGDASH_HOME (default ./.ragdash), so a second identical run makes no calls."""

EPILOG = """\
examples:
  python -m ragdash evaluate data/jsquad-valid
  python -m ragdash evaluate data/jsquad-valid --limit-queries 200 --k 1-100 --format json
  python -m ragdash evaluate corpus.zip --save-run bm25.run
  OPENAI_API_KEY=... python -m ragdash evaluate data/jsquad-valid --retriever openai \\
      --model text-embedding-3-small
  python -m ragdash evaluate data/jsquad-valid --retriever openai --model bge-m3 \\
      --base-url http://localhost:11434/v1          (a local server: no key needed)

the API key: read from $OPENAI_API_KEY, or from the variable named by --api-key-env; never a
command-line value (it would land in shell history and process lists). Servers on this machine
(localhost, 127.0.0.1, ::1) may run without one.

JSON output: {"queries": n, "metrics": {"recall@1": ..., ...}, "dataset": {...},
"retriever": {...}, "usage": {"requests", "prompt_tokens", "embedded_texts", "cached_texts"},
"seconds": s, ...}"""

#: options that only the embedding retrievers take: (dest, flag)
_DENSE_OPTIONS = (("model", "--model"), ("base_url", "--base-url"),
                  ("dimensions", "--dimensions"), ("batch_size", "--batch-size"),
                  ("concurrency", "--concurrency"), ("api_key_env", "--api-key-env"),
                  ("query_prefix", "--query-prefix"), ("document_prefix", "--document-prefix"),
                  ("encoding_format", "--encoding-format"), ("api_version", "--api-version"),
                  ("api_key_header", "--api-key-header"), ("timeout", "--timeout"),
                  ("vector_dtype", "--vector-dtype"))
_BM25_OPTIONS = (("k1", "--k1"), ("b", "--b"))


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate", help="retrieve with BM25 or an embedding model and score the ranking",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET",
                   help="the article's JSON file, a BEIR folder or .zip (corpus.jsonl, "
                        "queries.jsonl, qrels/<split>.tsv), or another format ragdash reads")
    p.add_argument("--retriever", choices=("bm25", "openai", "local", *ENGINE_RETRIEVERS),
                   default="bm25",
                   help="bm25: lexical, CJK-aware, no key (default); openai: any "
                        "OpenAI-compatible embeddings endpoint; local: a sentence-transformers "
                        "model on this machine (pip install -r requirements-local.txt); "
                        "milvus / qdrant: a deployed collection in that engine, queries "
                        "embedded with --embedder (pip install -r requirements-engines.txt)")
    add_k_option(p, DEFAULT_K_TEXT)
    p.add_argument("--kmax", type=int, default=None, metavar="N",
                   help=f"documents retrieved per query, the deepest K scored (default "
                        f"{DEFAULT_KMAX}, or the largest --k when that is deeper)")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N",
                   help="evaluate only the first N queries that have qrels (file order)")
    p.add_argument("--split", default="test", metavar="NAME",
                   help="BEIR qrels split: qrels/NAME.tsv (default test)")
    p.add_argument("--save-run", default=None, metavar="FILE",
                   help="also write the ranking to FILE as a TREC run "
                        "(qid Q0 docno rank score tag)")
    p.add_argument("--store", action="store_true",
                   help="also save the run in the run store ($RAGDASH_HOME, default "
                        "./.ragdash) and print its id and the app's Results?run=<id> path, "
                        "to open and compare it in the browser")
    p.add_argument("--name", default=None, metavar="TEXT",
                   help="the stored run's name (with --store; default: retriever and dataset)")
    add_judging_options(p)
    add_format_option(p)

    bm25 = p.add_argument_group("BM25 options (--retriever bm25)")
    bm25.add_argument("--k1", type=float, default=None, metavar="X",
                      help="term-frequency saturation (default 1.2, Lucene's)")
    bm25.add_argument("--b", type=float, default=None, metavar="X",
                      help="document-length normalization, 0..1 (default 0.75, Lucene's)")

    add_embedding_options(p)
    add_chunk_options(p)
    add_engine_options(p, deployed=True)
    p.set_defaults(func=run)


def add_chunk_options(p) -> None:
    """``--chunk-size N [--chunk-overlap N] [--aggregate max|first|mean2]``."""
    from ..retrieval.chunking import AGGREGATES

    chunks = p.add_argument_group("chunking (any retriever but milvus / qdrant)")
    chunks.add_argument("--chunk-size", type=int, default=None, metavar="TOKENS",
                        help="cut documents into chunks of at most TOKENS tokens (cl100k, "
                             "else the script-aware estimate; at a sentence end when one is "
                             "near, never inside a word), retrieve chunks and fold them back "
                             "to documents; qrels stay at document level")
    chunks.add_argument("--chunk-overlap", type=int, default=None, metavar="TOKENS",
                        help="tokens a chunk repeats from the one before (default 0)")
    chunks.add_argument("--aggregate", choices=AGGREGATES, default=None,
                        help="a document's score from its chunks: max (best chunk, MaxP; "
                             "default), first (first chunk only, FirstP), mean2 (mean of the "
                             "two best)")


def add_embedding_options(p) -> None:
    """The embedding model's options (evaluate, and index for its documents and queries)."""
    dense = p.add_argument_group("embedding options (--retriever openai or local)")
    dense.add_argument("--model", default=None, metavar="NAME",
                       help="model name at the endpoint (openai, e.g. text-embedding-3-small; "
                            "the deployment name on Azure), or a local model path or package "
                            "(local). Required for openai and local")
    dense.add_argument("--base-url", default=None, metavar="URL",
                       help="the endpoint's base URL, with or without /v1 (default "
                            "https://api.openai.com/v1); an Azure resource URL works too")
    dense.add_argument("--dimensions", type=int, default=None, metavar="N",
                       help="ask for N-dimensional vectors (models that support it, e.g. "
                            "text-embedding-3-*); not sent unless given")
    dense.add_argument("--batch-size", type=int, default=None, metavar="N",
                       help="texts per request (default 256, at most 2048); for a local "
                            "model, per model call (default 32: each is a progress step)")
    dense.add_argument("--concurrency", type=int, default=None, metavar="N",
                       help="requests in flight at once (default 4)")
    dense.add_argument("--api-key-env", default=None, metavar="NAME",
                       help=f"read the API key from the environment variable NAME (default "
                            f"{DEFAULT_KEY_ENV}); the key itself is never a command-line "
                            f"value")
    dense.add_argument("--api-key-header", default=None, metavar="NAME",
                       help="send the key in header NAME instead of 'Authorization: Bearer' "
                            "(Azure OpenAI: api-key; chosen automatically for Azure URLs)")
    dense.add_argument("--api-version", default=None, metavar="V",
                       help="Azure OpenAI api-version query parameter")
    dense.add_argument("--encoding-format", choices=("float", "base64"), default=None,
                       help="how vectors travel: float (default) or base64 (smaller responses)")
    dense.add_argument("--query-prefix", default=None, metavar="TEXT",
                       help="text put before every query, e.g. 'query: ' for e5 models")
    dense.add_argument("--document-prefix", default=None, metavar="TEXT",
                       help="text put before every document, e.g. 'passage: ' for e5 models")
    dense.add_argument("--vector-dtype", choices=("float32", "float16"), default=None,
                       help="the documents' memory-mapped vector file under RAGDASH_HOME/vectors"
                            " (default float32; float16 halves it, scores change slightly)")
    dense.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="seconds one request may take, connecting and the whole reply "
                            "together, before it is cut off and retried (default 60)")


def run(args) -> int:
    ks = parse_ks(args.k)
    kmax = _kmax(args.kmax, ks)
    if args.limit_queries is not None and args.limit_queries < 1:
        raise error(RetrievalError, "cli.limit_queries", value=args.limit_queries)
    if args.name is not None and not args.store:
        raise error(RetrievalError, "cli.name_needs_store")
    retriever = _chunked(args, _make_retriever(args))
    for warning in getattr(getattr(retriever, "embedder", None), "warnings", ()):
        note(text("cli.warning", warning=warning))  # e.g. a key over plain http to another machine
    store = _open_store() if args.store else None  # before paying for anything

    from ..loaders import load_dataset

    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)  # stderr now; JSON "warnings"
    if args.save_run:
        refuse_untrec_ids(dataset)  # before paying: score could not read such a file back
    if getattr(args, "chunk_size", None) is not None:
        note(_chunk_note(args, dataset, retriever))  # before anything is paid for
    result = _evaluate(args, dataset, retriever, kmax)
    if args.save_run:
        _save_run(result.ranking, args.save_run, result.retriever)
    if store is not None:
        result.name = (args.name or "").strip()
        store.save(result, secrets=[os.environ.get(args.api_key_env or DEFAULT_KEY_ENV, "")])
    facts = _Facts.of(result)
    if args.format == "json":
        emit(to_json({**_json_report(args, result, facts, ks, kmax), "warnings": warnings}))
        return 0
    emit(_text_report(result, facts, ks, kmax))
    if facts.no_relevant:
        note(text("cli.note_no_relevant", n=facts.no_relevant))
    if facts.empty:
        note(text("cli.note_no_results", n=facts.empty))
    if args.save_run:
        note(text("cli.run_written", path=args.save_run))
    return 0


def _evaluate(args, dataset: Dataset, retriever, kmax: int) -> Run:
    """The pipeline, with a progress bar on a terminal."""
    from ..pipeline import run_evaluation

    bar = ProgressBar(args.retriever) if sys.stderr.isatty() else None
    try:
        return run_evaluation(dataset, retriever, kmax=kmax, limit_queries=args.limit_queries,
                              progress=bar, relevance_level=args.relevance_level,
                              gain=args.gain)
    finally:
        if bar is not None:
            bar.close()


@dataclass(frozen=True)
class _Facts:
    """What both outputs report beyond the means."""

    no_relevant: int
    empty: int
    usage: dict[str, int]

    @classmethod
    def of(cls, run: Run) -> _Facts:
        return cls(no_relevant=int(run.table().no_relevant.sum()),
                   empty=sum(1 for q in run.query_ids if len(run.ranking.get(q)[0]) == 0),
                   usage={k: int(run.usage.get(k, 0)) for k in
                          ("requests", "prompt_tokens", "embedded_texts", "cached_texts")})


def _json_report(args, result: Run, facts: _Facts, ks: list[int], kmax: int) -> dict:
    from ..metrics import metric_names

    summary = result.table().summary(ks)
    return {
        "queries": len(result.query_ids),
        "metrics": {name: summary[name] for name in metric_names(ks)},
        "dataset": result.dataset_info(),
        "retriever": {"name": result.retriever, **result.config},
        "usage": facts.usage,
        "seconds": round(result.seconds or 0.0, 3),
        "k": ks,
        "kmax": kmax,
        "queries_without_relevant": facts.no_relevant,
        "queries_without_results": facts.empty,
        "relevance_level": args.relevance_level,
        "gain": args.gain,
        "run_file": args.save_run,
        "created_at": result.created_at,
        "run_id": result.id,
        **({"unmapped_ids": int(result.usage["unmapped_ids"])}
           if "unmapped_ids" in result.usage else {}),
        **({"chunks": int(result.resources["chunks"]["chunks"]),
            "chunking": {k: v for k, v in result.resources["chunks"].items()
                         if k != "matched"}}
           if "chunks" in result.resources else {}),
    }


def _text_report(result: Run, facts: _Facts, ks: list[int], kmax: int) -> str:
    info = result.dataset_info()
    usage = facts.usage
    settings = ", ".join(f"{k}={v}" for k, v in result.config.items()
                         if k != "retriever" and v not in (None, ""))
    lines = [
        f"{info['name']}: {info['documents']:,} documents, {len(result.query_ids):,} of "
        f"{info['queries']:,} queries evaluated (those with qrels)",
        f"retriever: {result.retriever}" + (f" ({settings})" if settings else ""),
        "",
        format_metrics(result.table().summary(ks)),
        "",
        f"{result.seconds or 0.0:.2f} s retrieving, top {kmax} per query",
    ]
    if usage["requests"] or usage["cached_texts"]:
        lines.append(f"embedding calls: {usage['requests']:,}, tokens: "
                     f"{usage['prompt_tokens']:,}, texts embedded: {usage['embedded_texts']:,}"
                     f", from cache: {usage['cached_texts']:,}")
    if result.id:
        lines.append(f"stored as run {result.id}: open {results_path(result.id)} in the app "
                     f"(streamlit run app.py, RAGDASH_HOME={_home_text()})")
    return "\n".join(lines)


def results_path(run_id: str) -> str:
    """The app's path that opens a stored run (after the app's address, e.g.
    http://localhost:8501)."""
    return f"/Results?run={run_id}"


def _open_store():
    from ..runs import get_store

    return get_store()


def _home_text() -> str:
    from ..home import ragdash_home

    return str(ragdash_home())


def _kmax(given: int | None, ks: list[int]) -> int:
    if given is None:
        return max(DEFAULT_KMAX, max(ks))
    if given < 1:
        raise error(MetricError, "cli.kmax_below_one", given=given)
    if given < max(ks):
        raise error(MetricError, "cli.kmax_below_k", given=given, k=max(ks))
    return given


def _chunked(args, retriever):
    """The retriever over chunks when ``--chunk-size`` is given."""
    given = [f for f, d in (("--chunk-overlap", "chunk_overlap"), ("--aggregate", "aggregate"))
             if getattr(args, d, None) is not None]
    if getattr(args, "chunk_size", None) is None:
        if given:
            raise error(RetrievalError, "cli.only_with_chunks", flags=", ".join(given),
                        verb=_verb(given))
        return retriever
    if args.retriever in ENGINE_RETRIEVERS:
        raise error(RetrievalError, "cli.chunk_engine", retriever=args.retriever)
    from ..retrieval.chunking import ChunkedRetriever

    return ChunkedRetriever(retriever, size=args.chunk_size, overlap=args.chunk_overlap or 0,
                            aggregate=args.aggregate or "max")


def _chunk_note(args, dataset, retriever) -> str:
    """How many chunks and tokens the run will retrieve over, and what embedding them costs."""
    info = retriever.chunks(dataset).summary()
    text = (f"chunks: {info['chunks']:,} chunks of {len(dataset.documents):,} documents "
            f"({info['documents_cut']:,} cut), {info['tokens']:,} tokens "
            f"({info['token_method']})")
    if args.retriever == "openai":
        from ..cost import estimate_evaluation, format_money
        from ..errors import RagdashError

        try:
            est = estimate_evaluation(retriever.chunks(dataset).dataset, args.model,
                                      limit_queries=args.limit_queries)
        except RagdashError:
            text += f"; {args.model} is not in the price catalog"
        else:
            text += (f"; embedding chunks and queries: {est.tokens:,} tokens, "
                     f"{format_money(est.usd, 'USD')} ({format_money(est.jpy, 'JPY')}) before "
                     f"the cache")
    return text


def _make_retriever(args):
    from ..retrieval import make_retriever

    if args.retriever in ENGINE_RETRIEVERS:
        from ._engines import make_engine_retriever

        return make_engine_retriever(args, lambda kind: _make_retriever(
            argparse.Namespace(**{**vars(args), "retriever": kind})))
    if args.retriever == "bm25":
        stray = [flag for dest, flag in _DENSE_OPTIONS if getattr(args, dest) is not None]
        if stray:
            raise error(RetrievalError, "cli.only_dense", flags=", ".join(stray),
                        verb=_verb(stray))
        return make_retriever("bm25", k1=args.k1, b=args.b)
    stray = [flag for dest, flag in _BM25_OPTIONS if getattr(args, dest) is not None]
    if stray:
        raise error(RetrievalError, "cli.only_bm25", flags=", ".join(stray), verb=_verb(stray))
    if not args.model:
        what = (text("cli.model_at_endpoint") if args.retriever == "openai"
                else text("cli.model_local"))
        raise error(RetrievalError, "cli.needs_model", retriever=args.retriever, what=what)
    options = {
        "model": args.model, "dimensions": args.dimensions, "batch_size": args.batch_size,
        "concurrency": args.concurrency, "query_prefix": args.query_prefix,
        "document_prefix": args.document_prefix, "vector_dtype": args.vector_dtype,
    }
    if args.retriever == "openai":
        options.update(base_url=args.base_url, api_key=_api_key(args),
                       encoding_format=args.encoding_format, api_version=args.api_version,
                       api_key_header=args.api_key_header, timeout=args.timeout)
    else:
        stray = [flag for dest, flag in _DENSE_OPTIONS[1:]
                 if dest in ("base_url", "api_key_env", "api_key_header", "api_version",
                             "encoding_format", "timeout") and getattr(args, dest) is not None]
        if stray:
            raise error(RetrievalError, "cli.only_openai", flags=", ".join(stray),
                        verb=_verb(stray))
    return make_retriever(args.retriever, **options)


def _verb(flags: list[str]) -> str:
    return text("cli.verb_apply", n=len(flags))


def _api_key(args) -> str | None:
    """The key from the environment; None is accepted only for a server on this machine."""
    env = args.api_key_env or DEFAULT_KEY_ENV
    key = os.environ.get(env, "").strip()
    if key:
        return key
    if _is_loopback(args.base_url):
        return None
    raise error(AuthenticationError, "cli.no_api_key", env=env)


def _is_loopback(base_url: str | None) -> bool:
    if not base_url:
        return False
    raw = base_url if "://" in base_url else "http://" + base_url
    host = (urlparse(raw).hostname or "").strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _save_run(ranking, path: str, tag: str) -> None:
    try:
        ranking.write_trec(path, tag=tag.replace(" ", "_"))
    except OSError as exc:
        raise error(RetrievalError, "cli.cannot_write_run", path=path,
                    reason=exc.strerror or exc) from exc


#: BM25's and the engines' stages, as the progress line names them
_STAGE_LABELS = {"tokenizing": "tokenizing documents", "indexing": "indexing documents",
                 "retrieving": "retrieving queries", "searching": "searching the engine"}


class ProgressBar:
    """One line on stderr, redrawn at most ten times a second: stage, count, bar, calls and
    tokens (an API) or batches (a local model), the stage's time and the time left — the
    same line for every retriever."""

    def __init__(self, retriever: str, width: int = 24) -> None:
        self.verb = "indexing" if retriever == "bm25" else "embedding"
        self.width = width
        self.last = 0.0
        self.shown = False
        self.stage: str | None = None
        self.stage_started = 0.0
        self.stage_done = 0

    def __call__(self, event: dict) -> None:
        now = time.monotonic()
        done, total = int(event.get("done", 0)), int(event.get("total", 0))
        stage = str(event.get("stage", ""))
        if stage != self.stage:
            self.stage, self.stage_started, self.stage_done = stage, now, done
        if now - self.last < 0.1 and done < total:
            return
        self.last = now
        verb = _STAGE_LABELS.get(stage) or ("ranking" if stage == "ranking"
                                            else f"{self.verb} {stage}")
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        extra = ""
        calls, tokens = int(event.get("calls") or 0), int(event.get("tokens") or 0)
        if tokens:
            extra = f"  {calls:,} calls, {tokens:,} tokens"
        elif calls:  # a local model counts no tokens: its batches are the news
            extra = f"  {calls:,} batches"
        extra += self._timing(now, done, total)
        sys.stderr.write(f"\r{verb:<20} [{bar}] {done:,}/{total:,}{extra}\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def _timing(self, now: float, done: int, total: int) -> str:
        """``, 12 s`` and, after a second of the stage, ``, about 40 s left`` from its pace
        (texts served from the cache at its start took no time and are not counted)."""
        from ..jobs import format_duration

        spent = now - self.stage_started
        if spent < 1.0:
            return ""
        text = f", {format_duration(spent)}"
        gained = done - self.stage_done
        if gained > 0 and done < total:
            text += f", about {format_duration(spent * (total - done) / gained)} left"
        return text

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


__all__ = ["DEFAULT_KEY_ENV", "ProgressBar", "register", "run"]
