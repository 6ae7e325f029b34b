"""Snapshot of an `ask_<agent>` call's panel while its sub-agent runs, with one tool call of its own (fixed clock,
fixed size, no blink): regenerate with --snapshot-update."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from tests.ui.helpers import SIZE, chat_ready, make_app, wait_until
from tests.ui.test_sub_agents import ASK, ask, panel_text, weather
from tui_agent.agent.events import (
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    ToolStatus,
    TurnStarted,
)
from tui_agent.testing.scripted import Delegated, Gate, Script

SnapCompare = Callable[..., bool]


def test_ask_panel_with_a_running_sub_agent_and_its_tool_call(snap_compare: SnapCompare) -> None:
    gate = Gate()
    sub: Script = [
        TurnStarted("sub-researcher", "su1", "Find the weather in Oslo"),
        AssistantMessageStarted("s1"),
        AssistantPartDelta("s1", "reasoning", "The weather tool knows."),
        AssistantTextDelta("s1", "Looking it up.\nOne moment: "),
        weather(ToolStatus.RUNNING),
        gate,
    ]
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "I'll ask the researcher."),
        ask(ToolStatus.RUNNING),
        Delegated(ASK, "researcher", sub),
    ]
    app, _ = make_app([script])

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await chat_ready(pilot)
        screen.prompt_input.insert("What's the weather in Oslo? Ask the researcher.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: gate.reached, "the sub-agent mid-turn")
        await wait_until(pilot, lambda: "running get_weather" in panel_text(pilot), "the panel redrawn")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
