"""What a loader decided on the user's behalf, kept in ``Dataset.notes``.

``Dataset.notes`` is a list of strings a person can read. Some notes also carry structure: a
:class:`LoadNote` is a ``str`` (so it prints and serializes as text) with a ``code``, a
``level`` ("info" or "warning"), a ``count``, a few ``examples`` and optional ``data`` (the
column mapping a table loader chose, as a dict). :func:`ragdash.validation.validate` turns the
warnings into report entries; :func:`column_mappings` gives the app the mappings back.
"""

from __future__ import annotations

from typing import Any


class LoadNote(str):
    """A note that is also a structured record (see the module docstring)."""

    code: str
    level: str
    count: int
    examples: list[str]
    data: dict[str, Any] | None
    #: the message id and values of a note made from :func:`ragdash.i18n.text` (the app says
    #: it in its language); None for a note that is English only
    msg_id: str | None
    params: dict[str, Any]

    def __new__(cls, text: str, *, code: str, level: str = "info", count: int = 0,
                examples: list[str] | None = None,
                data: dict[str, Any] | None = None) -> LoadNote:
        self = super().__new__(cls, text)
        self.code = code
        self.level = level
        self.count = count
        self.examples = list(examples or [])
        self.data = data
        self.msg_id = getattr(text, "msg_id", None)
        self.params = dict(getattr(text, "params", None) or {})
        return self

    def __reduce__(self):  # pickling keeps the structure
        return (_rebuild, (str(self), self.code, self.level, self.count, self.examples,
                           self.data, self.msg_id, self.params))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "level": self.level, "message": str(self),
                               "count": self.count, "examples": list(self.examples)}
        if self.data is not None:
            out["data"] = self.data
        return out


def _rebuild(text, code, level, count, examples, data, msg_id=None, params=None) -> LoadNote:
    note = LoadNote(text, code=code, level=level, count=count, examples=examples, data=data)
    note.msg_id, note.params = msg_id, dict(params or {})
    return note


class LoadLog:
    """Collects the notes of one load, in order."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str, *, code: str | None = None, data: dict | None = None) -> None:
        if code is None and data is None:
            self.notes.append(text)
        else:
            self.notes.append(LoadNote(text, code=code or "note", data=data))

    def warn(self, code: str, text: str, *, count: int = 1,
             examples: list[str] | None = None) -> None:
        self.notes.append(LoadNote(text, code=code, level="warning", count=count,
                                   examples=examples))


def load_warnings(notes: list[str]) -> list[LoadNote]:
    return [n for n in notes if isinstance(n, LoadNote) and n.level == "warning"]
