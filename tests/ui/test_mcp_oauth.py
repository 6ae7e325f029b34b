"""OAuth sign-in to MCP servers in the app, against the OAuth-protected test server in a real process: a server
whose entry says `auth = "oauth"` signs in as the app starts; another, which only asks (a 401), waits for the
MCP screen's `a`; `o` signs out. The test plays the browser at the address the app shows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import OptionList

from tests.fixtures.mcp_servers.oauth import address_in, guarded_server, play_browser
from tests.ui.helpers import app_on_real_agent, showing
from tests.ui.test_mcp import until
from tui_agent import paths
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import McpServerSettings, Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.screens.mcp import McpScreen


@pytest.fixture
def guarded() -> Iterator[str]:
    with guarded_server() as url:
        yield url


async def test_sign_in_as_the_app_starts_and_from_the_mcp_screen(guarded: str, tmp_path: Path) -> None:
    model = BackgroundServer({"replies": [{"text": "Hello."}]})
    model.start()
    settings = Settings(
        db=tmp_path / "history.db",
        mcp_servers={
            "asks": McpServerSettings(url=guarded, approval="never"),
            "auto": McpServerSettings(url=guarded, approval="never", auth="oauth"),
        },
    )
    app, backend = app_on_real_agent(settings, EndpointChoice(model.base_url, "scripted", "test-key"))
    notices: list[str] = []
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await until(pilot, lambda: backend.mcp_servers is not None, "the servers built")
            servers = backend.mcp_servers
            assert servers is not None
            servers.watch(notices.append)
            state: Callable[[str], str] = lambda name: servers.servers[name].describe()  # noqa: E731

            # `auto` signs in at once (the address is said: no browser here); `asks` says how to sign in.
            await until(pilot, lambda: address_in(notices) is not None, "auto's sign-in address")
            assert "MCP server auto: sign in by opening this address in a browser" in notices[-1]
            assert "You can close this tab" in await play_browser(str(address_in(notices)))
            await until(pilot, lambda: state("auto") == "ready with 1 tool", "auto ready")
            await until(pilot, lambda: "needs you to sign in" in state("asks"), "asks failed")
            assert any("MCP server asks failed: needs you to sign in (OAuth): press a" in line for line in notices)

            app.action_mcp_servers()
            await until(pilot, lambda: showing(app, McpScreen), "the MCP screen")
            screen = app.screen
            assert isinstance(screen, McpScreen)
            detail: Callable[[], str] = lambda: str(screen.query_one("#mcp-detail-text").render())  # noqa: E731
            await until(pilot, lambda: "OAuth: not signed in (a signs in)" in detail(), "asks' detail")
            notices.clear()
            await pilot.press("a")
            await until(pilot, lambda: address_in(notices) is not None, "asks' sign-in address")
            await until(pilot, lambda: "waiting for you to sign in, in the browser: http" in detail(), "on screen")
            await play_browser(str(address_in(notices)))
            await until(pilot, lambda: state("asks") == "ready with 1 tool", "asks ready")
            await until(pilot, lambda: "OAuth: signed in (o signs out" in detail(), "signed in, on screen")
            assert len(list((paths.data_dir() / "mcp" / "oauth").glob("*.json"))) == 2

            await pilot.press("o")
            await until(pilot, lambda: "OAuth: not signed in" in detail(), "signed out, on screen")
            first_row: Callable[[], str] = lambda: str(screen.query_one(OptionList).options[0].prompt)  # noqa: E731
            await until(pilot, lambda: "failed: signed out; press a on the MCP screen" in first_row(), "asks stopped")
            assert [path.name.split("-")[0] for path in (paths.data_dir() / "mcp" / "oauth").glob("*.json")] == ["auto"]
    finally:
        model.stop()
