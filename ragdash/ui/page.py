"""``page_setup``: the one call every page starts with.

It sets the page title, restores this session's state, opens a ``?run=<id>`` link, picks up
runs that finished in the background, and draws the shared sidebar (page links, current
dataset and run, language switch). The default page list is hidden
(``client.showSidebarNavigation = false`` in ``.streamlit/config.toml``) because Streamlit
would name the entry page after its file ("app") and cannot translate the labels; the sidebar
draws its own links with ``st.page_link`` instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ..dataset import Dataset, synthetic_note
from ..errors import RagdashError
from ..i18n import LANGUAGE_NAMES, LANGUAGES, message, normalize_lang
from ..i18n import t as _t
from ..jobs import JobManager
from ..runs.access import UserRuns
from . import auth, keys, state
from .widgets import bind_choice, md, say

#: (page id, script path relative to app.py, i18n key of its label, icon)
PAGES: tuple[tuple[str, str, str, str], ...] = (
    ("home", "app.py", "nav.home", ":material/home:"),
    ("data", "pages/1_Data.py", "nav.data", ":material/database:"),
    ("run", "pages/2_Run.py", "nav.run", ":material/play_arrow:"),
    ("results", "pages/3_Results.py", "nav.results", ":material/monitoring:"),
    ("compare", "pages/4_Compare.py", "nav.compare", ":material/compare_arrows:"),
    ("cost", "pages/5_Cost.py", "nav.cost", ":material/payments:"),
    ("frontier", "pages/6_Frontier.py", "nav.frontier", ":material/balance:"),
    ("judge", "pages/7_Judge.py", "nav.judge", ":material/gavel:"),
    ("generate", "pages/8_Generate.py", "nav.generate", ":material/edit_note:"),
)
PAGE_PATHS = {page: path for page, path, _, _ in PAGES}
#: the browser tab's icon (a file in the package, served by the app itself)
PAGE_ICON = Path(__file__).resolve().parents[1] / "data" / "icon.png"


@dataclass
class PageContext:
    """What a page needs: the language, a bound ``t``, the dataset, the services."""

    page: str
    lang: str
    t: Callable[..., str]
    dataset: Dataset | None
    run_id: str | None
    store: UserRuns
    jobs: JobManager
    owner: str
    #: the signed-in user (:mod:`ragdash.ui.auth`); ``None`` on a server without sign-in
    user: str | None = None


def page_setup(page: str, *, settle: float = 0.0) -> PageContext:
    """Start a page: title, state, ``?run=`` link, finished jobs, sidebar. Call it first.

    ``settle``: when this session's evaluation was started less than that many seconds ago,
    wait for it until then, so a short job (BM25 on a sample) is shown finished — in the page
    and in the sidebar — instead of a progress bar replaced a moment later. An older job is
    not waited for: the page then shows its progress at once.
    """
    _lang_from_link()
    lang = state.lang()

    def t(key: str, **fmt: object) -> str:
        return _t(key, lang, **_counts(fmt))

    label_key = next(k for p, _, k, _ in PAGES if p == page)
    title = "ragdash" if page == "home" else f"{t(label_key)} · ragdash"
    # the icon is a file the server sends: a ":material/...:" page icon makes every browser
    # fetch an SVG from fonts.gstatic.com (a request leaving the page, and none offline)
    st.set_page_config(page_title=title, page_icon=str(PAGE_ICON), layout="wide")
    st.session_state[keys.USER] = auth.current_user(t)  # stops at the sign-in screen
    owner = state.owner()
    st.session_state.setdefault(keys.API_KEY, state.default_api_key())
    _stop_if_store_unreadable(lang)
    _open_run_link(t)
    if settle > 0:
        _settle(owner, settle)
    collect_finished_jobs(owner)
    ctx = PageContext(page=page, lang=lang, t=t, dataset=state.dataset(),
                      run_id=state.run_id(), store=state.store(), jobs=state.jobs(),
                      owner=owner, user=state.user())
    _sidebar(ctx)
    _missing_link_error(t, lang)
    return ctx


def _counts(fmt: dict[str, object]) -> dict[str, object]:
    """Whole numbers with thousands separators, in every language ("4,420 件中 4,420 件")."""
    return {k: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v
            for k, v in fmt.items()}


def _stop_if_store_unreadable(lang: str) -> None:
    """A damaged or unopenable run store (``runs.sqlite``) is one sentence with its path and
    what to do, on every page, and nothing else is drawn (each page reads the store, and
    would otherwise end in a traceback). A damaged row is not this: it is skipped and named."""
    try:
        state.store().list(limit=1)
    except RagdashError as exc:
        st.error(say(exc, lang), icon=":material/error:")
        st.stop()


def _lang_from_link() -> None:
    """``?lang=ja`` (a link shared from a Japanese page): the session speaks that language,
    applied once per value so that the language switch still works afterwards."""
    wanted = st.query_params.get("lang")
    ss = st.session_state
    if not wanted or ss.get(keys.LANG_PARAM) == wanted:
        return
    ss[keys.LANG_PARAM] = wanted
    if normalize_lang(wanted) == str(wanted).strip().lower().split("-")[0]:
        ss[keys.LANG] = normalize_lang(wanted)


def _open_run_link(t: Callable[..., str]) -> None:
    """``?run=<id>``: open that saved run (and its dataset) once per id in this session.

    A run that cannot be opened is remembered (:data:`keys.LINK_MISSING`): while the address
    still holds that link, every page says so (:func:`missing_link`), and the Results page
    shows the saved runs instead of another run — a link never silently shows other data."""
    wanted = st.query_params.get("run")
    ss = st.session_state
    if not wanted or ss.get(keys.RUN_PARAM) == wanted:
        return
    ss[keys.RUN_PARAM] = wanted
    try:
        run = state.load_run(wanted)
    except RagdashError as exc:
        found = _exists(wanted)
        ss[keys.LINK_MISSING] = (wanted, None if not found else exc)  # said in the page's language
        return
    ss.pop(keys.LINK_MISSING, None)
    state.opened().add(run.id)
    state.set_run(run.id)
    if state.dataset_fingerprint() != run.dataset_fingerprint:
        state.set_dataset(run.dataset, source=f"run:{run.id}",
                          fingerprint=run.dataset_fingerprint)


def _exists(run_id: str) -> bool:
    try:
        return state.store().exists(run_id)
    except RagdashError:
        return False


def missing_link() -> str | None:
    """The id of the ``?run=`` link in the address bar when its run could not be opened."""
    missing = st.session_state.get(keys.LINK_MISSING)
    if missing and st.query_params.get("run") == missing[0]:
        return missing[0]
    return None


def _missing_link_error(t: Callable[..., str], lang: str) -> None:
    """The error for a ``?run=`` link whose run cannot be opened, on every rerun while the
    address holds it: not found (deleted, or from another RAGDASH_HOME), or unreadable."""
    run_id = missing_link()
    if run_id is None:
        return
    _, problem = st.session_state[keys.LINK_MISSING]
    if problem is None:
        st.error(t("link.missing_run", id=md(run_id)), icon=":material/link_off:")
    else:
        st.error(t("link.bad_run", error=say(problem, lang)), icon=":material/link_off:")


def _settle(owner: str, seconds: float) -> None:
    job = state.jobs().active(owner, kind="evaluation")
    if job is not None:
        left = job.created_at + seconds - time.time()
        if left > 0:
            job.wait(left)


def collect_finished_jobs(owner: str) -> None:
    """A run that finished in the background becomes the current run (once per job)."""
    seen: set[str] = st.session_state.setdefault(keys.SEEN_JOBS, set())
    newest = None
    for job in state.jobs().jobs_for(owner, kind="evaluation"):
        if job.id in seen or not job.finished:
            continue
        seen.add(job.id)
        run_id = job.result.id if job.state == "done" else None
        if run_id and newest is None:
            newest = run_id
    if newest:
        state.set_run(newest)


def _sidebar(ctx: PageContext) -> None:
    t = ctx.t
    with st.sidebar:
        st.markdown("### ragdash")
        for _, path, label_key, icon in PAGES:
            st.page_link(path, label=t(label_key), icon=icon)
        st.divider()
        ds = ctx.dataset
        if ds is None:
            st.caption(t("side.no_dataset"))
        else:
            sizes = ds.sizes()
            st.caption(t("side.dataset", name=md(ds.name), docs=f"{sizes['documents']:,}",
                         queries=f"{sizes['queries_with_qrels']:,}"))
            synthetic = synthetic_note(ds)
            if synthetic is not None:
                st.caption(md(message(synthetic, ctx.lang)))
        if ctx.run_id:
            try:
                summary = ctx.store.summary(ctx.run_id)
                st.caption(t("side.run", name=md(summary.name)))
            except RagdashError:
                state.set_run(None)
        active = ctx.jobs.active(ctx.owner, kind="evaluation")
        if active is not None:
            st.caption(t("side.job_running", label=md(active.label)))
        auth.sign_out_box(t, ctx.user)
        st.divider()
        st.radio(t("side.language"), list(LANGUAGES), horizontal=True,
                 format_func=lambda code: LANGUAGE_NAMES[code],
                 **bind_choice(keys.LANG, list(LANGUAGES), "en"))
