"""Snapshot of the task tree (Ctrl+T) mid-turn on the scripted backend: fixed clocks, fixed size, no blink."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, SIZE, call, chat_ready, make_app, task_tree, wait_until
from tests.ui.test_task_tree import select
from tui_agent.agent.events import AssistantMessageStarted, AssistantTextDelta, ToolStatus
from tui_agent.testing.scripted import Gate, Script
from tui_agent.testing.scripted_tree import ScriptedTree

SnapCompare = Callable[..., bool]


def test_task_tree_mid_turn_with_a_running_tool_selected(snap_compare: SnapCompare) -> None:
    gate = Gate()
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "Checking two cities at once…"),
        call("c1", ToolStatus.DONE, started=100.0, finished=101.4, result="Paris: sunny, 21 °C"),
        call("c2", ToolStatus.RUNNING, arguments='{"location": "Oslo"}', started=101.0),
        gate,
    ]
    app, backend = make_app([script])
    backend.tree = ScriptedTree(clock=lambda: FIXED_NOW - 3.2)

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await chat_ready(pilot)
        screen.prompt_input.insert("Weather in Paris and Oslo?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: gate.reached, "mid-turn")
        await pilot.press("ctrl+t")
        tree = await task_tree(pilot)
        await wait_until(pilot, lambda: tree.has_focus and bool(tree.root.children), "the tree shown, focused")
        await select(pilot, tree, "run_tools")  # one Down at a time, each waited for
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
