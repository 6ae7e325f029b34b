"""Provides `freeze_start_up`: what an app's start-up made (modules, the engine, the app) taken out of the
garbage collector's full passes, once per app (so once per `tui-agent` process).

`gc.freeze()` moves every object that exists into a generation the collector never looks at again, so full
collections (which otherwise stall a frame by tens of milliseconds with a big heap) skip it. But an object
frozen while alive that later becomes garbage in a reference cycle is never freed: a widget, a turn, a whole
chat screen. So it is done once, when the app shows its first session; a freeze at each turn kept every turn's
garbage (bench/memory.py), and one at each fresh chat screen kept every screen it replaced.

`collect_while_reading` is the full collection the tuned thresholds (`launch.tune_garbage_collector`) make
rare: run when a turn has ended and nothing waits, while the person reads the reply, it frees the turn's garbage
cycles before the next turn piles more on them (the allocator kept the memory they took: ~0.5 MB a turn).
"""

from __future__ import annotations

import gc
import weakref

_frozen_for: weakref.WeakSet[object] = weakref.WeakSet()
"""The apps whose start-up is frozen (benchmarks and tests run several apps in one process)."""


def freeze_start_up(app: object) -> None:
    """Freeze what exists now, the first time `app` asks (later calls do nothing)."""
    if app not in _frozen_for:
        _frozen_for.add(app)
        gc.freeze()


def collect_while_reading() -> None:
    """A full collection (what is frozen is skipped): the turn's garbage cycles freed while nothing runs."""
    gc.collect()
