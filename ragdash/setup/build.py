"""From a :class:`~ragdash.setup.model.Setup` to the objects that run it — the one place the
command line, the app and :func:`ragdash.setup.run_setup` build retrievers, chunking, fusion
and rerankers.

    stages = build(setup)                       # keys from the environment, as the CLI reads
    stages.first, stages.fusion, stages.reranker, stages.secrets

Credentials never travel in a setup: a :data:`KeySource` gives them — ``(role, env, url)``
with ``role`` one of ``"embeddings"``, ``"rerank"``, ``"engine"``, ``"search"`` (a search
service), ``env`` the variable the setup names (``api_key_env``, ``engine_token_env``; None:
the default for that service) and ``url`` the server's base URL. :func:`environment_keys`
reads the environment (the command line's rule: a server on another machine must have a key);
the app passes the keys typed in its password fields.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from .. import params as P
from ..errors import AuthenticationError
from ..i18n import error
from ..services.http import is_loopback, plain_http_warning
from .model import FirstStage, Setup

__all__ = ["KeySource", "Stages", "build", "build_reranker", "build_retriever",
           "environment_keys", "fusion_options"]

#: (role, environment variable or None, base URL or None) -> the key, or None for none
KeySource = Callable[[str, "str | None", "str | None"], "str | None"]


def is_loopback_url(url: str | None) -> bool:
    """Whether ``url`` names this machine (localhost, 127.0.0.1, ::1)."""
    if not url:
        return False
    raw = url if "://" in url else "http://" + url
    return is_loopback((urlparse(raw).hostname or "").strip("[]").lower())


def environment_keys(*, flags: bool = True, environ=None) -> KeySource:
    """Keys from the environment. A server on another machine without its key is an error
    that names the variable (``flags``: in the command line's words, else a setup file's)."""
    env_vars = os.environ if environ is None else environ

    def keys(role: str, env: str | None, url: str | None) -> str | None:
        if role == "engine":
            name = env or P.ENGINE["engine_token_env"].default
            return env_vars.get(name, "").strip() or None
        if role == "embeddings":
            env = env or P.OPENAI["api_key_env"].default
        if not env:  # a self-hosted rerank server: no key to look for
            return None
        key = env_vars.get(env, "").strip()
        if key or is_loopback_url(url):
            return key or None
        if role == "search":  # a search service on another machine, its key not set
            raise error(AuthenticationError, "searchsvc.no_api_key", env=env, url=url)
        if not flags:
            raise error(AuthenticationError, "setup.no_api_key", env=env)
        if role == "embeddings":
            raise error(AuthenticationError, "cli.no_api_key", env=env)
        raise error(AuthenticationError, "cli.no_api_key_rerank", env=env)

    return keys


@dataclass
class Stages:
    """What :func:`build` made: the first-stage retrievers, the fusion's options (None for
    one first stage), the reranker (None without ``[rerank]``), the keys in use (to mask in
    what is saved) and warnings (a key over plain http to another machine)."""

    first: list
    fusion: dict | None = None
    reranker: Any = None
    secrets: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def build(setup: Setup, *, keys: KeySource | None = None, rerank: bool = True) -> Stages:
    """Every stage of ``setup``, built (``rerank=False``: without the reranker)."""
    keys = keys or environment_keys()
    out = Stages(first=[])
    for stage in setup.retrievers:
        out.first.append(build_retriever(stage, keys=keys, into=out, base=setup.base))
    out.fusion = fusion_options(setup.fusion)
    if rerank and setup.rerank is not None:
        out.reranker = build_reranker(setup.rerank, keys=keys, into=out)
    return out


def fusion_options(fusion: dict | None) -> dict | None:
    """``[fusion]`` as :func:`ragdash.pipeline.run_pipeline` takes it: ``method`` and the
    options of that method only."""
    if fusion is None:
        return None
    opts = {"method": fusion["method"]}
    for param in P.FUSION:
        if param.name != "method" and fusion.get(param.name) is not None:
            opts[param.name] = fusion[param.name]
    return opts


def build_retriever(stage: FirstStage, *, keys: KeySource | None = None,
                    into: Stages | None = None, base=None):
    """The retriever of one first stage (over chunks when it has ``chunking``); the keys it
    uses and its warnings are added to ``into``. ``base``: the folder a relative path in
    the stage starts from (a setup file's; a python ``entry``'s file)."""
    from ..retrieval import make_retriever

    keys = keys or environment_keys()
    into = into if into is not None else Stages(first=[])
    o = dict(stage.options)
    if stage.kind == "bm25":
        retriever = make_retriever("bm25", **{p.name: o.get(p.name) for p in P.BM25})
    elif stage.kind in ("openai", "local"):
        retriever = make_retriever(stage.kind, **_dense_options(stage.kind, o, keys, into))
    elif stage.kind == "python":  # a team's own search (ragdash.retrieval.own)
        from ..retrieval.own.search import own_retriever

        retriever = own_retriever(entry=o["entry"], base=base, **{
            p.name: o[p.name] for p in P.PYTHON if p.name != "entry" and p.name in o})
    elif stage.kind == "http":  # a team's search service (ragdash.retrieval.own.http)
        retriever = _http_retriever(o, keys, into)
    else:
        retriever = _engine_retriever(stage.kind, o, keys, into)
    into.warnings += list(getattr(getattr(retriever, "embedder", None), "warnings", ()))
    if stage.chunking is not None:
        from ..retrieval.chunking import ChunkedRetriever

        retriever = ChunkedRetriever(retriever, **stage.chunking)
    return retriever


def _dense_options(kind: str, o: dict, keys: KeySource, into: Stages) -> dict:
    """make_dense_retriever's options for the embedder ``kind`` from a stage's values."""
    stage = P.embedding_stage(kind)
    out = {p.name: o.get(p.name) for p in stage if not p.env}
    if kind == "openai":
        key = keys("embeddings", o.get("api_key_env"), o.get("base_url"))
        if key:
            into.secrets.append(key)
        out["api_key"] = key
    return out


def _http_retriever(o: dict, keys: KeySource, into: Stages):
    """A search service's retriever; its key (role ``"search"``) from ``keys``, never from
    the setup."""
    from ..retrieval.own.http import http_retriever

    key = keys("search", o.get("api_key_env"), o.get("url"))
    if key:
        into.secrets.append(key)
    retriever = http_retriever(o["url"], api_key=key, api_key_env=o.get("api_key_env"), **{
        p.name: o[p.name] for p in P.HTTP if p.name != "url" and not p.env and p.name in o})
    into.warnings += list(retriever.search.warnings)
    return retriever


def _engine_retriever(kind: str, o: dict, keys: KeySource, into: Stages):
    from ..retrieval.engines import make_engine_retriever

    embedder = o.get("embedder") or P.ENGINE["embedder"].default
    token = keys("engine", o.get("engine_token_env"), o.get("uri"))
    if token:
        into.secrets.append(token)
        insecure = plain_http_warning(o["uri"], key_set=True, what="token")
        if insecure:
            into.warnings.append(insecure)
    engine_opts = {p.name: o.get(p.name) for p in P.ENGINE
                   if not p.env and p.name != "embedder"}
    return make_engine_retriever(
        "engine", dense=embedder, engine=kind, engine_token=token, **engine_opts,
        **_dense_options(embedder, o, keys, into))


def build_reranker(rerank: dict, *, keys: KeySource | None = None,
                   into: Stages | None = None):
    """The :class:`~ragdash.retrieval.rerank.Reranker` of ``[rerank]``, with the score
    cache; the key it uses and its warnings are added to ``into``."""
    from ..retrieval.rerank import RerankCache, Reranker, make_scorer

    keys = keys or environment_keys()
    into = into if into is not None else Stages(first=[])
    if rerank["kind"] == "local":
        scorer = make_scorer("local", model=rerank["model"])
    else:
        from ..rerank.protocols import KEY_ENV, resolve_rerank_endpoint

        endpoint = resolve_rerank_endpoint(rerank["base_url"], protocol=rerank.get("protocol"))
        env = rerank.get("api_key_env") or KEY_ENV.get(endpoint.protocol)
        key = keys("rerank", env, rerank["base_url"])
        if key:
            into.secrets.append(key)
        scorer = make_scorer("http", base_url=rerank["base_url"], model=rerank["model"],
                             protocol=endpoint.protocol, api_key=key,
                             api_key_header=rerank.get("api_key_header"),
                             timeout=rerank.get("timeout"),
                             concurrency=rerank.get("concurrency"),
                             max_documents=rerank.get("max_documents"))
        into.warnings += list(getattr(scorer, "warnings", ()))
    return Reranker(scorer, depth=rerank["depth"], cache=RerankCache())
