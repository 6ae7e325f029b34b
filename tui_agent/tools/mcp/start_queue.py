"""Provides `StartQueue`: how many MCP server processes start at once.

A stdio server's start is mostly CPU: a Python server imports its SDK (about a second of a core), a Node one
loads its packages. Twenty started together on two cores each took ten times as long: every one missed its
`startup_timeout` (10 s) and failed, and the app had a twentieth of the CPU for the user's first turn
meanwhile (issue 28). So at most `slots` start at a time (a core each, one core left for the app: on two
cores, one at a time), in the order configured, and a server's
`startup_timeout` counts from its turn. A start still going after `hold` seconds is most likely waiting for
something other than the CPU (a download, the network, a sign-in): its slot goes to the next server then, so
one slow server never holds the others up for long. While a turn waits for servers still starting (`urgent`),
the app has nothing to draw but that wait: the core left for it starts a server too.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

HOLD = 5.0
"""Seconds a start keeps its slot at most: a Python server's start is ~1 s of CPU on a quiet core, but several
on a loaded one (with 3 s, twenty on a machine at load 12 ended up starting together again, and some failed)."""


def default_slots() -> int:
    """Starts at once: one a core the process may use, but one, left for the app (at least one)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores - 1)


class StartQueue:
    """At most `slots` starts at a time (one more while a turn waits for them), each holding its slot until it
    ends or for `hold` seconds; in the order they asked."""

    def __init__(self, slots: int | None = None, hold: float = HOLD) -> None:
        self.slots = max(1, slots) if slots is not None else default_slots()
        self.hold = hold
        self._running = 0
        self._urgent = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    def limit(self) -> int:
        """Starts allowed at once now."""
        return self.slots + (1 if self._urgent else 0)

    @contextmanager
    def urgent(self) -> Iterator[None]:
        """While a turn waits for servers to start: one more may start at once."""
        self._urgent += 1
        self._wake()
        try:
            yield
        finally:
            self._urgent -= 1

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for a slot, then hold it while the block runs (at most `hold` seconds)."""
        await self._acquire()
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._running -= 1
                self._wake()

        timer = asyncio.get_running_loop().call_later(self.hold, release)
        try:
            yield
        finally:
            timer.cancel()
            release()

    async def _acquire(self) -> None:
        if self._running < self.limit() and not self._waiting:
            self._running += 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(granted)
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():  # given a slot as it was cancelled: pass it on
                self._running -= 1
                self._wake()
            raise

    def _wake(self) -> None:
        while self._waiting and self._running < self.limit():
            granted = self._waiting.popleft()
            if not granted.done():
                self._running += 1
                granted.set_result(None)
