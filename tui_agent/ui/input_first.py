"""Provides `InputFirst`: whether a key is on its way to the screen, so a streaming reply's next batch waits.

A streaming reply's batch (a flush: settling what arrived and rendering the live tail; then the new pieces the
screen shows; then a frame laying out the grown view) is ~30 ms of the event loop. A key that arrived just
before one waited for all of it, and often for one more frame, before it showed (bench/long.py case 4). So the
app notes each key and paste it is given (`TuiAgentApp.post_message` calls `note_input`) until the frame after
it, and a reply about to start a batch, or to render its newest pieces, waits for that frame (`keys_waiting`).
The wait is bounded (`MAX_WAIT`): a key whose frame never comes does not hold a reply back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.message import Message

MAX_WAIT = 0.05
"""Seconds after a key after which a batch goes ahead even if no frame has come since (about three frames)."""


class InputFirst:
    """One app's keys between their arrival and the frame after it."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._since: float | None = None

    def key_posted(self) -> bool:
        """A key (or a paste) arrived; True if it is the first since the last frame (ask for that frame's end)."""
        now = self._clock()
        if self._since is not None and now - self._since < MAX_WAIT:
            return False
        self._since = now  # the first, or one after a frame that never came (its end was never reported)
        return True

    def painted(self) -> None:
        """A frame after the keys is done: they are on screen."""
        self._since = None

    @property
    def waiting(self) -> bool:
        """A key arrived that no frame has shown yet (and not longer ago than `MAX_WAIT`)."""
        since = self._since
        return since is not None and self._clock() - since < MAX_WAIT


_WATCHES: WeakKeyDictionary[App[Any], InputFirst] = WeakKeyDictionary()


def input_first(app: App[Any]) -> InputFirst:
    """The app's watch (one an app, made at first use)."""
    watch = _WATCHES.get(app)
    if watch is None:
        watch = _WATCHES[app] = InputFirst()
    return watch


def note_input(app: App[Any], message: Message) -> None:
    """Note `message`, just given to `app`, if it is a key or a paste: until the frame after it is done (or
    `MAX_WAIT`), `keys_waiting(app)` says so."""
    if isinstance(message, events.Key | events.Paste) and input_first(app).key_posted():
        app.call_later(_after_forwarding, app)  # the app's own queue: once it has passed the key on


def _after_forwarding(app: App[Any]) -> None:
    """The app has passed the key to the focused widget: ask that widget to report the frame after its turn
    (asked of the app now, the screen could report an idle moment before the widget showed the key)."""
    target = app.focused or app.screen
    if not target.call_after_refresh(input_first(app).painted):
        input_first(app).painted()


def keys_waiting(app: App[Any]) -> bool:
    """Whether a key is on its way to the screen of `app` (always False in an app that does not note keys)."""
    watch = _WATCHES.get(app)
    return watch is not None and watch.waiting
