"""``--entry module:attribute`` (or ``path/to/file.py:attribute``): the user's search, loaded.

The attribute is a search function, a retriever object (LangChain, LlamaIndex, Haystack), or
a factory called with no arguments that returns one (a class, or a function without required
arguments). Everything that can go wrong while loading it — no colon, a module or file that
is not there, an import that raises, an attribute that is missing, a factory that raises —
is one sentence naming the entry.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from ...errors import RetrievalError
from ...i18n import error

__all__ = ["Entry", "load_entry", "parse_entry"]


@dataclass(frozen=True)
class Entry:
    """A parsed entry: ``module`` (a dotted name) or ``path`` (a .py file), and the
    attribute's dotted name."""

    spec: str
    module: str | None
    path: Path | None
    attribute: str


def parse_entry(spec: str, *, base: Path | None = None) -> Entry:
    """``module:attribute`` or ``path/to/file.py:attribute`` (a relative path is taken from
    ``base``, the setup file's folder, else the current one)."""
    raw = str(spec or "").strip()
    target, sep, attribute = raw.rpartition(":")
    if not sep or not target or not attribute or not all(
            part.isidentifier() for part in attribute.split(".")):
        raise error(RetrievalError, "own.entry_form", entry=raw or "—")
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target).expanduser()
        if not path.is_absolute() and base is not None:
            path = Path(base) / path
        return Entry(raw, None, path, attribute)
    if not all(part.isidentifier() for part in target.split(".")):
        raise error(RetrievalError, "own.entry_form", entry=raw)
    return Entry(raw, target, None, attribute)


def load_entry(spec: str, *, base: Path | None = None):
    """(the search object the entry names, sha256 of its module's source or None)."""
    entry = parse_entry(spec, base=base)
    module, source = _module(entry)
    obj = module
    for part in entry.attribute.split("."):
        if not hasattr(obj, part):
            raise error(RetrievalError, "own.entry_no_attribute", entry=entry.spec,
                        attribute=entry.attribute,
                        where=entry.module or str(entry.path),
                        names=_public_names(module))
        obj = getattr(obj, part)
    return _made(obj, entry), source


def _module(entry: Entry):
    if entry.path is not None:
        path = entry.path
        if not path.is_file():
            raise error(RetrievalError, "own.entry_no_file", entry=entry.spec, path=path)
        name = "ragdash_entry_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
        folder = str(path.resolve().parent)
        if folder not in sys.path:  # the file may import its neighbours
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the user's code
            sys.modules.pop(name, None)
            raise error(RetrievalError, "own.entry_import_failed", entry=entry.spec,
                        error=_one_line(exc)) from exc
        return module, _hash_file(path)
    try:
        module = importlib.import_module(entry.module)
    except ModuleNotFoundError as exc:
        missing = exc.name or entry.module
        if entry.module == missing or entry.module.startswith(f"{missing}."):
            raise error(RetrievalError, "own.entry_no_module", entry=entry.spec,
                        module=missing) from exc
        raise error(RetrievalError, "own.entry_import_failed", entry=entry.spec,
                    error=_one_line(exc)) from exc
    except Exception as exc:  # the user's code
        raise error(RetrievalError, "own.entry_import_failed", entry=entry.spec,
                    error=_one_line(exc)) from exc
    file = getattr(module, "__file__", None)
    return module, _hash_file(Path(file)) if file else None


def _made(obj, entry: Entry):
    """A class or a function without required arguments is a factory: called once."""
    factory = inspect.isclass(obj) or (inspect.isroutine(obj) and _no_required_args(obj)
                                        and not inspect.iscoroutinefunction(obj))
    if not factory:
        return obj
    try:
        made = obj()
    except Exception as exc:  # the user's code
        raise error(RetrievalError, "own.entry_factory_failed", entry=entry.spec,
                    error=_one_line(exc)) from exc
    if made is None:
        raise error(RetrievalError, "own.entry_factory_none", entry=entry.spec)
    return made


def _no_required_args(fn) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in sig.parameters.values())


def _public_names(module) -> str:
    names = [n for n in vars(module) if not n.startswith("_")
             and (callable(getattr(module, n)) or hasattr(getattr(module, n), "invoke"))
             and not inspect.ismodule(getattr(module, n))]
    shown = ", ".join(sorted(names)[:10])
    return shown or "—"


def _hash_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _one_line(exc: BaseException) -> str:
    said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    line = " ".join(said.split())
    return line if len(line) <= 200 else line[:199] + "…"
