"""One exception tree for ragdash.

    RagdashError                 anything ragdash raises on purpose; the message says what to do
    ├── DatasetError             a file that cannot be read as a dataset, qrels or run
    ├── MetricError              an unknown metric name or an impossible cutoff
    ├── RetrievalError           a retriever that cannot run (missing extra, bad shapes)
    │   ├── Cancelled            the user cancelled a running job
    │   └── EngineError          a vector engine (Milvus, Qdrant) that cannot answer
    ├── EmbeddingError           the embeddings service failed for good (after retries)
    │   ├── AuthenticationError  401/403: wrong or missing key
    │   ├── NotFoundError        404: wrong base URL or model
    │   ├── InputTooLongError    400: a text is over the model's limit
    │   ├── QuotaExceededError   429 insufficient_quota: no credit left
    │   └── ServerUnreachableError  connection refused, DNS, timeouts after retries
    ├── RerankError              a rerank server failed for good, or answered what cannot be right
    ├── CacheError               the embeddings or rerank cache cannot be opened or written
    ├── CostError                unknown model or a malformed price catalog
    ├── RunStoreError            a saved run that cannot be found or read
    └── StatsError               runs that cannot be compared

Third-party exceptions are translated where they happen, with ``raise ... from exc``, so a user
sees one plain sentence and a developer still gets the chain.
"""

from __future__ import annotations


class RagdashError(Exception):
    """Base class: every error ragdash raises on purpose.

    An error may carry a message id and its values (``msg_id``, ``params``): the catalog's
    ``msg.<msg_id>`` (:mod:`ragdash.i18n`) then says it in another language or in the app's
    words. :func:`ragdash.i18n.error` sets them; layers below :mod:`ragdash.i18n` (the file
    formats) set them with :func:`with_id`, keeping their own English text.
    """

    msg_id: str | None = None
    params: dict = {}  # noqa: RUF012  (read only; an instance with an id has its own)


class Said(str):
    """A word or phrase with a message id, for a layer that may not import
    :mod:`ragdash.i18n`: ``str`` is the English given; as a value of an error's ``params``,
    :func:`ragdash.i18n.message` says it from ``msg.<msg_id>``."""

    msg_id: str
    params: dict

    def __new__(cls, msg_id: str, english: str, **params: object) -> Said:
        obj = super().__new__(cls, english)
        obj.msg_id, obj.params = msg_id, dict(params)
        return obj


def with_id(msg_id: str, exc: RagdashError, /, **params: object) -> RagdashError:
    """``exc`` carrying ``msg_id`` and ``params`` (its text unchanged); returns it. The English
    of ``msg.<msg_id>`` (and ``msg.<msg_id>.fix`` for a DatasetError) in the catalog must be
    the text ``exc`` already says (a test checks this)."""
    exc.msg_id, exc.params = msg_id, dict(params)
    return exc


class DatasetError(RagdashError):
    """A file that cannot be read. Names the file, the line or record, and the fix.

    ``str(err)`` is one line: ``"<file>, line <n>: <problem>. <fix>"``.
    """

    def __init__(self, problem: str, *, file: str | None = None, line: int | None = None,
                 record: str | None = None, fix: str | None = None) -> None:
        self.problem = problem
        self.file = file
        self.line = line
        self.record = record
        self.fix = fix
        where = []
        if file:
            where.append(str(file))
        if line is not None:
            where.append(f"line {line}")
        if record is not None:
            where.append(f"record {record}")
        text = problem.rstrip(".") + "."
        if where:
            text = ", ".join(where) + ": " + text
        if fix:
            fix = fix.strip().rstrip(".")
            text += " " + fix[:1].upper() + fix[1:] + "."
        super().__init__(text)


class MetricError(RagdashError):
    """An unknown metric name or an impossible cutoff."""


class RetrievalError(RagdashError):
    """A retriever that cannot run."""


class Cancelled(RetrievalError):
    """The user cancelled a running retrieval; what was already paid for is cached."""


class EngineError(RetrievalError):
    """A vector engine (Milvus, Qdrant) that cannot be reached or asked, a missing collection
    or field, a dimension mismatch; the message names what to check (never a token)."""


class EmbeddingError(RagdashError):
    """The embeddings service failed for good (after any retries)."""


class AuthenticationError(EmbeddingError):
    """401/403: the API key is wrong or missing."""


class NotFoundError(EmbeddingError):
    """404: the base URL or the model name is wrong."""


class InputTooLongError(EmbeddingError):
    """400: a text is longer than the model accepts."""


class QuotaExceededError(EmbeddingError):
    """429 with an insufficient_quota code: the account has no credit left."""


class ServerUnreachableError(EmbeddingError):
    """The server could not be reached (after retries)."""


class RerankError(RagdashError):
    """A rerank server failed for good (after retries) or sent a reply that cannot be right;
    the scores already received are cached."""


class CacheError(RagdashError):
    """The embeddings cache (a SQLite file under RAGDASH_HOME) cannot be opened or written."""


class CostError(RagdashError):
    """An unknown model or a malformed price catalog."""


class RunStoreError(RagdashError):
    """A saved run that cannot be found or read."""


class StatsError(RagdashError):
    """Runs that cannot be compared."""
