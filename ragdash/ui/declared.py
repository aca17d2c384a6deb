"""The app's widgets for declared parameters (:mod:`ragdash.params`): default, range, step,
choices and help come from the declaration, so the app, the command line and the library
share one default per option.

    k1 = number(cols[0], P.BM25["k1"], "k1", keys.BM25_K1, t)
    size = number(cols[0], P.CHUNKING["size"], t("pipe.chunk_size"), CHUNK_SIZE, t, off=True)

``off=True``: the widget also offers 0, meaning "not set" (no chunking, every query, the
model's own dimensions); its default is then 0 unless the declaration has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import params as P
from .widgets import bind, bind_choice


def shown(value: Any) -> str:
    """A default as the help says it: ``1.2``, ``256``, ``1, 3, 5``."""
    if isinstance(value, (list, tuple)):
        return ", ".join(map(shown, value))
    if isinstance(value, float):
        return f"{int(value)}" if value.is_integer() else f"{value:g}"
    return str(value)


def param_help(param: P.Param, t: Callable[..., str]) -> str:
    """The declaration's help in the page's language, with its default and range."""
    body = t(param.help)
    span = param.range_text()
    if param.default is not None and param.default != "":
        if span:
            return t("setupui.help_default_range", help=body, default=shown(param.default),
                     range=span)
        return t("setupui.help_default", help=body, default=shown(param.default))
    if span:
        return t("setupui.help_range", help=body, range=span)
    return body


def default_of(param: P.Param, *, off: bool = False) -> Any:
    """The widget's default: the declared one (0 for a parameter with none, when ``off``)."""
    if param.default is not None:
        return param.coerce(param.default)
    if off:
        return 0.0 if param.kind == "float" else 0
    return None


def number(where, param: P.Param, label: str, state_key: str, t: Callable[..., str], *,
           off: bool = False, **kw):
    """A number field for ``param`` bound to ``state_key`` (see :func:`ragdash.ui.widgets.bind`)."""
    cast = float if param.kind == "float" else int
    low = 0 if off else param.low
    kw.setdefault("help", param_help(param, t))
    return where.number_input(
        label, min_value=None if low is None else cast(low),
        max_value=None if param.high is None else cast(param.high),
        step=cast(param.step) if param.step is not None else cast(1),
        **kw, **bind(state_key, default_of(param, off=off)))


def slider(where, param: P.Param, label: str, state_key: str, t: Callable[..., str], **kw):
    """A slider for a float ``param`` with both ends declared."""
    return where.slider(label, float(param.low), float(param.high),
                        step=float(param.step or 0.1), help=param_help(param, t), **kw,
                        **bind(state_key, float(param.default)))


def choice(where, param: P.Param, label: str, state_key: str, t: Callable[..., str], *,
           options: list | None = None, default: Any = None, widget=None, **kw):
    """A selectbox (or ``widget``: ``where.radio``) over the declared choices (``options``:
    those the page offers, in that order), default the declared one."""
    options = list(options if options is not None else param.choices)
    draw = widget or where.selectbox
    kw.setdefault("help", param_help(param, t))
    return draw(label, options, **kw,
                **bind_choice(state_key, options,
                              param.default if default is None else default))
