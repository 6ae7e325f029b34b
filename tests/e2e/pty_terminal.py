"""A child process on a pseudo-terminal whose raw output the test reads (what a real terminal would get)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time

ENDS_WITHIN = 2.0
"""What the app promises: seconds from a terminating signal, or losing its terminal, to the process being gone."""
ESCAPE_SEQUENCE = re.compile(rb"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|[PX^_][^\x1b]*\x1b\\|\][^\x07\x1b]*(\x07|\x1b\\)|.)")


class Terminal:
    """A child process on a pseudo-terminal, with everything it wrote so far."""

    def __init__(self, command: list[str], env: dict[str, str], size: tuple[int, int] | None = None) -> None:
        self.leader, follower = pty.openpty()
        if size is not None:
            columns, rows = size
            fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = subprocess.Popen(
            command, stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True
        )
        os.close(follower)
        self.output = b""
        self.leader_open = True

    @property
    def text(self) -> bytes:
        """The output without escape sequences (the words a screen showed, roughly)."""
        return ESCAPE_SEQUENCE.sub(b"", self.output)

    def read_until(self, marker: bytes, timeout: float = 60, *, in_text: bool = False) -> None:
        deadline = time.monotonic() + timeout
        while marker not in (self.text if in_text else self.output):
            if time.monotonic() > deadline:
                raise AssertionError(f"{marker!r} never appeared; last output: {self.output[-400:]!r}")
            self._read(0.05)

    def wait_for_exit(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.05)
        self._read(0.2)  # the last writes (restoring the terminal) may still be in the pipe
        return self.process.wait(timeout=1)

    def ends_within(self, seconds: float) -> bool:
        """Whether the process ends within `seconds` (reading its output meanwhile, as a terminal does)."""
        deadline = time.monotonic() + seconds
        while self.process.poll() is None:
            if time.monotonic() > deadline:
                return False
            self._read(0.02)
        return True

    def hang_up(self) -> None:
        """Close the terminal's side, as a terminal emulator's window closing does."""
        os.close(self.leader)
        self.leader_open = False

    def _read(self, wait: float) -> None:
        if not self.leader_open:
            time.sleep(wait)
            return
        ready, _, _ = select.select([self.leader], [], [], wait)
        if ready:
            try:
                self.output += os.read(self.leader, 65536)
            except OSError:  # the child closed the terminal
                pass

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.leader_open:
            os.close(self.leader)


def drain(fd: int) -> str:
    """Everything a pty's leader `fd` still holds once its child has exited (line ends as `\\n`); closes it."""
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:  # the child's end is closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
