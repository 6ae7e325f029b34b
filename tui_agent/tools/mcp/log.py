"""Provides `ServerLog`: an MCP server's stderr, written to its log file with secrets redacted.

A server prints what it likes on stderr, and that can be what it was given: a token from its `env`, a key
in a traceback. The log is kept for the user to read, so it keeps no secret either: the server's stderr is
a pipe, and a thread reads it and appends the text to the log after `redact` (history's redaction, handed
in by whoever builds the servers). Text is written a line at a time, so that a token never straddles two
redactions; a PEM key block spans lines, so from its header the text waits for the footer (or for
`PEM_HOLD` characters, beyond which an unterminated block is redacted as far as it goes). The file is
0600 in a folder of yours alone.

    server's fd 2 ──pipe──> reader thread ──redact──> <data dir>/mcp/<name>.log
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TextIO

from tui_agent import paths

Redact = Callable[[str], str]
PEM_HOLD = 32_768
"""Characters held after a PEM header while its footer has not come (a 4096-bit key is about 3,300)."""
LINE_HOLD = 65_536
"""Characters of a line without its end held at most (a server that never ends its lines is still logged)."""
SETTLE_LIMIT = 0.5
"""Seconds `settle` waits at most (a server that keeps writing would keep it waiting)."""
READ_SIZE = 65_536
CLOSE_WAIT = 2.0
"""Seconds `close` waits for the server's last words (a child of the server may keep the pipe open)."""


class ServerLog:
    """A server's log file and the pipe its stderr goes to (`stderr`, for the process). Use as a context
    manager; on leaving, what was read is written and the pipe closed."""

    def __init__(self, path: Path, redact: Redact) -> None:
        paths.private_folder(path.parent, ours=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8")
        self._redact = redact
        self._lock = threading.Lock()
        """Held while text is read from the pipe and written, so `settle` knows when all is written."""
        self._pending = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._ended = False
        read, write = os.pipe()
        self._read = read
        self.stderr: TextIO = os.fdopen(write, "w", encoding="utf-8")
        """What the server process gets as its stderr (the pipe's write end)."""
        self._reader = threading.Thread(target=self._pump, name=f"mcp-log:{path.name}", daemon=True)
        self._reader.start()

    def write(self, text: str) -> bool:
        """Add a line of our own (redacted like the server's); False when the log is closed already."""
        with self._lock:
            if not self._ended:
                self._write(text)
            return not self._ended

    def tell(self) -> int:
        """The log's size so far (where what comes next starts)."""
        with self._lock:
            return 0 if self._ended else self._file.tell()

    def settle(self) -> None:
        """Wait (bounded) until what the server has written so far is in the file, its unfinished line too:
        its last words are read from the file when it fails."""
        if sys.platform == "win32":  # no select on pipes there: what was written is taken as written
            return
        deadline = time.monotonic() + SETTLE_LIMIT
        while time.monotonic() < deadline:
            with self._lock:
                if self._ended or not _readable(self._read):
                    self._write(self._pending)  # nothing more is coming now: the rest goes too
                    self._pending = ""
                    return
            time.sleep(0.01)

    def __enter__(self) -> ServerLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close our end of the pipe; the reader writes what is left and closes the file once the server's
        end closes too (at once when the server has exited)."""
        self.stderr.close()
        self._reader.join(CLOSE_WAIT)

    def _pump(self) -> None:
        try:
            self._copy()
        except OSError:  # the file cannot be written (a full disk): the server must not block on its stderr
            with contextlib.suppress(OSError):
                while os.read(self._read, READ_SIZE):
                    pass
        finally:
            with self._lock:
                self._ended = True
                os.close(self._read)
                self._file.close()

    def _copy(self) -> None:
        while True:
            _wait_readable(self._read)
            with self._lock:
                data = os.read(self._read, READ_SIZE)
                self._pending += self._decoder.decode(data, final=not data)
                if not data:
                    self._write(self._pending)
                    self._pending = ""
                    return
                self._write_ready()

    def _write_ready(self) -> None:
        """Write the pending text up to its last line end, unless a PEM block is open in it."""
        text = self._pending
        end = text.rfind("\n") + 1
        header = text.rfind("-----BEGIN ", 0, end)
        if header != -1 and "-----END " not in text[header:] and len(text) - header < PEM_HOLD:
            end = header  # the block waits for its footer
        elif len(text) >= LINE_HOLD:
            end = len(text)
        self._write(text[:end])
        self._pending = text[end:]

    def _write(self, text: str) -> None:
        if text:
            self._file.write(self._redact(text))
            self._file.flush()


def append_note(path: Path, text: str, redact: Redact) -> None:
    """Add a line of our own to a log that is not open (a server that failed before it started, or after its
    process ended), redacted and 0600 as the log is; a log that cannot be written is left as it is."""
    with contextlib.suppress(OSError):
        paths.private_folder(path.parent, ours=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as file:
            file.write(redact(text))


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


def _wait_readable(fd: int) -> None:
    if sys.platform != "win32":  # elsewhere the read itself waits
        select.select([fd], [], [])
