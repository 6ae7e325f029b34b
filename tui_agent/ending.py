"""Provides how the full-screen app ends when told to (SIGTERM, SIGHUP) or when its terminal goes away.

The app is asked to exit on its event loop, as Ctrl+Q does: the reply in flight is saved as interrupted,
history is closed, the terminal restored. Two things cannot wait for the loop and happen at once:

- In the signal handler, SIGCONT goes back to its default. The kernel follows a hang-up with SIGCONT, and
  Textual's handler for it restarts application mode from inside the handler: a second input thread, the
  first one (not a daemon) left spinning on the dead terminal and keeping the process alive for ever.
- A watchdog is armed. If the process still runs `GRACE` seconds later, every thread's stack is written
  to the output log and the process ends there and then. It is a backstop for a shutdown stuck in code
  not ours; the terminal's streams (`tui_agent.terminal`) are what keep ours from getting stuck.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

GRACE = 1.5
"""Seconds an ending may take before the watchdog ends the process (the promise is 2 s)."""
EXIT_STUCK = 70
"""Exit status when the watchdog had to end the process (EX_SOFTWARE)."""


class Ending:
    """Ends the app once, however many signals or failed writes ask for it."""

    def __init__(self, request_exit: Callable[[], object], report: Path | None = None) -> None:
        self._request_exit = request_exit
        self._report = report
        self._lock = threading.Lock()
        self._watchdog: threading.Timer | None = None

    @property
    def started(self) -> bool:
        return self._watchdog is not None

    def now(self) -> None:
        """Ask the app to exit and arm the watchdog; callable from any thread, and more than once."""
        with self._lock:
            if self._watchdog is not None:
                return
            self._watchdog = threading.Timer(GRACE, self._give_up)
            self._watchdog.daemon = True
            self._watchdog.start()
        with contextlib.suppress(RuntimeError):  # the loop has already finished: nothing left to ask
            self._request_exit()

    def _give_up(self) -> None:
        if self._report is not None:
            with contextlib.suppress(OSError), self._report.open("a") as report:
                report.write(f"tui-agent: still running {GRACE} s after being told to end; stopped. Threads:\n")
                report.flush()
                faulthandler.dump_traceback(file=report, all_threads=True)
        os._exit(EXIT_STUCK)


@contextlib.contextmanager
def ending_on_signals(ending: Ending, *signums: signal.Signals) -> Iterator[None]:
    """Within the block, each of `signums` ends the app (a plain handler, not the loop's: it must run
    even while the loop is blocked)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGCONT, signal.SIG_DFL)
        ending.now()

    previous = {signum: signal.signal(signum, on_signal) for signum in signums}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
