"""Session state: what one browser session holds, and the process-wide services it uses.

Everything here is per session (``st.session_state``) except the run store and the job
manager, which are shared by all sessions of the server process; jobs are looked up by this
session's random owner id, so one session never sees another's jobs.
"""

from __future__ import annotations

import os
import secrets as _secrets
from collections import OrderedDict

import streamlit as st

from ..dataset import Dataset
from ..i18n import normalize_lang
from ..jobs import JobManager, get_manager
from ..run import Run
from ..runs import RunStore, get_store
from ..runs.access import UserRuns
from ..validation import validate
from . import keys

#: The environment variable (or Streamlit secret) that may supply the API key.
API_KEY_ENV = "OPENAI_API_KEY"


def lang() -> str:
    return normalize_lang(st.session_state.get(keys.LANG))


def owner() -> str:
    """This session's random id: owner of its background jobs."""
    ss = st.session_state
    if keys.OWNER not in ss:
        ss[keys.OWNER] = _secrets.token_hex(8)
    return ss[keys.OWNER]


def default_api_key() -> str:
    """The key from ``OPENAI_API_KEY`` or Streamlit secrets, else ``""``.

    It seeds the password field once; from then on it lives in this session's state only.
    """
    env = os.environ.get(API_KEY_ENV, "").strip()
    if env:
        return env
    value = None
    try:
        if st.secrets.load_if_toml_exists():  # False when there is no secrets.toml
            value = st.secrets.get(API_KEY_ENV)
    except Exception:  # a malformed secrets file must not break the page
        value = None
    return str(value).strip() if value else ""


def user() -> str | None:
    """The signed-in user of this session (set by ``page_setup``), ``None`` without
    authentication."""
    return st.session_state.get(keys.USER)


def store() -> UserRuns:
    """The run store as this session's user sees it (:mod:`ragdash.runs.access`)."""
    return UserRuns(get_store(), user(), opened, opened_datasets)


def base_store() -> RunStore:
    return get_store()


def opened() -> set[str]:
    """Runs this session opened by a ``?run=`` link (listed for it even when not its own)."""
    return st.session_state.setdefault(keys.OPENED_RUNS, set())


#: session key: fingerprints of the stored datasets this session opened by a
#: ``?dataset=`` link (the Data page)
OPENED_DATASETS = "rd_opened_datasets"


def opened_datasets() -> set[str]:
    """Stored datasets this session opened by a ``?dataset=`` link (listed for it even when
    not its own)."""
    return st.session_state.setdefault(OPENED_DATASETS, set())


def jobs() -> JobManager:
    return get_manager()


# -- the current dataset ---------------------------------------------------------------------
def dataset() -> Dataset | None:
    return st.session_state.get(keys.DATASET)


#: validation reports by dataset fingerprint, for the whole server: opening a run's link
#: in a new session does not validate its (unchanged) dataset again (seconds at 200,000
#: documents)
_REPORTS: OrderedDict[str, object] = OrderedDict()
_REPORTS_KEPT = 4


def _keep_report(fingerprint: str, report) -> None:
    _REPORTS[fingerprint] = report
    _REPORTS.move_to_end(fingerprint)
    while len(_REPORTS) > _REPORTS_KEPT:
        _REPORTS.popitem(last=False)


def set_dataset(ds: Dataset, source: str, report=None, *, fingerprint: str | None = None
                ) -> None:
    """Make ``ds`` the current dataset. Its validation ``report``, when not given, is made
    when a page first asks for it (:func:`validation`: the Data and Run pages), not when a
    run's link opens the run's dataset on Results. ``fingerprint``: ``ds.fingerprint()``
    when the caller knows it (a saved run does)."""
    fingerprint = fingerprint or ds.fingerprint()
    if report is None:
        report = _REPORTS.get(fingerprint)
    else:
        _keep_report(fingerprint, report)
    ss = st.session_state
    ss[keys.DATASET] = ds
    ss[keys.DATASET_FP] = fingerprint
    ss[keys.DATASET_SOURCE] = source
    ss[keys.VALIDATION] = report
    ss.pop(keys.DRILL_QUERY, None)


def dataset_fingerprint() -> str | None:
    return st.session_state.get(keys.DATASET_FP)


def validation():
    """The current dataset's validation report (made now if it was not yet), or None."""
    ss = st.session_state
    report = ss.get(keys.VALIDATION)
    ds = ss.get(keys.DATASET)
    if report is None and ds is not None:
        fingerprint = ss.get(keys.DATASET_FP) or ds.fingerprint()
        report = _REPORTS.get(fingerprint)
        if report is None:
            report = validate(ds)
        _keep_report(fingerprint, report)
        ss[keys.VALIDATION] = report
    return report


# -- saved runs ------------------------------------------------------------------------------
def run_id() -> str | None:
    return st.session_state.get(keys.RUN_ID)


def set_run(run_id: str | None) -> None:
    st.session_state[keys.RUN_ID] = run_id
    st.session_state.pop(keys.DRILL_QUERY, None)


def load_run(run_id: str) -> Run:
    """A saved run from the run store, which keeps the last few in memory (one cache for the
    process), so changing K, the metric or the language redraws without rescoring: the
    metric table is memoized on the :class:`ragdash.run.Run`."""
    return store().load(run_id)


def forget_run(run_id: str) -> None:
    """A deleted run: out of the comparison and the Results page (the store has already
    dropped it from its cache)."""
    ids = st.session_state.get(keys.COMPARE_IDS) or []
    st.session_state[keys.COMPARE_IDS] = [r for r in ids if r != run_id]
    if st.session_state.get(keys.RUN_ID) == run_id:
        set_run(None)
