"""The command line's options, made from the declared parameters (:mod:`ragdash.params`), and a
:class:`~ragdash.setup.Setup` made from the parsed options.

    add_params(group, [P.BM25["k1"], P.BM25["b"]])     # --k1 X, --b X, help with the default
    setup = evaluate_setup(args)                       # the flags of `evaluate` as a setup

An option's help is the declaration's English help text, its default (per retriever kind
when the kinds differ, e.g. ``--batch-size``: 256 for openai, 32 for local) and its range.
Options that belong to one kind default to None, so a flag given for another kind is named in
one sentence ("--k1 applies only to --retriever bm25"); the declared default is filled in when
the setup is read, as for a setup file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .. import params as P
from ..errors import RetrievalError
from ..i18n import error, text
from ..setup.model import Setup, Source, setup_from_dict, show
from ._flags import _shown, add_params, dest, help_text

__all__ = ["EMBEDDING_PARAMS", "FlagSource", "add_params", "dest", "evaluate_setup",
           "help_text", "rerank_setup"]


def _merged(stages: Sequence[tuple[str, P.Stage]]) -> tuple[list[P.Param],
                                                            dict[str, dict[str, P.Param]]]:
    """The parameters of several kinds by name, in first-seen order, and each one's
    versions by kind."""
    order: dict[str, P.Param] = {}
    by_kind: dict[str, dict[str, P.Param]] = {}
    for kind, stage in stages:
        for p in stage:
            order.setdefault(p.name, p)
            by_kind.setdefault(p.name, {})[kind] = p
    return list(order.values()), by_kind


#: the embedding options (--model, --batch-size, ...), openai's and local's merged
EMBEDDING_PARAMS, EMBEDDING_BY_KIND = _merged([("openai", P.OPENAI), ("local", P.LOCAL)])


# -- messages about flags ----------------------------------------------------------------------
class FlagSource(Source):
    """:class:`~ragdash.setup.model.Source` for values that came from flags: a message names
    the flag (``--batch-size must be a whole number from 1 to 2048, not 0``)."""

    own_checks = True

    def __init__(self, flags: Mapping[tuple, str], owner: str = "") -> None:
        super().__init__()
        self.flags = dict(flags)
        self.owner = owner

    def flag(self, path: tuple) -> str:
        return self.flags.get(tuple(path)) or self.flags.get(tuple(path[-1:])) or str(path[-1])

    def bad_value(self, path, param, value):
        # a text as the setup's messages show it: cut when long, control characters escaped
        shown = _shown(value) if not isinstance(value, str) else show(value)
        return error(RetrievalError, "setup.bad_flag", flag=self.flag(path),
                     expected=param.expected(), value=shown)

    def bad_name(self, path, value):
        return error(RetrievalError, "gatechecks.bad_name_flag", flag=self.flag(path),
                     max=P.NAME_MAX, value=show(value))

    def missing(self, path, param, owner):
        return error(RetrievalError, "setup.needs_flag", owner=self.owner or owner,
                     flag=param.cli_flag or param.name, metavar=param.metavar or "VALUE")

    def fail(self, path, said):
        if said.msg_id == "setup.invalid":  # the stage's own sentence says it
            return said.params["said"]
        if said.msg_id in ("setup.secret_value", "setup.secret_key"):
            return error(RetrievalError, "setup.secret_flag", flag=self.flag(path))
        exc = RetrievalError(str(said))
        exc.msg_id, exc.params = said.msg_id, dict(said.params)
        return exc


def _verb(flags: Sequence[str]) -> str:
    return text("cli.verb_apply", n=len(flags))


def _or(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _stray(args, params: Iterable[P.Param], allowed: set[str], option: str,
           owners: Mapping[str, Sequence[str]]) -> None:
    """Flags given that the chosen kind does not take: one sentence naming them and the kinds
    they belong to."""
    given = [p for p in params if p.cli_flag and p.name not in allowed
             and getattr(args, dest(p), None) is not None]
    if given:
        flags = list(dict.fromkeys(p.cli_flag for p in given))
        kinds = [k for k in owners[given[0].name]]
        raise error(RetrievalError, "cli.only_for", flags=", ".join(flags), verb=_verb(flags),
                    option=option, kinds=_or(kinds))


def _values(args, params: Iterable[P.Param], path: tuple, flags: dict) -> dict:
    out = {}
    for p in params:
        if not p.cli_flag:
            continue
        value = getattr(args, dest(p), None)
        if value is not None:
            out[p.name] = value
            flags[(*path, p.name)] = p.cli_flag
    return out


# -- evaluate ----------------------------------------------------------------------------------
def _first_stage_owners() -> dict[str, list[str]]:
    """Parameter name -> the --retriever kinds that take it."""
    owners: dict[str, list[str]] = {}
    for kind in P.RETRIEVER_KINDS:
        embedders = ("openai", "local") if kind in P.ENGINE_KINDS else (None,)
        for emb in embedders:
            for p in P.retriever_stage(kind, emb):
                if kind not in owners.setdefault(p.name, []):
                    owners[p.name].append(kind)
    return owners


def evaluate_setup(args, *, ks: list[int], kmax: int) -> Setup:
    """The setup that ``evaluate``'s flags describe (``ks`` and ``kmax`` already checked)."""
    kind = args.retriever
    embedder = getattr(args, "embedder", None) if kind in P.ENGINE_KINDS else None
    stage = P.retriever_stage(kind, embedder)
    every = [*P.BM25, *EMBEDDING_PARAMS, *(p for p in P.ENGINE if p.name != "embedder"),
             *P.PYTHON, *P.HTTP]
    _stray(args, every, set(stage.names), "--retriever", _first_stage_owners())
    flags: dict = {}
    retriever = {"kind": kind, **_values(args, stage, ("retriever",), flags)}
    if embedder:
        retriever["embedder"] = embedder
    raw: dict = {"dataset": str(args.dataset), "split": args.split, "k": ks, "kmax": kmax,
                 "gain": args.gain, "retriever": retriever}
    for name in ("limit_queries", "relevance_level", "name"):
        if getattr(args, name, None) is not None:
            raw[name] = getattr(args, name)
            flags[(name,)] = "--" + name.replace("_", "-")
    chunking = _values(args, P.CHUNKING, ("chunking",), flags)
    if chunking:
        if "size" not in chunking:
            given = [P.CHUNKING[n].cli_flag for n in chunking]
            raise error(RetrievalError, "cli.only_with_chunks", flags=", ".join(given),
                        verb=_verb(given))
        if kind in P.ENGINE_KINDS:
            raise error(RetrievalError, "cli.chunk_engine", retriever=kind)
        raw["chunking"] = chunking
    source = FlagSource(flags, owner=f"--retriever {kind}")
    return setup_from_dict(raw, source=source, base=Path.cwd())


# -- rerank ------------------------------------------------------------------------------------
RERANK_PARAMS, RERANK_BY_KIND = _merged([("http", P.RERANK_HTTP), ("local", P.RERANK_LOCAL)])


def rerank_setup(args) -> dict:
    """``[rerank]`` from the rerank options (--reranker, --model, --depth, --base-url, ...),
    checked as a setup file's."""
    kind = args.reranker
    stage = P.RERANK_LOCAL if kind == "local" else P.RERANK_HTTP
    owners = {p.name: [k for k in P.RERANK_KINDS if p.name in
                       (P.RERANK_LOCAL if k == "local" else P.RERANK_HTTP)]
              for p in RERANK_PARAMS}
    _stray(args, RERANK_PARAMS, set(stage.names), "--reranker", owners)
    flags: dict = {}
    raw = {"rerank": {"kind": kind, **_values(args, stage, ("rerank",), flags)}}
    return setup_from_dict(raw, source=FlagSource(flags, owner=f"--reranker {kind}")).rerank
