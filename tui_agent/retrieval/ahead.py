"""Provides `ahead`: an iterator's items computed in a thread of its own, a few ahead of the one consuming them.

A first index build reads and splits files (Python, holding the GIL) while SQLite stores the batch before (C,
not holding it): the two overlap, where one after the other they add up.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")

_WAKE_S = 0.05
"""How often a producer blocked on a full hand-off looks whether its consumer has stopped."""


class _Ended:
    """What the producer hands over last: the error it ended with, or None when it ran out of items."""

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


class _Handoff(Generic[T]):
    """The bounded queue between the producer and the consumer, and the consumer's word that it has stopped."""

    def __init__(self, depth: int) -> None:
        self.items: queue.Queue[T | _Ended] = queue.Queue(depth)
        self.stopped = threading.Event()

    def put(self, item: T | _Ended) -> bool:
        """Hand `item` over; False (and not handed) when the consumer has stopped taking items."""
        while not self.stopped.is_set():
            try:
                self.items.put(item, timeout=_WAKE_S)
                return True
            except queue.Full:
                continue
        return False

    def produce(self, items: Iterable[T]) -> None:
        try:
            for item in items:
                if not self.put(item):
                    return
        except BaseException as error:  # handed to the consumer, which raises it
            self.put(_Ended(error))
            return
        self.put(_Ended(None))


def ahead(items: Iterable[T], depth: int = 2) -> Generator[T, None, None]:
    """Yield `items`' items, computed by a thread up to `depth` items ahead; an error it meets is raised here.
    Closing the iterator early (an error while consuming) stops the thread after the item it is computing."""
    handoff: _Handoff[T] = _Handoff(depth)
    worker = threading.Thread(target=handoff.produce, args=(items,), name="retrieval-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item = handoff.items.get()
            if isinstance(item, _Ended):
                if item.error is not None:
                    raise item.error
                return
            yield item
    finally:
        handoff.stopped.set()
        worker.join()
