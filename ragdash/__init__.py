"""ragdash: evaluate the retrieval half of a RAG system.

The core is plain Python (no streamlit outside ``ragdash.ui``):

    files --load--> Dataset --retrieve--> Ranking --score--> MetricTable --> charts / report
"""

from .dataset import Dataset, Document, Qrels, Query
from .errors import DatasetError, RagdashError
from .ranking import Ranking

__version__ = "0.1.0"

__all__ = ["Dataset", "DatasetError", "Document", "Qrels", "Query", "RagdashError", "Ranking",
           "__version__", "check"]


def check(qrels, baseline, candidate, **options):
    """The regression gate (``ragdash check``) from Python: score ``baseline`` and
    ``candidate`` (run files, ``store:<id>``, setup files) against ``qrels`` and return the
    :class:`~ragdash.stats.gate.GateDecision` (``.passed``, ``.exit_code``, ``.sentence()``,
    ``.to_json_obj()``). Options as :func:`ragdash.gate.check`."""
    from .gate import check as _check

    return _check(qrels, baseline, candidate, **options)
