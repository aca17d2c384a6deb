"""``python -m ragdash judgments DATASET``: the judgment sets stored for a dataset, and their
export as TREC qrels with a sources sidecar.

Contract:

- without ``--out``: lists the sets (name, labels, sources, dates); JSON ``{"dataset": ...,
  "fingerprint": ..., "sets": [{"name", "labels", "sources", "first", "last"}, ...]}``;
- ``--out FILE``: writes the human qrels, filled from the sets named by ``--set``
  (repeatable; none: human only) — a human label is never overridden — as TREC qrels at
  FILE and each label's source and date at FILE.sources.tsv; ``--fill FILE`` adds judgment
  files the same way. JSON then adds ``"out"``, ``"sidecar"``, ``"labels"`` and the counts.
"""

from __future__ import annotations

import argparse

from ..errors import RunStoreError
from ..i18n import error, text
from ._judgments import add_fill_option
from ._output import add_format_option, emit, format_table, note, to_json


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "judgments", help="list a dataset's stored judgment sets; export labels as TREC qrels",
        description="List the judgment sets stored for DATASET (an LLM judge's --store, the "
                    "Judge page's raters), or with --out write the human qrels, their gaps "
                    "filled from the chosen sets, as TREC qrels plus a FILE.sources.tsv "
                    "sidecar naming each label's source and date.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET",
                   help="the dataset the sets belong to (any format ragdash reads)")
    p.add_argument("--split", default="test", help="BEIR qrels split (default test)")
    p.add_argument("--set", action="append", default=[], metavar="NAME", dest="sets",
                   help="a stored judgment set that fills the gaps of the human qrels in the "
                        "export; repeatable, the first to label a pair wins")
    add_fill_option(p)
    p.add_argument("--out", default=None, metavar="FILE",
                   help="write the labels as TREC qrels to FILE and their sources to "
                        "FILE.sources.tsv")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..judgments import JudgmentSet, fill, read_judgments, write_judgments
    from ..loaders import load_dataset
    from ..runs import get_store

    dataset = load_dataset(args.dataset, split=args.split)
    fingerprint = dataset.fingerprint()
    store = get_store()
    stored = {s["name"]: s for s in store.judgment_sets(fingerprint)}
    if args.out is None:
        if args.format == "json":
            emit(to_json({"dataset": dataset.name, "fingerprint": fingerprint,
                          "sets": list(stored.values())}))
            return 0
        rows = [[s["name"], s["labels"], ", ".join(f"{k} ({v:,})" for k, v in
                                                    s["sources"].items()),
                 f"{s['first']} – {s['last']}"] for s in stored.values()]
        emit(format_table(["set", "labels", "sources", "dates"], rows) if rows
             else str(text("judgments.cli.no_sets", dataset=dataset.name)))
        return 0
    for name in args.sets:
        if name not in stored:
            raise error(RunStoreError, "judgments.cli.unknown_set", name=name,
                        names=", ".join(stored) or "none")
    sets = [store.load_judgments(fingerprint, n) for n in args.sets]
    sets += [read_judgments(p, name=str(p)) for p in args.fill]
    filled = fill(dataset.qrels, *sets, queries=dataset.query_ids, docs=dataset.doc_ids)
    for use in filled.sets:  # what each set gave, said as --fill says it
        note(text("judgments.cli.filled", file=use.name, n=use.used, labels=use.labels))
    jset: JudgmentSet = filled.to_set("labels")
    qrels_path, side = write_judgments(jset, args.out)
    if args.format == "json":
        emit(to_json({"out": str(qrels_path), "sidecar": str(side),
                      "labels_written": len(jset), **filled.summary()}))
    else:
        emit(str(text("judgments.cli.written", n=len(jset), out=qrels_path, sidecar=side)))
    return 0
