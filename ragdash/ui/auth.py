"""Who is using the app: a signed-in user, or nobody (a server without authentication).

Two ways to sign people in, chosen by the server's configuration (docs/sharing.md):

- a **trusted reverse proxy** (oauth2-proxy, an identity-aware proxy, nginx with
  ``auth_request``) that signs people in and names the user in a request header:
  ``RAGDASH_USER_HEADER=X-Forwarded-Email`` tells ragdash which header
  (``st.context.headers``). The header is believed as sent, so the server must be reachable
  only through that proxy: unless Streamlit listens on a loopback address (``server.address``
  ``127.0.0.1``, ``::1``, ``localhost``) or a Unix socket, or the operator says that only the
  proxy can reach it (``RAGDASH_BEHIND_PROXY=1``), every page refuses with a sentence and the
  server's log says why (:func:`open_address`);
- **Streamlit's own OIDC login** (``st.login``, ``st.user``), configured in
  ``.streamlit/secrets.toml`` under ``[auth]``; needs the Authlib package.

The proxy header wins when both are set. With neither, :func:`current_user` is ``None`` and
every saved run is shared (:mod:`ragdash.runs.access`).
"""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Callable

import streamlit as st

from ..i18n import t as _t
from .widgets import code, md

#: the environment variable naming the trusted proxy's user header
USER_HEADER_ENV = "RAGDASH_USER_HEADER"
#: the environment variable by which the operator says only the proxy reaches the server
BEHIND_PROXY_ENV = "RAGDASH_BEHIND_PROXY"
_YES = {"1", "true", "yes", "on"}
#: session-state flag: this session's refusal has been written to the server's log
_LOGGED = "rd_auth_open_port_logged"


def mode() -> str | None:
    """``"header"``, ``"oidc"`` or ``None`` (no authentication)."""
    if os.environ.get(USER_HEADER_ENV, "").strip():
        return "header"
    try:
        if "is_logged_in" in st.user:  # present only when [auth] is configured
            return "oidc"
    except Exception:  # no script context (bare mode), or a malformed secrets file
        return None
    return None


def open_address() -> str | None:
    """Where Streamlit listens when other machines may reach it, else ``None``: ``None`` for a
    loopback address or a Unix socket; the address itself otherwise (``0.0.0.0`` when
    ``server.address`` is not set: Streamlit then listens on every interface)."""
    address = str(st.get_option("server.address") or "").strip()
    if address.startswith("unix://") or address.lower() in ("localhost", "localhost."):
        return None
    try:
        if ipaddress.ip_address(address.strip("[]").split("%")[0]).is_loopback:
            return None
    except ValueError:  # unset, or a host name: believed reachable from elsewhere
        pass
    return address or "0.0.0.0"


def behind_proxy() -> bool:
    """Whether the operator says only the sign-in proxy can reach this server."""
    return os.environ.get(BEHIND_PROXY_ENV, "").strip().lower() in _YES


def _refuse_open_port(t: Callable[..., str], header: str) -> None:
    """Header sign-in on a port others can reach: anyone could name any user with the header.
    Unless the operator says the proxy is the only way in, the page stops with a sentence, and
    the server's log says so once per browser session."""
    address = open_address()
    if address is None or behind_proxy():
        return
    fmt = {"header": header, "address": address, "env": BEHIND_PROXY_ENV}
    if not st.session_state.get(_LOGGED):
        st.session_state[_LOGGED] = True
        print(_t("auth.open_port_log", "en", **fmt), file=sys.stderr, flush=True)
    st.error(t("auth.open_port", header=code(header), address=code(address),
               env=BEHIND_PROXY_ENV), icon=":material/gpp_bad:")
    st.stop()


def current_user(t: Callable[..., str]) -> str | None:
    """The signed-in user, or ``None`` without authentication. Draws the sign-in screen (or
    says what the proxy failed to send) and stops the page when nobody is signed in, or when
    the user header could come from anyone (:func:`open_address`)."""
    how = mode()
    if how == "header":
        header = os.environ[USER_HEADER_ENV].strip()
        _refuse_open_port(t, header)
        user = (st.context.headers.get(header) or "").strip()
        if not user:
            st.error(t("auth.header_missing", header=code(header)), icon=":material/lock:")
            st.stop()
        return user
    if how == "oidc":
        if not st.user.get("is_logged_in"):
            _login_screen(t)
        return str(st.user.get("email") or st.user.get("sub") or "").strip() or None
    return None


def _login_screen(t: Callable[..., str]) -> None:
    st.title(t("auth.login_title"))
    st.markdown(t("auth.login_body"))
    if st.button(t("auth.login_button"), type="primary", key="auth_login",
                 icon=":material/login:"):
        try:
            st.login()
        except Exception as exc:  # StreamlitMissingAuthlibError, a bad [auth] section
            if type(exc).__name__ == "StreamlitMissingAuthlibError":
                st.error(t("auth.no_authlib"))
            else:
                st.error(md(str(exc)))
    st.stop()


def sign_out_box(t: Callable[..., str], user: str | None) -> None:
    """In the sidebar: who is signed in, and (with Streamlit's login) a sign-out button."""
    if user is None:
        return
    st.caption(t("auth.signed_in", user=md(user)))
    if mode() == "oidc" and st.button(t("auth.logout"), key="auth_logout",
                                      icon=":material/logout:"):
        st.logout()
