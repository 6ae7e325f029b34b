"""Frame timing for the benchmarks: every screen update (layout + compositing + write), timed.

Importing this module wraps every screen's frame update (`tui_agent/ui/textual_private.py`), so every frame
of every app in the process is recorded in `FRAMES`. `PROBE`/`PAINTED` let a benchmark note what a frame
painted (see render.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from tui_agent.ui.textual_private import FrameUpdate, wrap_frame_update

FRAMES: list[tuple[float, float]] = []
"""(end time, duration) of every frame."""
PROBE: list[Callable[[], int]] = []
"""What the prompt holds (its length) when a frame starts: that frame paints it."""
PAINTED: list[tuple[float, int]] = []
"""(end time, probe value at the frame's start) of every frame while a probe is set."""


def _timed_update(update: FrameUpdate, screen: Screen[Any]) -> None:
    start = time.perf_counter()
    probed = PROBE[0]() if PROBE else 0
    update(screen)
    end = time.perf_counter()
    FRAMES.append((end, end - start))
    if PROBE:
        PAINTED.append((end, probed))


wrap_frame_update(_timed_update)
