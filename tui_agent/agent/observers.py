"""Provides `Observers`: a list of callbacks told each new value, each with its own way to stop.

The agent tells the UI what history is not saving and each notice for the person through it; an observer
that fails is logged and skipped, so a broken view never breaks the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

Value = TypeVar("Value")
log = logging.getLogger("tui_agent.agent.observers")


class Observers(Generic[Value]):
    """Callbacks to tell about each new value."""

    def __init__(self) -> None:
        self._observers: list[Callable[[Value], None]] = []

    def add(self, observer: Callable[[Value], None]) -> Callable[[], None]:
        """Tell `observer` each value from now on; returns how to stop (idempotent)."""
        self._observers.append(observer)

        def stop() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return stop

    def tell(self, value: Value) -> None:
        for observer in list(self._observers):
            try:
                observer(value)
            except Exception:
                log.exception("an observer failed on %r", value)
