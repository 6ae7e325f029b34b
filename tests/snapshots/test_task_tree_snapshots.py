"""Snapshots of the task tree (Ctrl+T) in the user's words beside the tool panels, mid-turn on the scripted backend
(fixed clocks, no blink), at 80×24 and 160×45: one app run per picture. The turn has a call done with a JSON
result, an edit whose result is a diff, and a sub-agent running a call of its own. Regenerate with
--snapshot-update."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, call, chat_ready, make_app, task_tree, wait_until
from tests.ui.test_sub_agents import ASK, ask, panel_text, weather
from tests.ui.test_task_tree import select
from tui_agent.agent.events import (
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    ToolStatus,
    TurnStarted,
)
from tui_agent.testing.scripted import Delegated, Gate, Script
from tui_agent.testing.scripted_tree import ScriptedTree

SnapCompare = Callable[..., bool]
FORECAST = '{"city": "Paris", "temperature": 21, "sky": "sunny", "wind_kmh": 12}'
EDIT = '{"to_user": "Changing the colour.", "path": "src/theme.py", "old": "red", "new": "green"}'
DIFF = """--- a/src/theme.py
+++ b/src/theme.py
@@ -1,3 +1,3 @@
 NAME = "plain"
-COLOUR = "red"
+COLOUR = "green"
 SIZE = 3
"""


@pytest.mark.parametrize(
    ("size", "tree_shown"),
    [((80, 24), False), ((80, 24), True), ((160, 45), True)],
    ids=["80x24-tools", "80x24-tree", "160x45"],  # at 80 columns the tree, shown, takes the tool column's place
)
def test_task_tree_and_tool_panels_mid_turn(snap_compare: SnapCompare, size: tuple[int, int], tree_shown: bool) -> None:
    gate = Gate()
    sub: Script = [
        TurnStarted("sub-researcher", "su1", "Find the weather in Oslo"),
        AssistantMessageStarted("s1"),
        AssistantPartDelta("s1", "reasoning", "The weather tool knows."),
        weather(ToolStatus.RUNNING),
        gate,
    ]
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "Checking Paris, fixing the colour and asking the researcher about Oslo…"),
        call("c0", ToolStatus.DONE, arguments='{"location": "Paris"}', started=100.0, finished=100.2, result=FORECAST),
        call("c2", ToolStatus.DONE, name="edit_file", arguments=EDIT, started=100.1, finished=100.4, result=DIFF),
        ask(ToolStatus.RUNNING),
        Delegated(ASK, "researcher", sub),
    ]
    app, backend = make_app([script])
    backend.tree = ScriptedTree(clock=lambda: FIXED_NOW - 3.2)

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await chat_ready(pilot)
        screen.prompt_input.insert("Weather in Paris, green instead of red, and ask the researcher about Oslo")
        await pilot.press("enter")
        await wait_until(pilot, lambda: gate.reached, "mid-turn")
        await wait_until(pilot, lambda: "running get_weather" in panel_text(pilot), "the sub-agent's panel redrawn")
        if not tree_shown:
            return
        await pilot.press("ctrl+t")
        tree = await task_tree(pilot)
        await wait_until(pilot, lambda: tree.has_focus and len(tree.root.children) == 1, "the tree shown, focused")
        await wait_until(pilot, lambda: bool(tree.border_subtitle), "its keys said under it")
        await select(pilot, tree, "get_weather(Paris)")  # one Down at a time, each waited for
        app.clear_notifications()  # the tree's hint (its keys stay under it): the picture is of the tree
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
