"""The :class:`Setup`: a checked description of one evaluation, made of declared stages.

    setup = setup_from_dict({"dataset": "data/jsquad-valid", "retriever": {"kind": "bm25"}})
    setup.retrievers[0].options["k1"]        # 1.2: declared defaults are filled in
    setup_to_dict(setup)                     # the same shape back, every value explicit

A setup's shape is a setup file's (see docs/setup-file.md): top-level keys from
:data:`ragdash.params.EVALUATION`; ``[retriever]`` (one first stage) or ``[[retrievers]]``
(several, then ``[fusion]``), each with ``kind`` and the parameters of that kind, and an
optional ``chunking`` table of its own; a top-level ``[chunking]`` for every first stage that
has none; ``[fusion]``; ``[rerank]`` with ``kind`` (http or local).

Every check names the key and what it takes. Where the values came from decides how: a
:class:`Source` says "file, line n: key in [table] ..." for a setup file, "--flag ..." for the
command line.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import params as P
from ..errors import RagdashError
from ..i18n import Text, dataset_error, text
from ..secrets import holds_credential, is_credential_name

__all__ = ["FirstStage", "Setup", "Source", "setup_from_dict", "setup_to_dict"]

#: the tables of a setup besides the top-level keys
TABLES = ("retriever", "retrievers", "chunking", "fusion", "rerank")


@dataclass(frozen=True)
class FirstStage:
    """One first stage: its ``kind`` and its declared parameters (defaults filled in, unset
    ones left out), and the chunking it retrieves over (None: whole documents)."""

    kind: str
    options: dict = field(default_factory=dict)
    chunking: dict | None = None

    @property
    def stage(self) -> P.Stage:
        return P.retriever_stage(self.kind, self.options.get("embedder"))


@dataclass(frozen=True)
class Setup:
    """Everything that decides a run (see the module docstring). ``base``: the folder a
    relative ``dataset`` path starts from (a setup file's folder) and ``origin`` (the file)
    are not part of the setup's identity."""

    retrievers: tuple[FirstStage, ...] = (FirstStage("bm25", P.BM25.defaults()),)
    fusion: dict | None = None
    rerank: dict | None = None
    dataset: str | None = None
    dataset_fingerprint: str | None = None
    split: str = P.EVALUATION["split"].default
    k: tuple[int, ...] = tuple(P.EVALUATION["k"].default)
    kmax: int = P.EVALUATION["kmax"].default
    limit_queries: int | None = None
    relevance_level: float | None = None
    gain: str = P.EVALUATION["gain"].default
    name: str | None = None
    base: Path | None = field(default=None, compare=False)
    #: the setup file it was read from, for messages (None: not from a file)
    origin: str | None = field(default=None, compare=False)

    @property
    def rerank_stage(self) -> P.Stage | None:
        if self.rerank is None:
            return None
        return P.RERANK_LOCAL if self.rerank.get("kind") == "local" else P.RERANK_HTTP

    def first_stage(self, i: int) -> Setup:
        """The setup of first stage ``i`` alone (what its own run was made with)."""
        return _replace(self, retrievers=(self.retrievers[i],), fusion=None, rerank=None,
                        name=None)

    def without_rerank(self) -> Setup:
        return _replace(self, rerank=None, name=None)


def _replace(setup: Setup, **changes) -> Setup:
    from dataclasses import replace

    return replace(setup, **changes)


# -- where values came from ------------------------------------------------------------------
class Source:
    """Where a raw setup came from, for the messages: a setup file (name and lines) or
    nothing in particular (a dict). :class:`ragdash.cli._params.FlagSource` is the command
    line's."""

    #: leave a value out of range to a parameter's own check (``Param.own_check``)
    own_checks = False

    def __init__(self, file: str | None = None,
                 line: Callable[[tuple], int | None] | None = None) -> None:
        self.file = file
        self._line = line

    def line(self, path: tuple) -> int | None:
        return self._line(path) if self._line is not None else None

    def fail(self, path: tuple, said: Text) -> RagdashError:
        """The error that ``said`` (a sentence with a message id) about the value at ``path``
        (its file and line)."""
        return dataset_error(said.msg_id, file=self.file, line=self.line(path), **said.params)

    def bad_value(self, path: tuple, param: P.Param, value: Any) -> RagdashError:
        return self.fail(path, text("setup.bad_value", key=path[-1], section=section(path[:-1]),
                         expected=param.expected(), value=show(value)))

    def missing(self, path: tuple, param: P.Param, owner: str) -> RagdashError:
        """``param`` is required and not there; ``owner``: the kind that needs it."""
        if owner:
            return self.fail(path[:-1], text("setup.missing_key_for", key=param.name,
                             section=section(path[:-1]), owner=f'kind = "{owner}"'))
        return self.fail(path[:-1], text("setup.missing_key", key=param.name,
                         section=section(path[:-1])))

    def bad_name(self, path: tuple, value: str) -> RagdashError:
        """A run name too long or with a control character (:func:`ragdash.params.name_problem`)."""
        return self.fail(path, text("gatechecks.bad_name", key=path[-1],
                                    section=section(path[:-1]), max=P.NAME_MAX,
                                    value=show(value)))

    def unknown(self, path: tuple, known: tuple[str, ...]) -> RagdashError:
        key = shown_key(path[-1])
        # a key of a megabyte is no typo of a known one (and difflib would take minutes on it)
        guess = (difflib.get_close_matches(key, known, n=1, cutoff=0.6)
                 if len(key) <= _SHOWN_CHARS else [])
        where = section(path[:-1])
        if guess:
            return self.fail(path, text("setup.unknown_key", key=key, section=where,
                             suggestion=guess[0], known=", ".join(known)))
        return self.fail(path, text("setup.unknown_key_no_guess", key=key, section=where,
                         known=", ".join(known)))


def section(path: tuple) -> str:
    """``("chunking",)`` -> ``[chunking]``; ``("retrievers", 1)`` -> ``[[retrievers]] #2``;
    ``()`` -> the top level."""
    if not path:
        return text("setup.top_level")
    if path[0] == "retrievers" and len(path) > 1:
        head = f"[[retrievers]] #{int(path[1]) + 1}"
        rest = ".".join(shown_key(p) for p in path[2:])
        return f"{head} {rest}".strip() if rest else head
    return "[" + ".".join(shown_key(p) for p in path) + "]"


#: how much of a text or key a message shows (a megabyte-long value is not echoed whole)
_SHOWN_CHARS = 80


def shown_key(key: Any) -> str:
    """A key or table name as a message shows it: control characters escaped (``\\x1b``),
    at most :data:`_SHOWN_CHARS` characters."""
    key = str(key)
    if len(key) > _SHOWN_CHARS:
        key = key[:_SHOWN_CHARS] + "…"
    return P.escape_controls(key)


def show(value: Any) -> str:
    """A value as a setup file writes it: ``"text"``, ``3``, ``true``, ``[1, 2]``; a long
    text, list or table cut after a few dozen characters (``…``), control characters
    escaped."""
    if isinstance(value, Mapping):
        items = list(value.items())[:_SHOWN_ITEMS]
        said = "{" + ", ".join(f"{shown_key(k)} = {show(v)}" for k, v in items)
        return said + (", …}" if len(value) > _SHOWN_ITEMS else "}")
    if isinstance(value, (list, tuple)):
        said = "[" + ", ".join(show(v) for v in value[:_SHOWN_ITEMS])
        return said + (", …]" if len(value) > _SHOWN_ITEMS else "]")
    return _show_scalar(value)


#: how many items of a list or table a message shows
_SHOWN_ITEMS = 12


def _show_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if len(value) > _SHOWN_CHARS:
            value = value[:_SHOWN_CHARS] + "…"
        # json escapes C0 controls; DEL and C1 (a terminal's CSI) are escaped here
        return P.escape_controls(json.dumps(value, ensure_ascii=False))
    return str(value)


# -- reading a raw setup ---------------------------------------------------------------------
def setup_from_dict(raw: Mapping, *, source: Source | None = None,
                    base: Path | None = None) -> Setup:
    """A checked :class:`Setup` from ``raw`` (a setup file's tables, or the same shape),
    declared defaults filled in. Raises :class:`~ragdash.errors.DatasetError` (one sentence:
    the file and line when ``source`` knows them, the key, what it takes)."""
    src = source or Source()
    _refuse_credentials(raw, (), src)
    _check_table(raw, (), src, P.EVALUATION.names + TABLES)
    top = _read_params(raw, (), P.EVALUATION, src, skip=TABLES)
    if "name" in top and P.name_problem(top["name"]) is not None:
        raise src.bad_name(("name",), top["name"])
    chunking = _read_chunking(raw.get("chunking"), ("chunking",), src)
    if "retriever" in raw and "retrievers" in raw:
        raise src.fail(("retrievers",), text("setup.both_retrievers"))
    if "retrievers" in raw:
        items = raw["retrievers"]
        if not isinstance(items, list) or not items or not all(isinstance(i, Mapping)
                                                                for i in items):
            raise src.fail(("retrievers",), text("setup.not_tables", value=show(items)))
        stages = tuple(_read_first_stage(item, ("retrievers", i), src, chunking)
                       for i, item in enumerate(items))
    elif "retriever" in raw:
        stages = (_read_first_stage(_table(raw, "retriever", src), ("retriever",), src,
                                    chunking),)
    else:
        stages = (_read_first_stage({}, ("retriever",), src, chunking),)
    fusion = _read_fusion(_table(raw, "fusion", src), src) if "fusion" in raw else None
    rerank = _read_rerank(raw, src) if "rerank" in raw else None
    k = tuple(sorted(set(top.get("k", P.EVALUATION["k"].default))))
    kmax = top.get("kmax")
    if kmax is None:
        kmax = max(P.EVALUATION["kmax"].default, max(k))
    elif kmax < max(k):
        raise src.fail(("kmax",), text("setup.kmax_below_k", kmax=kmax, k=max(k)))
    setup = Setup(retrievers=stages, fusion=fusion, rerank=rerank, k=k, kmax=kmax,
                  **{n: top[n] for n in ("dataset", "dataset_fingerprint", "split",
                                         "limit_queries", "relevance_level", "gain", "name")
                     if n in top}, base=base, origin=src.file)
    _check_composition(setup, src)
    return setup


def _table(raw: Mapping, key: str, src: Source) -> Mapping:
    value = raw[key]
    if not isinstance(value, Mapping):
        raise src.fail((key,), text("setup.not_table", key=key, value=show(value)))
    return value


def _check_table(raw: Mapping, path: tuple, src: Source, known: tuple[str, ...]) -> None:
    for key in raw:
        if key not in known:
            raise src.unknown((*path, key), known)


def _read_params(raw: Mapping, path: tuple, stage: P.Stage, src: Source, *,
                 skip: tuple[str, ...] = (), owner: str = "") -> dict:
    """The declared parameters of ``stage`` in ``raw``, checked, defaults filled in; keys
    not declared are an error (``skip``: keys another reader handles)."""
    known = stage.names + skip
    _check_table(raw, path, src, known)
    out: dict = {}
    for param in stage:
        if param.name in raw:
            value = raw[param.name]
            problem = param.problem(value)
            if problem is not None and not (problem == "range" and param.own_check
                                            and src.own_checks):
                raise src.bad_value((*path, param.name), param, value)
            out[param.name] = param.coerce(value)
        elif param.required:
            raise src.missing((*path, param.name), param, owner)
        elif param.default is not None:
            out[param.name] = param.coerce(param.default)
    return out


def _read_chunking(raw: Any, path: tuple, src: Source) -> dict | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise src.fail(path, text("setup.not_table", key=path[-1], value=show(raw)))
    out = _read_params(raw, path, P.CHUNKING, src)
    from ..retrieval.chunking import check_chunking

    try:
        check_chunking(out["size"], out["overlap"], out["aggregate"])
    except RagdashError as exc:
        raise src.fail((*path, "overlap"), text("setup.invalid", section=section(path),
                       said=exc)) from None
    return out


def _read_first_stage(raw: Mapping, path: tuple, src: Source,
                      chunking: dict | None) -> FirstStage:
    kind_param = P.RETRIEVER_KIND
    kind = raw.get("kind", kind_param.default)
    if kind_param.problem(kind) is not None:
        raise src.bad_value((*path, "kind"), kind_param, kind)
    embedder = None
    if kind in P.ENGINE_KINDS:
        embedder = raw.get("embedder", P.ENGINE["embedder"].default)
        if P.ENGINE["embedder"].problem(embedder) is not None:
            raise src.bad_value((*path, "embedder"), P.ENGINE["embedder"], embedder)
    stage = P.retriever_stage(kind, embedder)
    options = _read_params(raw, path, stage, src, skip=("kind", "chunking"), owner=kind)
    own = _read_chunking(raw.get("chunking"), (*path, "chunking"), src)
    chunks = own if own is not None else chunking
    if chunks is not None and kind in (*P.ENGINE_KINDS, *P.OWN_KINDS):
        where = (*path, "chunking") if own is not None else ("chunking",)
        if kind in P.OWN_KINDS:  # it chunks (or not) itself
            raise src.fail(where, text("setup.chunk_own", kind=kind))
        raise src.fail(where, text("setup.chunk_engine", kind=kind))
    return FirstStage(kind, options, chunks)


def _read_fusion(raw: Mapping, src: Source) -> dict:
    """``[fusion]``; a parameter of another method (``alpha`` for rrf) is an error when given,
    left out when not."""
    out = _read_params(raw, ("fusion",), P.FUSION, src)
    for param in P.FUSION:
        if param.applies and out["method"] not in param.applies:
            if param.name in raw:
                raise src.fail(("fusion", param.name), text("setup.only_for_method",
                               key=param.name, method=out["method"],
                               methods=", ".join(param.applies)))
            out.pop(param.name, None)
    return out


def _read_rerank(raw: Mapping, src: Source) -> dict:
    table = _table(raw, "rerank", src)
    kind_param = P.RERANK_KIND
    kind = table.get("kind", kind_param.default)
    if kind_param.problem(kind) is not None:
        raise src.bad_value(("rerank", "kind"), kind_param, kind)
    stage = P.RERANK_LOCAL if kind == "local" else P.RERANK_HTTP
    return {"kind": kind, **_read_params(table, ("rerank",), stage, src, skip=("kind",),
                                         owner=kind)}


def _check_composition(setup: Setup, src: Source) -> None:
    n = len(setup.retrievers)
    if n > 1 and setup.fusion is None:
        raise src.fail(("retrievers",), text("setup.needs_fusion", n=n))
    if n == 1 and setup.fusion is not None:
        raise src.fail(("fusion",), text("setup.fusion_of_one"))
    if setup.fusion is None:
        return
    weights = setup.fusion.get("weights")
    if weights is not None and len(weights) != n:
        raise src.fail(("fusion", "weights"), text("setup.weights", n=len(weights), m=n))
    if setup.fusion.get("method") == "alpha" and n != 2:
        raise src.fail(("fusion", "method"), text("setup.alpha_two", n=n))


def _refuse_credentials(raw: Any, path: tuple, src: Source) -> None:
    """A credential in a setup is refused: a key named like one (``api_key``, ``token``)
    or a text that looks like one (``sk-...``, ``Bearer ...``)."""
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            here = (*path, key)
            if is_credential_name(str(key)):
                raise src.fail(here, text("setup.secret_key", key=shown_key(key),
                                          section=section(path),
                               env_key=_env_key(path)))
            _refuse_credentials(value, here, src)
    elif isinstance(raw, list):
        for i, value in enumerate(raw):
            _refuse_credentials(value, (*path, i), src)
    elif isinstance(raw, str) and holds_credential(raw):
        at = max((i for i, p in enumerate(path) if isinstance(p, str)), default=0)
        raise src.fail(path, text("setup.secret_value", key=path[at] if path else "",
                       section=section(path[:at]),
                       env_key=_env_key(path)))


def _env_key(path: tuple) -> str:
    """The key that names the environment variable in the table at ``path``."""
    return "engine_token_env" if any(str(p).startswith("engine") for p in path) \
        else "api_key_env"


# -- writing ---------------------------------------------------------------------------------
def setup_to_dict(setup: Setup) -> dict:
    """The setup as a setup file's tables (JSON- and TOML-safe), every value explicit, unset
    ones left out; :func:`setup_from_dict` reads it back to an equal setup."""
    out: dict = {}
    for name in ("dataset", "dataset_fingerprint", "split"):
        if getattr(setup, name) is not None:
            out[name] = getattr(setup, name)
    out["k"] = list(setup.k)
    out["kmax"] = setup.kmax
    for name in ("limit_queries", "relevance_level", "gain", "name"):
        if getattr(setup, name) is not None:
            out[name] = getattr(setup, name)
    common = _common_chunking(setup)
    stages = []
    for stage in setup.retrievers:
        item = {"kind": stage.kind, **{k: v for k, v in _ordered(stage.options, stage.stage)}}
        if stage.chunking is not None and common is None:
            item["chunking"] = dict(stage.chunking)
        stages.append(item)
    if len(stages) == 1:
        out["retriever"] = stages[0]
    else:
        out["retrievers"] = stages
    if common is not None:
        out["chunking"] = dict(common)
    if setup.fusion is not None:
        out["fusion"] = dict(_ordered(setup.fusion, P.FUSION))
    if setup.rerank is not None:
        out["rerank"] = {"kind": setup.rerank["kind"],
                         **dict(_ordered(setup.rerank, setup.rerank_stage))}
    return out


def _ordered(values: Mapping, stage: P.Stage):
    for p in stage:
        if values.get(p.name) is not None:
            yield p.name, values[p.name]


def _common_chunking(setup: Setup) -> dict | None:
    """The chunking every first stage shares (then one top-level table says it)."""
    first = setup.retrievers[0].chunking
    if first is not None and all(s.chunking == first for s in setup.retrievers):
        return first
    return None

