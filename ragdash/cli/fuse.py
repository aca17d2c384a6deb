"""``python -m ragdash fuse QRELS RUN RUN... --method rrf``: fuse rankings and score the result.

Contract (scripts rely on it):

- QRELS: a TREC qrels file or a BEIR qrels .tsv (or a dataset folder / file ragdash reads,
  whose qrels are used); each RUN: a TREC run file (``qid Q0 docno rank score tag``, from any
  engine) or a ragdash run JSON (a ranking, or a run exported from the app).
- The fused ranking keeps as many documents per query as the deepest input; an input
  shallower than the largest ``--k`` gets a warning (below its depth it cannot vote).
- The queries scored are the qrels queries that any input answered (trec_eval's rule over
  the union); the inputs are scored on the same queries, for the difference.
- JSON: ``{"queries": n, "metrics": {...}, "inputs": [{"name", "file", "depth", "queries",
  "metrics"}], "method", "norm", "weights", "rrf_k", "k", "warnings": [...], "run_file",
  ...}`` and with ``--sweep`` ``"sweep": [{"alpha", "metrics", "tune", "test"}]`` plus
  ``"sweep_choice": {"alpha", "metric", "tune_value", "test_value", "seed", "note", ...}``.
- Runs of different datasets (ragdash JSON exports whose dataset fingerprints differ, or runs
  that share no query id) are refused in one sentence.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import RetrievalError
from ..i18n import dataset_error, error, text
from ._judgments import add_fill_option, labels_json, labels_line, read_fill
from ._output import (
    DEFAULT_K_TEXT,
    add_format_option,
    add_judging_options,
    add_k_option,
    emit,
    format_metrics,
    format_table,
    note,
    note_if_reused,
    parse_ks,
    to_json,
)

DESCRIPTION = """\
Fuse two or more rankings of the same queries into one (hybrid retrieval) and score it with
trec_eval's rules beside its inputs. Methods: rrf (reciprocal rank fusion, k = 60),
combsum / combmnz (over min-max, z-score or rank-normalized scores), alpha (α·A + (1−α)·B over
min-max scores, two runs: a vector database's hybrid alpha) and dbsf (Qdrant's mean ± 3σ
normalization). --sweep tries α = 0, 0.1, ..., 1 from the saved rankings alone (no retrieval,
no API call), chooses α on a seeded half of the queries and reports it on the other half."""

EPILOG = """\
examples:
  python -m ragdash fuse qrels/test.tsv bm25.run dense.run --method rrf --save-run hybrid.run
  python -m ragdash fuse qrels/test.tsv bm25.run dense.run --method combsum --norm zscore \\
      --weights 0.3,0.7
  python -m ragdash fuse qrels/test.tsv bm25.run dense.run --method alpha --sweep \\
      --sweep-metric ndcg@10 --format json

formulas (per query; r_i(d) rank of d in run i, s_i(d) its score, w_i the run's weight):
  rrf      Σ w_i / (k + r_i(d))
  combsum  Σ w_i · N_i(d)           N = minmax | zscore | rank (--norm, default minmax)
  combmnz  |{i : d ∈ run_i}| · Σ w_i · N_i(d)
  alpha    α · minmax_A(d) + (1 − α) · minmax_B(d)
  dbsf     Σ w_i · (s_i(d) − (μ_i − 3σ_i)) / 6σ_i

JSON output: {"queries", "metrics", "inputs": [{"name", "file", "depth", "metrics"}],
"method", "warnings", "run_file", ...; with --sweep "sweep": [{"alpha", "metrics", "tune",
"test"}] and "sweep_choice"}"""


def register(subparsers) -> None:
    from .. import params as P
    from ._params import add_params

    p = subparsers.add_parser(
        "fuse", help="fuse rankings (RRF, CombSUM, CombMNZ, alpha, DBSF) and score the result",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS",
                   help="relevance judgements: TREC qrels or a BEIR qrels .tsv (or a dataset "
                        "ragdash reads, for its qrels)")
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="two or more rankings of the same queries: TREC run files or ragdash "
                        "run JSON")
    add_params(p, P.FUSION, keep_default=("method", "rrf_k"))
    add_k_option(p, DEFAULT_K_TEXT)
    p.add_argument("--split", default="test", metavar="NAME",
                   help="BEIR qrels split when QRELS is a dataset (default test)")
    p.add_argument("--save-run", default=None, metavar="FILE",
                   help="also write the fused ranking to FILE as a TREC run")
    p.add_argument("--store", action="store_true",
                   help="also save the fused run in the run store ($RAGDASH_HOME) as a "
                        "pipeline run (its stages, inputs and name), to open and compare it in "
                        "the app; needs the dataset: QRELS a dataset folder, or ragdash run "
                        "JSON inputs whose dataset the store has")
    p.add_argument("--name", default=None, metavar="TEXT",
                   help="the stored run's name (with --store; default: the stages in words)")
    sweep = p.add_argument_group("weight sweep (--sweep, two runs)")
    sweep.add_argument("--sweep", action="store_true",
                       help="also fuse at α = 0, 0.1, ..., 1 (weights α, 1 − α; with --method "
                            "alpha the hybrid alpha) and choose α on half the queries, "
                            "reported on the other half")
    sweep.add_argument("--sweep-metric", default="ndcg@10", metavar="METRIC",
                       help="the metric α is chosen by (default ndcg@10)")
    sweep.add_argument("--seed", type=int, default=0,
                       help="seed of the query split (default 0)")
    sweep.add_argument("--tune-fraction", type=float, default=0.5, metavar="F",
                       help="share of the queries α is chosen on (default 0.5)")
    add_judging_options(p)
    add_fill_option(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    ks, weights = _check_options(args)
    store = dataset = None
    if args.store:  # before any work: a store that cannot open, or no dataset, stops here
        from ..runs import get_store

        store = get_store()
        dataset = _dataset_for_store(args, store)
    out = _fuse(args, ks, weights)
    run_id = _store(args, store, dataset, weights) if store is not None else None
    if args.save_run:
        try:
            out.fused.write_trec(args.save_run, tag=f"fusion_{args.method}")
        except OSError as exc:
            raise error(RetrievalError, "cli.cannot_write_run", path=args.save_run,
                        reason=exc.strerror or exc) from exc
    if args.format == "json":
        emit(to_json(_json_report(args, out, ks, weights, run_id)))
        return 0
    emit(_text_report(out, run_id))
    for warning in out.warnings:
        note(text("cli.warning", warning=warning))
    if args.save_run:
        note(text("cli.run_written", path=args.save_run))
    return 0


def _check_options(args) -> tuple[list[int], list[float] | None]:
    from ..metrics import parse_metric

    ks = parse_ks(args.k)
    if len(args.runs) < 2:
        raise error(RetrievalError, "cli.fuse_two", n=len(args.runs))
    weights = _parse_weights(args.weights)
    if args.sweep:
        if len(args.runs) != 2:
            raise error(RetrievalError, "cli.sweep_two", n=len(args.runs))
        if weights is not None or args.alpha is not None:
            raise error(RetrievalError, "cli.sweep_no_weights")
        parse_metric(args.sweep_metric)
    if args.name is not None and not args.store:
        raise error(RetrievalError, "cli.name_needs_store")
    return ks, weights


@dataclass
class _Fused:
    """What both outputs report."""

    fused: object
    query_ids: list[str]
    names: list[str]
    metrics: dict
    inputs: list[dict]
    warnings: list[str]
    sweep: object = None
    filled: object = None  # the judgment sets filling the qrels (--fill), or None


def _fuse(args, ks: list[int], weights) -> _Fused:
    """Read, check, fuse, score the fused run and its inputs on the same queries, sweep."""
    from ..metrics import evaluate, metric_names
    from ..retrieval.fusion import fuse, fused_name, shallow_inputs, weight_sweep

    human = _load_qrels(args.qrels, args.split)
    inputs = _read_inputs(args.runs)
    rankings = [r for r, _ in inputs]
    seen = dict.fromkeys(q for r in rankings for q in r.query_ids)
    filled = read_fill(args.fill, human, queries=set(human) | set(seen))
    qrels = human if filled is None else filled.qrels
    _check_same_dataset(inputs, args.runs)
    fused = fuse(rankings, args.method, norm=args.norm, weights=weights, alpha=args.alpha,
                 rrf_k=args.rrf_k, name=fused_name([r.name for r in rankings], args.method,
                                                   norm=args.norm, alpha=args.alpha))
    query_ids = [q for q in seen if human.get(q)]
    if not query_ids:
        raise dataset_error("cli.fuse_no_judged", file=str(args.qrels), runs=list(seen)[:3],
                            qrels=list(qrels)[:3])
    kmax = max(max(ks), fused.kmax, 1)

    def score(ranking):
        return evaluate(ranking, qrels, kmax=kmax, queries=query_ids,
                        relevance_level=args.relevance_level, gain=args.gain).summary(ks)

    sweep = None
    if args.sweep:
        sweep = weight_sweep(rankings[0], rankings[1], qrels, metric=args.sweep_metric,
                             method=args.method, norm=args.norm, rrf_k=args.rrf_k,
                             query_ids=query_ids, kmax=kmax, seed=args.seed,
                             tune_fraction=args.tune_fraction,
                             relevance_level=args.relevance_level, gain=args.gain)
    return _Fused(fused=fused, query_ids=query_ids, names=metric_names(ks), filled=filled,
                  metrics=score(fused),
                  inputs=[{"name": r.name, "file": str(path), "depth": r.kmax,
                           "queries": len(r.query_ids), "metrics": score(r)}
                          for (r, _), path in zip(inputs, args.runs)],
                  warnings=shallow_inputs(rankings, max(ks)), sweep=sweep)


def _json_report(args, out: _Fused, ks, weights, run_id) -> dict:
    names = out.names
    obj = {"queries": len(out.query_ids), "name": out.fused.name,
           "metrics": {n: out.metrics[n] for n in names}, "inputs": out.inputs,
           "method": args.method, "norm": args.norm, "weights": weights, "alpha": args.alpha,
           "rrf_k": args.rrf_k, "depth": out.fused.kmax, "k": ks, "warnings": out.warnings,
           "run_file": args.save_run, "run_id": run_id,
           "relevance_level": args.relevance_level, "gain": args.gain,
           **labels_json(out.filled, False)}
    if out.sweep is not None:
        sweep = out.sweep.to_json_obj(ks)
        obj["sweep"] = [{**row, "metrics": {n: row["metrics"][n] for n in names}}
                        for row in sweep["sweep"]]
        obj["sweep_choice"] = sweep["choice"]
    return obj


@dataclass
class _Shown:
    """Which labels fuse's numbers show (it scores human or filled qrels, never condensed)."""

    labels: tuple
    judged_only: bool = False


def _text_report(out: _Fused, run_id) -> str:
    names, fused, sweep = out.names, out.fused, out.sweep
    said = out.filled is not None and labels_line(_Shown(out.filled.labels))
    lines = [f"{fused.name} on {len(out.query_ids):,} judged queries", "",
             format_metrics(out.metrics), *(["", str(said)] if said else []), "",
             format_table(["run", "depth", *names],
                          [[fused.name, fused.kmax, *(out.metrics[n] for n in names)]]
                          + [[row["name"], row["depth"], *(row["metrics"][n] for n in names)]
                             for row in out.inputs])]
    if sweep is not None:
        lines += ["", format_table(
            ["α", f"tuning ({sweep.n_tune:,} q)", f"held-out ({sweep.n_test:,} q)",
             f"all ({len(out.query_ids):,} q)"],
            [[f"{a:g}" + (" ←" if j == sweep.chosen else ""), sweep.tune_means[j],
              sweep.test_means[j], sweep.all_means[j]] for j, a in enumerate(sweep.alphas)]),
            "", sweep.sentence()]
    if run_id:
        from .evaluate import results_path

        lines += ["", f"stored as run {run_id}: open {results_path(run_id)} in the app"]
    return "\n".join(lines)


def _store(args, store, dataset, weights) -> str:
    """The fusion saved as a pipeline run (:func:`ragdash.pipeline.fuse_runs`): the inputs
    become runs on the dataset (a TREC file scored against it, a JSON export as it was made),
    the fused run names them as stages (and as parents when the store has them)."""
    from ..pipeline import fuse_runs
    from ..runs.exchange import run_from_json_obj, run_from_trec
    from .compare import run_names

    runs = []
    for name, path in zip(run_names(args.runs), args.runs):
        with Path(path).open("rb") as f:
            head = f.read(1024)
        if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
            raw = Path(path).read_bytes()
            run = run_from_json_obj(store, raw, dataset=dataset, filename=str(path))
            obj_id = json.loads(raw.decode("utf-8-sig")).get("id")
            run.id = obj_id if obj_id and store.exists(obj_id) else None
            run.name = run.name or name
        else:  # read in blocks, within the limits
            run = run_from_trec(Path(path), dataset=dataset, name=name, filename=str(path),
                                kmax=10**6)
        runs.append(run)
    fused = fuse_runs(runs, args.method, norm=args.norm, weights=weights, alpha=args.alpha,
                      rrf_k=args.rrf_k, name=(args.name or "").strip() or None)
    run_id = store.save(fused)
    note_if_reused(fused)
    return run_id


def _dataset_for_store(args, store):
    p = Path(args.qrels)
    if p.is_dir() or p.suffix.lower() in (".zip", ".json"):
        from ..loaders import load_dataset

        return load_dataset(args.qrels, split=args.split)
    for path in args.runs:
        meta = _dataset_meta(path)
        if meta and store.has_dataset(meta["fingerprint"]):
            return store.dataset(meta["fingerprint"])
    raise error(RetrievalError, "cli.fuse_store_dataset")


def _parse_weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise error(RetrievalError, "cli.bad_weights", text=text) from None


def _load_qrels(path: str, split: str) -> dict:
    p = Path(path)
    if p.is_dir() or p.suffix.lower() in (".zip", ".json"):
        from ..loaders import load_dataset

        return load_dataset(path, split=split).qrels
    from .score import _load_qrels as load

    return load(path)


def _read_inputs(paths: list[str]) -> list[tuple]:
    """(Ranking, dataset metadata or None) per run file; names are the file stems."""
    from ..runs.exchange import read_run_file as read_run
    from .compare import run_names

    out = []
    for name, path in zip(run_names(paths), paths):
        out.append((read_run(path, name=name), _dataset_meta(path)))
    return out


def _dataset_meta(path: str) -> dict | None:
    """A ragdash run export's ``dataset`` ({name, fingerprint}), else None."""
    try:
        with open(path, "rb") as fh:
            if fh.read(1) != b"{":
                return None
        obj = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):  # the reader of the runs says what is wrong
        return None
    meta = obj.get("dataset") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) and meta.get("fingerprint") else None


def _check_same_dataset(inputs: list[tuple], paths: list[str]) -> None:
    """Runs of different datasets cannot be fused: one sentence naming the two."""
    known = [(r, m) for r, m in inputs if m]
    for r, m in known[1:]:
        r0, m0 = known[0]
        if m["fingerprint"] != m0["fingerprint"]:
            raise error(RetrievalError, "cli.fuse_datasets", a=r0.name,
                        a_dataset=m0.get("name", "?"), a_fp=str(m0["fingerprint"])[:12],
                        b=r.name, b_dataset=m.get("name", "?"), b_fp=str(m["fingerprint"])[:12])
    first = set(inputs[0][0].query_ids)
    for r, _ in inputs[1:]:
        if not first & set(r.query_ids):
            a = inputs[0][0]
            raise error(RetrievalError, "cli.fuse_no_common", a=a.name, b=r.name,
                        a_ids=a.query_ids[:2], b_ids=r.query_ids[:2])


__all__ = ["register", "run"]
