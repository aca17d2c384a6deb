"""Small widget helpers shared by the pages."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

WIDGET_PREFIX = "w:"


def _copy_back(widget_key: str, state_key: str, after: Callable[[], None] | None = None
               ) -> None:
    st.session_state[state_key] = st.session_state[widget_key]
    if after is not None:
        after()


def md(text: object) -> str:
    """``text`` with Markdown's punctuation escaped: names, file names, messages and query
    texts come from users and files, and must show as written (no links, no emphasis).

    A URL (a base URL in an error message, say) becomes a code span: Markdown would turn it
    into a link and show every backslash escape inside it."""
    out = []
    for i, part in enumerate(_URL.split(str(text))):
        if i % 2:
            fence = "``" if "`" in part else "`"
            pad = " " if part.startswith("`") or part.endswith("`") else ""
            out.append(f"{fence}{pad}{part}{pad}{fence}")
        else:
            out.append("".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in part))
    return "".join(out)


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$")
#: a URL up to the next space, leaving out a closing bracket or sentence punctuation after it
_URL = re.compile(r"(https?://[^\s<>()\[\]{}\"']*[^\s<>()\[\]{}\"'.,;:!?])")


def bind(state_key: str, default: Any = None, *,
         after: Callable[[], None] | None = None) -> dict[str, Any]:
    """Keyword arguments that tie a widget to a plain session-state key.

    ``st.text_input(label, **bind(keys.MODEL, "text-embedding-3-small"))``: the widget gets
    its own key (``"w:" + state_key``), is seeded from the plain key on every run, and writes
    back to it when the user changes it (then calls ``after``). The plain key survives page
    switches; the widget key does not (Streamlit drops it when the page that drew the widget
    is left).
    """
    ss = st.session_state
    if state_key not in ss:
        ss[state_key] = default
    widget_key = WIDGET_PREFIX + state_key
    ss[widget_key] = ss[state_key]
    return {"key": widget_key, "on_change": _copy_back,
            "args": (widget_key, state_key, after)}


def bind_choice(state_key: str, options: list, default: Any, *,
                after: Callable[[], None] | None = None) -> dict[str, Any]:
    """:func:`bind` for a selectbox/radio: a stored value no longer offered falls back."""
    ss = st.session_state
    if ss.get(state_key, default) not in options:
        ss[state_key] = default if default in options else (options[0] if options else None)
    return bind(state_key, default, after=after)


def bind_multi(state_key: str, options: list, default: list) -> dict[str, Any]:
    """:func:`bind` for a multiselect: stored values no longer offered are dropped."""
    ss = st.session_state
    current = ss.get(state_key, default)
    ss[state_key] = [v for v in (current or []) if v in options]
    return bind(state_key, default)
