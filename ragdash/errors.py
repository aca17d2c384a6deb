"""One exception tree for ragdash.

    RagdashError                 anything ragdash raises on purpose; the message says what to do
    ├── DatasetError             a file that cannot be read as a dataset, qrels or run
    ├── MetricError              an unknown metric name or an impossible cutoff
    ├── RetrievalError           a retriever that cannot run (missing extra, bad shapes)
    │   ├── Cancelled            the user cancelled a running job
    │   └── EngineError          a vector engine (Milvus, Qdrant) that cannot answer
    ├── ServiceError             a remote service failed for good (after retries); by KIND:
    │   ├── AuthenticationError      401/403: wrong or missing key
    │   ├── NotFoundError            404: wrong base URL or model
    │   ├── QuotaExceededError       429 insufficient_quota: no credit left
    │   ├── RateLimitedError         429 after every retry
    │   ├── InputTooLongError        a text over the model's limit
    │   ├── ServerError              5xx (408, 409) after every retry
    │   ├── ServerUnreachableError   connection refused, DNS, TLS, timeouts after retries
    │   ├── BadReplyError            a reply that cannot be read or cannot be right
    │   ├── RefusedError             any other refusal (a 4xx, a redirect to another host)
    │   └── by SERVICE: EmbeddingError, RerankError, ChatError
    │       (what a client raises is both: ``EMBEDDING_ERRORS["auth"]`` is an EmbeddingError
    │       and an AuthenticationError; see :mod:`ragdash.services.failures`)
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


class ServiceError(RagdashError):
    """A remote service (embeddings, rerank, chat) failed for good (after any retries)."""


class AuthenticationError(ServiceError):
    """401/403: the API key is wrong or missing."""


class NotFoundError(ServiceError):
    """404: the base URL or the model name is wrong."""


class QuotaExceededError(ServiceError):
    """429 with an insufficient_quota code: the account has no credit left."""


class RateLimitedError(ServiceError):
    """429 still, after every retry."""


class InputTooLongError(ServiceError):
    """A text is longer than the model accepts, even cut shorter."""


class ServerError(ServiceError):
    """The server failed (5xx, 408, 409) after every retry."""


class ServerUnreachableError(ServiceError):
    """The server could not be reached (after retries): refused, unknown host, TLS, timeout."""


class BadReplyError(ServiceError):
    """A reply that cannot be read (not JSON, too large) or cannot be right (wrong count,
    NaN); never retried more than the policy says, nothing of it is kept."""


class RefusedError(ServiceError):
    """Any other refusal: a 4xx the table does not name, a redirect to another host."""


class EmbeddingError(ServiceError):
    """The embeddings service failed for good (after any retries)."""


class RerankError(ServiceError):
    """A rerank server failed for good (after retries) or sent a reply that cannot be right;
    the scores already received are cached."""


class ChatError(ServiceError):
    """A chat-completions server failed for good: the whole job stops (a wrong key, an unknown
    model, no quota left, unreachable)."""


#: the failure kinds of :mod:`ragdash.services.failures` and their exception classes
KIND_ERRORS: dict[str, type[ServiceError]] = {
    "auth": AuthenticationError, "not_found": NotFoundError, "quota": QuotaExceededError,
    "rate_limited": RateLimitedError, "too_long": InputTooLongError, "server": ServerError,
    "unreachable": ServerUnreachableError, "bad_reply": BadReplyError, "refused": RefusedError,
}


def _by_kind(service: type[ServiceError]) -> dict[str, type[ServiceError]]:
    """For each kind, the class a ``service`` raises: a subclass of both (so ``except
    AuthenticationError`` catches a wrong key from every service, and ``except RerankError``
    everything the rerank client raises)."""
    prefix = service.__name__.removesuffix("Error")
    return {kind: type(f"{prefix}{base.__name__}", (service, base),
                       {"__module__": __name__, "__doc__": base.__doc__})
            for kind, base in KIND_ERRORS.items()}


EMBEDDING_ERRORS = _by_kind(EmbeddingError)
RERANK_ERRORS = _by_kind(RerankError)
CHAT_ERRORS = _by_kind(ChatError)


class CacheError(RagdashError):
    """The embeddings cache (a SQLite file under RAGDASH_HOME) cannot be opened or written."""


class CostError(RagdashError):
    """An unknown model or a malformed price catalog."""


class RunStoreError(RagdashError):
    """A saved run that cannot be found or read."""


class StatsError(RagdashError):
    """Runs that cannot be compared."""
