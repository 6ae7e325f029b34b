"""Benchmark: the task tree (Ctrl+T) of a 55-node turn shown against hidden: the chat screen's median frame.

The real chat screen, headless (120x40), on a scripted turn: the turn's 5 nodes and 50 tool calls, running
(so each has an elapsed time that ticks), then a reply streamed at a steady pace while the calls end one by one.
The same turn runs with the tree hidden (baseline=) and shown, in turns (hidden, shown, hidden, shown...), so
load on the machine moves both alike. Every frame (layout + compositing + write) is timed
(`bench/frames.py`); the median frame of each run while the reply streams is compared.
Target: ratio <= 1.3 (only the rows that changed are drawn again; the timer ticks only rows in view).
`--floor` adds runs with an empty panel as wide as the tree in its place (hidden tree): what narrowing the
conversation alone costs a frame (its lines wrap shorter, so it grows and is laid out more often), printed as an
`info:` line against the same baseline; the result line is unchanged.

    python bench/task_tree.py [--runs N] [--seconds S] [--floor]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from frames import FRAMES
from textual.widgets import Static

from tui_agent.agent.events import (
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantTextDelta,
    MessageStatus,
    ToolCallUpdated,
)
from tui_agent.status import ToolStatus
from tui_agent.testing.scripted import ScriptedBackend, ScriptItem
from tui_agent.tool_call import ToolCall
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.task_tree import TaskTree

SIZE = (120, 40)
CALLS = 50
"""Tool calls in the turn; with the turn's own 5 nodes, 55 nodes."""
RATE = 50.0
"""Reply chunks a second."""


def turn(seconds: float) -> list[ScriptItem]:
    """50 running calls, then a reply streamed for `seconds` while the calls end one by one."""
    now = time.monotonic()
    calls = [
        ToolCall(f"c{n}", "read_file", arguments={"path": f"src/module_{n}.py"}, message_id="m1") for n in range(CALLS)
    ]
    items: list[ScriptItem] = [AssistantMessageStarted("m1")]
    items += [ToolCallUpdated(call.replace(status=ToolStatus.RUNNING, started_at=now)) for call in calls]
    items.append(AssistantMessageFinished("m1", MessageStatus.COMPLETE))
    items.append(AssistantMessageStarted("m2"))
    chunks = int(seconds * RATE)
    every = max(chunks // CALLS, 1)
    for n in range(chunks):
        items += [AssistantTextDelta("m2", f"word {n} of the reply, "), 1 / RATE]
        if n % every == every - 1 and (ended := n // every) < CALLS:
            items.append(ToolCallUpdated(calls[ended].replace(status=ToolStatus.DONE, started_at=now, result="ok")))
    items.append(AssistantMessageFinished("m2", MessageStatus.COMPLETE))
    return items


async def median_frame(shown: bool, seconds: float, stand_in: bool = False) -> dict[str, Any]:
    """The median frame (seconds) while the reply streams, with the tree `shown` or not (or, `stand_in`, an empty
    panel in its place); and its node count."""
    app = TuiAgentApp(ScriptedBackend([turn(seconds)]), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        while not any(tree.is_mounted for tree in screen.query(TaskTree)):
            await asyncio.sleep(0.01)
        tree = screen.query_one(TaskTree)
        if shown:
            await pilot.press("ctrl+t")
        if stand_in:
            await screen.query_one("#main").mount(stand_in_panel(), after=screen.chat_log)
        await pilot.pause(0.3)
        screen.prompt_input.insert("go")
        screen.prompt_input.focus()
        await pilot.press("enter")
        while not any(key.startswith("ntool:") for key in tree.items):
            await asyncio.sleep(0.005)
        await pilot.pause(0.2)  # the calls' panels and nodes in: time the streaming part
        FRAMES.clear()
        while not screen.idle:
            await asyncio.sleep(0.01)
        frames = [duration for _, duration in FRAMES]
        nodes = len(tree.items)
        drawn = len(tree.root.children and list(walk(tree.root)))
        assert tree.display == shown
    return {"median": statistics.median(frames), "frames": len(frames), "nodes": nodes, "drawn": drawn}


def stand_in_panel() -> Static:
    """An empty panel with the task tree's box (its DEFAULT_CSS): the conversation narrowed as by the tree."""
    panel = Static()
    panel.styles.width = "1fr"
    panel.styles.height = "1fr"
    panel.styles.min_width = 40
    panel.styles.max_width = 60
    panel.styles.border_left = ("vkey", "gray")
    panel.styles.border_bottom = ("hkey", "gray")
    panel.styles.padding = (0, 1)
    return panel


def walk(node: Any) -> Any:
    for child in node.children:
        yield child
        yield from walk(child)


def main(runs: int, seconds: float, floor: bool) -> None:
    hidden: list[float] = []
    shown: list[float] = []
    empty: list[float] = []
    for _ in range(runs):
        for into, show in [(hidden, False), (shown, True), *([(empty, False)] if floor else [])]:
            figures = asyncio.run(median_frame(show, seconds, stand_in=into is empty))
            into.append(figures["median"])
            what = "an empty panel in its place" if into is empty else "shown" if show else "hidden"
            print(
                f"info: tree {what}: {figures['nodes']} nodes "
                f"({figures['drawn']} rows drawn), {figures['frames']} frames, "
                f"median {figures['median'] * 1000:.2f} ms",
                flush=True,
            )
    value, base = statistics.median(shown), statistics.median(hidden)
    if floor:
        narrowed = statistics.median(empty)
        print(
            f"info: floor: an empty panel as wide as the tree {narrowed * 1000:.2f} ms, ratio {narrowed / base:.2f} "
            f"to the hidden tree; the tree shown {value / narrowed:.2f} to the empty panel",
            flush=True,
        )
    print(
        f"result: task_tree_55_nodes_median_frame_ms={value * 1000:.2f} baseline={base * 1000:.2f} "
        f"ratio={value / base:.2f} target=ratio<=1.3",
        flush=True,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="how long the reply streams")
    parser.add_argument("--floor", action="store_true", help="also time an empty panel in the tree's place")
    options = parser.parse_args()
    main(options.runs, options.seconds, options.floor)
