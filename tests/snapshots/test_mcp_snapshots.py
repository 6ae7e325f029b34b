"""Snapshots of the MCP screen at 80×24 and 160×45: a ready server with its tools (name and the first line of
each description), a failed one and a disabled one in the list, over the chat's welcome. The servers are the
run's own objects, put in those states by hand (no process starts): the pictures hold no timing or path of this
machine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import make_app, showing, wait_until
from tui_agent.config import McpServerSettings, ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.tools.mcp.server import ServerState
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.ui.screens.mcp import McpScreen

SnapCompare = Callable[..., bool]
LOGS = Path("/home/you/.local/share/tui-agent/mcp")
TOOLS = {
    "read_issue": "Read one issue of the tracker: its title, body, labels and comments.\nMore lines follow.",
    "search_issues": "Search the tracker's issues by words, label or state, newest first.",
    "create_issue": "Open a new issue with a title and a body written in Markdown.",
    "add_comment": "Comment on an issue (Markdown); the comment is signed with your account.",
}


def servers() -> McpServers:
    configured = {
        "tracker": McpServerSettings(command="npx", args=["-y", "@example/tracker-mcp"]),
        "browser": McpServerSettings(command="browser-mcp"),
        "search": McpServerSettings(url="https://search.example.com/mcp?key=secret", enabled=False),
    }
    run = McpServers(configured, ToolRegistry(ToolsSettings()), LOGS, redact=Redactor().text)
    tracker = run.servers["tracker"]
    tracker.tools = [SimpleNamespace(name=name, description=text, title=None) for name, text in TOOLS.items()]
    tracker.state = ServerState.READY
    run.servers["browser"].fail("the command 'browser-mcp' was not found (is it installed, and on PATH?)")
    return run


async def open_mcp(pilot: Pilot[None]) -> None:
    # The chat's welcome is shown after its first frame: waited for, so the picture behind the dialog is always it.
    await wait_until(pilot, lambda: bool(pilot.app.screen.query("#welcome")), "the welcome")
    await pilot.app.push_screen(McpScreen(servers()))
    await wait_until(pilot, lambda: showing(pilot.app, McpScreen), "the MCP screen")
    await wait_until(
        pilot, lambda: "Tools (4)" in str(pilot.app.screen.query_one("#mcp-detail-text").render()), "tools"
    )
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
def test_mcp_screen(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app()[0], terminal_size=size, run_before=open_mcp)
