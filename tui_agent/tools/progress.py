"""Provides `report_progress` and `reporting_progress`: how a running tool says how far it has come.

The runner opens `reporting_progress(show)` around each call; code running the call (an MCP server's
progress notifications, a plugin) calls `report_progress(3, 10, "indexing")`, and the call's `progress` reads
"3/10 · indexing" in its panel. Reports closer together than `MIN_INTERVAL` are dropped, save the last one
(a server may send thousands). A sync plugin reports from its thread: the report is handed to the loop. Outside
a call, reporting does nothing.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

MIN_INTERVAL = 0.1
"""Seconds between two progress reports shown (about ten a second is as fast as anyone reads)."""

_show: ContextVar[Callable[[str], None] | None] = ContextVar("tool_progress", default=None)


@contextmanager
def reporting_progress(show: Callable[[str], None]) -> Iterator[None]:
    """Within this block, `report_progress` reaches `show` (the runner's: it updates the call)."""
    last = [0.0]
    loop, loop_thread = asyncio.get_running_loop(), threading.get_ident()

    def throttled(text: str) -> None:
        now = time.monotonic()
        if now - last[0] < MIN_INTERVAL:
            return
        last[0] = now
        if threading.get_ident() == loop_thread:
            show(text)
        else:
            loop.call_soon_threadsafe(show, text)

    token = _show.set(throttled)
    try:
        yield
    finally:
        _show.reset(token)


def progress_text(progress: float, total: float | None = None, message: str | None = None) -> str:
    """ "3/10 · indexing", "40%" (a total of 1 or 100 reads as a share), or "3" without a total."""
    if total is not None and total > 0:
        done = f"{_number(progress)}/{_number(total)}" if total not in (1, 100) else f"{progress / total:.0%}"
    else:
        done = _number(progress)
    return f"{done} · {message}" if message else done


def report_progress(progress: float, total: float | None = None, message: str | None = None) -> None:
    """Say how far the running call has come (nothing outside a call)."""
    show = _show.get()
    if show is not None:
        show(progress_text(progress, total, message))


def current_reporter() -> Callable[[float, float | None, str | None], None] | None:
    """The running call's reporter, to hand to code that reports from another task (an SDK's receive loop,
    where this context is not current); None outside a call."""
    show = _show.get()
    if show is None:
        return None
    return lambda progress, total, message: show(progress_text(progress, total, message))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
