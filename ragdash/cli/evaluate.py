"""``python -m ragdash evaluate DATASET``: retrieve for every judged query and score the result.

Contract (scripts rely on it):

- DATASET: the article's JSON, a BEIR folder or .zip, or anything else
  :func:`ragdash.loaders.load_dataset` reads; ``--split`` picks the BEIR qrels split.
- Only queries with qrels are evaluated, in file order (the first N with ``--limit-queries``);
  a judged query that gets no results scores 0.
- JSON: ``{"queries": n, "metrics": {"recall@1": ..., ...}, "dataset": {name, source,
  fingerprint, documents, queries, evaluated_queries}, "retriever": {name, ...config},
  "usage": {requests, prompt_tokens, embedded_texts, cached_texts}, "seconds": s, ...}``.
- A deployed collection (``--retriever milvus|qdrant``): ``"unmapped_ids"`` counts the hits
  whose id field names no document of the dataset (left out of the ranking) and
  ``"unmapped_examples"`` names up to five; the table output says both on stderr.
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
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import MetricError, RetrievalError
from ..i18n import error, text
from . import _output
from ._checks import refuse_errors, refuse_untrec_ids, report_warnings
from ._engines import add_engine_options
from ._judgments import (
    add_fill_option,
    add_judged_only_option,
    coverage_note,
    labels_json,
    labels_line,
    read_fill,
)
from ._output import (
    DEFAULT_K_TEXT,
    add_format_option,
    add_judging_options,
    add_k_option,
    emit,
    format_metrics,
    note,
    note_if_reused,
    parse_ks,
    to_json,
)
from ._params import (
    EMBEDDING_BY_KIND,
    EMBEDDING_PARAMS,
    add_params,
    evaluate_setup,
    help_text,
)

if TYPE_CHECKING:
    from ..dataset import Dataset
    from ..run import Run

from ..params import EVALUATION as _EVALUATION
from ..params import OPENAI as _OPENAI

DEFAULT_KMAX = _EVALUATION["kmax"].default
DEFAULT_KEY_ENV = _OPENAI["api_key_env"].default

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
  python -m ragdash evaluate data/jsquad-valid --retriever python \\
      --entry my_rag/search.py:retriever --id-field doc_id   (your own search)
  SEARCH_KEY=... python -m ragdash evaluate data/jsquad-valid --retriever http \\
      --url http://localhost:9200/docs/_search --api-key-env SEARCH_KEY \\
      --request '{"query": {"match": {"text": "{query}"}}, "size": {k}}' \\
      --ids 'hits.hits[*]._id' --scores 'hits.hits[*]._score'   (a search service)

the API key: read from $OPENAI_API_KEY, or from the variable named by --api-key-env; never a
command-line value (it would land in shell history and process lists). Servers on this machine
(localhost, 127.0.0.1, ::1) may run without one.

JSON output: {"queries": n, "metrics": {"recall@1": ..., ...}, "dataset": {...},
"retriever": {...}, "usage": {"requests", "prompt_tokens", "embedded_texts", "cached_texts"},
"seconds": s, ...}"""

def register(subparsers) -> None:
    from .. import params as P

    p = subparsers.add_parser(
        "evaluate", help="retrieve with BM25 or an embedding model and score the ranking",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET",
                   help="the article's JSON file, a BEIR folder or .zip (corpus.jsonl, "
                        "queries.jsonl, qrels/<split>.tsv), or another format ragdash reads")
    add_params(p, [P.RETRIEVER_KIND], keep_default=("kind",))
    add_k_option(p, DEFAULT_K_TEXT)
    add_params(p, [P.EVALUATION["kmax"], P.EVALUATION["limit_queries"],
                   P.EVALUATION["split"]], keep_default=("split",))
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
    add_judged_only_option(p)
    add_fill_option(p)
    add_format_option(p)
    add_params(p.add_argument_group("BM25 options (--retriever bm25)"), P.BM25)
    add_embedding_options(p)
    add_chunk_options(p)
    add_engine_options(p, deployed=True)
    add_own_options(p)
    add_http_options(p)
    p.set_defaults(func=run)


def add_own_options(p) -> None:
    """``--retriever python``: ``--entry``, ``--match``, ``--allow-failures`` (``--id-field``,
    ``--concurrency`` and ``--timeout`` are the engine's and the embedder's flags, read for
    it too)."""
    from .. import params as P

    g = p.add_argument_group("your own search (--retriever python; docs/own-retriever.md; "
                             "--id-field, --concurrency and --timeout apply to it too)")
    add_params(g, [P.PYTHON["entry"], P.PYTHON["match"]])
    g.add_argument("--allow-failures", dest="allow_failures", action="store_const",
                   const=True, default=None, help=help_text(P.PYTHON["allow_failures"]))


def add_http_options(p) -> None:
    """``--retriever http``: ``--url``, ``--request``, ``--method``, ``--ids``, ``--scores``,
    ``--texts`` (the key: ``--api-key-env`` / ``--api-key-header``; ``--match``,
    ``--concurrency``, ``--timeout`` and ``--allow-failures`` are read for it too)."""
    from .. import params as P

    g = p.add_argument_group("your search service (--retriever http; docs/own-retriever.md; "
                             "the key from --api-key-env, in --api-key-header; --match, "
                             "--concurrency, --timeout and --allow-failures apply to it too)")
    add_params(g, [P.HTTP[n] for n in ("url", "request", "method", "ids", "scores", "texts")])


def add_chunk_options(p) -> None:
    """``--chunk-size N [--chunk-overlap N] [--aggregate max|first|mean2]``."""
    from .. import params as P

    add_params(p.add_argument_group("chunking (any retriever but milvus / qdrant)"),
               P.CHUNKING)


def add_embedding_options(p) -> None:
    """The embedding model's options (evaluate, and index for its documents and queries)."""
    add_params(p.add_argument_group("embedding options (--retriever openai or local)"),
               EMBEDDING_PARAMS, by_kind=EMBEDDING_BY_KIND)


def run(args) -> int:
    ks = parse_ks(args.k)
    kmax = _kmax(args.kmax, ks)
    if args.limit_queries is not None and args.limit_queries < 1:
        raise error(RetrievalError, "cli.limit_queries", value=args.limit_queries)
    if args.name is not None and not args.store:
        raise error(RetrievalError, "cli.name_needs_store")
    setup = evaluate_setup(args, ks=ks, kmax=kmax)
    stages = _build(setup)
    retriever = stages.first[0]
    store = _open_store() if args.store else None  # before paying for anything

    from ..loaders import load_dataset

    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)  # stderr now; JSON "warnings"
    refuse_errors(dataset, warnings)  # every metric would be 0: nothing is retrieved
    # before paying: a --fill file that cannot be read stops here
    filled = read_fill(args.fill, dataset.qrels, queries=dataset.query_ids,
                       docs=dataset.doc_ids)
    if args.save_run:
        refuse_untrec_ids(dataset)  # before paying: score could not read such a file back
    if getattr(args, "chunk_size", None) is not None:
        note(_chunk_note(args, dataset, retriever))  # before anything is paid for
    result = run_and_report_progress(setup, dataset, stages, kind=args.retriever)
    if args.save_run:
        _save_run(result.ranking, args.save_run, result.retriever)
    if store is not None:
        result.name = (args.name or "").strip()
        store.save(result, secrets=stages.secrets)
    _say_moves(result)
    return report(result, setup, fmt=args.format, run_file=args.save_run, warnings=warnings,
                  unmapped=unmapped_examples(stages),
                  table=result.table(filled, judged_only=args.judged_only), filled=filled)


def unmapped_examples(stages) -> list[str]:
    """Up to five hit ids of a deployed collection that name no document of the dataset
    (an engine retriever's; empty for any other)."""
    return list(getattr(stages.first[0], "unmapped_examples", None) or [])


def _build(setup, *, flags: bool = True):
    """The setup's stages, keys from the environment; warnings (a key over plain http to
    another machine) on stderr before anything is paid for."""
    from ..setup import build, environment_keys

    stages = build(setup, keys=environment_keys(flags=flags))
    for warning in stages.warnings:
        note(text("cli.warning", warning=warning))
    return stages


def run_and_report_progress(setup, dataset: Dataset, stages, *, kind: str,
                            store=None) -> Run:
    """:func:`ragdash.setup.run_setup`, with a progress bar on a terminal."""
    from ..setup import run_setup

    bar = ProgressBar(kind) if sys.stderr.isatty() else None
    try:
        return run_setup(setup, dataset=dataset, stages=stages, progress=bar, store=store)
    finally:
        if bar is not None:
            bar.close()


def report(result: Run, setup, *, fmt: str, run_file: str | None, warnings: list,
           unmapped: list[str] | None = None, table=None, filled=None) -> int:
    """The run's report on stdout (a table or JSON), notes on stderr. ``unmapped``: examples
    of a deployed collection's ids that are not in the dataset (:func:`unmapped_examples`).
    ``table``: the metric table to report when not the run's own (``--fill``,
    ``--judged-only``); ``filled``: the :class:`ragdash.judgments.Filled` behind it."""
    ks, kmax = list(setup.k), setup.kmax
    table = result.table() if table is None else table
    facts = _Facts.of(result, table)
    if fmt == "json":
        out = _json_report(setup, result, facts, run_file, table)
        if "unmapped_ids" in out:
            out["unmapped_examples"] = list(unmapped or [])
        own = _own_search_json(result)
        emit(to_json({**out, **labels_json(filled, table.judged_only), "warnings": warnings,
                      **({"own_search": own} if own else {})}))
        note_if_reused(result)
        return 0
    emit(_text_report(result, facts, ks, kmax, table))
    coverage_note(table, result.name or result.retriever, ks)
    note_if_reused(result)
    for said in _own_search_notes(result):
        note(text("cli.note", note=said))
    if int(result.usage.get("unmapped_ids", 0) or 0):
        note(text("cli.note_unmapped", n=int(result.usage["unmapped_ids"]),
                  field=(result.config or {}).get("id_field") or "id",
                  examples=", ".join(map(repr, unmapped or [])) or "—"))
    if facts.no_relevant:
        note(text("cli.note_no_relevant", n=facts.no_relevant))
    if facts.empty:
        note(text("cli.note_no_results", n=facts.empty))
    if run_file:
        note(text("cli.run_written", path=run_file))
    return 0


def _own_search_notes(result: Run) -> list[str]:
    """An own search's latency, mapping and failures (``--retriever python``), in the
    command line's language."""
    from ..retrieval.own.retriever import own_notes

    return own_notes(result.resources, _output.LANG)


def _own_search_json(result: Run) -> dict | None:
    """``"own_search"`` of the JSON output: latency (p50 / p95 / p99 ms), the mapping's
    counts and examples, the failed queries, the notes."""
    kept = (result.resources or {}).get("own_search")
    if not kept:
        return None
    probe = result.resources.get("latency_probe") or {}
    usage = result.usage or {}
    return {"latency_ms": {k: probe.get(f"{k}_ms") for k in ("p50", "p95", "p99")},
            "concurrency": kept.get("concurrency"),
            **{k: int(usage.get(k, 0) or 0) for k in (
                "hits", "not_found", "ambiguous", "duplicates_folded", "failed_queries",
                "answered_before", "no_score_queries", "reordered_queries")},
            "not_found_examples": kept.get("not_found_examples", []),
            "ambiguous_examples": kept.get("ambiguous_examples", []),
            "failed": kept.get("failed", []),
            "notes": _own_search_notes(result)}


def _say_moves(result: Run) -> None:
    """One line per endpoint that answered at the other form of its URL."""
    from ..services.urls import moved_notes

    for said in moved_notes(result.config or {}):
        note(said)


@dataclass(frozen=True)
class _Facts:
    """What both outputs report beyond the means."""

    no_relevant: int
    empty: int
    usage: dict[str, int]

    @classmethod
    def of(cls, run: Run, table) -> _Facts:
        return cls(no_relevant=int(table.no_relevant.sum()),
                   empty=sum(1 for q in run.query_ids if len(run.ranking.get(q)[0]) == 0),
                   usage={k: int(run.usage.get(k, 0)) for k in
                          ("requests", "prompt_tokens", "embedded_texts", "cached_texts")})


def _json_report(setup, result: Run, facts: _Facts, run_file: str | None, table) -> dict:
    from ..metrics import metric_names

    ks, kmax = list(setup.k), setup.kmax
    summary = table.summary(ks)
    return {
        "queries": len(result.query_ids),
        "metrics": {name: summary[name] for name in metric_names(ks)},
        "dataset": result.dataset_info(),
        "synthetic": getattr(result.dataset, "synthetic", None),
        "retriever": {"name": result.retriever, **result.config},
        "usage": facts.usage,
        "seconds": round(result.seconds or 0.0, 3),
        "k": ks,
        "kmax": kmax,
        "queries_without_relevant": facts.no_relevant,
        "queries_without_results": facts.empty,
        "relevance_level": setup.relevance_level,
        "gain": setup.gain,
        "run_file": run_file,
        "created_at": result.created_at,
        "run_id": result.id,
        **({"unmapped_ids": int(result.usage["unmapped_ids"])}
           if "unmapped_ids" in result.usage else {}),
        **({"chunks": int(result.resources["chunks"]["chunks"]),
            "chunking": {k: v for k, v in result.resources["chunks"].items()
                         if k != "matched"}}
           if "chunks" in result.resources else {}),
    }


def _text_report(result: Run, facts: _Facts, ks: list[int], kmax: int, table) -> str:
    info = result.dataset_info()
    usage = facts.usage
    settings = ", ".join(f"{k}={v}" for k, v in result.config.items()
                         if k not in ("retriever", "setup", "stages", "transform")
                         and v not in (None, ""))
    lines = [
        f"{info['name']}: {info['documents']:,} documents, {len(result.query_ids):,} of "
        f"{info['queries']:,} queries evaluated (those with qrels)",
        f"retriever: {result.retriever}" + (f" ({settings})" if settings else ""),
        *_synthetic_lines(result),
        "",
        format_metrics(table.summary(ks)),
        *(["", str(labels_line(table))] if labels_line(table) else []),
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


def _synthetic_lines(result: Run) -> list[str]:
    """"synthetic queries (163, generated by <model>, seed 1)" for a generated set, in the
    command line's language."""
    from ..dataset import synthetic_note
    from ..i18n import message

    said = synthetic_note(result.dataset)
    return [] if said is None else [message(said, _output.LANG)]


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
    """The embedder that ``args`` describe, alone (``index`` and ``sweep`` embed with it;
    their engine and chunk options are their own)."""
    from .. import params as P
    from ._params import dest

    own = {dest(p): None for p in (*P.ENGINE, *P.CHUNKING) if p.cli_flag
           and p.name != "embedder"}
    setup = evaluate_setup(argparse.Namespace(**{**vars(args), **own}), ks=[1], kmax=1)
    return _build(setup).first[0]


def _is_loopback(base_url: str | None) -> bool:
    from ..setup.build import is_loopback_url

    return is_loopback_url(base_url)


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
        from ..embeddings.batching import pace_note

        slow = pace_note(event, _output.LANG)  # the server is slower than the flags asked
        if slow:
            extra += f"  ({slow})"
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
