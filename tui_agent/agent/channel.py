"""Provides `Channel`: a one-way, closable async stream between two handlers of a turn.

The response handler forks the model's stream into two channels (text for the user, tool-call events
for the tool handler); each consumer iterates its channel until the producer closes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Generic, TypeVar

T = TypeVar("T")
_CLOSED = object()


class Channel(Generic[T]):
    """An unbounded queue with an end: `put` never waits; iteration stops after `close()`."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._closed = False

    def put(self, item: T) -> None:
        """Send one item (ignored after close)."""
        if not self._closed:
            self._queue.put_nowait(item)

    def close(self) -> None:
        """Mark the end; consumers finish what is queued and stop."""
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(_CLOSED)

    async def __aiter__(self) -> AsyncIterator[T]:
        while (item := await self._queue.get()) is not _CLOSED:
            yield item  # type: ignore[misc]
