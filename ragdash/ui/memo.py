"""One cache for the server of what a page derives from saved runs (metric frames, bands,
comparisons, figures): a saved run never changes, so a key made of run ids and the page's
settings (metric, K, language, ...) names one result for every session. A rerun that only
moved a widget then redraws from here instead of recomputing (seconds at 10,000 queries).

Values are shared between sessions: treat them as read-only.

What it keeps, and for how long:

- at most :data:`KEPT` results, the least recently used dropped first;
- a result only while a session that asked for it is alive. Each session that asks holds the
  result; when every session holding it has gone — its browser tab closed (Streamlit's
  runtime no longer counts it active) or its state collected (an AppTest session deleted) —
  the result is dropped. A background thread looks every :data:`SWEEP_SECONDS` while
  anything is kept (and at once when a session's state is collected), so memory comes back
  when the last tab closes, not at the next visit; after dropping, it asks the C allocator to
  hand freed pages back to the system (``malloc_trim`` where glibc has it), or the process's
  resident size would not go down.
- A result computed outside any session (a script, a test) is held by none and kept by the
  LRU bound only.

A closed tab's session itself (its state: the dataset, the runs it opened) is Streamlit's:
it is kept two minutes for a reconnect, and reaped only when Streamlit's session store is
next touched — after the last tab closes, never. The sweep touches it and, once a session is
over for good, empties its state (:func:`sweep`), so that memory comes back about two
minutes after the last tab closed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger("ragdash.ui.memo")

#: results kept (least recently used dropped first); a few runs' worth of figures and frames
KEPT = 64
#: how often the background thread looks for results no live session holds, seconds
SWEEP_SECONDS = 10.0
#: session-state key of the object that stands for this session as a holder
HOLDER_KEY = "rd_memo_holder"


@dataclass
class _Entry:
    value: Any
    holders: set[str] = field(default_factory=set)


class _Holder:
    """Stands for one session (kept in its session state): collected with that state."""

    def __init__(self, token: str, session_id: str | None) -> None:
        self.token = token
        self.session_id = session_id
        self.state: Any = None  #: the session's SessionState (emptied once it is over)


_cache: OrderedDict[Hashable, _Entry] = OrderedDict()
_lock = threading.RLock()
#: holder token -> (weak reference to the holder, Streamlit's session id)
_holders: dict[str, tuple[weakref.ref, str | None]] = {}
_wake = threading.Event()
_sweeper: threading.Thread | None = None


def memo(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per ``key`` (computed outside the lock: two sessions asking at
    once may both compute; either result is the same), held by the session asking. A key
    holding ``None`` (an unsaved run has no id) is not cached."""
    if _uncacheable(key):
        return compute()
    token = _session_token()
    with _lock:
        entry = _cache.get(key)
        if entry is not None:
            _cache.move_to_end(key)
            if token is not None:
                entry.holders.add(token)
            return entry.value
    value = compute()
    with _lock:
        entry = _cache.get(key)
        if entry is None:
            entry = _cache[key] = _Entry(value)
        _cache.move_to_end(key)
        if token is not None:
            entry.holders.add(token)
        while len(_cache) > KEPT:
            _cache.popitem(last=False)
    if token is not None:
        _start_sweeper()
    return entry.value


def _uncacheable(key: Hashable) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return any(p is None or (isinstance(p, tuple) and _uncacheable(p)) for p in parts)


def clear() -> None:
    with _lock:
        _cache.clear()


def size() -> int:
    """Results kept now."""
    with _lock:
        return len(_cache)


# -- who holds what --------------------------------------------------------------------------
def _session_token() -> str | None:
    """The asking session's holder token (None outside a session)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import (
            get_script_run_ctx,
        )
    except ImportError:  # pragma: no cover - streamlit is the app's own dependency
        return None
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None
    import streamlit as st

    holder = st.session_state.get(HOLDER_KEY)
    if not isinstance(holder, _Holder):
        holder = _Holder(secrets.token_hex(8), getattr(ctx, "session_id", None))
        # the session's own state (Streamlit 1.67: SafeSessionState._state), to empty it
        # once the session is over for good (see sweep)
        holder.state = getattr(ctx.session_state, "_state", None)
        st.session_state[HOLDER_KEY] = holder
    with _lock:
        if holder.token not in _holders:
            _holders[holder.token] = (weakref.ref(holder, _collected), holder.session_id)
    return holder.token


def _collected(_ref) -> None:
    """A session's state was collected (in whatever thread the collector ran): sweep soon.
    Nothing is locked here — the collector may run while this thread holds the lock."""
    _wake.set()


class _Server:
    """What Streamlit's running server says about its sessions (Streamlit 1.67). Without a
    server (a script, AppTest, whose stand-in runtime is not asked) every question answers
    as if the holders' own lives were all there is to know."""

    def __init__(self) -> None:
        self.manager = None
        try:
            from streamlit.runtime import Runtime

            runtime = Runtime._instance if Runtime.exists() else None
            if type(runtime) is Runtime:
                self.manager = runtime._session_mgr
        except Exception:  # another Streamlit
            self.manager = None

    def active(self, session_id: str | None) -> bool:
        if self.manager is None or session_id is None:
            return True
        return self.manager.is_active_session(session_id)

    def kept_for_reconnect(self, session_id: str | None) -> bool:
        """A closed tab's session, kept two minutes in case the tab comes back."""
        if self.manager is None or session_id is None:
            return False
        try:
            return self.manager._session_storage.get(session_id) is not None
        except Exception:
            return False

    def none_active(self) -> bool:
        if self.manager is None:
            return True
        try:
            return self.manager.num_active_sessions() == 0
        except Exception:
            return False

    def reap(self) -> int:
        """Let Streamlit drop the sessions kept for a reconnect whose two minutes are over
        (its store reaps them only when touched, and then without shutting them down: their
        download buttons' callables stay in the media file manager), and shut them down as
        a closed session is; the number of sessions reaped."""
        if self.manager is None:
            return 0
        try:
            with self.manager._storage_lock:
                reaped = self.manager._session_storage._cache.expire()
        except Exception:  # another Streamlit: nothing to do
            return 0
        for _, info in reaped:
            self.shut_down(getattr(info, "session", None))
        return len(reaped)

    def shut_down(self, session) -> None:
        """``session.shutdown()`` on the server's event loop thread, where Streamlit shuts
        sessions down itself."""
        if session is None or not hasattr(session, "shutdown"):
            return
        try:
            from streamlit.runtime import Runtime

            Runtime._instance._async_objs.eventloop.call_soon_threadsafe(session.shutdown)
        except Exception:  # no loop to hand it to: nothing is done rather than risk it
            log.debug("could not hand a session's shutdown to the event loop", exc_info=True)


def sweep() -> int:
    """Drop every result whose holders have all gone (module docstring); the number
    dropped.

    A session whose tab has closed stops holding at once. Once Streamlit no longer keeps it
    for a reconnect, it is shut down (as Streamlit does a session it closes itself) and its
    own state is emptied: Streamlit 1.67's event loop keeps the last session it served
    referenced until another one is served, and with it that session's dataset and runs.
    When no session is left at all, the run store's runs and datasets kept in memory go as
    well (:func:`ragdash.runs.store.forget_cached`)."""
    server = _Server()
    emptied = server.reap()
    with _lock:
        had_holders = bool(_holders)
        live = set()
        for token, (ref, session_id) in list(_holders.items()):
            holder = ref()
            if holder is not None and server.active(session_id):
                live.add(token)
            elif holder is None:
                del _holders[token]
            elif not server.kept_for_reconnect(session_id):
                _empty(holder)
                emptied += 1
                del _holders[token]
        gone = [key for key, entry in _cache.items()
                if entry.holders and not entry.holders & live]
        for key in gone:
            del _cache[key]
        for entry in _cache.values():
            entry.holders &= live
        idle = had_holders and not live and server.none_active()
    if idle:
        from ..runs.store import forget_cached

        forget_cached()
    if gone or idle or emptied:
        log.info("released %d result(s) no live session holds, let %d closed session(s) go%s",
                 len(gone), emptied, "; no session left: the stores' runs and datasets too"
                 if idle else "")
        gc.collect()
        _trim_heap()
    return len(gone)


def _empty(holder: _Holder) -> None:
    """Empty the state of a session that is over: its values, and its widgets' metadata —
    a widget's format function is a closure over the page's globals (the dataset, the run),
    and ``SessionState.clear()`` keeps the metadata (Streamlit 1.67)."""
    state, holder.state = holder.state, None
    if state is None:
        return
    try:
        state.clear()
        state._new_widget_state.widget_metadata.clear()
    except Exception:  # another Streamlit: what could be cleared is
        log.debug("could not empty a closed session's state", exc_info=True)


# -- the background sweep --------------------------------------------------------------------
def _start_sweeper() -> None:
    global _sweeper
    with _lock:
        if _sweeper is not None and _sweeper.is_alive():
            return
        _sweeper = threading.Thread(target=_sweep_while_kept, daemon=True,
                                    name="ragdash-memo-sweep")
        _sweeper.start()


def _sweep_while_kept() -> None:
    """Sweep every SWEEP_SECONDS (or at once when a session's state is collected) while any
    session holds something or waits for a reconnect, then end (the next held result starts
    another)."""
    global _sweeper
    while True:
        _wake.wait(SWEEP_SECONDS)
        _wake.clear()
        try:
            sweep()
        except Exception:  # a sweep must never take the server down
            log.exception("the memo sweep failed")
        with _lock:
            if not _holders:
                _sweeper = None
                return


def _trim_heap() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``)."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return
    try:
        trim = ctypes.CDLL(libc_name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)
