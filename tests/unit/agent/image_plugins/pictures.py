"""Test plugin: a Python tool whose answer carries a real image (a 1x1 PNG), as `ToolResult` documents."""

from __future__ import annotations

from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tui_agent.tools import Attachment, ToolResult, tool


@tool(approval="never")
def screenshot() -> ToolResult:
    """Take a screenshot (a 1x1 red PNG)."""
    return ToolResult("the screen", [Attachment.of_bytes("screen.png", tiny_png())])


@tool(approval="never")
def broken_screenshot() -> ToolResult:
    """Take a screenshot that is cut short (a PNG without its end)."""
    return ToolResult("the screen", [Attachment.of_bytes("cut.png", tiny_png()[:30])])
