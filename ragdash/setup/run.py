"""Running a setup, and the setup of a run made before.

    run = run_setup(load_setup("hybrid.toml"), store=get_store())   # the whole pipeline's run
    setup = setup_from_run(store.load(run_id))                      # ... and back
    setup_to_toml(setup)                                            # a file that reruns it

Every run :func:`run_setup` makes records in ``config["setup"]`` the setup it was made from
(:func:`setup_record`: the setup file's tables, with the dataset as a path or a sample name and
its fingerprint), so a saved run is written back as its setup file exactly. Runs saved
before that are read from the configuration their retrievers wrote
(:func:`setup_from_config`), which names every parameter that decides the ranking.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import params as P
from ..i18n import dataset_error, text
from .build import KeySource, Stages, build
from .model import Setup, setup_from_dict, setup_to_dict

if TYPE_CHECKING:
    from ..dataset import Dataset
    from ..run import Run

__all__ = ["load_setup_dataset", "run_setup", "setup_from_config", "setup_from_run",
           "setup_record"]

ProgressFn = Callable[[dict], None]
SAMPLE_PREFIX = "sample:"


# -- the dataset -----------------------------------------------------------------------------
def dataset_path(setup: Setup) -> Path | None:
    """Where the setup's dataset is on disk (None for a sample or none named)."""
    spec = setup.dataset
    if not spec or spec.startswith(SAMPLE_PREFIX):
        return None
    path = Path(spec).expanduser()
    if not path.is_absolute() and setup.base is not None:
        path = setup.base / path
    return path


def load_setup_dataset(setup: Setup, *, store=None,
                       note: Callable[[str], None] | None = None) -> Dataset:
    """The dataset ``setup`` names: a path (relative to the setup file's folder), a bundled
    sample (``sample:NAME``), or — when the path is missing and the setup carries a
    ``dataset_fingerprint`` the run ``store`` has — the store's copy (``note`` says so). A
    dataset whose fingerprint is not the setup's is refused."""
    from ..loaders import load_dataset

    fingerprint = setup.dataset_fingerprint
    path = dataset_path(setup)
    if setup.dataset and setup.dataset.startswith(SAMPLE_PREFIX):
        from ..samples import load_sample

        dataset = load_sample(setup.dataset[len(SAMPLE_PREFIX):])
    elif path is not None and path.exists():
        dataset = load_dataset(path, split=setup.split)
    elif fingerprint and store is not None and store.has_dataset(fingerprint):
        if note is not None:
            note(text("setup.dataset_from_store", dataset=setup.dataset or "",
                      fingerprint=fingerprint[:12]))
        return store.dataset(fingerprint)
    elif path is None:
        raise dataset_error("setup.no_dataset", file=setup.origin)
    else:
        raise dataset_error("setup.dataset_missing", file=setup.origin, path=setup.dataset,
                            folder=str(setup.base or Path.cwd()))
    if fingerprint and dataset.fingerprint() != fingerprint:
        raise dataset_error("setup.dataset_other", file=setup.origin, path=setup.dataset,
                            got=dataset.fingerprint()[:12], want=fingerprint[:12])
    return dataset


def setup_record(setup: Setup, dataset: Dataset | None = None, *,
                 fingerprint: str | None = None) -> dict:
    """What a run keeps in ``config["setup"]``: the setup's tables, its dataset as an
    absolute path (or a sample's name) and, with ``dataset``, its fingerprint."""
    record = setup_to_dict(setup)
    path = dataset_path(setup)
    if path is not None:
        record["dataset"] = str(path.resolve())
    fingerprint = fingerprint or (dataset.fingerprint() if dataset is not None else None)
    if fingerprint:
        record["dataset_fingerprint"] = fingerprint
    for stage in [record.get("retriever"), *record.get("retrievers", [])]:
        if isinstance(stage, dict) and stage.get("kind") == "python":  # like the dataset
            stage["entry"] = _absolute_entry(stage["entry"], setup.base)
    order = ["dataset", "dataset_fingerprint"]
    return {**{k: record[k] for k in order if k in record},
            **{k: v for k, v in record.items() if k not in order}}


def _absolute_entry(entry: str, base: Path | None) -> str:
    """A python stage's ``path/file.py:attribute`` made absolute (a module name stays)."""
    from ..errors import RagdashError
    from ..retrieval.own.entry import parse_entry

    try:
        parsed = parse_entry(entry, base=base)
    except RagdashError:  # checked when it is built; kept as written
        return entry
    if parsed.path is None:
        return entry
    return f"{parsed.path.resolve()}:{parsed.attribute}"


# -- running ---------------------------------------------------------------------------------
def run_setup(setup: Setup, *, dataset: Dataset | None = None, store=None,
              keys: KeySource | None = None, stages: Stages | None = None,
              progress: ProgressFn | None = None, cancel: threading.Event | None = None,
              estimates: Sequence[dict | None] | None = None,
              rerank_estimate: dict | None = None,
              note: Callable[[str], None] | None = None) -> Run:
    """Run ``setup`` and return its run (a pipeline's: the last stage's). ``dataset``: the
    dataset to use (default: the one the setup names); ``store``: save every run made (each
    first stage, the fusion, the rerank) as it is made; ``stages``: stages already built by
    :func:`~ragdash.setup.build.build` (else built here with ``keys``). Every run records
    its own setup in ``config["setup"]``."""
    from ..pipeline import run_evaluation, run_pipeline

    if dataset is None:
        dataset = load_setup_dataset(setup, store=store, note=note)
    stages = stages if stages is not None else build(setup, keys=keys)
    fingerprint = dataset.fingerprint()
    if len(stages.first) == 1 and stages.reranker is None:
        run = run_evaluation(dataset, stages.first[0], kmax=setup.kmax,
                             limit_queries=setup.limit_queries, progress=progress,
                             cancel=cancel, relevance_level=setup.relevance_level,
                             gain=setup.gain)
        run.name = (setup.name or "").strip()
        run.config["setup"] = setup_record(setup, fingerprint=fingerprint)
        if estimates and estimates[0]:
            run.cost = dict(estimates[0])
        if store is not None:
            store.save(run, secrets=stages.secrets)
        return run
    made = run_pipeline(dataset, stages.first, fusion=stages.fusion, reranker=stages.reranker,
                        kmax=setup.kmax, limit_queries=setup.limit_queries, progress=progress,
                        cancel=cancel, store=store, secrets=stages.secrets,
                        estimates=list(estimates or []), rerank_estimate=rerank_estimate,
                        name=(setup.name or "").strip() or None,
                        relevance_level=setup.relevance_level, gain=setup.gain,
                        annotate=_annotator(setup, fingerprint))
    return made[-1]


def _annotator(setup: Setup, fingerprint: str) -> Callable[[Run], None]:
    """Records on each run of a pipeline the part of ``setup`` it was made from: the i-th
    first stage's alone, the fusion's without the rerank, the last the whole setup."""
    firsts = iter(range(len(setup.retrievers)))

    def annotate(run: Run) -> None:
        if run.source == "evaluation":
            part = setup.first_stage(next(firsts))
        elif run.source == "fusion" and setup.rerank is not None:
            part = setup.without_rerank()
        else:
            part = setup
        run.config = {**run.config, "setup": setup_record(part, fingerprint=fingerprint)}

    return annotate


# -- a run's setup ---------------------------------------------------------------------------
def setup_from_run(run: Run) -> Setup:
    """The setup that reruns ``run``: the one it recorded, else read from its configuration
    and its scoring (K up to its Kmax, relevance level, gain, the queries it evaluated).
    Raises a :class:`~ragdash.errors.DatasetError` (one sentence) for a run no setup
    describes: a TREC file or an import, a pipeline over a run made before, an ANN
    experiment."""
    evaluation = {"kmax": run.kmax, "gain": run.gain,
                  "relevance_level": run.relevance_level,
                  "dataset": run.dataset.source or run.dataset.name,
                  "dataset_fingerprint": run.dataset_fingerprint}
    judged = len(run.dataset.evaluated_queries())
    if len(run.query_ids) < judged:
        evaluation["limit_queries"] = len(run.query_ids)
    if run.name:
        evaluation["name"] = run.name
    return setup_from_config(run.config or {}, label=run.name or run.retriever,
                             source=run.source, **evaluation)


def setup_from_config(config: Mapping, *, label: str = "", source: str = "evaluation",
                      **evaluation: Any) -> Setup:
    """The setup a run's ``config`` was made with (``evaluation``: top-level keys to use when
    the config has no recorded setup: ``kmax``, ``gain``, ``dataset``, ...)."""
    recorded = config.get("setup")
    if isinstance(recorded, Mapping):
        setup = setup_from_dict(recorded)
        if setup.dataset_fingerprint is None and evaluation.get("dataset_fingerprint"):
            setup = replace(setup, dataset_fingerprint=evaluation["dataset_fingerprint"])
        return setup
    raw = {k: v for k, v in evaluation.items() if v is not None}
    if raw.get("kmax") is not None:
        raw["k"] = [k for k in P.EVALUATION["k"].default if k <= raw["kmax"]] or [raw["kmax"]]
    if source in ("trec", "import") or config.get("retriever") == "trec":
        raise _cannot(label, text("setup.why_imported"))
    stages = config.get("stages")
    if stages:
        firsts = [s for s in stages if s.get("stage") == "first"]
        if any(not isinstance(s.get("config"), Mapping) or not s["config"]
               or s.get("retriever") == "trec" for s in firsts):
            raise _cannot(label, text("setup.why_saved_stage"))
        items = [_first_from_config(s["config"], s.get("label") or label) for s in firsts]
        if len(items) == 1:
            raw["retriever"] = items[0]
        else:
            raw["retrievers"] = items
        for s in stages:
            if s.get("stage") == "fusion":
                raw["fusion"] = {k: s[k] for k in P.FUSION.names if s.get(k) is not None}
            elif s.get("stage") == "rerank":
                kind = "local" if s.get("reranker") == "local" else "http"
                stage = P.RERANK_LOCAL if kind == "local" else P.RERANK_HTTP
                raw["rerank"] = {"kind": kind, **{k: s[k] for k in stage.names
                                                  if s.get(k) is not None}}
    else:
        raw["retriever"] = _first_from_config(config, label)
    return setup_from_dict(raw)


def _cannot(label: str, why) -> Exception:
    return dataset_error("setup.not_reproducible", run=label or "?", why=why)


def _chunking_of(config: Mapping) -> dict:
    return {k: config["chunking"][k] for k in P.CHUNKING.names if k in config["chunking"]}


def _first_from_config(config: Mapping, label: str) -> dict:
    """``[retriever]`` from the configuration one retriever wrote."""
    kind = config.get("retriever")
    if (config.get("transform") or {}).get("kind") == "ann":
        raise _cannot(label, text("setup.why_ann"))
    if kind not in P.RETRIEVER_KINDS:
        raise _cannot(label, text("setup.why_unknown", retriever=str(kind)))
    item: dict = {"kind": kind}
    if kind == "python":  # a search handed to evaluate_search has no entry to import
        if ":" not in str(config.get("entry") or ""):
            raise _cannot(label, text("own.why_no_entry"))
        item.update({k: config[k] for k in P.PYTHON.names if config.get(k) is not None})
    elif kind in P.ENGINE_KINDS:
        dense = config.get("query_embedding") or {}
        embedder = dense.get("retriever") or "openai"
        item.update({k: config[k] for k in P.ENGINE.names if config.get(k) is not None})
        item["embedder"] = embedder
        item.update(_embedding_options(embedder, dense))
    elif kind == "bm25":
        item.update({k: config[k] for k in P.BM25.names if config.get(k) is not None})
    elif kind == "http":  # a search service: its settings, never its key
        item.update({k: config[k] for k in P.HTTP.names
                     if config.get(k) is not None and not P.HTTP[k].env})
        if config.get("api_key_set") and config.get("api_key_env"):
            item["api_key_env"] = config["api_key_env"]
    else:
        item.update(_embedding_options(kind, config))
    if config.get("chunking"):
        item["chunking"] = _chunking_of(config)
    return item


def _embedding_options(kind: str, config: Mapping) -> dict:
    stage = P.embedding_stage(kind)
    out = {k: config[k] for k in stage.names if config.get(k) is not None and not stage[k].env}
    if kind == "local":  # the config names the model by its cache key: "pkg==1.0" or a path
        model = str(config.get("model") or "")
        out["model"] = model.split("==")[0] if "==" in model else (config.get("path") or model)
    return out

