"""Which paths may be opened as data files: only regular files.

Opening a named pipe (FIFO) waits for a writer forever, and a character device such as
``/dev/zero`` never ends, so a path that is not a regular file is refused before it is
opened, in one sentence (:class:`~ragdash.errors.DatasetError`) naming it.
"""

from __future__ import annotations

import os
import stat

from ..errors import DatasetError

__all__ = ["regular_file_error", "require_regular_file"]

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a folder"))


def regular_file_error(path: str | os.PathLike) -> DatasetError | None:
    """The error to raise for ``path`` if it exists and is not a regular file, else None
    (a missing or unreadable path is left to ``open``, which says what is wrong)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    kind = next((label for test, label in _KINDS if test(mode)), "not a regular file")
    return DatasetError(f"this is {kind}, not a regular file", file=os.fspath(path),
                        fix="give a file saved on disk (copy the data into a file first)")


def require_regular_file(path: str | os.PathLike) -> None:
    """Raise :func:`regular_file_error`'s error, if any."""
    error = regular_file_error(path)
    if error is not None:
        raise error
