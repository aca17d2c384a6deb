"""ragdash: evaluate the retrieval half of a RAG system.

The core is plain Python (no streamlit outside ``ragdash.ui``):

    files --load--> Dataset --retrieve--> Ranking --score--> MetricTable --> charts / report
"""

from .dataset import Dataset, Document, Qrels, Query
from .errors import DatasetError, RagdashError
from .ranking import Ranking

__version__ = "0.1.0"

__all__ = ["Dataset", "DatasetError", "Document", "Qrels", "Query", "RagdashError", "Ranking",
           "__version__"]
