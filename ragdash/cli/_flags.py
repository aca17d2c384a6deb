"""The command line's options made from the declared parameters (:mod:`ragdash.params`):
:func:`add_params` adds a flag per parameter, its help saying the declaration's default and
range. Kept apart from :mod:`ragdash.cli._params` (which builds a setup from the flags) so that
a command with a flag or two, such as ``score``, does not import the setup layer and its HTTP
client at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .. import params as P
from ..i18n import t

__all__ = ["add_params", "dest", "help_text"]


def dest(param: P.Param) -> str:
    """The argparse destination of a parameter: its flag without dashes (``--chunk-size``
    -> ``chunk_size``, ``--retriever`` -> ``retriever``)."""
    return param.cli_flag.lstrip("-").replace("-", "_")


def _number(x) -> str:
    return f"{int(x)}" if float(x).is_integer() else f"{x:g}"


def _range(param: P.Param) -> str:
    if param.kind not in ("int", "float") or param.low is None:
        return ""
    if param.high is not None:
        return (f"more than {_number(param.low)} and at most {_number(param.high)}"
                if param.above else f"{_number(param.low)} to {_number(param.high)}")
    return f"more than {_number(param.low)}" if param.above else f"at least {_number(param.low)}"


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if isinstance(value, float):
        return _number(value)
    return str(value) if value != "" else "none"


def help_text(param: P.Param, by_kind: Mapping[str, P.Param] | None = None) -> str:
    """``--help``'s text of ``param``: its English help, its default and its range;
    ``by_kind``: the same parameter in each kind that has it (defaults and help per kind
    when they differ)."""
    versions = dict(by_kind or {"": param})
    helps = {p.help for p in versions.values()}
    if len(helps) == 1:
        body = t(param.help, "en")
    else:
        body = "; ".join(f"{k}: {t(p.help, 'en')}" for k, p in versions.items())
    defaults = {k: p.default for k, p in versions.items()}
    given = {k: d for k, d in defaults.items() if d is not None}
    notes = []
    if len(set(map(_shown, given.values()))) == 1 and len(given) == len(defaults):
        notes.append(f"default {_shown(next(iter(given.values())))}")
    elif given:
        notes.append("default " + ", ".join(f"{_shown(d)} for {k}" for k, d in given.items()))
    span = _range(param)
    if span:
        notes.append(span)
    return body + (f" ({'; '.join(notes)})" if notes else "")


def add_params(group, params: Iterable[P.Param], *,
               by_kind: Mapping[str, Mapping[str, P.Param]] | None = None,
               keep_default: Sequence[str] = ()) -> None:
    """An option for each parameter that has a flag. ``by_kind``: name -> {kind: param}
    (see :func:`help_text`); ``keep_default``: names whose argparse default is the declared
    one (options every run uses: --retriever, --gain); the others default to None."""
    for param in params:
        flag = param.cli_flag
        if flag is None:
            continue
        kw: dict = {"dest": dest(param), "help": help_text(param, (by_kind or {}).get(
            param.name))}
        if param.kind in ("int", "float"):
            kw["type"] = int if param.kind == "int" else float
        if param.choices:
            kw["choices"] = param.choices
        elif param.metavar:
            kw["metavar"] = param.metavar
        kw["default"] = None
        if param.name in keep_default:
            d = param.default
            kw["default"] = ",".join(map(str, d)) if isinstance(d, list) else d
        group.add_argument(flag, **kw)
