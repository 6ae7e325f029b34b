"""An image a tool returns is shown as a chip under its panel: the real app on a real agent, the offline model
over HTTP calling a Python tool whose answer carries a PNG."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import app_on_real_agent, chat, send, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer

PLUGINS = Path(__file__).parents[1] / "unit" / "agent" / "image_plugins"


async def test_the_image_a_tool_returned_is_a_chip_under_its_panel(tmp_path: Path) -> None:
    shoot = {"tool_calls": [{"name": "screenshot", "arguments": {}}]}
    server = BackgroundServer(strict_scenario({"replies": [shoot, {"text": "A red dot."}]}))
    server.start()
    try:
        settings = Settings(db=tmp_path / "history.db", plugin_dirs=[PLUGINS])
        app, _ = app_on_real_agent(settings, EndpointChoice(server.base_url, "scripted", "test-key"))
        async with app.run_test(size=(140, 40)) as pilot:
            screen = chat(pilot)
            await send(pilot, "Look at the screen")
            (panel,) = screen.tool_panels.panels
            chip = f"[image screen.png {len(tiny_png())} B]"
            await wait_until(pilot, lambda: chip in str(panel.render()), lambda: str(panel.render()))
    finally:
        server.stop()
