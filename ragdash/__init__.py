"""ragdash: evaluate the retrieval half of a RAG system.

The core is plain Python (no streamlit outside ``ragdash.ui``):

    files --load--> Dataset --retrieve--> Ranking --score--> MetricTable --> charts / report
"""

from .dataset import Dataset, Document, Qrels, Query
from .errors import DatasetError, RagdashError
from .ranking import Ranking

__version__ = "0.1.0"

__all__ = ["Dataset", "DatasetError", "Document", "Qrels", "Query", "RagdashError", "Ranking",
           "__version__", "check", "evaluate_search"]


def check(qrels, baseline, candidate, **options):
    """The regression gate (``ragdash check``) from Python: score ``baseline`` and
    ``candidate`` (run files, ``store:<id>``, setup files) against ``qrels`` and return the
    :class:`~ragdash.stats.gate.GateDecision` (``.passed``, ``.exit_code``, ``.sentence()``,
    ``.to_json_obj()``). Options as :func:`ragdash.gate.check`."""
    from .gate import check as _check

    return _check(qrels, baseline, candidate, **options)


def evaluate_search(dataset, search, *, k: int = 100, name: str | None = None,
                    id_field: str | None = None, match: str | None = None,
                    concurrency: int = 1, allow_failures: bool = False,
                    timeout: float | None = 60.0, resume: bool = True, progress=None,
                    cancel=None, limit_queries: int | None = None):
    """Evaluate a retriever of your own on ``dataset`` and return the
    :class:`~ragdash.run.Run` (``run.table().mean("ndcg@10")``, ``run.resources``'s latency,
    ``run.usage``'s counts). ``search`` is a function ``search(query, k)`` (plain or
    ``async``) returning ids, ``(id, score)`` pairs, dicts or objects carrying an id, or a
    LangChain / LlamaIndex / Haystack retriever; ``id_field`` names the metadata field that
    holds the dataset's document id; ``match="text"`` maps results by their text instead.
    Each query is asked once for its top ``k``; a query that fails (after retries) makes the
    run incomplete and refused unless ``allow_failures``. See docs/own-retriever.md."""
    from .pipeline import run_evaluation
    from .retrieval.own.search import own_retriever

    retriever = own_retriever(search, name=name, id_field=id_field, match=match,
                              concurrency=concurrency, allow_failures=allow_failures,
                              timeout=timeout, resume=resume)
    run = run_evaluation(dataset, retriever, kmax=k, limit_queries=limit_queries,
                         progress=progress, cancel=cancel)
    run.name = run.name or retriever.name
    return run
