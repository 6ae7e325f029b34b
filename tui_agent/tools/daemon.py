"""Provides `in_daemon_thread`: plugin code (a sync tool, a sync hook) run in a daemon thread of its own.

Not the loop's default executor: code that never returns would hold one of its few workers forever, and
`asyncio.run` waits for those workers at exit. A daemon thread is abandoned instead. When the future is
cancelled (the call's timeout, Esc, the task tree) the programs the thread started (`subprocess.run`) are
killed with their descendants, and any it starts later, until it ends (`thread_children`, Linux only); code
not yet begun when the cancel comes never runs.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from typing import Any

from tui_agent.tools.thread_children import sweep_until_done


def in_daemon_thread(run: Callable[[], Any], name: str) -> asyncio.Future[Any]:
    """A future of `run()`'s value (or exception), computed in a daemon thread called `name`."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    native_id: list[int] = []

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def work() -> None:
        with lock:
            if future.cancelled():
                return
            native_id.append(threading.get_native_id())
        try:
            value = run()
        except BaseException as exc:  # handed to the awaiting task, which reports it
            error = exc
            _call_soon(loop, lambda: settle(lambda: future.set_exception(error)))
        else:
            _call_soon(loop, lambda: settle(lambda: future.set_result(value)))

    def abandoned(done: asyncio.Future[Any]) -> None:
        with lock:  # the thread has begun `run` with its id known, or will never begin it
            if done.cancelled() and native_id:
                sweep_until_done(thread, native_id[0])

    lock = threading.Lock()
    context = contextvars.copy_context()  # the caller's context vars (a call's progress reporter) go along
    thread = threading.Thread(target=context.run, args=(work,), name=name, daemon=True)
    future.add_done_callback(abandoned)
    thread.start()
    return future


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    try:
        loop.call_soon_threadsafe(callback)
    except RuntimeError:  # the loop closed while the code was still running: nobody is waiting any more
        pass
