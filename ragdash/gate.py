"""The regression gate's inputs and its one call: ``ragdash.check(qrels, baseline, candidate)``.

A side (baseline or candidate) is named the way CI has it at hand:

- a TREC run file (``qid Q0 docno rank score tag``) or a ragdash run JSON;
- ``store:<id>``: a run saved in the run store (``$RAGDASH_HOME``), e.g. the last release's;
- a setup file (``*.toml``, docs/setup-file.md): run first, with the embeddings cache, so a
  rerun of an unchanged setup sends no request.

Both sides are scored on the judged queries the baseline answers. A judged query the
candidate does not answer scores 0 for it (trec_eval's ``-c``): leaving queries out is a
regression like any other, and the gate says how many were left out. Judged queries the
baseline does not answer are left out (and counted). Then :func:`ragdash.stats.gate.decide`
decides, on every metric asked. judged@10 of both sides is measured on the same queries, so a
candidate that finds documents nobody judged is said to.

A cutoff deeper than both runs (``ndcg@100000`` on runs of 100) is scored at the runs' depth
and said: the work stays bounded by the rankings given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .dataset import Dataset, Document, Query
from .errors import StatsError
from .i18n import dataset_error, error, text
from .ranking import Ranking
from .run import Run
from .stats.gate import DEFAULT_MARGIN, GateDecision, decide

__all__ = ["MAX_DRAWS", "STORE_PREFIX", "Side", "cap_metric", "check", "check_draws",
           "check_options", "check_seed", "report_runs", "resolve_side"]

STORE_PREFIX = "store:"
SETUP_SUFFIXES = (".toml",)
#: the cut-off at which coverage is measured and said
COVERAGE_K = 10


@dataclass
class Side:
    """One side of the gate: its name, its ranking, and its :class:`Run` when it has one (a
    stored run or a setup's run: texts for the report)."""

    name: str
    ranking: Ranking
    run: Run | None = None
    spec: str = ""


def resolve_side(spec: str, *, name: str | None = None, store=None,
                 note: Callable[[str], None] | None = None) -> Side:
    """A run file, ``store:<id>`` or a setup file, as a :class:`Side`."""
    spec = str(spec)
    if spec.startswith(STORE_PREFIX):
        from .runs import get_store

        run_id = spec[len(STORE_PREFIX):].strip()
        run = (store if store is not None else get_store()).load(run_id)
        return Side(name or run.name or run_id, run.ranking, run, spec)
    path = Path(spec)
    if path.suffix.lower() in SETUP_SUFFIXES:
        from .runs import get_store
        from .setup import build, environment_keys, load_setup, run_setup
        from .setup.run import load_setup_dataset

        setup = load_setup(path)
        stages = build(setup, keys=environment_keys(flags=False))
        lookup = store
        if lookup is None and setup.dataset_fingerprint:
            lookup = get_store()
        dataset = load_setup_dataset(setup, store=lookup, note=note)
        run = run_setup(setup, dataset=dataset, stages=stages, note=note)
        return Side(name or (setup.name or "").strip() or path.stem, run.ranking, run, spec)
    from .runs.exchange import read_run_file

    ranking = read_run_file(spec, name=name)
    return Side(name or ranking.name or path.stem, ranking, None, spec)


def check(qrels, baseline: str | Side, candidate: str | Side, *,
          metrics: Sequence[str] = ("ndcg@10",), margin: float = DEFAULT_MARGIN,
          rule: str = "not-worse", alpha: float = 0.05, confidence: float = 0.95,
          seed: int | None = 0, n_resamples: int | None = None,
          n_permutations: int | None = None, relevance_level: float | None = None,
          fill: Sequence[str] = (), names: tuple[str | None, str | None] = (None, None),
          store=None, note: Callable[[str], None] | None = None) -> GateDecision:
    """Score ``baseline`` and ``candidate`` against ``qrels`` (a path or ``{qid: {doc:
    grade}}``) on every metric and decide with the gate's ``rule``. Same inputs, same seed:
    the same decision."""
    from .metrics import evaluate
    from .stats import DEFAULT_PERMUTATIONS, DEFAULT_RESAMPLES

    metrics = check_options(metrics, seed=seed, n_resamples=n_resamples,
                            n_permutations=n_permutations)
    qrels_map = _qrels(qrels)
    notes = []
    if fill:
        qrels_map, filled = _filled(qrels_map, fill)
        notes += filled
    base = baseline if isinstance(baseline, Side) else resolve_side(
        baseline, name=names[0], store=store, note=note)
    cand = candidate if isinstance(candidate, Side) else resolve_side(
        candidate, name=names[1], store=store, note=note)
    for side in (base, cand):  # a name from a file or the store, safe to print
        side.name = shown_name(side.name)
    if base.name == cand.name:
        cand.name = f"{cand.name} (candidate)"
        base.name = f"{base.name} (baseline)"

    scored, said = _scored_queries(qrels_map, base, cand)
    notes = said + notes
    depth = max(base.ranking.kmax, cand.ranking.kmax, 1)
    metrics, ks, capped = _capped(metrics, depth)
    notes += capped
    kmax = max(max([k for k in ks if k is not None] or [depth]), COVERAGE_K)
    # a query the candidate does not answer is in `scored`: evaluate gives it 0
    tables = {side.name: evaluate(side.ranking, qrels_map, kmax=kmax, queries=scored,
                                  relevance_level=relevance_level) for side in (base, cand)}
    values = {side.name: {m: tables[side.name].value(m) for m in metrics}
              for side in (base, cand)}
    # coverage on the queries the candidate answers: one it left out is not "unjudged"
    in_cand = set(cand.ranking.query_ids)
    answered = np.fromiter((q in in_cand for q in scored), dtype=bool, count=len(scored))
    coverage = {side.name: float(tables[side.name].value(f"judged@{COVERAGE_K}")[answered].mean())
                for side in (base, cand)}
    return decide(values[base.name], values[cand.name], query_ids=scored,
                  baseline_name=base.name, candidate_name=cand.name, rule=rule,
                  margin=margin, alpha=alpha, confidence=confidence, seed=seed,
                  n_resamples=DEFAULT_RESAMPLES if n_resamples is None else n_resamples,
                  n_permutations=(DEFAULT_PERMUTATIONS if n_permutations is None
                                  else n_permutations),
                  coverage=coverage, notes=notes)


def shown_name(name: str) -> str:
    """A run's name as the gate prints it: control characters escaped (an ESC in a run file's
    name or tag colours no terminal), at most :data:`ragdash.params.NAME_MAX` characters."""
    from .params import NAME_MAX, escape_controls

    name = str(name)
    return escape_controls(name if len(name) <= NAME_MAX else name[:NAME_MAX] + "…")


def check_options(metrics: Sequence[str], *, seed=0, n_resamples: int | None = None,
                  n_permutations: int | None = None) -> list[str]:
    """The metrics asked (trimmed, lower case, each once) once the options are checked: a
    usage error is said before a setup file runs or a ranking is read."""
    from .metrics import parse_metric

    check_seed(seed)
    check_draws(n_resamples, n_permutations)
    metrics = list(dict.fromkeys(m.strip().lower() for m in metrics if m and m.strip()))
    if not metrics:
        raise error(StatsError, "gate.no_metric")
    for m in metrics:
        parse_metric(m)
    return metrics


def check_seed(seed) -> None:
    """A seed numpy takes: None or a whole number of 0 or more (``--seed -1`` is a usage
    error, said before anything runs)."""
    import numbers

    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise error(StatsError, "gatechecks.seed", seed=seed)


#: the most bootstrap resamples or sign flips one call may ask for: beyond it the figures
#: change in the fourth decimal and the time grows without bound
MAX_DRAWS = 1_000_000


def check_draws(n_resamples: int | None, n_permutations: int | None) -> None:
    """``--resamples`` / ``--permutations`` bounded above (the lower bound is the statistics'
    own check)."""
    for flag, n in (("--resamples", n_resamples), ("--permutations", n_permutations)):
        if n is not None and n > MAX_DRAWS:
            raise error(StatsError, "gatechecks.too_many_draws", flag=flag, n=f"{n:,}",
                        max=f"{MAX_DRAWS:,}")


def _scored_queries(qrels: dict, base: Side, cand: Side) -> tuple[list[str], list]:
    """The queries both sides are scored on — the judged queries the baseline answers, a
    query the candidate leaves out among them (it scores 0: trec_eval's ``-c``) — and what
    is said about those left out."""
    judged = [q for q in map(str, qrels) if qrels[q]]
    in_base, in_cand = set(base.ranking.query_ids), set(cand.ranking.query_ids)
    scored = [q for q in judged if q in in_base]
    if not scored or in_cand.isdisjoint(scored):
        raise error(StatsError, "gate.no_common", base=base.name, cand=cand.name)
    notes = []
    unanswered = sum(q not in in_cand for q in scored)
    if unanswered:
        notes.append(text("gatechecks.unanswered", cand=cand.name, n=unanswered,
                          total=len(scored)))
    if len(scored) < len(judged):
        notes.append(text("gatechecks.baseline_left_out", base=base.name,
                          n=len(judged) - len(scored), total=len(judged)))
    return scored, notes


def cap_metric(metric: str, depth: int, *, clause: bool = False) -> tuple[str, list]:
    """``metric`` scored at most ``depth`` deep — the deepest of the runs (``ndcg@100000`` on
    runs of 100 -> ``ndcg@100``): a cutoff asks for no more work than the rankings hold — and
    the sentence that says so (none when it is not capped; ``clause``: without its full
    stop, for ``compare``'s notes)."""
    from .metrics import metric_label, parse_metric

    family, k = parse_metric(metric)
    if k is None or k <= depth:
        return metric, []
    capped = f"{family}@{depth}"
    said = dict(metric=metric_label(metric), depth=f"{depth:,}", capped=metric_label(capped))
    return capped, [text("gatechecks.k_capped_clause", **said) if clause
                    else text("gatechecks.k_capped", **said)]


def _capped(metrics: list[str], depth: int) -> tuple[list[str], list, list]:
    """``metrics`` each capped at ``depth`` (:func:`cap_metric`); a metric that becomes one
    already asked is asked once."""
    from .metrics import parse_metric

    out, notes = [], []
    for m in metrics:
        m, said = cap_metric(m, depth)
        out.append(m)
        notes += said
    out = list(dict.fromkeys(out))
    return out, [parse_metric(m)[1] for m in out], notes


def _qrels(qrels) -> dict[str, dict[str, float]]:
    if isinstance(qrels, Mapping):
        return {str(q): {str(d): float(g) for d, g in docs.items()} for q, docs in qrels.items()}
    from .loaders import load_qrels

    loaded = load_qrels(qrels)
    if not loaded:
        raise dataset_error("cli.qrels_no_query", file=str(qrels))
    return {str(q): {str(d): float(g) for d, g in docs.items()} for q, docs in loaded.items()}


def _filled(qrels: dict, files: Sequence[str]) -> tuple[dict, list]:
    """The human qrels with the pairs they leave unjudged filled from ``files`` (TREC qrels,
    with a sources sidecar where there is one): a human label is never overridden, and a
    label for a query the qrels do not have is left out (it would change which queries are
    compared) and counted."""
    from .judgments import fill, read_judgments

    filled = fill(qrels, *(read_judgments(path) for path in files), queries=set(qrels))
    notes = [text("gate.filled", n=use.used, file=str(path))
             for path, use in zip(files, filled.sets)]
    left_out = sum(use.unknown_queries for use in filled.sets)
    if left_out:
        notes.append(text("gate.fill_unknown", n=left_out))
    return filled.qrels, notes


def report_runs(qrels, sides: Sequence[Side]) -> list[Run]:
    """The two sides as runs for the HTML report: a stored or setup run as it is; a run file
    scored against an ids-only dataset made from the qrels (a path or a mapping) and the
    rankings."""
    qrels = _qrels(qrels)
    runs = []
    dataset = next((s.run.dataset for s in sides if s.run is not None), None)
    if dataset is None:
        qids = list(map(str, qrels))
        dids = dict.fromkeys(d for docs in qrels.values() for d in map(str, docs))
        for s in sides:
            dids.update(dict.fromkeys(map(str, s.ranking.doc_ids)))
        dataset = Dataset(documents=[Document(id=d, text="") for d in dids],
                          queries=[Query(id=q, text="") for q in qids],
                          qrels={str(q): dict(v) for q, v in qrels.items()},
                          name="qrels (ids only)", source="check")
    for s in sides:
        if s.run is not None:
            s.run.name = s.name
            runs.append(s.run)
            continue
        qids = [q for q in s.ranking.query_ids if q in qrels]
        kmax = max(1, min(100, s.ranking.kmax))
        runs.append(Run.of_ranking(dataset, s.ranking.truncate(kmax), kmax=kmax,
                                   query_ids=qids, name=s.name,
                                   config={"retriever": "trec", "file": s.spec},
                                   retriever="trec", source="trec"))
    return runs
