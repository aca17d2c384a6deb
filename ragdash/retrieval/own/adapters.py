"""What a user hands in, made into a search ``search(query, k) -> list[Hit]``.

Recognised by its methods, in this order (none of the libraries is imported here):

==============================  ======================================  ==========================
what                            how it is asked                         where the id comes from
==============================  ======================================  ==========================
LangChain retriever             ``.invoke(query)`` (``k=k`` too when    ``metadata[id_field]``,
(``.invoke``)                   it takes it: a vector store's            else ``Document.id``
                                retriever, or ``k`` in its signature)
LlamaIndex retriever            ``.retrieve(query)`` (its               ``node.metadata[id_field]``,
(``.retrieve``)                 ``similarity_top_k`` is set when it      else ``ref_doc_id``, else
                                is built)                                ``node_id``
Haystack pipeline               ``.run({query/text inputs: query,       ``meta[id_field]``, else
(``.run`` and ``.inputs``)      top_k: k})``; the output that holds      ``Document.id``
                                ``documents``
Haystack component              ``.run(query=query, top_k=k)``           as above
(``.run`` with sockets)
a function (plain or async)     ``search(query, k)`` (``search(query)``  what it returns
                                when it takes one argument)              (:func:`.hits.to_hits`)
==============================  ======================================  ==========================
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...errors import RetrievalError
from ...i18n import error
from .hits import Hit, to_hits

__all__ = ["Adapted", "adapt", "identity_of"]


@dataclass
class Adapted:
    """A search made of the user's object: ``call(query, k)`` (a coroutine function when
    ``is_async``), what kind of object it was and a name for it."""

    call: Callable
    framework: str  # "langchain" | "llamaindex" | "haystack" | "function"
    name: str
    is_async: bool = False
    source: str | None = field(default=None, repr=False)  # sha256 of its code, when found


def adapt(obj, *, id_field: str | None = None) -> Adapted:
    """``obj`` (a function, a framework's retriever or pipeline) as a search."""
    if obj is None:
        raise error(RetrievalError, "own.nothing_given")
    name = _name(obj)
    source = _source_hash(obj)
    if _is_method(obj, "invoke") and not inspect.isroutine(obj):
        return Adapted(_langchain(obj, id_field), "langchain", name, source=source)
    if _is_method(obj, "retrieve") and not inspect.isroutine(obj):
        return Adapted(_llamaindex(obj, id_field), "llamaindex", name, source=source)
    if _is_method(obj, "run") and not inspect.isroutine(obj) and (
            _is_method(obj, "inputs") or hasattr(obj, "__haystack_input__")):
        return Adapted(_haystack(obj, id_field), "haystack", name, source=source)
    if callable(obj):
        return _function(obj, id_field, name, source)
    raise error(RetrievalError, "own.not_searchable", got=type(obj).__name__)


def identity_of(config: Mapping, source: str | None) -> str:
    """A short, stable name of a search for the resume store: its config (never a key) and
    the hash of its code when known."""
    blob = json.dumps({"config": dict(config), "source": source}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


# -- the frameworks ---------------------------------------------------------------------
def _langchain(retriever, id_field):
    takes_k = isinstance(getattr(retriever, "search_kwargs", None), dict) or _has_param(
        getattr(retriever, "_get_relevant_documents", None), "k")

    def search(query: str, k: int) -> list[Hit]:
        docs = retriever.invoke(query, k=k) if takes_k else retriever.invoke(query)
        return to_hits(docs, id_field=id_field)

    return search


def _llamaindex(retriever, id_field):
    def search(query: str, k: int) -> list[Hit]:
        return to_hits(retriever.retrieve(query), id_field=id_field)

    return search


def _haystack(obj, id_field):
    if _is_method(obj, "inputs") and not hasattr(obj, "__haystack_input__"):  # a Pipeline
        query_inputs, k_inputs = _pipeline_inputs(obj)

        def ask(query: str, k: int):
            data: dict = {}
            for comp, sockets in query_inputs.items():
                data.setdefault(comp, {}).update({s: query for s in sockets})
            for comp, sockets in k_inputs.items():
                data.setdefault(comp, {}).update({s: k for s in sockets})
            return _documents_of(obj.run(data))
    else:
        sockets = _component_sockets(obj)
        takes_k = "top_k" in sockets

        def ask(query: str, k: int):
            out = obj.run(query=query, top_k=k) if takes_k else obj.run(query=query)
            return _documents_of(out)

    def search(query: str, k: int) -> list[Hit]:
        return to_hits(ask(query, k), id_field=id_field)

    return search


def _pipeline_inputs(pipeline) -> tuple[dict, dict]:
    """The pipeline's open inputs that take the query (``query`` or ``text``) and ``top_k``."""
    try:
        inputs = pipeline.inputs()
    except Exception as exc:  # the user's pipeline
        raise error(RetrievalError, "own.haystack_inputs", error=exc) from exc
    query_inputs, k_inputs = {}, {}
    for comp, sockets in (inputs or {}).items():
        q = [s for s in sockets if s in ("query", "text")]
        if q:
            query_inputs[comp] = q[:1]
        if "top_k" in sockets:
            k_inputs[comp] = ["top_k"]
    if not query_inputs:
        raise error(RetrievalError, "own.haystack_no_query",
                    inputs=", ".join(f"{c}.{s}" for c, ss in (inputs or {}).items()
                                     for s in ss) or "—")
    return query_inputs, k_inputs


def _component_sockets(component) -> set[str]:
    sockets = getattr(component, "__haystack_input__", None)
    names = getattr(sockets, "_sockets_dict", None)
    if isinstance(names, Mapping):
        return set(names)
    return set(inspect.signature(component.run).parameters)


def _documents_of(output):
    """The ``documents`` of a Haystack output: a component's ``{"documents": [...]}`` or a
    pipeline's ``{component: {"documents": [...]}}`` (one component must hold them)."""
    if isinstance(output, Mapping) and "documents" in output:
        return output["documents"]
    holders = [name for name, part in (output or {}).items()
               if isinstance(part, Mapping) and "documents" in part] \
        if isinstance(output, Mapping) else []
    if len(holders) == 1:
        return output[holders[0]]["documents"]
    if not holders:
        raise error(RetrievalError, "own.haystack_no_documents",
                    keys=", ".join(map(str, output)) if isinstance(output, Mapping) else "—")
    raise error(RetrievalError, "own.haystack_several", names=", ".join(holders))


# -- a function -------------------------------------------------------------------------
def _function(fn, id_field, name, source) -> Adapted:
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None))  # noqa: B004  (an object with an async __call__)
    one_arg = _takes_one(fn)
    if is_async:
        async def search_async(query: str, k: int) -> list[Hit]:
            got = await (fn(query) if one_arg else fn(query, k))
            return to_hits(got, id_field=id_field)

        return Adapted(search_async, "function", name, is_async=True, source=source)

    if one_arg:
        def search(query: str, k: int) -> list[Hit]:
            return to_hits(fn(query), id_field=id_field)
    else:
        def search(query: str, k: int) -> list[Hit]:
            return to_hits(fn(query, k), id_field=id_field)
    return Adapted(search, "function", name, source=source)


def _takes_one(fn) -> bool:
    """True when ``fn`` takes exactly one positional argument (the query)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    positional = [p for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
        return False
    return len(positional) == 1 or (
        len(positional) >= 2 and all(p.default is not p.empty for p in positional[1:])
        and positional[1].name not in ("k", "top_k", "n", "limit"))


def _is_method(obj, name: str) -> bool:
    return callable(getattr(obj, name, None))


def _has_param(fn, name: str) -> bool:
    if fn is None:
        return False
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _name(obj) -> str:
    target = obj.func if isinstance(obj, functools.partial) else obj
    if inspect.isroutine(target):
        qual = getattr(target, "__qualname__", None) or ""
        return qual if qual and "<" not in qual else getattr(target, "__name__", "search")
    return type(target).__name__


def _source_hash(obj) -> str | None:
    """sha256 of the source file that defines ``obj`` (its function, or its class), so that
    answers kept for a restart are not reused once that code changed."""
    target = obj.func if isinstance(obj, functools.partial) else obj
    if not inspect.isroutine(target) and not inspect.isclass(target):
        target = type(target)
    try:
        path = inspect.getsourcefile(target)
    except (TypeError, OSError):
        return None
    if not path:
        return None
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None
