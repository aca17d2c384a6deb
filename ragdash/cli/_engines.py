"""Options shared by ``evaluate --retriever milvus|qdrant|chroma`` and ``index``: where the
engine is, which collection and fields, and its token (from the environment, never the command
line)."""

from __future__ import annotations

import os

from ..errors import EngineError
from ..i18n import error, text
from ..params import ENGINE as _ENGINE
from ..params import ENGINE_KINDS
from ._output import note

#: --retriever values served by a vector engine
ENGINE_RETRIEVERS = ENGINE_KINDS
DEFAULT_TOKEN_ENV = _ENGINE["engine_token_env"].default


def add_engine_options(p, *, deployed: bool) -> None:
    """The engine's options; ``deployed``: also the fields of an existing collection."""
    from .. import params as P
    from ._params import add_params

    g = p.add_argument_group("vector engine options (--retriever milvus, qdrant or chroma; "
                             "index)")
    add_params(g, [P.ENGINE["uri"]])
    g.add_argument("--path", dest="uri", default=None, metavar="DIR",
                   help="chroma: the folder Chroma keeps its data in (the same as --uri)")
    g.add_argument("--collection", default=None, metavar="NAME",
                   help="the collection to search (evaluate) or to create (index; default "
                        "ragdash_<dataset>_<index>)")
    add_params(g, [P.ENGINE["engine_token_env"], P.ENGINE["embedder"]],
               keep_default=("embedder",))
    if deployed:
        add_params(g, [P.ENGINE[n] for n in ("vector_field", "id_field", "filter",
                                             "engine_timeout")])


def engine_token(args) -> str | None:
    env = getattr(args, "engine_token_env", None) or DEFAULT_TOKEN_ENV
    return os.environ.get(env, "").strip() or None


def open_from_args(args, kind: str):
    from ..retrieval.engines import open_engine
    from ..services.http import plain_http_warning

    if not args.uri:
        raise error(EngineError, "cli.engine_needs_uri", kind=kind)
    timeout = getattr(args, "timeout", None) or _ENGINE["engine_timeout"].default
    token = engine_token(args)
    insecure = plain_http_warning(args.uri, key_set=token is not None, what="token")
    if insecure:  # the engine's token over plain http to another machine
        note(text("cli.warning", warning=insecure))
    return open_engine(kind, args.uri, token=token, timeout=timeout)
