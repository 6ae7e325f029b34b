"""Provides `CompactionBackoff`: after a compaction fails, the next prompts are sent without trying again.

A full context compacts before the next prompt is sent (`Meter.needs_compaction`). When that fails — the
summary endpoint errs, is cut off, or there is nothing to compact — trying again before every prompt costs
each one the same failing requests. So a failure pauses automatic compaction until the context has grown by
`GROWTH` of the window, or `WAIT` seconds have passed; compacting on request (F9) is always tried, and one
that succeeds ends the pause. The person is told once, with the failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

GROWTH = 0.1
"""Share of the window the context must grow by after a failure before compaction is tried by itself again."""
WAIT = 300.0
"""Seconds after a failure when compaction is tried by itself again, however little the context grew."""


@dataclass
class CompactionBackoff:
    """Whether automatic compaction waits after a failure (see the module docstring)."""

    clock: Callable[[], float] = time.monotonic
    _failed_at: tuple[int, float] | None = field(default=None, init=False)
    """The context's tokens and the clock's reading when compaction last failed; None: it has not."""

    def failed(self, context_tokens: int) -> None:
        """A compaction failed with the context at `context_tokens`."""
        self._failed_at = (context_tokens, self.clock())

    def succeeded(self) -> None:
        """A compaction succeeded (or the session changed): nothing waits any more."""
        self._failed_at = None

    def paused(self, context_tokens: int, window: int | None) -> bool:
        """Automatic compaction waits: it failed, and the context has not grown enough nor has time passed."""
        if self._failed_at is None:
            return False
        tokens, when = self._failed_at
        grown = window is not None and context_tokens - tokens >= window * GROWTH
        return not grown and self.clock() - when < WAIT

    @staticmethod
    def explain(window: int | None) -> str:
        """What the person is told with a failure: when compaction is tried by itself again."""
        grown = f"the conversation has grown by about {int(window * GROWTH):,} tokens or " if window else ""
        return (
            f"The next prompts are sent without compacting until {grown}{WAIT / 60:g} minutes have passed; "
            "press F9 to compact sooner."
        )
