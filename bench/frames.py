"""Frame timing for the benchmarks: every screen update (layout + compositing + write), timed.

Importing this module wraps `Screen._on_timer_update`, so every frame of every app in the process is
recorded in `FRAMES`. `PROBE`/`PAINTED` let a benchmark note what a frame painted (see render.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.screen import Screen

FRAMES: list[tuple[float, float]] = []
"""(end time, duration) of every frame."""
PROBE: list[Callable[[], int]] = []
"""What the prompt holds (its length) when a frame starts: that frame paints it."""
PAINTED: list[tuple[float, int]] = []
"""(end time, probe value at the frame's start) of every frame while a probe is set."""
_original_update = Screen._on_timer_update


def _timed_update(self: Screen[Any]) -> None:
    start = time.perf_counter()
    probed = PROBE[0]() if PROBE else 0
    _original_update(self)
    end = time.perf_counter()
    FRAMES.append((end, end - start))
    if PROBE:
        PAINTED.append((end, probed))


Screen._on_timer_update = _timed_update  # type: ignore[method-assign]
