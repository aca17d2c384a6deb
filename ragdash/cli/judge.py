"""``python -m ragdash judge DATASET RUN [RUN ...]``: fill the gaps in the human labels with an
LLM judge, calibrated against the human labels first.

Contract (scripts rely on it):

- DATASET: anything :func:`ragdash.loaders.load_dataset` reads (the judge needs the texts);
  RUN: TREC run files, ragdash run JSON exports, ``store:<id>`` (a stored run) or setup files,
  as ``ragdash check`` reads them.
- The pool is the union of the runs' top ``--depth`` minus the pairs the human qrels judge;
  its size, tokens and cost (per run and in total) are said before anything is sent, and
  ``--estimate`` stops there.
- JSON: ``{"pool": n, "already_judged": h, "to_judge": m, "requests": r, "usage": {...},
  "cost": {"estimate": {...}, "actual": {...}}, "unreadable": u, "unreadable_by_reason":
  {...}, "calibration": {"pairs": N, "confusion": [[human, judge, count], ...], "kappa": k,
  "kappa_ci": [lo, hi], "weighted_kappa": w, "weighted_kappa_ci": [lo, hi], "tau": t, ...},
  "effect": {"k": 10, "queries": n, "runs": [{"run", "ndcg@10_human", "judged@10_human",
  "ndcg@10_filled", "judged@10_filled"}, ...], "tau": t}, "labels": l, "source":
  "llm:<model>@<version>", "out": FILE, "stored": name, "estimate": {...}}``.
- A run that gives no label at all (every reply unreadable, every request failed) writes
  nothing and exits 2 with one sentence (the failure's own when all failed the same way).
- ``--out FILE`` writes the judge's labels of the gaps as TREC qrels (grades 0–3), with the
  source of each label in ``FILE.sources.tsv``, for ``--fill``; ``--store`` keeps them as a
  judgment set of the dataset in the run store.
- The API key comes from the environment (``OPENAI_API_KEY`` or the variable named by
  ``--api-key-env``), never from the command line; it is never in a prompt, a cache key, a
  label's source or a log.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ..errors import AuthenticationError, DatasetError
from ..i18n import error, t, text
from . import _output
from ._checks import report_warnings
from ._output import add_format_option, emit, format_number, format_table, note, to_json

#: the largest reply read (decoded): a grade needs a few bytes, a long explanation a few KB
REPLY_BYTES = 256 * 1024

DESCRIPTION = """\
Judge the documents your runs retrieved that the human labels do not cover, with an LLM behind
any OpenAI-compatible chat completions endpoint (OpenAI, Azure, vLLM, Ollama, LiteLLM, a relay),
one pair per request at temperature 0, with UMBRELA's relevance prompt (grades 0-3; a Japanese
version for Japanese texts). The pool is the union of the runs' top --depth minus the pairs the
qrels judge (TREC's pooling); its size and cost are shown before anything is sent. A sample of
human-labeled pairs is judged too (--calibrate), and the agreement is reported: confusion
counts, Cohen's kappa, weighted kappa, and Kendall's tau between the runs' orders. Every answer
is cached under $RAGDASH_HOME (default ./.ragdash): a killed run resumes, a rerun sends nothing.
The labels are a gap-filler with their agreement shown, not a replacement for human labels."""

EPILOG = """\
examples:
  python -m ragdash judge data/jsquad-valid bm25.run dense.run --depth 10 \\
      --base-url https://api.openai.com/v1 --model gpt-4o-mini --estimate
  OPENAI_API_KEY=... python -m ragdash judge data/jsquad-valid bm25.run dense.run --depth 10 \\
      --base-url https://api.openai.com/v1 --model gpt-4o-mini --out llm.qrels
  python -m ragdash score data/jsquad-valid/qrels/test.tsv dense.run --fill llm.qrels
  python -m ragdash judge data/jsquad-valid bm25.run --base-url http://localhost:11434/v1 \\
      --model qwen2.5:7b --calibrate 200 --format json     (Ollama: no key needed)

the API key: read from $OPENAI_API_KEY, or from the variable named by --api-key-env; never a
command-line value. Servers on this machine (localhost, 127.0.0.1, ::1) may run without one.

JSON output: {"pool", "already_judged", "to_judge", "requests", "usage", "cost", "unreadable",
"calibration": {"pairs", "confusion", "kappa", "kappa_ci", "weighted_kappa", "tau", ...},
"labels", "source", "out", "estimate": {...}}"""


def register(subparsers) -> None:
    from .. import params as P
    from ._params import add_params

    p = subparsers.add_parser(
        "judge", help="fill the gaps in the human labels with a calibrated LLM judge",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET",
                   help="the dataset the runs were made on (queries, documents, qrels)")
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="rankings to pool: TREC run files, ragdash run JSON exports, "
                        "store:<id> (a stored run) or setup files")
    add_params(p, P.JUDGE, keep_default=P.JUDGE.names)
    p.add_argument("--out", default=None, metavar="FILE",
                   help="write the judge's labels of the gaps as TREC qrels (grades 0-3) for "
                        "--fill, the source of each label in FILE.sources.tsv")
    p.add_argument("--store", action="store_true",
                   help="keep the labels as a judgment set of the dataset in the run store "
                        "($RAGDASH_HOME)")
    p.add_argument("--estimate", action="store_true",
                   help="only show the pool and what judging it would cost; nothing is sent")
    p.add_argument("--split", default="test", metavar="NAME",
                   help="BEIR qrels split: qrels/NAME.tsv (default test)")
    p.add_argument("--relevance-level", type=float, default=None, metavar="L",
                   help="kappa's binary relevance: grade >= L (default: grade > 0, as the "
                        "binary metrics)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="the calibration sample's and the intervals' random seed (default 0)")
    add_format_option(p)
    p.set_defaults(func=run)


def _check(args) -> None:
    """Every judge option within its declared range (ragdash.params.JUDGE), else one
    sentence naming the flag; a required one given."""
    from .. import params as P
    from ._params import dest

    for param in P.JUDGE:
        value = getattr(args, dest(param))
        if value is None and param.required:
            raise error(DatasetError, "cli.judge_missing", flag=param.cli_flag)
        if value is not None and param.problem(value) is not None:
            raise error(DatasetError, "cli.judge_bad_value", flag=param.cli_flag, value=value,
                        expected=param.expected())


def _key(args) -> str | None:
    from ..setup.build import is_loopback_url

    key = os.environ.get(args.api_key_env, "").strip()
    if not key and not args.estimate and not is_loopback_url(args.base_url):
        raise error(AuthenticationError, "cli.no_api_key", env=args.api_key_env)
    return key or None


def _rankings(specs: list[str]):
    """(Rankings, names) of every RUN: a run file, ``store:<id>`` or a setup file (as
    ``ragdash check`` reads its sides)."""
    from ..gate import resolve_side

    sides = [resolve_side(spec, note=note) for spec in specs]
    names = [side.name for side in sides]
    for i, n in enumerate(names):  # two files with one stem: tell them apart
        if names.count(n) > 1:
            names[i] = specs[i]
    return [side.ranking for side in sides], names


def run(args) -> int:
    from ..judge.job import JudgeJob
    from ..loaders import load_dataset
    from ..services.chat import ChatClient

    _check(args)
    key = _key(args)
    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)
    rankings, names = _rankings(args.runs)
    client = ChatClient(args.base_url, args.model, api_key=key,
                        concurrency=args.concurrency, timeout=args.timeout,
                        max_reply_bytes=REPLY_BYTES)
    for warning in getattr(client, "warnings", ()):
        note(text("cli.warning", warning=warning))
    job = JudgeJob(dataset, rankings, names=names, depth=args.depth,
                   endpoint=client.endpoint.base, base_url=args.base_url, model=args.model,
                   calibrate=args.calibrate, doc_tokens=args.doc_tokens,
                   max_tokens=args.max_tokens, relevance_level=args.relevance_level,
                   seed=args.seed)
    estimate = job.estimate()
    if not len(job.pool):
        raise error(DatasetError, "cli.judge_empty_pool", dataset=dataset.name)
    if args.estimate:
        client.close()
        if args.format == "json":
            emit(to_json({**_head(estimate), "estimate": estimate, "warnings": warnings}))
        else:
            emit(_estimate_text(estimate, dataset.name))
        return 0
    if args.format != "json":
        emit(_estimate_text(estimate, dataset.name))
    store = None
    if args.store:
        from ..runs import get_store

        store = get_store()  # before paying for anything
    if args.out and not Path(args.out).resolve().parent.is_dir():
        raise error(DatasetError, "cli.judge_cannot_write", path=args.out,
                    reason=text("cli.judge_no_folder"))
    try:
        result = job.run(client, progress=_Progress(estimate["total"]["requests"]))
    finally:
        client.close()
    result.require_grades()  # no label at all: one sentence, exit 2, nothing written
    out_path = _write(args, job, result, dataset, store)
    report = _report(result, estimate, out_path)
    report["stored"] = _judgment_name(job) if store is not None else None
    if args.format == "json":
        emit(to_json({**report, "warnings": warnings}))
    else:
        emit(_result_text(report))
    return 0


def _head(est: dict) -> dict:
    return {k: est[k] for k in ("pool", "already_judged", "to_judge", "calibration_pairs",
                                "cached", "depth")}


def _judgment_name(job) -> str:
    """The stored set's name: its source, one set per model and prompt version."""
    from ..judge.job import label_source

    return label_source(job.model, job.version)





def _write(args, job, result, dataset, store) -> str | None:
    if not (args.out or store is not None):
        return None
    jset = result.judgment_set()
    if args.out:
        from ..judgments import write_judgments

        try:
            write_judgments(jset, args.out)
        except OSError as exc:
            raise error(DatasetError, "cli.judge_cannot_write", path=args.out,
                        reason=exc.strerror or exc) from exc
    if store is not None:
        store.save_judgments(dataset.fingerprint(), jset)
    return args.out


def _report(result, estimate: dict, out_path: str | None) -> dict:
    job = result.job
    return {**_head(estimate), "requests": result.usage["requests"], "usage": result.usage,
            "cost": result.cost, "unreadable": result.unreadable,
            "unreadable_by_reason": dict(result.reasons),
            "unreadable_examples": result.unread_examples,
            "calibration": result.calibration, "effect": result.effect(),
            "labels": int(sum(len(v) for v in result.qrels().values())),
            "source": estimate["source"], "model": job.model, "endpoint": job.endpoint,
            "prompt_version": job.version, "seconds": round(result.seconds, 3),
            "out": out_path, "estimate": estimate}


# -- words for people --------------------------------------------------------------------------
#: why a reply gave no grade -> its words
_REASON_KEYS = {
    "out_of_range": "cli.judge.reason.out_of_range",
    "refusal": "cli.judge.reason.refusal",
    "html": "cli.judge.reason.html",
    "length": "cli.judge.reason.length",
    "empty": "cli.judge.reason.empty",
    "unreadable": "cli.judge.reason.unreadable",
    "quoted": "cli.judge.reason.quoted",
    "conflicting": "cli.judge.reason.conflicting",
    "bad_reply": "cli.judge.reason.bad_reply",
    "too_long": "cli.judge.reason.too_long",
    "server": "cli.judge.reason.server",
    "refused": "cli.judge.reason.refused",
}


def _reason(code: str) -> str:
    key = _REASON_KEYS.get(code)
    return t(key, _output.LANG) if key else code


def _money(usd, jpy) -> str:
    if usd is None:
        return t("cli.judge.unpriced", _output.LANG)
    return f"${usd:,.4f} (¥{jpy:,.2f})"


def _estimate_text(est: dict, dataset: str) -> str:
    lang = _output.LANG
    lines = [t("cli.judge.pool", lang, runs=len(est["runs"]), depth=est["depth"],
               dataset=dataset, pool=est["pool"], judged=est["already_judged"],
               gaps=est["to_judge"], cal=est["calibration_pairs"], cached=est["cached"])]
    head = [t(k, lang) for k in ("cli.judge.col.run", "cli.judge.col.pairs",
                                 "cli.judge.col.judged", "cli.judge.col.to_judge",
                                 "cli.judge.col.only_here", "cli.judge.col.requests",
                                 "cli.judge.col.tokens", "cli.judge.col.cost")]
    rows = [[r["run"], r["pairs"], r["already_judged"], r["to_judge"], r["only_here"],
             r["requests"], r["input_tokens"], _money(r["usd"], r["jpy"])] for r in est["runs"]]
    cal, tot = est["calibration"], est["total"]
    rows.append([t("cli.judge.row.calibration", lang), "", "", "", "", cal["requests"],
                 cal["input_tokens"], _money(cal["usd"], cal["jpy"])])
    rows.append([t("cli.judge.row.total", lang), est["pool"], est["already_judged"],
                 est["to_judge"], "", tot["requests"], tot["input_tokens"],
                 _money(tot["usd"], tot["jpy"])])
    lines += ["", format_table(head, rows), ""]
    price = est["price"]
    if price:
        lines.append(t("cli.judge.price", lang,
                       model=est["model"] if price["model"] == "*" else price["model"],
                       provider=price["provider"], usd_in=price["usd_per_1m_input"],
                       usd_out=price["usd_per_1m_output"], as_of=price["as_of"] or "-",
                       url=price["source_url"] or "-"))
    else:
        lines.append(t("cli.judge.no_price", lang, model=est["model"]))
    lines.append(t("cli.judge.assumed", lang, n=est["assumed_output_tokens"],
                   max=est["max_tokens"], most=_money(tot["usd_max"], tot["jpy_max"]),
                   budget=est["doc_tokens"], method=est["token_method"],
                   cut=est["passages_cut"], version=est["prompt_version"]))
    if est["unknown_queries"] or est["unknown_docs"]:
        lines.append(t("cli.judge.unknown", lang, queries=est["unknown_queries"],
                       docs=est["unknown_docs"]))
    return "\n".join(lines)


def _result_text(rep: dict) -> str:
    lang = _output.LANG
    usage, actual = rep["usage"], rep["cost"]["actual"]
    lines = ["", t("cli.judge.done", lang, labels=rep["labels"], sent=usage["pairs_sent"],
                   cached=usage["cached_pairs"], seconds=f"{rep['seconds']:.1f}",
                   requests=usage["requests"], tin=usage["prompt_tokens"],
                   tout=usage["completion_tokens"],
                   money=_money(actual["usd"], actual["jpy"]))]
    if rep["unreadable"]:
        reasons = ", ".join(f"{_reason(k)} {v}"
                            for k, v in sorted(rep["unreadable_by_reason"].items()))
        lines.append(t("cli.judge.unread", lang, n=rep["unreadable"], reasons=reasons))
    lines += ["", *_effect_text(rep["effect"])]
    cal = rep["calibration"]
    if cal and cal["pairs"]:
        level = cal["relevance_level"]
        lines.append(t("cli.judge.calibration", lang, pairs=cal["pairs"], sent=cal["sent"],
                       kappa=format_number(cal["kappa"], 2),
                       lo=format_number(cal["kappa_ci"][0], 2),
                       hi=format_number(cal["kappa_ci"][1], 2),
                       level=f">= {level:g}" if level is not None else "> 0",
                       wk=format_number(cal["weighted_kappa"], 2),
                       wlo=format_number(cal["weighted_kappa_ci"][0], 2),
                       whi=format_number(cal["weighted_kappa_ci"][1], 2)))
        if cal["tau"] is not None:
            lines.append(t("cli.judge.tau", lang, tau=format_number(cal["tau"], 2),
                           runs=len(cal["runs"])))
        lines += ["", t("cli.judge.confusion", lang), _confusion_table(cal["confusion"]),
                  "", t("cli.judge.reference", lang)]
    if rep["out"]:
        lines.append(t("cli.judge.written", lang, path=rep["out"], source=rep["source"]))
    if rep.get("stored"):
        lines.append(t("cli.judge.stored", lang, name=rep["stored"]))
    return "\n".join(lines)


def _effect_text(effect: dict) -> list[str]:
    lang, k = _output.LANG, effect["k"]
    head = [t("cli.judge.col.run", lang), f"nDCG@{k} " + t("cli.judge.col.human_only", lang),
            f"judged@{k}", f"nDCG@{k} " + t("cli.judge.col.filled", lang), f"judged@{k}"]
    rows = [[r["run"], r[f"ndcg@{k}_human"], r[f"judged@{k}_human"], r[f"ndcg@{k}_filled"],
             r[f"judged@{k}_filled"]] for r in effect["runs"]]
    lines = [t("cli.judge.effect", lang, queries=effect["queries"]), format_table(head, rows)]
    if effect["tau"] is not None:
        lines.append(t("cli.judge.effect_tau", lang, tau=format_number(effect["tau"], 2), k=k))
    return lines


def _confusion_table(confusion: list) -> str:
    humans = sorted({h for h, _, _ in confusion})
    judges = sorted({j for _, j, _ in confusion} | {0, 1, 2, 3})
    counts = {(h, j): c for h, j, c in confusion}
    return format_table([t("cli.judge.col.human", _output.LANG), *map(str, judges)],
                        [[str(h), *(counts.get((h, j), 0) for j in judges)] for h in humans])


class _Progress:
    """Pairs done / total, tokens, cost so far and time left, on stderr (at most every 2 s,
    and the last)."""

    def __init__(self, total: dict) -> None:
        self.total = total
        self.last = 0.0

    def __call__(self, p: dict) -> None:
        from ..jobs import format_duration

        now = time.monotonic()
        if p["done"] not in (0, p["total"]) and now - self.last < 2.0:
            return
        if p["total"] == 0:
            return
        self.last = now
        left = p["seconds_left"]
        note(text("cli.judge.progress", done=p["done"], total=p["total"], tokens=p["tokens"],
                  money=_money(p["usd"], p["jpy"]),
                  left=format_duration(left, _output.LANG)))
        sys.stderr.flush()


__all__ = ["register", "run"]
