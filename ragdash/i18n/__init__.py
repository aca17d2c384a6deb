"""One message catalog for every user-facing string, in every language it is written in.

The catalog is data: ``ragdash/i18n/catalog/<area>.toml``, one file per area (core messages,
the app's pages, charts and report, ...), each key a table with its languages side by side::

    ["chart.hist_x"]
    en = "{metric} per query"
    ja = "クエリごとの {metric}"

``catalog/languages.toml`` declares the languages and their plural rules; ``catalog/README.md``
describes the format. The areas are merged here into :data:`CATALOG`; the same key in two
files is an error at import time, so two areas cannot silently overwrite each other.

Look a string up with :func:`t`::

    t("chart.k_axis", "ja")                  # -> "K（上位件数）"
    t("chart.hist_x", "en", metric="nDCG")   # -> "nDCG per query"

Placeholders use :meth:`str.format` syntax; every language must name the same placeholders
(checked by :func:`check_catalog` and by the catalog tests). A text with plural forms
(``en.one = "{n} query"``, ``en.other = "{n} queries"``) is chosen by the count passed as
``n``: a form for that exact count (``"=1"``) first, else the language's plural rule. An
unknown key raises :class:`KeyError` — a test scans the source for the keys it uses so that
this cannot reach a user. An unknown language falls back to English.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping

from . import loader
from .bidi import isolate

__all__ = ["AREAS", "CATALOG", "DEFAULT_LANG", "LANGUAGES", "Joined", "Text", "check_catalog",
           "convention",
           "dataset_error", "error", "forms", "has", "isolate", "message", "normalize_lang",
           "placeholders", "t", "text"]

_LANGUAGE_DATA, _AREA_DATA = loader.read()
#: Supported languages, in the order the language switch shows them (catalog/languages.toml).
LANGUAGES: tuple[str, ...] = tuple(_LANGUAGE_DATA)
DEFAULT_LANG = LANGUAGES[0]
#: How each language names itself (for the language switch).
LANGUAGE_NAMES: dict[str, str] = {lang: d["name"] for lang, d in _LANGUAGE_DATA.items()}
#: lang -> count -> plural category ("one", "other", ...).
PLURAL = {lang: loader.plural_rule(d.get("plural", {}), f"languages.toml [{lang}]")
          for lang, d in _LANGUAGE_DATA.items()}
_CONVENTIONS = {"list_separator": ", ", "sentence_end": ".", "sentence_gap": " ",
                "capitalize": True, "currency": "USD"}


def convention(lang: str | None, name: str):
    """How ``lang`` writes: ``list_separator``, ``sentence_end``, ``sentence_gap``,
    ``capitalize``, ``currency`` (catalog/languages.toml; English's where a language is
    silent)."""
    data = _LANGUAGE_DATA[normalize_lang(lang)]
    return data.get(name, _LANGUAGE_DATA[DEFAULT_LANG].get(name, _CONVENTIONS[name]))


def _merge(areas: Mapping[str, Mapping[str, Mapping]]) -> dict[str, dict]:
    """One catalog from ``{area: {key: entry}}``; a key in two areas is an error."""
    merged: dict[str, dict] = {}
    owner: dict[str, str] = {}
    for area, messages in areas.items():
        for key, entry in messages.items():
            if key in merged:
                raise ValueError(f"i18n key {key!r} is defined in both {owner[key]} and "
                                 f"{area}; rename one of them")
            merged[key] = dict(entry)
            owner[key] = area
    return merged


#: key -> {lang: text, or {plural category: text}}; the merge of every area file.
CATALOG: dict[str, dict] = _merge({f"catalog/{a}.toml": m for a, m in _AREA_DATA.items()})
#: area (file name without .toml) -> its keys.
AREAS: dict[str, frozenset[str]] = {a: frozenset(m) for a, m in _AREA_DATA.items()}
del _AREA_DATA


def normalize_lang(lang: str | None) -> str:
    """``"ja"``, ``"ja-JP"``, ``"JA"`` -> ``"ja"``; anything unsupported -> ``"en"``."""
    if not lang:
        return DEFAULT_LANG
    base = str(lang).strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else DEFAULT_LANG


def has(key: str) -> bool:
    return key in CATALOG


def forms(value: str | Mapping[str, str]) -> dict[str, str]:
    """A catalog value as ``{plural category: text}`` (a plain text is its ``other``)."""
    return dict(value) if isinstance(value, Mapping) else {"other": value}


def t(key: str, /, lang: str | None = DEFAULT_LANG, **fmt: object) -> str:
    """The text for ``key`` in ``lang``, with ``fmt`` substituted (``str.format``). A text
    with plural forms takes the form of the count ``n``.

    Raises :class:`KeyError` for an unknown key. A missing translation falls back to English.
    """
    entry = CATALOG[key]
    lang = normalize_lang(lang)
    if not entry.get(lang):  # a missing translation: English
        lang = DEFAULT_LANG
    text = entry[lang]
    if not isinstance(text, str):  # plural forms: an exact count ("=1") first, then the rule
        n = _count(fmt.get("n"))
        text = (text.get(f"={n}") if isinstance(n, int) else None) or text.get(
            PLURAL[lang](n)) or text["other"]
    # a text with literal braces ({{ }}) is a format string even without values
    return text.format(**fmt) if fmt or "{{" in text or "}}" in text else text


def _count(n: object) -> object:
    """A count given as a number or as the text a page shows ("1,234"): the whole number,
    so that both pick the same plural form; anything else as it is."""
    if isinstance(n, str):
        digits = n.replace(",", "").strip()
        if digits.isdigit():
            return int(digits)
    return n


def placeholders(text: str | Mapping[str, str]) -> set[str]:
    """The ``{name}`` fields of a format string (format specs ignored); of plural forms,
    those of all the forms."""
    names = set()
    for form in forms(text).values():
        for _, field, _, _ in string.Formatter().parse(form):
            if field is not None:
                names.add(field.split(".")[0].split("[")[0])
    return names


def _entry_problems(key: str, entry: Mapping) -> list[str]:
    missing = [lang for lang in LANGUAGES
               if not all(str(f).strip() for f in forms(entry.get(lang, "")).values())]
    if missing:
        return [f"{key}: no text for {', '.join(missing)}"]
    problems = []
    extra = set(entry) - set(LANGUAGES)
    if extra:
        problems.append(f"{key}: unknown language(s) {sorted(extra)}")
    for lang in LANGUAGES:
        value = entry[lang]
        if isinstance(value, Mapping):
            names = {f for f in value if not re.fullmatch(r"=\d+", f)}  # exact counts: any
            wanted = {c for c in loader.PLURAL_CATEGORIES
                      if c in _LANGUAGE_DATA[lang].get("plural", {})} | {"other"}
            if names != wanted:
                problems.append(f"{key}: {lang} has plural forms {sorted(names)}, its plural "
                                f"rule names {sorted(wanted)}")
    try:
        want = placeholders(entry[DEFAULT_LANG])
        for lang in LANGUAGES:
            got = placeholders(entry[lang])
            if got != want:
                problems.append(f"{key}: {lang} has placeholders {sorted(got)}, "
                                f"en has {sorted(want)}")
    except ValueError as exc:  # a stray brace
        problems.append(f"{key}: bad format string ({exc})")
    return problems


def check_catalog(catalog: Mapping[str, Mapping] | None = None) -> list[str]:
    """Problems in the catalog, one sentence each (empty when it is sound)."""
    catalog = CATALOG if catalog is None else catalog
    problems = []
    for key, entry in catalog.items():
        problems += _entry_problems(key, entry)
    return problems


# -- core messages with an id -------------------------------------------------------------
class Text(str):
    """A sentence for people that knows its message id: ``str`` is the English text (what
    the command line prints); :func:`message` gives it in another language or for the
    app."""

    msg_id: str
    params: dict

    def __new__(cls, msg_id: str, **params: object) -> Text:
        obj = super().__new__(cls, t(f"msg.{msg_id}", DEFAULT_LANG, **params))
        obj.msg_id, obj.params = msg_id, dict(params)
        return obj

    def __reduce__(self):  # a note holding it is pickled with the dataset
        return (_remake_text, (self.msg_id, self.params))


def _remake_text(msg_id: str, params: dict) -> Text:
    return Text(msg_id, **params)


class Joined(str):
    """Phrases with ids joined into one value: ``str`` joins the English with ", ";
    :func:`message` says each phrase in the language and joins them with its comma."""

    items: tuple

    def __new__(cls, items) -> Joined:
        items = tuple(items)
        obj = super().__new__(cls, ", ".join(str(i) for i in items))
        obj.items = items
        return obj

    def __reduce__(self):
        return (Joined, (self.items,))


def text(msg_id: str, **params: object) -> Text:
    """A note or warning with an id (see :class:`Text`)."""
    return Text(msg_id, **params)


def error(cls, msg_id: str, /, **params: object):
    """An exception of class ``cls`` (a :class:`~ragdash.errors.RagdashError`) whose text is
    the catalog's English for ``msg.<msg_id>``; it carries the id and ``params``."""
    exc = cls(t(f"msg.{msg_id}", DEFAULT_LANG, **params))
    exc.msg_id, exc.params = msg_id, dict(params)
    return exc


def dataset_error(msg_id: str, /, *, file: str | None = None, line: int | None = None,
                  record: str | None = None, **params: object):
    """A :class:`~ragdash.errors.DatasetError` (``file, line n: problem. Fix.``) from
    ``msg.<msg_id>`` and, when the catalog has one, ``msg.<msg_id>.fix``."""
    from ..errors import DatasetError

    fix_key = f"msg.{msg_id}.fix"
    exc = DatasetError(t(f"msg.{msg_id}", DEFAULT_LANG, **params), file=file, line=line,
                       record=record,
                       fix=t(fix_key, DEFAULT_LANG, **params) if fix_key in CATALOG else None)
    exc.msg_id, exc.params = msg_id, dict(params)
    return exc


def message(obj: object, lang: str | None = DEFAULT_LANG, *, app: bool = False) -> str:
    """``obj`` (an exception, a :class:`Text`, any string) said in ``lang``; ``app=True``
    takes the app's wording (``msg.<id>.app``) where there is one. Without an id the text
    is returned as it is."""
    msg_id = getattr(obj, "msg_id", None)
    if not msg_id or f"msg.{msg_id}" not in CATALOG:
        return str(obj)
    lang = normalize_lang(lang)
    comma = convention(lang, "list_separator")
    params = {k: comma.join(message(i, lang, app=app) for i in v.items)
              if isinstance(v, Joined) else message(v, lang, app=app)
              if getattr(v, "msg_id", None) else v
              for k, v in (getattr(obj, "params", {}) or {}).items()}

    def say(key: str) -> str | None:
        for k in ((f"{key}.app", key) if app else (key,)):
            if k in CATALOG:
                return t(k, lang, **params)
        return None

    body = say(f"msg.{msg_id}")
    if not hasattr(obj, "problem"):  # not a DatasetError: the sentence is all
        return body
    fix = say(f"msg.{msg_id}.fix")
    where = []
    if getattr(obj, "file", None):
        where.append(str(obj.file))
    if getattr(obj, "line", None) is not None:
        where.append(t("msg.where.line", lang, line=obj.line))
    if getattr(obj, "record", None) is not None:
        where.append(t("msg.where.record", lang, record=obj.record))
    stop = convention(lang, "sentence_end")
    stops = "".join({convention(x, "sentence_end") for x in LANGUAGES})
    out = body.rstrip(stops) + stop
    if where:
        out = comma.join(where) + ": " + out
    if fix:
        fix = fix.strip().rstrip(stops)
        if convention(lang, "capitalize"):  # Japanese keeps "qrels", "zip" as they are
            fix = fix[:1].upper() + fix[1:]
        out += convention(lang, "sentence_gap") + fix + stop
    return out

