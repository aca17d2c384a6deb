"""Options shared by ``evaluate --retriever milvus|qdrant`` and ``index``: where the engine is,
which collection and fields, and its token (from the environment, never the command line)."""

from __future__ import annotations

import os

from ..errors import EngineError
from ..i18n import error, text
from ._output import note

#: --retriever values served by a vector engine
ENGINE_RETRIEVERS = ("milvus", "qdrant")
DEFAULT_TOKEN_ENV = "RAGDASH_ENGINE_TOKEN"


def add_engine_options(p, *, deployed: bool) -> None:
    """The engine's options; ``deployed``: also the fields of an existing collection."""
    g = p.add_argument_group("vector engine options (--retriever milvus or qdrant; index)")
    g.add_argument("--uri", default=None, metavar="URI",
                   help="milvus: a local .db file (Milvus Lite) or http://host:19530; "
                        "qdrant: a local folder, :memory: or http://host:6333")
    g.add_argument("--collection", default=None, metavar="NAME",
                   help="the collection to search (evaluate) or to create (index; default "
                        "ragdash_<dataset>_<index>)")
    g.add_argument("--engine-token-env", default=None, metavar="NAME",
                   help=f"read the engine's token / API key from the environment variable "
                        f"NAME (default {DEFAULT_TOKEN_ENV}; none needed for local files)")
    g.add_argument("--embedder", choices=("openai", "local"), default="openai",
                   help="how the queries (and, for index, the documents) are embedded: the "
                        "embedding options below with openai (default) or local")
    if deployed:
        g.add_argument("--vector-field", default=None, metavar="F",
                       help="the collection's vector field (default: its only one)")
        g.add_argument("--id-field", default=None, metavar="FIELD",
                       help="the payload field that holds the dataset's document id (required)")
        g.add_argument("--filter", default=None, metavar="EXPR",
                       help="only search what matches: a Milvus boolean expression "
                            "(lang == \"ja\"), or field=value[,field=value] for Qdrant")


def engine_token(args) -> str | None:
    env = getattr(args, "engine_token_env", None) or DEFAULT_TOKEN_ENV
    return os.environ.get(env, "").strip() or None


def open_from_args(args, kind: str):
    from ..http import plain_http_warning
    from ..retrieval.engines import open_engine

    if not args.uri:
        raise error(EngineError, "cli.engine_needs_uri", kind=kind)
    timeout = getattr(args, "timeout", None) or 30.0
    token = engine_token(args)
    insecure = plain_http_warning(args.uri, key_set=token is not None, what="token")
    if insecure:  # the engine's token over plain http to another machine (issue #13)
        note(text("cli.warning", warning=insecure))
    return open_engine(kind, args.uri, token=token, timeout=timeout)


def make_engine_retriever(args, make_dense):
    """An EngineRetriever for ``args``; ``make_dense(kind)`` builds the query embedder."""
    from ..retrieval.engines import EngineRetriever

    if not args.collection:
        raise error(EngineError, "cli.engine_needs_collection", retriever=args.retriever)
    if not args.id_field:
        raise error(EngineError, "cli.engine_needs_id_field", retriever=args.retriever)
    dense = make_dense(args.embedder)
    engine = open_from_args(args, args.retriever)
    return EngineRetriever(engine, args.collection, id_field=args.id_field, queries=dense,
                           vector_field=args.vector_field, filter=args.filter)
