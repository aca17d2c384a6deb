"""Pieces of the Data page: samples, uploads with column mapping, datasets already in the run
store (those this person may see, :mod:`ragdash.runs.access`) and ``?dataset=`` links, the
validation report, previews and sizes."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path, PurePosixPath

import pandas as pd
import streamlit as st

from ..dataset import Dataset
from ..errors import RagdashError
from ..loaders import Source, column_mappings, load_uploads, read_limits
from ..loaders.detect import classify_name
from ..loaders.tables import ALIASES, Table, normalize_column, plan_table
from ..present.tables import display_frame, snippet
from ..samples import list_samples
from ..validation import validate
from . import keys, state
from .page import PageContext
from .widgets import md, say

#: a dataset read from loose uploaded files: its ``source`` is this and their names
UPLOAD_PREFIX = "upload:"
#: Streamlit's default per-file upload limit (``server.maxUploadSize``), in MB.
UPLOAD_LIMIT_MB = 200
UPLOAD_TYPES = ["json", "jsonl", "ndjson", "csv", "tsv", "txt", "zip", "gz", "qrels", "trec"]
NONE = "—"
#: a table's part and a column's role, as the column-mapping forms name them (message keys)
_KIND_KEYS = {"corpus": "data.kind_corpus", "queries": "data.kind_queries",
              "qrels": "data.kind_qrels"}
_ROLE_KEYS = {"id": "data.role_id", "text": "data.role_text", "title": "data.role_title",
              "query_id": "data.role_query_id", "doc_id": "data.role_doc_id",
              "grade": "data.role_grade"}


def samples(lang: str) -> list[tuple[str, str, str]]:
    """(name, title, description) of each bundled sample, in ``lang``."""
    def pick(text) -> str:
        return text.get(lang) or text.get("en", "") if isinstance(text, dict) else str(text)

    return [(s.name, pick(s.title), pick(s.description)) for s in list_samples()]


def source_text(ctx: PageContext, ds: Dataset) -> str:
    """Where the current dataset came from, for people: the sample's title, the uploaded
    files' names, or the file as the loader recorded it (Markdown-escaped)."""
    source = str(ds.source or "")
    if source.startswith("sample:"):
        titles = {name: title for name, title, _ in samples(ctx.lang)}
        name = source.split(":", 1)[1]
        return ctx.t("data.source_sample", name=md(titles.get(name, name)))
    if source.startswith(UPLOAD_PREFIX):  # the uploaded files, named when they were read
        return ctx.t("data.source", source=md(source[len(UPLOAD_PREFIX):]))
    uploads = st.session_state.get(keys.UPLOADS) or []
    if st.session_state.get(keys.DATASET_SOURCE) == "upload" and uploads:  # this session's
        return ctx.t("data.source", source=md(", ".join(n for n, _ in uploads)))
    return ctx.t("data.source", source=md(source))


def limits_caption(ctx: PageContext) -> None:
    """The upload limit and the reading limits (one line, what a .zip may unzip to)."""
    try:
        limits = read_limits()
    except RagdashError as exc:
        st.error(say(exc, ctx.lang))
        return
    st.caption(ctx.t("data.limit", mb=UPLOAD_LIMIT_MB, line_mb=f"{limits['line_mb']:,g}",
                     zip_mb=f"{limits['unzipped_mb']:,g}", json_mb=f"{limits['json_mb']:,g}"))


def load_sample(ctx: PageContext, name: str) -> None:
    from ..samples import load_sample as _load

    try:
        with st.spinner(ctx.t("data.loading")):
            state.set_dataset(_load(name), source=f"sample:{name}")
    except RagdashError as exc:
        st.error(say(exc, ctx.lang))
    else:
        st.session_state.pop(keys.LOAD_FAILED, None)
        st.rerun()  # the sidebar, drawn before the button, names the new dataset too


#: a ``?dataset=`` link's value: a stored dataset's whole fingerprint (sha256, hex)
_FINGERPRINT = re.compile(r"^[0-9a-f]{64}$")
#: session keys: the ``?dataset=`` value already acted on, and one that could not be opened
_DATASET_PARAM, _DATASET_MISSING = "rd_dataset_param", "rd_dataset_link_missing"


def stored_datasets(ctx: PageContext) -> None:
    """The datasets kept in the run store that this person may see (with runs, generated
    sets), one of them opened as the current dataset on request: a second rater picks the
    set the first one loaded instead of uploading it again."""
    t = ctx.t
    entries = ctx.store.datasets()
    st.caption(t("data.store_who") if ctx.user else t("data.store_all"))
    if not entries:
        st.info(t("data.store_none"))
        return
    names = {e["fingerprint"]: t("data.store_option", name=e["name"],
                                 docs=e["sizes"].get("documents", 0),
                                 queries=e["sizes"].get("queries", 0), n=e["runs"])
             for e in entries}
    chosen = st.selectbox(t("data.store_pick"), list(names), format_func=names.get,
                          key="data_stored")
    if st.button(t("data.store_open"), key="data_open_stored", type="primary"):
        open_stored(ctx, chosen)


def open_stored(ctx: PageContext, fingerprint: str) -> None:
    """Make the stored dataset ``fingerprint`` the current one (a copy: the store shares
    its object with other sessions)."""
    try:
        ds = ctx.store.dataset(fingerprint)
    except RagdashError as exc:
        st.error(say(exc, ctx.lang))
        return
    state.set_dataset(dataclasses.replace(ds), source=f"store:{fingerprint[:12]}",
                      fingerprint=fingerprint)
    st.session_state.pop(keys.LOAD_FAILED, None)
    st.rerun()  # the sidebar, drawn before, names the new dataset too


def open_dataset_link(ctx: PageContext) -> None:
    """``?dataset=<fingerprint>``: open that stored dataset, once per value, and list it for
    this session from then on (read access: a dataset is never changed in the store). A link
    that names no stored dataset says so while the address holds it."""
    wanted = str(st.query_params.get("dataset") or "").strip().lower()
    ss = st.session_state
    if not wanted:
        return
    if ss.get(_DATASET_PARAM) != wanted:
        ss[_DATASET_PARAM] = wanted
        ss.pop(_DATASET_MISSING, None)
        if _FINGERPRINT.match(wanted) and ctx.store.has_dataset(wanted):
            state.opened_datasets().add(wanted)
            if state.dataset_fingerprint() != wanted:
                open_stored(ctx, wanted)
            return
        ss[_DATASET_MISSING] = wanted
    if ss.get(_DATASET_MISSING) == wanted:
        st.error(ctx.t("data.link_missing"), icon=":material/link_off:")


def dataset_link(fingerprint: str) -> str:
    """The address that opens the stored dataset ``fingerprint`` on the Data page, made from
    this page's address (``http://host/Generate`` → ``http://host/Data?dataset=…``; not the
    entry page's, whose address does not end with a page name)."""
    url = (st.context.url or "").rstrip("/")
    root = url.rsplit("/", 1)[0] if url.count("/") > 2 else url
    return f"{root}/Data?dataset={fingerprint}"


def share_dataset(ctx: PageContext, fingerprint: str) -> None:
    """The dataset's link, with who may use it."""
    link = dataset_link(fingerprint)
    st.markdown(f"**{ctx.t('data.link')}**: [{link}]({link})")
    st.caption(ctx.t("data.link_help"))


#: corpus file stems that say nothing about the dataset
GENERIC_STEMS = frozenset({"corpus", "docs", "documents", "collection", "passages"})


def upload_name(names: list[str]) -> str | None:
    """A name for loose uploaded files: the corpus file's folder (a folder upload keeps
    it), else its stem unless generic (``jsquad_corpus``), else the files' common prefix
    (``jsquad_corpus`` + ``jsquad_queries`` → ``jsquad``), else the corpus stem itself."""
    paths = [PurePosixPath(str(n).replace("\\", "/")) for n in names]
    corpus = next((p for p in paths
                   if classify_name(Source.from_bytes(str(p), b"")) == "corpus"), None)
    if corpus is not None and corpus.parent.name:
        return corpus.parent.name
    stem = corpus.name.split(".")[0] if corpus is not None else None
    if stem and stem.lower() not in GENERIC_STEMS:
        return stem
    stems = [p.name.split(".")[0] for p in paths] or [""]
    low, high = min(stems), max(stems)  # the common prefix of all is theirs
    n = next((i for i, (x, y) in enumerate(zip(low, high)) if x != y), min(len(low), len(high)))
    prefix = low[:n].rstrip("-_. ")
    if len(prefix) >= 3:
        return prefix
    return stem


def rename_dataset(name: str) -> None:
    """The current dataset under another name (a copy: the run store may share the
    object with other sessions; the name is not part of the fingerprint)."""
    ds = state.dataset()
    name = " ".join(str(name).split())[:120]
    if ds is None or not name or name == ds.name:
        return
    st.session_state[keys.DATASET] = dataclasses.replace(ds, name=name)


def name_editor(ctx: PageContext, ds) -> None:
    """The dataset's name, editable: it names its runs and reports."""
    widget = "w:data_name"
    if widget not in st.session_state or st.session_state.get(f"{widget}:for") != id(ds):
        st.session_state[widget] = ds.name
        st.session_state[f"{widget}:for"] = id(ds)

    def apply() -> None:
        rename_dataset(st.session_state[widget])
        st.session_state[f"{widget}:for"] = id(state.dataset())

    st.text_input(ctx.t("data.name"), key=widget, on_change=apply, max_chars=120,
                  help=ctx.t("data.name_help"))


#: how long the page waits for a load before showing a progress panel instead (seconds)
LOAD_SETTLE = 2.0


def load_files(ctx: PageContext, files: list[tuple[str, bytes]], split: str,
               mapping: dict | None = None) -> None:
    """Read and validate uploaded files in a background job, so a big upload does not hold
    the page; small ones are done before the page is drawn (see :func:`load_outcome`)."""
    split = split.strip() or "test"
    # a file added again under the same name (the uploader lists it twice) is read once:
    # the copy added last
    files = list({name: (name, data) for name, data in files}.values())

    def task(*, progress, cancel) -> tuple:
        ds = load_uploads(files, split=split, mapping=mapping or None)
        if ds.name == "upload":  # loose files: named after the corpus (editable on the page)
            ds.name = upload_name([name for name, _ in files]) or ds.name
        if ds.source == "upload":  # loose files: the run store keeps where they came from
            ds.source = UPLOAD_PREFIX + ", ".join(name for name, _ in files)
        return ds, validate(ds)

    label = ", ".join(name for name, _ in files[:3]) + (" …" if len(files) > 3 else "")
    job = ctx.jobs.submit(ctx.owner, task, kind="load", label=label)
    st.session_state[keys.LOAD_JOB] = (job.id, files, mapping or {}, split)
    st.session_state.pop(keys.LOAD_FAILED, None)
    job.wait(LOAD_SETTLE)


def load_outcome(ctx: PageContext) -> None:
    """Take in the upload job's result: the new dataset, or one message naming the file, the
    line and the fix (kept on the page until the next load, with column choosers when a
    table's columns could not be matched). While it runs, a panel with the time taken
    refreshes itself."""
    pending = st.session_state.get(keys.LOAD_JOB)
    if pending:
        job_id, files, mapping, split = pending
        job = ctx.jobs.get(job_id, ctx.owner)
        if job is None:
            st.session_state.pop(keys.LOAD_JOB, None)
        elif not job.finished:
            _load_panel(ctx, job_id)
            return
        else:
            st.session_state.pop(keys.LOAD_JOB, None)
            if job.state == "done":
                ds, report = job.result
                state.set_dataset(ds, source="upload", report=report)
                st.session_state[keys.UPLOADS] = files
                st.session_state[keys.MAPPING] = mapping
                st.rerun()  # the sidebar, drawn first, names the new dataset too
            elif job.state == "failed":
                st.session_state[keys.LOAD_FAILED] = (job, files, mapping, split)
    failed = st.session_state.get(keys.LOAD_FAILED)
    if failed:
        job, files, mapping, split = failed
        st.error(ctx.t("data.load_failed", error=md(job.error_text(ctx.lang, app=True))))
        override = column_fixer(ctx, files, mapping)
        if override is not None:
            load_files(ctx, files, split, override)
            st.rerun()


#: extensions of the files :func:`column_fixer` looks into
TABLE_EXTS = (".csv", ".tsv", ".tab", ".txt", ".jsonl", ".ndjson")


def unmatched_tables(files: list[tuple[str, bytes]], mapping: dict | None
                     ) -> list[tuple[str, str, list[str], dict]]:
    """Uploaded tables, recognized by name, whose columns the loader cannot match by itself:
    (file name, kind, the file's columns, the roles it did match)."""
    out = []
    for name, raw in files:
        src = Source.from_bytes(name, raw)
        if src.ext not in TABLE_EXTS or (kind := classify_name(src)) is None:
            continue
        try:
            table = Table(src)
        except RagdashError:
            continue  # empty or unreadable: the error message says so
        override = (mapping or {}).get(kind) or {}
        try:
            plan_table(kind, table, override)
        except RagdashError:
            columns = [str(c) for c in table.columns]
            by_norm: dict[str, str] = {}
            for c in columns:
                by_norm.setdefault(normalize_column(c), c)
            guessed: dict[str, str | None] = {}
            for role, aliases in ALIASES[kind].items():  # the loader's own lenient match
                taken = set(guessed.values())
                guessed[role] = override.get(role) if role in override else next(
                    (by_norm[a] for a in aliases if a in by_norm and by_norm[a] not in taken),
                    None)
            out.append((name, kind, columns, guessed))
    return out


def column_fixer(ctx: PageContext, files: list[tuple[str, bytes]],
                 mapping: dict | None) -> dict | None:
    """After a failed load: a column chooser for each table whose columns were not matched.
    Returns the mapping to load again with when the user asks, else ``None``."""
    tables = unmatched_tables(files, mapping)
    if not tables:
        return None
    t = ctx.t
    with st.container(border=True):
        st.markdown(t("data.fix_columns"))
        merged = {k: dict(v) for k, v in (mapping or {}).items()}
        for name, kind, columns, guessed in tables:
            st.markdown(f"**{md(name)}** — {t(_KIND_KEYS[kind])}")
            roles = list(guessed)
            cols = st.columns(len(roles))
            for col, role in zip(cols, roles):
                options = [NONE, *columns]
                current = guessed[role] if guessed[role] in columns else NONE
                picked = col.selectbox(t(_ROLE_KEYS[role]), options,
                                       index=options.index(current),
                                       key=f"data_fix:{name}:{role}")
                merged.setdefault(kind, {})[role] = None if picked == NONE else picked
        if st.button(t("data.map_reload"), key="data_fix_reload", type="primary"):
            return merged
    return None


def _load_panel(ctx: PageContext, job_id: str) -> None:
    @st.fragment(run_every=0.5)
    def panel() -> None:
        job = ctx.jobs.get(job_id, ctx.owner)
        if job is None or job.finished:
            st.rerun()
        st.info(ctx.t("data.loading_for", label=md(job.label), time=f"{job.elapsed:.0f}"),
                icon=":material/hourglass_top:")

    panel()


def mapping_editor(ctx: PageContext, ds: Dataset) -> dict | None:
    """The column mapping the loader chose for each table, with selectboxes to change it.
    Returns the overrides when the user asks to reload, else ``None``."""
    mappings = column_mappings(ds)
    if not mappings:
        return None
    t = ctx.t
    st.subheader(t("data.columns"))
    rows = [{t("data.map_table"): t(_KIND_KEYS[kind]),
             t("data.map_file"): _shown_path(m.file),
             t("data.map_format"): m.format,
             t("data.map_chosen"): ", ".join(f"{t(_ROLE_KEYS[role])} ← "
                                             f"{col if col is not None else NONE}"
                                             for role, col in m.chosen.items())}
            for kind, m in mappings.items()]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="data_mapping_table")
    if not st.session_state.get(keys.UPLOADS):
        return None
    with st.expander(t("data.map_change")):
        overrides: dict[str, dict[str, str | None]] = {}
        for kind, m in mappings.items():
            st.markdown(f"**{t(_KIND_KEYS[kind])}** — {md(_shown_path(m.file))}")
            cols = st.columns(len(m.chosen))
            for col, (role, chosen) in zip(cols, m.chosen.items()):
                options = [NONE, *m.columns]
                current = chosen if chosen in m.columns else NONE
                picked = col.selectbox(t(_ROLE_KEYS[role]), options,
                                       index=options.index(current),
                                       key=f"data_map:{kind}:{role}")
                if picked != current:
                    overrides.setdefault(kind, {})[role] = None if picked == NONE else picked
        if st.button(t("data.map_reload"), key="data_map_reload", disabled=not overrides):
            merged = {k: dict(v) for k, v in (st.session_state.get(keys.MAPPING) or {}).items()}
            for kind, roles in overrides.items():
                merged.setdefault(kind, {}).update(roles)
            return merged
    return None


def _shown_path(path: str) -> str:
    """A file as the user knows it: no server folders (a zip member keeps its folder)."""
    text = str(path)
    return Path(text).name if Path(text).is_absolute() else text


def issue_text(ctx: PageContext, issue) -> str:
    """An issue in the page's language (English from the validator when there is no
    translation for its code)."""
    return issue.said(ctx.lang)


def validation_view(ctx: PageContext, report) -> None:
    t = ctx.t
    if report.ok:
        st.success(t("data.valid_ok"))
    else:
        st.error(t("data.valid_errors", n=len(report.errors)))
    for issue in report.errors:
        st.error(md(issue_text(ctx, issue)), icon=":material/error:")
    for issue in report.warnings:
        st.warning(md(issue_text(ctx, issue)), icon=":material/warning:")
    for issue in report.info:
        st.info(md(issue_text(ctx, issue)), icon=":material/info:")


def sizes_view(ctx: PageContext, ds: Dataset, report) -> None:
    t = ctx.t
    sizes = ds.sizes()
    cols = st.columns(4)
    cols[0].metric(t("data.n_documents"), f"{sizes['documents']:,}")
    cols[1].metric(t("data.n_queries"), f"{sizes['queries']:,}")
    cols[2].metric(t("data.n_evaluated"), f"{sizes['queries_with_qrels']:,}")
    cols[3].metric(t("data.n_judgements"), f"{sizes['judgements']:,}")
    tokens = (report.sizes or {}).get("tokens") if report is not None else None
    if tokens:
        st.markdown(t("data.tokens", docs=f"{tokens['documents']:,}",
                      queries=f"{tokens['queries']:,}", total=f"{tokens['total']:,}",
                      method=tokens["method"]))


def previews(ctx: PageContext, ds: Dataset, n: int = 20) -> None:
    t = ctx.t
    docs, queries, qrels = st.tabs([t("data.tab_docs"), t("data.tab_queries"),
                                    t("data.tab_qrels")])
    doc_rows = pd.DataFrame([{"doc_id": d.id, "title": d.title, "snippet": snippet(d.text, 300)}
                             for d in ds.documents[:n]])
    if len(doc_rows) and not doc_rows["title"].astype(bool).any():
        doc_rows = doc_rows.drop(columns=["title"])  # the article's format has no titles
    docs.dataframe(display_frame(doc_rows, ctx.lang), hide_index=True, key="data_prev_docs")
    queries.dataframe(display_frame(pd.DataFrame(
        [{"query_id": q.id, "query": q.text, "n_relevant": len(ds.qrels.get(q.id, {}))}
         for q in ds.queries[:n]]), ctx.lang), hide_index=True, key="data_prev_queries")
    rows = [{"query_id": q, "doc_id": d, "grade": g}
            for q, judged in list(ds.qrels.items())[:n] for d, g in judged.items()]
    qrels.dataframe(display_frame(pd.DataFrame(rows[: n * 3]), ctx.lang), hide_index=True,
                    key="data_prev_qrels")
    st.caption(t("data.preview_note", n=n))
