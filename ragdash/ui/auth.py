"""Who is using the app: a signed-in user, or nobody (a server without authentication).

Two ways to sign people in, chosen by the server's configuration (docs/sharing.md):

- a **trusted reverse proxy** (oauth2-proxy, an identity-aware proxy, nginx with
  ``auth_request``) that signs people in and names the user in a request header:
  ``RAGDASH_USER_HEADER=X-Forwarded-Email`` tells ragdash which header
  (``st.context.headers``). The header is believed as sent, so the server must be reachable
  only through that proxy;
- **Streamlit's own OIDC login** (``st.login``, ``st.user``), configured in
  ``.streamlit/secrets.toml`` under ``[auth]``; needs the Authlib package.

The proxy header wins when both are set. With neither, :func:`current_user` is ``None`` and
every saved run is shared (:mod:`ragdash.runs.access`).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import streamlit as st

from .widgets import code, md

#: the environment variable naming the trusted proxy's user header
USER_HEADER_ENV = "RAGDASH_USER_HEADER"


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


def current_user(t: Callable[..., str]) -> str | None:
    """The signed-in user, or ``None`` without authentication. Draws the sign-in screen (or
    says what the proxy failed to send) and stops the page when nobody is signed in."""
    how = mode()
    if how == "header":
        header = os.environ[USER_HEADER_ENV].strip()
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
