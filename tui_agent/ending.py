"""Provides how the full-screen app ends when told to (SIGTERM, SIGHUP) or when its terminal goes away.

The app is asked to exit on its event loop, as Ctrl+Q does: the reply in flight is saved as interrupted,
history is closed, the terminal restored. Two things cannot wait for the loop and happen at once:

- In the signal handler, SIGCONT goes back to its default. The kernel follows a hang-up with SIGCONT, and
  Textual's handler for it restarts application mode from inside the handler: a second input thread, the
  first one (not a daemon) left spinning on the dead terminal and keeping the process alive for ever.
- A watchdog is armed. If the process still runs `GRACE` seconds later, every thread's stack is written
  to the output log and the process ends there and then. It is a backstop for a shutdown stuck in code
  not ours; the terminal's streams (`tui_agent.terminal`) are what keep ours from getting stuck.

A terminal can go without a signal (its window closed while the app is not the terminal's controlling
process): `watch_for_hang_up` notices it at once, where a failed write came only with the next frame (up to
half a second later, a cursor blink). Once the app has ended, history closed and the terminal given back,
`leave` ends the process without the interpreter's teardown: freeing a session's widgets one by one and
waiting for Textual's input thread to wake took 0.1-0.3 s more (bench/exit.py).
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import os
import select
import signal
import sys
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


def watch_for_hang_up(fd: int, on_hang_up: Callable[[], object]) -> None:
    """Call `on_hang_up` (from a daemon thread of its own) when the terminal on `fd` hangs up. The thread polls
    for the hang-up alone (no input), so it reads nothing and costs nothing until then."""
    if not os.isatty(fd):
        return

    def watch() -> None:
        poller = select.poll()
        poller.register(fd, 0)  # the hang-up and errors are always reported; no input asked for
        with contextlib.suppress(OSError):
            for _, happened in poller.poll():
                if happened & (select.POLLHUP | select.POLLERR):
                    on_hang_up()

    threading.Thread(target=watch, name="tui-agent-hang-up", daemon=True).start()


def leave(status: int, *, not_waited_for: frozenset[str] = frozenset()) -> int:
    """End the process with `status` now, as the interpreter would, less its teardown: exit handlers run and
    the standard streams are flushed, but the objects are not freed one by one and the threads named in
    `not_waited_for` (idle ones that only need time to notice the end) are not waited for. While any other
    thread still runs (it may be writing something), return `status` for the interpreter's usual exit."""
    main = threading.main_thread()
    others = [t for t in threading.enumerate() if t is not main and not t.daemon and t.name not in not_waited_for]
    if others:
        return status
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    os._exit(status)
