"""Benchmark: the conversation tree in the TUI.

Switching branch: a session of 2,000 messages (with tool calls) whose last prompts have a second version (an
edit) is resumed in the real app (headless, offline model, real SQLite file); the cursor's `left` on the edited
prompt switches to the other version. The clock runs from the key's action (Pilot's `press` adds its own waits,
~70 ms) to the end of the first frame that shows the other branch (the port's switch, the page read along the
new branch, the log and tool column redrawn, the frame): median, target value <= 50 ms, one frame's budget. The
baseline is a full repaint of the same screen. The bench waits for the redraw by sleeping a millisecond at a time:
waiting with `pilot.pause(0)` spun the loop and kept the GIL from the history store's thread, whose reads then
took seconds (a switch measured 1-11 s; the store alone answers in ~3 ms).

Opening: a session whose first prompt has 100 versions, each answered (100 branches), opened with
`tui-agent --offline --resume ID` in a pseudo-terminal as bench/resume.py does, within its target
(<= 2x the empty session, the two opened in turns in the same run).

    python bench/branches.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from frames import FRAMES
from resume import open_seconds, p95, repaint_frames, result, resumed, seed
from startup import compile_bytecode

from tui_agent.history.store import HistoryStore
from tui_agent.launch import tune_garbage_collector
from tui_agent.status import MessageStatus, Role
from tui_agent.ui.widgets.messages import UserMessage

EDITED_TURNS = 5
"""The newest prompts of the long session that get a second version (each switch picks one)."""


async def add_versions(db: Path, session_id: str, prompts: int, versions: int) -> None:
    """Give each of the session's `prompts` newest prompts `versions - 1` more versions, each answered (the
    first version's branch stays active)."""
    store = await HistoryStore.open(db)
    try:
        shown = await store.load_tail(session_id, 4 * prompts)
        originals = [m for m in shown if m.role is Role.USER][-prompts:]
        leaf = shown[-1].id
        for original in originals:
            for n in range(1, versions):
                edited = await store.add_sibling(original.id, Role.USER, f"{original.content} (version {n + 1})")
                reply = await store.append_message(session_id, Role.ASSISTANT, "", MessageStatus.STREAMING)
                await store.finish_message(reply.id, MessageStatus.COMPLETE, content=f"Answer to version {n + 1}.")
                assert edited.session_id == session_id
        await store.switch_to(leaf)
    finally:
        await store.close()


async def switch_times(db: Path, session_id: str) -> list[float]:
    """Seconds from `left`/`right` on an edited prompt to the end of the first frame showing the other branch."""
    times: list[float] = []
    async with resumed(db, session_id) as (pilot, screen):
        redraw, redrawn = screen.branches.redraw, []

        async def timed_redraw(*args, **kwargs):  # type: ignore[no-untyped-def]
            await redraw(*args, **kwargs)
            redrawn.append(time.perf_counter())  # the log holds the other branch: the next frame shows it

        screen.branches.redraw = timed_redraw  # type: ignore[method-assign]
        cursor = screen.message_cursor  # mounted after the first frame, or now
        while not (cursor.is_attached and cursor.messages()):  # the page on screen: Ctrl+Up has messages to select
            await pilot.pause(0.01)
        for turn in range(EDITED_TURNS * 2):
            await pilot.press("ctrl+up")
            while not (isinstance(cursor.selected, UserMessage) and cursor.selected.message_id):
                await pilot.press("up")
            before = len(redrawn)
            start = time.perf_counter()
            cursor.action_branch(1 if turn % 2 == 0 else -1)  # what the key runs: the switch, in a worker
            while len(redrawn) == before:  # not `pilot.pause(0)`: spinning, it kept the GIL from history's thread
                await asyncio.sleep(0.001)
            while not any(end > redrawn[-1] for end, _ in FRAMES[-5:]):
                await pilot.pause(0.001)
            times.append(next(end for end, _ in FRAMES if end > redrawn[-1]) - start)
            await pilot.press("escape")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_bytecode()
    tune_garbage_collector()
    with tempfile.TemporaryDirectory() as home:
        db = Path(home) / "history.db"
        empty = asyncio.run(seed(db, "empty-session-title", 0, 0))
        long = asyncio.run(seed(db, "long-tree-title", 2_000, 400))
        asyncio.run(add_versions(db, long, EDITED_TURNS, 2))
        wide = asyncio.run(seed(db, "wide-tree-title", 20, 2))
        asyncio.run(add_versions(db, wide, 1, 100))
        env = {**os.environ, "TUI_AGENT_HOME": home, "TERM": "xterm-256color"}
        env.pop("OPENAI_BASE_URL", None)
        sessions = [(empty, b"empty-session-title"), (wide, b"wide-tree-title")]
        open_seconds(db, sessions, env, 1)  # warm the file cache
        base, wide_s = open_seconds(db, sessions, env, args.runs)
        repaint = asyncio.run(repaint_frames(db, long, 100))
        switches = asyncio.run(switch_times(db, long))
    print(f"info: {len(switches)} switches, {[round(s * 1000) for s in switches]} ms")
    result("switch_branch_2000_ms", statistics.median(switches) * 1000, p95(repaint) * 1000, "value<=50")
    result("resume_100_branches_ms", wide_s * 1000, base * 1000, "ratio<=2")


if __name__ == "__main__":
    main()
