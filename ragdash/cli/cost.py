"""``python -m ragdash cost DATASET --model NAME [--provider NAME] [--limit-queries N]``

What one evaluation of DATASET would cost: the tokens of exactly the texts ``evaluate`` embeds
(every document as ``title + " " + text``, and the queries that have qrels — the first N with
``--limit-queries``), priced with the chosen model, in USD and JPY, with every priced catalog
row side by side (cheapest first). The token counting method is printed beside the figure.

``--format json`` prints one object::

    {"tokens": n, "token_method": "...", "usd": x, "jpy": y,
     "per_provider": [{"provider", "model", "usd", "jpy", ...}, ...], ...details}
"""

from __future__ import annotations

import argparse

from ..cost import (
    METHOD_ESTIMATE,
    CostSettings,
    check_rate,
    estimate_evaluation,
    format_money,
    load_catalog,
    load_settings,
)
from ._checks import report_warnings
from ._output import add_format_option, emit, format_table, to_json


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give a number ≥ 0")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "cost",
        help="estimate what evaluating a dataset costs, per provider, in USD and JPY",
        description="Estimate the embedding cost of one evaluation: tokens(documents) + "
                    "tokens(queries with qrels), each embedded once, priced from the catalog "
                    "(ragdash/data/prices.csv merged with $RAGDASH_HOME/prices.user.csv).",
    )
    p.add_argument("dataset", metavar="DATASET",
                   help="article JSON file, BEIR folder or .zip, or a table")
    p.add_argument("--model", required=True, metavar="NAME",
                   help="embedding model, e.g. text-embedding-3-small")
    p.add_argument("--provider", default=None, metavar="NAME",
                   help="provider of the model when several sell it, e.g. 'Azure OpenAI'; "
                        "'local' for a model run on this machine")
    p.add_argument("--limit-queries", type=_non_negative_int, default=None, metavar="N",
                   help="only the first N queries that have qrels (as evaluate does)")
    p.add_argument("--split", default="test", help="qrels split of a BEIR dataset (test)")
    p.add_argument("--tokenizer", choices=("auto", "tiktoken", "estimate"), default="auto",
                   help="auto: exact cl100k_base when it loads offline, else the estimate")
    p.add_argument("--jpy-per-usd", type=float, default=None, metavar="RATE",
                   help="exchange rate for this estimate (default: the saved rate, 155)")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..loaders import load_dataset

    dataset = load_dataset(args.dataset, split=args.split)
    warnings = report_warnings(dataset)  # stderr now; JSON "warnings"
    settings = (CostSettings(check_rate(args.jpy_per_usd)) if args.jpy_per_usd is not None
                else load_settings())
    est = estimate_evaluation(dataset, model=args.model, provider=args.provider,
                              limit_queries=args.limit_queries, catalog=load_catalog(),
                              settings=settings, token_method=args.tokenizer)
    if args.format == "json":
        obj = est.to_json_obj()
        obj["dataset"] = {"name": dataset.name, "source": dataset.source,
                          "fingerprint": dataset.fingerprint()}
        obj["warnings"] = warnings
        emit(to_json(obj))
        return 0
    emit(_table(est, dataset))
    return 0


def _money(usd: float, jpy: float) -> str:
    return f"{format_money(usd)} ({format_money(jpy, 'JPY')})"


def _table(est, dataset) -> str:
    total_queries = dataset.sizes()["queries_with_qrels"]
    lines = [
        f"{dataset.name}: {est.n_documents:,} documents, {est.n_queries:,} queries evaluated"
        + (f" (of {total_queries:,} with qrels)" if est.n_queries != total_queries else ""),
        f"tokens: {est.tokens:,} = documents {est.tokens_documents:,} + queries "
        f"{est.tokens_queries:,}  [{est.token_method}]",
        f"{est.provider} / {est.model} at ${est.usd_per_1m:g} per 1M tokens: "
        f"{_money(est.usd, est.jpy)} at {est.jpy_per_usd:g} JPY/USD"
        + (f"; batch {_money(est.batch_usd, est.batch_jpy)}" if est.batch_usd is not None
           else ""),
        "rerun with every text cached: $0",
        f"for contrast, embedding every document again for each query (the article's way): "
        f"{est.naive_tokens:,} tokens, {_money(est.naive_usd, est.naive_jpy)}",
    ]
    if est.row is not None and est.row.source_url:
        lines.append(f"price: {est.row.source_url} (as of {est.row.as_of})")
    lines.extend(f"note: {n}" for n in est.notes)
    if est.token_method == METHOD_ESTIMATE:
        lines.append("note: exact counts need cl100k_base.tiktoken; "
                     "see docs/providers-and-keys.md (Cost)")
    lines.append("")
    lines.append(f"every catalog row for the same {est.tokens:,} tokens, cheapest first:")
    rows = [[p.provider, p.model, f"{p.usd_per_1m:g}", format_money(p.usd),
             format_money(p.jpy, "JPY"), "" if p.batch_usd is None else format_money(p.batch_usd),
             f"{p.jpy_per_usd:g}"] for p in est.per_provider]
    lines.append(format_table(["provider", "model", "USD/1M", "USD", "JPY", "batch USD",
                               "JPY/USD"], rows))
    return "\n".join(lines)
