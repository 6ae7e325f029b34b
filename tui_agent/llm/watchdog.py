"""Provides `StallWatchdog`: cancels a stream reader that has been waiting too long for the next chunk.

Costs one integer increment per chunk: a timer checks every `seconds` whether the chunk count moved.
Time the consumer spends handling events (`paused`) never counts as a stall, so a slow UI cannot make
a healthy stream look stalled. Detection happens between one and two periods after the last chunk.
"""

from __future__ import annotations

import asyncio


class StallWatchdog:
    """`arm()` inside the reading task; bump `count` per chunk; `fired` tells a cancel came from here."""

    __slots__ = ("seconds", "count", "paused", "fired", "_seen", "_task", "_handle", "_loop")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.count = 0
        self.paused = False
        self.fired = False
        self._seen = -1
        self._task: asyncio.Task[object] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def arm(self) -> None:
        """Start watching the current task."""
        if self.seconds <= 0:
            return
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._seen = self.count
        self._handle = self._loop.call_later(self.seconds, self._check)

    def disarm(self) -> None:
        """Stop watching (idempotent)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _check(self) -> None:
        assert self._loop is not None
        if self.paused:
            self._seen = -1  # the consumer was busy: give the stream a whole fresh period
        elif self.count == self._seen and self._task is not None:
            self.fired = True
            self._handle = None
            self._task.cancel()
            return
        else:
            self._seen = self.count
        self._handle = self._loop.call_later(self.seconds, self._check)
