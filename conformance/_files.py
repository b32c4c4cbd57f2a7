"""Every file the kit reads back (reports, case files, expectations): read with a size bound,
from regular files only, and version-checked (docs/threat-model.md, "Files the kit reads back").

A FIFO, a socket or a device (``/dev/zero``) is refused before a byte is read, since reading one
may block for ever or never end; a file over its bound is refused by its size, before it is
read whole. Each refusal is a :class:`FileProblem` whose reason and fix the caller words as its
own error (:class:`~._errors.ReplayError`, :class:`~._errors.ExpectationsError`, …), naming the
file.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Final

__all__ = [
    "CASE_FILE_BYTES",
    "EXPECTATIONS_BYTES",
    "REPORT_BYTES",
    "FileProblem",
    "newer_than",
    "read_bounded",
]

MiB: Final = 1024 * 1024
#: The largest JSON report read back (a run's own reports are far smaller: every string from the
#: implementation is clipped, see _clip).
REPORT_BYTES: Final = 64 * MiB
#: The largest case file read back (one input and two answers).
CASE_FILE_BYTES: Final = 64 * MiB
#: The largest expectations file read (one short line per rule).
EXPECTATIONS_BYTES: Final = 4 * MiB


class FileProblem(Exception):
    """Why a file cannot be read back, and the fix."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(f"{reason}. {fix}")
        self.reason = reason
        self.fix = fix


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def _size(count: int) -> str:
    return f"{count / MiB:.1f} MiB" if count >= MiB else f"{count} bytes"


def read_bounded(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; :class:`FileProblem`
    for a missing file, a directory, anything but a regular file, or a file over ``limit``.
    ``what`` names the kind of file in the messages (``a report``)."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the kind is known only after.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileProblem("no such file", f"Check the path: give {what} by its path") from None
    except IsADirectoryError:
        raise FileProblem("is a directory", f"Name {what} inside it") from None
    except OSError as error:
        raise FileProblem(f"cannot be read ({error.strerror or error})",
                          "Check the path and its permissions") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        if stat.S_ISDIR(mode):
            raise FileProblem("is a directory", f"Name {what} inside it")
        raise FileProblem(
            f"is {_kind(mode)}, not a regular file: reading it could wait for ever or never "
            "end", f"Save {what} to a regular file first and give that file")
    with os.fdopen(descriptor, "rb") as source:
        size = os.fstat(descriptor).st_size
        if size > limit:
            raise FileProblem(
                f"is {_size(size)}, over the {_size(limit)} eventproof reads as {what}",
                f"Give {what} eventproof wrote (it writes far smaller ones); this file is not one")
        data = source.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise FileProblem(f"is over the {_size(limit)} eventproof reads as {what}",
                          f"Give {what} eventproof wrote, not one still being written")
    return data


def _release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version (``0.2.0rc1`` → ``(0, 2, 0)``)."""
    found = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(part) for part in found.group().split(".")) if found else ()


def newer_than(found: str, ours: str) -> bool:
    """Whether the version ``found`` in a file is a later release than ``ours``."""
    theirs, mine = _release(found), _release(ours)
    return bool(theirs) and bool(mine) and theirs > mine


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write one report file as every command does: UTF-8, LF line ends on every platform,
    parent directories created."""
    target = Path(path)
    if target.parent != Path():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8", newline="\n")
