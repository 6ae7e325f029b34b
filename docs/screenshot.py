"""Makes the README's pictures, drawn by Textual's own screenshot of the real app on the offline model:
docs/screenshot.svg (one weather question: the reply and its two tool calls), docs/branches.svg (a regenerated
reply, its versions marked ‹2/2›), docs/task-tree.svg (two sub-agents at work, the task tree open) and
docs/failure.svg (a reply cut off at the token limit, with retry and continue). Run `python docs/screenshot.py`
(or `python docs/screenshot.py branches`...) after a change to how the chat looks."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.messages import AssistantMessage

DOCS = Path(__file__).parent
SIZE = (130, 36)
Scene = Callable[[Pilot[None], ChatScreen], Awaitable[None]]


async def until(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    """Let the app run until `condition` holds (bounded: a picture that never comes is an error)."""
    for _ in range(1200):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the scene never came")


def replies(screen: ChatScreen) -> int:
    return len(screen.query(AssistantMessage))


async def ask(pilot: Pilot[None], screen: ChatScreen, prompt: str) -> None:
    """Send `prompt` and wait until its reply has begun."""
    before = replies(screen)
    screen.prompt_input.insert(prompt)
    await pilot.press("enter")
    await until(pilot, lambda: replies(screen) > before)


async def weather(pilot: Pilot[None], screen: ChatScreen) -> None:
    await ask(pilot, screen, "What's the weather in Paris and Tokyo? Answer with a short table.")
    await until(pilot, lambda: screen.idle and bool(screen.tool_panels.panels))


async def branches(pilot: Pilot[None], screen: ChatScreen) -> None:
    await ask(pilot, screen, "Explain streaming in markdown")
    await until(pilot, lambda: screen.idle)
    await pilot.press("ctrl+up")  # the reply selected: `r` makes a second version beside it
    await pilot.pause(0.2)
    await pilot.press("r")
    await until(pilot, lambda: any(reply.branch_mark.branch == (1, 2) for reply in screen.query(AssistantMessage)))
    await until(pilot, lambda: screen.idle)


async def task_tree(pilot: Pilot[None], screen: ChatScreen) -> None:
    await ask(pilot, screen, "Ask the researcher and the coder what the weather is in Paris")
    await pilot.press("ctrl+t")
    # the sub-agents under way (the offline model streams slowly here): the researcher's own tool call shows
    await until(pilot, lambda: "get_current_weather" in pilot.app.export_screenshot())


async def failure(pilot: Pilot[None], screen: ChatScreen) -> None:
    await ask(pilot, screen, "Explain streaming in markdown")
    await until(pilot, lambda: screen.idle)


SCENES: dict[str, tuple[Scene, dict[str, Any], dict[str, Any] | None]] = {
    # name: (what to do, settings, a scenario for a stand-alone offline server: None runs the built-in one)
    "screenshot": (weather, {}, None),
    "branches": (branches, {}, None),
    "task-tree": (task_tree, {}, {"default_chunk_delay": 0.15}),
    "failure": (failure, {"max_tokens": 40}, None),
}


async def draw(name: str) -> None:
    scene, values, scenario = SCENES[name]
    with tempfile.TemporaryDirectory() as home:
        server = BackgroundServer(scenario) if scenario is not None else None
        try:
            base_url = server.start() if server is not None else None
            settings = Settings(db=Path(home) / "history.db", **values)
            choice = EndpointChoice(base_url, "offline")
            label = "offline model" if server is None else "127.0.0.1"
            app = TuiAgentApp(lambda: build_agent(settings, choice), model="offline", endpoint=label)
            async with app.run_test(size=SIZE) as pilot:
                await app.engine()
                screen = app.screen
                assert isinstance(screen, ChatScreen)
                await scene(pilot, screen)
                await pilot.pause(0.3)
                out = DOCS / f"{name}.svg"
                out.write_text(app.export_screenshot(title="tui-agent"), encoding="utf-8")
        finally:
            if server is not None:
                server.stop()
    print(f"wrote {out}")


async def main(names: list[str]) -> None:
    for name in names or list(SCENES):
        await draw(name)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
