"""Saved runs: the store (SQLite under ``RAGDASH_HOME``) and JSON / TREC export and import.

    >>> store = get_store()                      # ./.ragdash/runs.sqlite, or $RAGDASH_HOME
    >>> run_id = store.save(run_evaluation(dataset, retriever))   # a ragdash.run.Run
    >>> store.list()[0].headline["ndcg@10"]
    >>> run = store.load(run_id); run.table().curve("ndcg")   # metrics recomputed
    >>> export_json(run), export_trec(run)
"""

from .exchange import (
    EXPORT_FORMAT,
    export_json,
    export_trec,
    import_json,
    import_trec,
    run_from_json_obj,
    run_from_trec,
    run_to_json_obj,
)
from .store import (
    HEADLINE_METRICS,
    RunStore,
    RunSummary,
    default_home,
    get_store,
    new_run_id,
    summary_of,
)

__all__ = ["EXPORT_FORMAT", "HEADLINE_METRICS", "RunStore", "RunSummary", "default_home",
           "export_json", "export_trec", "get_store", "import_json", "import_trec",
           "new_run_id", "run_from_json_obj", "run_from_trec", "run_to_json_obj",
           "summary_of"]
