"""Provides `run_app`: `tui-agent` as the full-screen app (`tui_agent.print_mode` is the `-p` front end).

The app paints first (from what `tui_agent.boot` reads fast) and builds the engine in a worker after its
first frame, so start-up does not wait for the openai import, plugins or the offline model. This module
is on the first frame's path: it imports nothing of the engine.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import sys
from functools import partial

from tui_agent import paths
from tui_agent.boot import boot, build_engine
from tui_agent.ending import Ending, ending_on_signals, leave, watch_for_hang_up
from tui_agent.terminal import OwnTerminal, output_log_path, own_terminal
from tui_agent.ui.app import TuiAgentApp

YOUNG_COLLECTION_THRESHOLD = 10_000
"""Allocations between young-generation collections (Python's default: 700)."""
MIDDLE_COLLECTION_THRESHOLD = 2
"""Young collections between middle-generation collections (Python's default: 10)."""
OLD_COLLECTION_THRESHOLD = 50
"""Middle collections between full ones (Python's default: 10): with the middle threshold, a full collection
is considered as often as Python's 10 x 10 would."""
INPUT_THREAD = "textual-input"
"""Textual's input thread: when the app has ended it only waits to notice (`ui/textual_private.py`
`stop_input_without_waiting`), so the process need not wait for it."""


def tune_garbage_collector() -> None:
    """Collect less often: Textual allocates many short-lived objects per frame, and at the default
    threshold scrolling a 10,000-message session spent a sixth of its time in full collections, up to
    260 ms each, landing in frames (bench/resume.py: frame p95 13.9 -> 11.9 ms, page p95 224 -> 153 ms).

    The middle generation is collected after every second young collection, not every tenth: its pause
    grows with what it holds, and while a long reply streams that is half a second of rendered lines
    (Textual's strips reference themselves through their caches, so only the collector frees them). The
    pauses fell from 20-40 ms to 5-12 ms (CPU time, bench/long.py case 4) for the same work overall: an
    object is looked at there once before it moves on to the old generation.

    Full collections are that much rarer, and garbage cycles piled up between them (the allocator kept the
    memory they took, bench/memory.py); so the chat screen runs one itself when a turn has
    ended and nothing waits, while the person reads (`ui/long_lived.py` `collect_while_reading`)."""
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, MIDDLE_COLLECTION_THRESHOLD, OLD_COLLECTION_THRESHOLD)


def run_app(args: argparse.Namespace) -> int:
    """Run the full-screen chat until the user quits (or SIGTERM/SIGHUP arrives, or the terminal goes).

    The first frame uses the few settings it needs read without validation; the settings are validated,
    and their problems reported, with the rest of the engine after the paint. Only the UI writes to the
    terminal meanwhile: fds 1 and 2 go to the output log (`tui_agent.terminal`).
    """
    if (unknown := _unknown_agent(getattr(args, "agent", None))) is not None:  # said before the app takes over
        print(f"tui-agent: {unknown}", file=sys.stderr)
        return 2
    tune_garbage_collector()
    first = boot(args)
    with own_terminal(output_log_path()) as terminal:
        app = TuiAgentApp(
            partial(build_engine, args, first.resume),
            model=first.choice.model,
            endpoint=first.choice.label,
            early_page=first.early_page,
            settings=first.settings,
            theme_dirs=(paths.user_themes_dir(),),
            output_log=terminal.log,
            team=getattr(args, "team", None),
        )
        asyncio.run(_run_until_exit(app, terminal))
    for alarm in app.alarms:  # a notification is easily missed; this stays in the terminal (fds 1/2 are back)
        print(f"tui-agent: {alarm}", file=sys.stderr)
    return leave(app.return_code or 0, not_waited_for=frozenset({INPUT_THREAD}))


def _unknown_agent(name: str | None) -> str | None:
    """Why `--agent NAME` cannot run; the agent files (and pydantic) load only when the flag is given."""
    if name is None:
        return None
    from tui_agent.agents.apply import unknown_agent

    return unknown_agent(name)


async def _run_until_exit(app: TuiAgentApp, terminal: OwnTerminal) -> None:
    loop = asyncio.get_running_loop()
    # a normal exit, asked of the loop: terminal restored, history flushed below
    ending = Ending(lambda: loop.call_soon_threadsafe(app.exit), report=terminal.log.path)
    terminal.when_lost(ending.now)
    if sys.__stdin__ is not None:
        watch_for_hang_up(sys.__stdin__.fileno(), ending.now)
    with ending_on_signals(ending, signal.SIGTERM, signal.SIGHUP):
        try:
            await app.run_async()
        finally:
            await app.close_engine()
