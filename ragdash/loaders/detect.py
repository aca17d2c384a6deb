"""Find a dataset in a file, a folder, a .zip or a set of uploaded files.

What is recognized, in order:

1. The article's JSON: a ``.json`` file (alone, or the only data file of a folder or zip)
   holding ``{"corpus": [...], "queries": [...]}``.
2. A folder of tables, BEIR's layout being the common case: ``corpus.jsonl``,
   ``queries.jsonl``, ``qrels/<split>.tsv``. A .zip may hold the files at its top level or in a
   folder (the shallowest folder with a corpus file is the dataset). Files are classified by
   name (corpus/docs/documents/collection/passages; queries/questions/topics;
   qrels/judgments/relevance/labels, anything under ``qrels/``, and ``test.tsv`` / ``dev.tsv``
   uploaded without their folder), then, for what is still missing, by content: a table with
   query-id and doc-id columns is qrels; of two text tables, the one with a title column or the
   longer texts is the corpus.
3. Qrels splits: ``qrels/<split>.*``, ``qrels_<split>.*``, ``<split>.tsv``; a single
   ``qrels.*`` file is used whatever the split. A missing split is an error listing the splits
   there are.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ..dataset import Dataset
from ..errors import DatasetError
from ..i18n import dataset_error, text
from ._source import Source, folder_sources, open_zip, zip_sources
from ._values import json_kind
from .article_json import load_article_json, looks_like_article, parse_json_document
from .generated import read_generated
from .notes import LoadLog
from .tables import Table, plan_table, read_documents
from .trec_qrels import read_qrels

DATA_EXTS = {".jsonl", ".ndjson", ".csv", ".tsv", ".tab", ".txt", ".json", ".qrels"}
SPLITS = ("test", "dev", "validation", "valid", "val", "train")
WORDS = {
    "qrels": ("qrel", "judgment", "judgement", "relevance", "label", "正解", "関連度"),
    "queries": ("quer", "question", "topic", "クエリ", "質問"),
    "corpus": ("corpus", "doc", "collection", "passage", "コーパス", "文書", "ドキュメント"),
}
IGNORED_STEMS = re.compile(r"^(readme|license|licence|notice|citation|changelog|manifest)")
Mapping3 = Mapping[str, Mapping[str, str | None]]
SPLIT_FIX = "choose one of these splits"


def _is_data(src: Source) -> bool:
    return src.ext in DATA_EXTS and not IGNORED_STEMS.match(src.stem)


def classify_name(src: Source) -> str | None:
    """"corpus", "queries", "qrels" or None, from the file's name and folder."""
    parts = [p.lower() for p in PurePosixPath(src.path).parts[:-1]]
    if "qrels" in parts:
        return "qrels"
    stem = src.stem
    for kind in ("qrels", "queries", "corpus"):
        if any(w in stem for w in WORDS[kind]):
            return kind
    if stem in SPLITS and src.ext in (".tsv", ".txt", ".qrels"):
        return "qrels"
    return None


def _split_of(src: Source) -> str | None:
    """The split a qrels file is for, or None for a plain ``qrels.tsv``."""
    parts = [p.lower() for p in PurePosixPath(src.path).parts[:-1]]
    stem = src.stem
    if parts and parts[-1] == "qrels":
        return stem
    if stem in SPLITS:
        return stem
    # "qrels_test", "dev-qrels": a split only when the other part names one; "my_qrels.csv"
    # or "qrels_v2.csv" is a plain qrels file, used whatever split is asked for.
    m = (re.fullmatch(r"(?:qrels?|judg[e]?ments?|relevance|labels?)[-_.](.+)", stem)
         or re.fullmatch(r"(.+?)[-_.](?:qrels?|judg[e]?ments?|relevance|labels?)", stem))
    if m and m.group(1) in SPLITS:
        return m.group(1)
    return None


def _parent(src: Source) -> str:
    parent = PurePosixPath(src.path).parent.as_posix()
    return "" if parent == "." else parent


def _depth(path: str) -> int:
    return 0 if not path else path.count("/") + 1


def _in_root(src: Source, root: str) -> bool:
    return _parent(src) == root


def _names(sources: list[Source], limit: int = 10) -> str:
    shown = ", ".join(s.path for s in sources[:limit])
    return (shown + ", ...") if len(sources) > limit else (shown or "none")


# -- content classification ---------------------------------------------------------------------
def _content_kind(src: Source) -> tuple[str | None, float]:
    """Guess a table's kind from its header and first rows: (kind, mean text length)."""
    try:
        table = Table(src)
        try:
            plan_table("qrels", table)
            qrels_like = True
        except DatasetError:
            qrels_like = False
        text_plan = None
        for kind in ("corpus", "queries"):
            try:
                text_plan = plan_table(kind, table)
                break
            except DatasetError:
                continue
        if text_plan is None:
            return ("qrels" if qrels_like else None), 0.0
        if qrels_like and text_plan.chosen.get("text") is None:
            return "qrels", 0.0
        text_col = text_plan.chosen["text"]
        lengths = []
        getter_cols = table.columns
        for i, (_, _, row) in enumerate(table.records(header=True)):
            if i >= 50:
                break
            value = row.get(text_col) if isinstance(row, dict) else (
                row[getter_cols.index(text_col)] if getter_cols.index(text_col) < len(row)
                else "")
            lengths.append(len(str(value or "")))
        mean = sum(lengths) / len(lengths) if lengths else 0.0
        norm = {c.strip().lower() for c in table.columns}
        if norm & {"title", "body", "passage", "content", "contents", "document", "context",
                   "doc_id", "docid", "pid", "タイトル", "本文"}:
            return "corpus", mean
        if norm & {"query", "question", "query_id", "qid", "クエリ", "質問"}:
            return "queries", mean
        return "text", mean
    except DatasetError:
        return None, 0.0


# -- resolving a set of files ---------------------------------------------------------------------
def resolve(sources: list[Source], *, container: str, name: str, split: str,
            mapping: Mapping3 | None, log: LoadLog) -> Dataset:
    """Build a Dataset from the files of a folder, a zip or an upload."""
    data = [s for s in sources if _is_data(s)]
    workbooks = [s for s in sources if s.ext in EXCEL]
    if not data:
        if workbooks:  # what a single workbook gets told, for all of them
            raise dataset_error("load.excel_files", file=container, names=_names(workbooks))
        raise dataset_error("load.no_data_files", file=container, names=_names(sources))
    named: dict[str, list[Source]] = {"corpus": [], "queries": [], "qrels": []}
    for s in data:
        kind = classify_name(s)
        if kind:
            named[kind].append(s)

    # The article's JSON: a lone .json data file (or the only one beside no corpus table).
    jsons = [s for s in data if s.ext == ".json" and classify_name(s) is None]
    if not named["corpus"] and len(jsons) == 1:
        return _article(jsons[0], log, name)

    # The dataset root: the shallowest folder holding a corpus file.
    if named["corpus"]:
        shallowest = min(_depth(_parent(s)) for s in named["corpus"])
        tops = [s for s in named["corpus"] if _depth(_parent(s)) == shallowest]
        roots = sorted({_parent(s) for s in tops})
        if len(roots) > 1:
            raise dataset_error("load.several_datasets", file=container,
                                folders=", ".join(roots))
        root = roots[0]
    else:
        root = min((_parent(s) for s in data), key=_depth)
    in_root = [s for s in data if _in_root(s, root)]
    chosen: dict[str, Source] = {}
    how: dict[str, str] = {}

    for kind in ("corpus", "queries"):
        cands = [s for s in named[kind] if _in_root(s, root)]
        if len(cands) > 1:
            raise dataset_error("load.several_files", file=container, kind=kind,
                                names=_names(cands))
        if cands:
            chosen[kind] = cands[0]
            how[kind] = text("load.how_name")

    qrels_src, qrels_note = _choose_qrels(named["qrels"], root, split, container)
    if qrels_src is not None:
        chosen["qrels"] = qrels_src
        how["qrels"] = qrels_note

    missing = [k for k in ("corpus", "queries", "qrels") if k not in chosen]
    if missing:
        _classify_by_content(in_root, chosen, how, missing)
    missing = [k for k in ("corpus", "queries", "qrels") if k not in chosen]
    if missing and workbooks:
        raise dataset_error("load.excel_files_missing_part", file=container,
                            kind=missing[0], names=_names(workbooks))
    if missing:
        looked = {"corpus": "corpus.jsonl / corpus.csv / docs.csv",
                  "queries": "queries.jsonl / queries.csv",
                  "qrels": "qrels/test.tsv / qrels.tsv / qrels.csv"}
        found = ", ".join(f"{chosen[k].path} ({k})" for k in chosen)
        raise dataset_error("load.missing_part", file=container, kind=missing[0],
                            looked=looked[missing[0]], names=_names(data), found=found,
                            n=len(chosen))
    beir = all(chosen[k].ext == ".jsonl" for k in ("corpus", "queries")) \
        and _parent(chosen["qrels"]).endswith("qrels")
    layout = text("load.layout_beir") if beir else text("load.layout_tables")
    log.note(text("load.layout", container=container, layout=layout,
                  corpus=chosen["corpus"].path, queries=chosen["queries"].path,
                  qrels=chosen["qrels"].path, how=how["qrels"]),
             code="layout", data={"layout": str(layout), **{k: chosen[k].path for k in chosen},
                                  "split": split})
    return build_from_tables(chosen["corpus"], chosen["queries"], chosen["qrels"],
                             mapping=mapping, log=log, name=root.rsplit("/", 1)[-1] or name,
                             source=container)


def _choose_qrels(cands: list[Source], root: str, split: str,
                  container: str) -> tuple[Source | None, str]:
    qdir = f"{root}/qrels" if root else "qrels"
    local = [s for s in cands if _parent(s) in (root, qdir)]
    if not local:
        return None, ""
    by_split: dict[str, Source] = {}
    plain: list[Source] = []
    for s in local:
        sp = _split_of(s)
        if sp is None:
            plain.append(s)
        elif sp in by_split:
            raise dataset_error("load.two_qrels_for_split", file=container, split=repr(sp),
                                first=by_split[sp].path, second=s.path)
        else:
            by_split[sp] = s
    if split in by_split:
        if len(by_split) > 1:
            return by_split[split], text("load.how_split_among", split=repr(split),
                                         splits=", ".join(sorted(by_split)))
        return by_split[split], text("load.how_split", split=repr(split))
    if len(plain) == 1:
        return plain[0], text("load.how_only_qrels")
    if len(plain) > 1:
        raise dataset_error("load.several_qrels", file=container, names=_names(plain))
    raise dataset_error("load.no_split", file=container, split=repr(split),
                        splits=", ".join(sorted(by_split)))


def _classify_by_content(in_root: list[Source], chosen: dict[str, Source],
                         how: dict[str, str], missing: list[str]) -> None:
    taken = {id(s) for s in chosen.values()}
    pool = [s for s in in_root
            if id(s) not in taken and (s.ext != ".json" or classify_name(s))]
    guesses = [(s, *_content_kind(s)) for s in pool]
    if "qrels" in missing:
        q = [s for s, kind, _ in guesses if kind == "qrels"]
        if len(q) == 1:
            chosen["qrels"], how["qrels"] = q[0], text("load.how_columns")
    texts = [(s, kind, mean) for s, kind, mean in guesses if kind in ("corpus", "queries", "text")]
    for kind in ("corpus", "queries"):
        if kind in missing:
            exact = [s for s, k, _ in texts if k == kind]
            if len(exact) == 1:
                chosen[kind], how[kind] = exact[0], text("load.how_columns")
    still = [k for k in ("corpus", "queries") if k not in chosen]
    rest = [(s, mean) for s, _k, mean in texts if all(s is not c for c in chosen.values())]
    if still == ["corpus", "queries"] and len(rest) == 2:
        rest.sort(key=lambda t: t[1], reverse=True)
        chosen["corpus"], how["corpus"] = rest[0][0], text("load.how_longer")
        chosen["queries"], how["queries"] = rest[1][0], text("load.how_shorter")
    elif len(still) == 1 and len(rest) == 1:
        chosen[still[0]], how[still[0]] = rest[0][0], text("load.how_remaining")


def build_from_tables(corpus: Source, queries: Source, qrels: Source, *,
                      mapping: Mapping3 | None, log: LoadLog, name: str,
                      source: str) -> Dataset:
    mapping = dict(mapping or {})
    unknown = [k for k in mapping if k not in ("corpus", "queries", "qrels")]
    if unknown:
        raise dataset_error("load.unknown_table", file=source, table=unknown[0])
    documents, _ = read_documents(corpus, log, kind="corpus", override=mapping.get("corpus"))
    query_list, _ = read_documents(queries, log, kind="queries",
                                   override=mapping.get("queries"))
    judged = read_qrels(qrels, log, override=mapping.get("qrels"))
    return Dataset(documents, query_list, judged, name=name or "dataset", source=source,
                   notes=log.notes, synthetic=read_generated(queries))


def _article(src: Source, log: LoadLog, name: str | None) -> Dataset:
    obj = parse_json_document(src, log)
    if not looks_like_article(obj) and not (isinstance(obj, dict) and
                                            ("corpus" in obj or "queries" in obj)):
        if isinstance(obj, dict):
            keys = ", ".join(map(repr, list(obj)[:8])) or text("load.none")
            what = text("load.json_object_without", keys=keys)
        else:
            what = text("load.json_not_object", kind=json_kind(obj))
        raise dataset_error("load.json_not_article", file=src.name, what=what)
    return load_article_json(src, obj=obj, log=log, name=name or src.stem)



# -- entry points ------------------------------------------------------------------------------
EXCEL = {".xlsx", ".xls", ".xlsm", ".ods", ".numbers"}


def _zip_dataset(zf: zipfile.ZipFile, zip_name: str, stem: str, split: str,
                 mapping: Mapping3 | None) -> Dataset:
    log = LoadLog()
    with zf:
        return resolve(zip_sources(zf, zip_name), container=zip_name, name=stem, split=split,
                       mapping=mapping, log=log)


def load_path(path: str | os.PathLike, *, split: str = "test",
              mapping: Mapping3 | None = None) -> Dataset:
    p = Path(path)
    if not p.exists():
        raise dataset_error("load.no_such_path", file=str(p))
    if p.is_dir():
        log = LoadLog()
        return resolve(folder_sources(p), container=str(p), name=p.resolve().name,
                       split=split, mapping=mapping, log=log)
    src = Source.from_path(p)
    ext = p.suffix.lower()
    head = src.read_bytes(4)
    if ext == ".zip" or (head.startswith(b"PK\x03\x04") and ext not in EXCEL):
        try:
            zf = open_zip(p, str(p))
        except DatasetError:
            raise
        return _zip_dataset(zf, str(p), p.stem, split, mapping)
    return _single_file(src, split=split, mapping=mapping)


def _single_file(src: Source, *, split: str, mapping: Mapping3 | None) -> Dataset:
    ext = src.ext
    if ext in EXCEL:
        raise dataset_error("load.excel", file=src.name)
    if ext == ".json" or src.read_bytes(64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        if ext in (".jsonl", ".ndjson"):
            raise _single_table_error(src)
        return _article(src, LoadLog(), None)
    if ext in DATA_EXTS or ext in (".gz",):
        raise _single_table_error(src)
    raise dataset_error("load.unknown_type", file=src.name, ext=ext or "unknown")


#: a lone table's part and how it was recognised -> what to say (message ids)
_LONE_IDS = {("corpus", "name"): "load.lone_corpus_by_name",
             ("corpus", "columns"): "load.lone_corpus_by_columns",
             ("queries", "name"): "load.lone_queries_by_name",
             ("queries", "columns"): "load.lone_queries_by_columns",
             ("qrels", "name"): "load.lone_qrels_by_name",
             ("qrels", "columns"): "load.lone_qrels_by_columns"}
#: each part of a dataset in a sentence (message ids)
_PART_IDS = {"corpus": "load.part.corpus", "queries": "load.part.queries",
             "qrels": "load.part.qrels"}


def _single_table_error(src: Source) -> DatasetError:
    """One table cannot be a whole dataset: say which part it was recognised as (by its
    name, else its columns) and which parts are missing."""
    kind, how = classify_name(src), "name"
    if kind is None:
        kind, how = _content_kind(src)[0], "columns"
    if (kind, how) in _LONE_IDS:
        return dataset_error(_LONE_IDS[kind, how], file=src.name)
    if kind == "text":
        return dataset_error("load.lone_text", file=src.name)
    return dataset_error("load.lone_table", file=src.name)


def load_upload_files(files: list[tuple[str, bytes]], *, split: str = "test",
                      mapping: Mapping3 | None = None) -> Dataset:
    if not files:
        raise dataset_error("load.no_file")
    cleaned: list[tuple[str, bytes]] = []
    for name, data in files:
        if not isinstance(data, (bytes, bytearray)):
            raise DatasetError("an upload must be bytes", file=str(name),
                               fix="pass the file's content as bytes")
        cleaned.append((str(name).replace("\\", "/"), bytes(data)))
    zips = [(n, d) for n, d in cleaned
            if n.lower().endswith(".zip")
            or (d.startswith(b"PK\x03\x04") and Source.from_bytes(n, b"").ext not in EXCEL)]
    if zips:
        if len(cleaned) > 1:
            raise dataset_error("load.zip_alone", file=zips[0][0])
        name, data = zips[0]
        stem = PurePosixPath(name).name.rsplit(".", 1)[0]
        return _zip_dataset(open_zip(data, name), name, stem, split, mapping)
    sources = [Source.from_bytes(n, d, rel=n) for n, d in cleaned]
    if len(sources) == 1:
        return _single_file(sources[0], split=split, mapping=mapping)
    return resolve(sources, container="upload", name="upload", split=split, mapping=mapping,
                   log=LoadLog())


def load_table_files(corpus: Any, queries: Any, qrels: Any, *,
                     mapping: Mapping3 | None = None) -> Dataset:
    def as_source(x: Any, role: str) -> Source:
        if isinstance(x, Source):
            return x
        if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], (bytes, bytearray)):
            return Source.from_bytes(str(x[0]), bytes(x[1]))
        if isinstance(x, (str, os.PathLike)):
            p = Path(x)
            if not p.is_file():
                part = text(_PART_IDS[role])
                raise (dataset_error("load.no_such_table", file=str(p), role=part)
                       if not p.exists() else
                       dataset_error("load.table_not_file", file=str(p), role=part))
            return Source.from_path(p)
        raise DatasetError(f"the {role} argument must be a path or (name, bytes)",
                           fix="pass a path")

    c, q, r = as_source(corpus, "corpus"), as_source(queries, "queries"), as_source(qrels, "qrels")
    return build_from_tables(c, q, r, mapping=mapping, log=LoadLog(),
                             name=c.stem if c.stem not in ("corpus", "docs", "documents")
                             else (Path(c.name).parent.name or "dataset"), source=c.name)
