"""Makes docs/screenshot.svg (the README's picture): the app on the offline model after one weather question,
drawn by Textual's own screenshot. Run `python docs/screenshot.py` after a change to how the chat looks."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen

OUT = Path(__file__).with_name("screenshot.svg")
PROMPT = "What's the weather in Paris and Tokyo? Answer with a short table."


async def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(db=Path(home) / "history.db")
        choice = EndpointChoice(None, "offline")
        app = TuiAgentApp(lambda: build_agent(settings, choice), model="offline", endpoint="offline model")
        async with app.run_test(size=(130, 36)) as pilot:
            await app.engine()
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            screen.prompt_input.insert(PROMPT)
            await pilot.press("enter")
            while not screen.idle or not screen.tool_panels.panels:
                await pilot.pause(0.05)
            await pilot.pause(0.3)
            OUT.write_text(app.export_screenshot(title="tui-agent"), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
