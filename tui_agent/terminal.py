"""Provides the app's own hold on its terminal, so that nothing else can write to the screen.

File descriptors 1 and 2 are shared with everything in the process and everything it starts: a tool's
`os.write(1, ...)`, a C extension, a child process, a plugin printing at import. While the full-screen
app runs they point at a log file instead, and the UI writes to the terminal through private duplicates:

    fd 1, fd 2  ->  <data dir>/logs/output.log      (tools, plugins, children)
    dup(1), dup(2)  ->  the terminal                 (sys.__stdout__/__stderr__, which Textual writes to)

`sys.stdout`/`sys.stderr` (and their `__dunder__` originals, which Textual's driver reads) are streams on
the duplicates, so the UI and Python's own messages (a traceback after the app ends) still reach the
terminal. The streams survive the terminal going away: a write that fails (EIO once the terminal has hung
up) is dropped and reported once, instead of killing Textual's writer thread, whose queue would then fill
and block the event loop for ever.

For `-p`, `private_reply` does the same with fd 1 pointed at fd 2: the reply has stdout to itself.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from tui_agent import paths

OUTPUT_LOG_LIMIT = 1 << 20
"""Bytes past which the log is moved to `output.log.1` (replacing the one before) at the next start."""


def output_log_path() -> Path:
    """Where fds 1 and 2 go while the full-screen app runs."""
    return paths.data_dir() / "logs" / "output.log"


class TerminalStream(io.TextIOWrapper):
    """A text stream on a terminal that never raises on write: once the terminal is gone, writes are
    dropped and `on_lost` is called, once (from whichever thread wrote)."""

    def __init__(self, fd: int, like: TextIO | None) -> None:
        super().__init__(
            io.BufferedWriter(io.FileIO(fd, "w")),
            encoding=getattr(like, "encoding", None) or "utf-8",
            errors=getattr(like, "errors", None) or "backslashreplace",
            line_buffering=True,
        )
        self.lost = False
        self.on_lost: Callable[[], None] | None = None

    def write(self, text: str) -> int:
        if not self.lost:
            with self._guard():
                super().write(text)
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            with self._guard():
                super().flush()

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            super().close()

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except OSError:  # EIO (hung up), EBADF, EPIPE...: the terminal is gone, whatever the number
            self.lost = True
            if self.on_lost is not None:
                self.on_lost()


class OutputLog:
    """The log file fds 1 and 2 point at: has anything been written to it since the app started?"""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd
        self._start = os.fstat(fd).st_size

    def has_new_output(self) -> bool:
        return os.fstat(self._fd).st_size > self._start


class OwnTerminal:
    """What `own_terminal` hands out: the log, and the streams on the terminal (`lost` once it is gone)."""

    def __init__(self, log: OutputLog, out: TerminalStream, err: TerminalStream) -> None:
        self.log = log
        self.streams = (out, err)

    def when_lost(self, callback: Callable[[], None]) -> None:
        """Call `callback` (from any thread) when a write to the terminal fails."""
        for stream in self.streams:
            stream.on_lost = callback


def open_output_log(path: Path) -> int:
    """Open (creating, 0600) the log for appending; a log past the limit is moved aside first."""
    paths.private_folder(path.parent, ours=True)
    with contextlib.suppress(OSError):
        if path.stat().st_size > OUTPUT_LOG_LIMIT:
            path.replace(path.with_name(path.name + ".1"))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)  # an older file may have been created under a looser umask
    return fd


@contextlib.contextmanager
def own_terminal(log_path: Path) -> Iterator[OwnTerminal]:
    """Point fds 1 and 2 at `log_path` and the `sys` streams at the terminal, until the block ends."""
    log_fd = open_output_log(log_path)
    out = TerminalStream(_dup_after_flush(1, sys.stdout), sys.__stdout__)
    err = TerminalStream(_dup_after_flush(2, sys.stderr), sys.__stderr__)
    saved = sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__
    try:
        with _descriptors_to(log_fd, 1, 2):
            _set_streams(out, err, out, err)
            try:
                yield OwnTerminal(OutputLog(log_path, log_fd), out, err)
            finally:
                _set_streams(*saved)
                out.close()
                err.close()
    finally:
        os.close(log_fd)


@contextlib.contextmanager
def private_reply() -> Iterator[TextIO]:
    """For `-p`: a stream on stdout for the reply alone; fd 1 points at stderr until the block ends, so
    whatever tools, plugins and child processes write goes to stderr, never into the reply."""
    reply = TerminalStream(_dup_after_flush(1, sys.stdout), sys.stdout)
    try:
        with _descriptors_to(2, 1):
            yield reply
            reply.flush()
    finally:
        reply.close()


def _set_streams(out: TextIO | None, err: TextIO | None, dunder_out: TextIO | None, dunder_err: TextIO | None) -> None:
    # Textual's driver writes to `sys.__stderr__` and sizes the screen from `sys.__stdout__` (typeshed
    # calls them final; they are plain attributes, meant to be put back, as here)
    sys.stdout, sys.stderr = out, err
    setattr(sys, "__stdout__", dunder_out)  # noqa: B010
    setattr(sys, "__stderr__", dunder_err)  # noqa: B010


def _dup_after_flush(fd: int, stream: TextIO | None) -> int:
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return os.dup(fd)


@contextlib.contextmanager
def _descriptors_to(target: int, *fds: int) -> Iterator[None]:
    """Point each of `fds` at what `target` points at; put them back afterwards."""
    saved = [os.dup(fd) for fd in fds]
    try:
        for fd in fds:
            os.dup2(target, fd)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):  # what they buffered was written while redirected
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        for fd, original in zip(fds, saved, strict=True):
            os.dup2(original, fd)
            os.close(original)
