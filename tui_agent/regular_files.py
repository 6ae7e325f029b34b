"""Provides `open_regular`, a file opened for reading only once its open descriptor says what it is, and
`kind`, what a file that is not a regular one is, in words.

A FIFO with no writer makes `open` wait forever, and opening a terminal device could make it the process's
controlling terminal. So the file is opened without waiting (`O_NONBLOCK`, `O_NOCTTY`), its status is read
from the open descriptor (the file cannot be swapped between the check and the read), and only a file the
caller accepts is made blocking again and handed back.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)

Refusal = Callable[[os.stat_result], Exception | None]
"""What to raise for a file with this status (None: read it)."""


def open_regular(path: Path, refuse: Refusal) -> BinaryIO:
    """`path` open for reading in binary, unless `refuse` gives an error for its status (raised)."""
    descriptor = os.open(path, OPEN_FLAGS)
    try:
        if (error := refuse(os.fstat(descriptor))) is not None:
            raise error
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def not_regular(mode: int) -> str | None:
    """What the file is when it is not a regular file ("a folder", "a FIFO (named pipe)"...), or None."""
    if stat.S_ISREG(mode):
        return None
    kinds = {
        stat.S_ISDIR: "a folder",
        stat.S_ISFIFO: "a FIFO (named pipe)",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "a special file")
