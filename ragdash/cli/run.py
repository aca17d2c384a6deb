"""``python -m ragdash run SETUP.toml``: run the setup a file describes and score it.

Contract (scripts rely on it):

- SETUP.toml: a setup file (docs/setup-file.md): the dataset (a path relative to the file, or
  ``sample:NAME``), K, ``[retriever]`` or ``[[retrievers]]``, ``[chunking]``, ``[fusion]``,
  ``[rerank]``. A file with the values of a set of ``evaluate`` flags gives the same metrics
  as those flags; a file downloaded from a saved run (the app's Results page) reruns it.
- JSON: what ``evaluate --format json`` prints (``queries``, ``metrics``, ``dataset``,
  ``retriever`` with the run's configuration and ``setup``, ``usage``, ``seconds``, ``k``,
  ``kmax``, ..., ``run_id``).
- ``--store`` saves every run made (each first stage, the fusion, the rerank) in the run
  store; ``--save-run FILE`` writes the final ranking as a TREC run.
- Keys come from the environment variables the setup names (``api_key_env``,
  ``engine_token_env``); a setup file that holds a key is refused.
"""

from __future__ import annotations

import argparse

from ..i18n import text
from ._checks import refuse_untrec_ids, report_warnings
from ._output import add_format_option, note

DESCRIPTION = """\
Run the setup a TOML file describes — first stages (BM25, an embedding model, a deployed
collection), chunking, fusion, rerank — and score it with trec_eval's rules, as evaluate does.
Every key is named after a declared parameter; docs/setup-file.md lists them all with their
types, defaults and ranges. A typo or a value out of range is one sentence naming the file,
the line and the key; API keys stay in environment variables (api_key_env names one)."""

EPILOG = """\
example setup file:
  dataset = "data/jsquad-valid"        # relative to the setup file
  k = [1, 5, 10, 100]

  [[retrievers]]
  kind = "bm25"

  [[retrievers]]
  kind = "openai"
  model = "text-embedding-3-small"     # the key: $OPENAI_API_KEY (api_key_env)

  [fusion]
  method = "rrf"

examples:
  python -m ragdash run hybrid.toml
  python -m ragdash run hybrid.toml --format json --store
  python -m ragdash run bm25.toml --save-run bm25.run"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="run the setup a TOML file describes (stages, K, scoring) and score it",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("setup", metavar="SETUP.toml", help="the setup file (docs/setup-file.md)")
    add_format_option(p)
    p.add_argument("--store", action="store_true",
                   help="also save every run made (each first stage, the fusion, the rerank) "
                        "in the run store ($RAGDASH_HOME) and print the final run's id and "
                        "the app's Results?run=<id> path")
    p.add_argument("--save-run", default=None, metavar="FILE",
                   help="also write the final ranking to FILE as a TREC run")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..setup import load_setup, load_setup_dataset
    from .evaluate import (
        _build,
        _open_store,
        _save_run,
        report,
        run_and_report_progress,
        unmapped_examples,
    )

    setup = load_setup(args.setup)
    stages = _build(setup, flags=False)
    store = _open_store() if args.store else None  # before paying for anything
    lookup = store if store is not None or not setup.dataset_fingerprint else _open_store()
    dataset = load_setup_dataset(setup, store=lookup, note=note)
    warnings = report_warnings(dataset)
    if args.save_run:
        refuse_untrec_ids(dataset)
    kind = setup.retrievers[0].kind if len(setup.retrievers) == 1 else "pipeline"
    result = run_and_report_progress(setup, dataset, stages, kind=kind, store=store)
    if args.save_run:
        _save_run(result.ranking, args.save_run, result.retriever)
    for said in getattr(stages.reranker, "notes", None) or ():
        note(text("cli.note", note=said))
    return report(result, setup, fmt=args.format, run_file=args.save_run, warnings=warnings,
                  unmapped=unmapped_examples(stages))


__all__ = ["register", "run"]
