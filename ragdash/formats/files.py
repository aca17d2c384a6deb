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
_KINDS = ((stat.S_ISFIFO, "fifo", "a named pipe (FIFO)"), (stat.S_ISSOCK, "socket", "a socket"),
          (stat.S_ISCHR, "chr", "a character device"), (stat.S_ISBLK, "blk", "a block device"),
          (stat.S_ISDIR, "dir", "a folder"))


def regular_file_error(path: str | os.PathLike) -> DatasetError | None:
    """The error to raise for ``path`` if it exists and is not a regular file, else None
    (a missing or unreadable path is left to ``open``, which says what is wrong)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    key, label = next(((key, label) for test, key, label in _KINDS if test(mode)),
                      ("other", "not a regular file"))
    return with_id("file.not_regular", DatasetError(
        f"this is {label}, not a regular file", file=os.fspath(path),
        fix="give a file saved on disk (copy the data into a file first)"),
        kind=Said(f"file.kind.{key}", label))


def require_regular_file(path: str | os.PathLike) -> None:
    """Raise :func:`regular_file_error`'s error, if any."""
    error = regular_file_error(path)
    if error is not None:
        raise error
