"""Small widget helpers shared by the pages."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

from ..http import ALLOW_PLAIN_HTTP_ENV, plain_http_host
from ..i18n import message

WIDGET_PREFIX = "w:"


def _copy_back(widget_key: str, state_key: str, after: Callable[[], None] | None = None
               ) -> None:
    st.session_state[state_key] = st.session_state[widget_key]
    if after is not None:
        after()


def md(text: object) -> str:
    """``text`` with Markdown's punctuation escaped: names, file names, messages and query
    texts come from users and files, and must show as written (no links, no emphasis).

    Two things are kept as code spans, which show their text as is and cannot link or
    format anything: a span already in backticks (messages write commands that way) and a
    URL (as a Markdown link it would show every backslash escape inside it)."""
    out = []
    for i, part in enumerate(_CODE_OR_URL.split(str(text))):
        if i % 2 == 0:
            out.append("".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in part))
        elif part.startswith("`"):
            out.append(part)
        else:
            out.append(f"`{part}`")
    return "".join(out)


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$")


def say(exc: object, lang: str) -> str:
    """An error or warning from the core as the app says it: in ``lang``, in the app's
    words where the command line's name a flag (catalog/core.toml), Markdown-escaped."""
    return md(message(exc, lang, app=True))


def code(text: object) -> str:
    """``text`` as one Markdown code span that nothing in it can close: ids shown as code
    (a query id with backticks in it would otherwise end the span and become a link or an
    image).
    The fence is one backtick longer than the longest run of backticks inside; a space pads a
    text that starts or ends with a backtick (CommonMark strips one such space each side).
    Line breaks become spaces, as inside any code span."""
    s = " ".join(str(text).splitlines()) if text is not None else ""
    if not s:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(s)), default=0) + 1)
    pad = " " if s[0] in "` " or s[-1] in "` " else ""
    return f"{fence}{pad}{s}{pad}{fence}"


_BACKTICKS = re.compile(r"`+")
#: a code span, or a URL up to the next space (a closing bracket or punctuation after it
#: left out)
_CODE_OR_URL = re.compile(
    r"(`[^`\n]+`|https?://[^\s<>()\[\]{}\"'`]*[^\s<>()\[\]{}\"'`.,;:!?])")


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


#: CSS that hides the "Show password" eye of a secret field (see :func:`secret_input`)
_NO_EYE = ("<style>.st-key-{key} button[aria-label='Show password'],"
           ".st-key-{key} button[aria-label='Hide password']{{display:none}}</style>")


def secret_input(label: str, state_key: str, *, help: str | None = None) -> str:
    """A password field bound to ``state_key`` (see :func:`bind`) whose value always reaches
    the server, however the user leaves it.

    Streamlit 1.67's password field commits what was typed when the field loses focus — but
    not when focus moves to its own "Show password" button, which is exactly where Tab goes.
    The value then stays in the browser only: Start sends the old (empty) key, and clicking
    Start does not commit it either, because the field is no longer focused. Without the eye
    button, Tab leaves the widget and the blur commits, like Enter or a click elsewhere.
    """
    box = "secret-" + state_key.replace("_", "-")
    with st.container(key=box):
        st.html(_NO_EYE.format(key=box))
        return st.text_input(label, type="password", help=help, **bind(state_key, ""))


def plain_http_banner(t: Callable[..., str], base_url: str, api_key: str | None) -> None:
    """A warning when a key would cross the network in clear text (``http://`` to another
    machine; :func:`ragdash.http.plain_http_host`); ``RAGDASH_ALLOW_PLAIN_HTTP=1`` silences
    it, as on the command line. ``t`` is the page's translation function."""
    host = plain_http_host(base_url, key_set=bool((api_key or "").strip()))
    if host is not None:
        st.warning(t("run.plain_http", host=md(host), env=ALLOW_PLAIN_HTTP_ENV),
                   icon=":material/lock_open:")


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
