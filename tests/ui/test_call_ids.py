"""Servers that number tool calls per response (`call_0` in every reply) on the real stack: every call of the
session keeps its own panel, live and on resume, in the task tree too, and in `sessions export`.

The scenario file gives every tool call the id `call_0`, as llama.cpp and other local servers do.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.ui.helpers import chat, send, task_tree, wait_until
from tests.ui.sessions_stack import RealStack, stored
from tui_agent.agent.resume import ResumeRequest
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus

SIZE = (140, 50)
CALLS = [
    ("get_current_weather", '{ location = "Paris" }'),
    ("calculate", '{ expression = "6*7" }'),
    ("current_time", '{ timezone = "UTC" }'),
]


def scenario(path: Path, rounds_per_turn: int) -> Path:
    """Each turn: `rounds_per_turn` replies with one call `call_0` (the next tool of CALLS), then a text reply."""
    replies = []
    for number, (name, arguments) in enumerate(CALLS, 1):
        replies.append(
            f'[[replies]]\n[[replies.tool_calls]]\nid = "call_0"\nname = "{name}"\narguments = {arguments}\n'
        )
        if number % rounds_per_turn == 0:
            replies.append(f'[[replies]]\ntext = "Answer {number // rounds_per_turn}."\n')
    path.write_text("\n".join(replies), encoding="utf-8")
    return path


def server(path: Path) -> BackgroundServer:
    started = BackgroundServer(path)
    started.start()
    return started


def panel_names(pilot_app: object) -> list[tuple[str, ToolStatus]]:
    panels = chat(pilot_app).tool_panels.panels  # type: ignore[arg-type]
    return [(panel.call.name, panel.status) for panel in panels]


EVERY_CALL_DONE = [(name, ToolStatus.DONE) for name, _ in CALLS]


async def test_three_turns_with_call_0_keep_three_panels_live_on_resume_and_in_export(tmp_path: Path) -> None:
    model = server(scenario(tmp_path / "call_0.toml", rounds_per_turn=1))
    try:
        stack = RealStack(tmp_path / "history.db", model)
        app, _ = stack.app()
        async with app.run_test(size=SIZE) as pilot:
            for prompt in ("Weather in Paris?", "What is 6*7?", "What time is it?"):
                await send(pilot, prompt)
            assert panel_names(pilot) == EVERY_CALL_DONE
        sessions, messages = await stored(stack.db)
        assert [call.name for message in messages for call in message.tool_calls] == [name for name, _ in CALLS]
        app, backend = stack.app(ResumeRequest(sessions[0].id))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(
                pilot,
                lambda: len(chat(pilot).tool_panels.panels) == 3 and backend.agent is not None,
                lambda: f"three panels after resume, got {panel_names(pilot)}",
            )
            await pilot.pause()
            assert panel_names(pilot) == EVERY_CALL_DONE
    finally:
        model.stop()
    env = {**os.environ, "TUI_AGENT_HOME": str(tmp_path / "home")}
    command = [
        sys.executable,
        "-m",
        "tui_agent",
        "--db",
        str(stack.db),
        "sessions",
        "export",
        "--last",
        "--format",
        "json",
    ]
    exported = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, env=env, timeout=60)
    assert exported.returncode == 0, exported.stderr
    session = json.loads(exported.stdout)
    names = [call["name"] for message in session["messages"] for call in message["tool_calls"]]
    assert names == [name for name, _ in CALLS]


async def test_one_turn_of_three_rounds_with_call_0_shows_three_panels_and_three_tree_items(tmp_path: Path) -> None:
    model = server(scenario(tmp_path / "call_0.toml", rounds_per_turn=3))
    try:
        app, _ = RealStack(tmp_path / "history.db", model).app()
        async with app.run_test(size=SIZE) as pilot:
            tree = await task_tree(pilot)
            await send(pilot, "Weather, sums and the time, please")
            assert panel_names(pilot) == EVERY_CALL_DONE
            tools = [item for item in tree.items.values() if item.kind == "tool"]
            assert [item.name for item in tools] == [name for name, _ in CALLS]
            assert len({item.parent for item in tools}) == 3  # each under its own round's run_tools
    finally:
        model.stop()
