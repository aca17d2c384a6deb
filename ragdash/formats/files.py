"""Which paths may be opened as data files: only regular files.

Opening a named pipe (FIFO) waits for a writer forever, and a character device such as
``/dev/zero`` never ends, so a path that is not a regular file is refused before it is
opened, in one sentence (:class:`~ragdash.errors.DatasetError`) naming it.
"""

from __future__ import annotations

import os
import stat

from ..errors import DatasetError, Said, with_id

__all__ = ["regular_file_error", "require_regular_file"]

#: (test, message id, English) of each kind of path that is not a regular file
_KIND_IDS = ((stat.S_ISFIFO, "file.kind.fifo", "a named pipe (FIFO)"),
          (stat.S_ISSOCK, "file.kind.socket", "a socket"),
          (stat.S_ISCHR, "file.kind.chr", "a character device"),
          (stat.S_ISBLK, "file.kind.blk", "a block device"),
          (stat.S_ISDIR, "file.kind.dir", "a folder"))


def regular_file_error(path: str | os.PathLike) -> DatasetError | None:
    """The error to raise for ``path`` if it exists and is not a regular file, else None
    (a missing or unreadable path is left to ``open``, which says what is wrong)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    kind_id, label = next(((kind_id, label) for test, kind_id, label in _KIND_IDS
                           if test(mode)), ("file.kind.other", "not a regular file"))
    return with_id("file.not_regular", DatasetError(
        f"this is {label}, not a regular file", file=os.fspath(path),
        fix="give a file saved on disk (copy the data into a file first)"),
        kind=Said(kind_id, label))


def require_regular_file(path: str | os.PathLike) -> None:
    """Raise :func:`regular_file_error`'s error, if any."""
    error = regular_file_error(path)
    if error is not None:
        raise error
