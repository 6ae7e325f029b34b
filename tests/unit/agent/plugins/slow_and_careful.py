"""Test plugin: a tool that takes its time (for cancel tests) and one that asks before running."""

from __future__ import annotations

import asyncio

from tui_agent.tools import tool


@tool(approval="never")
async def slow_echo(text: str, seconds: float = 30.0) -> str:
    """Wait, then echo the text back.

    Args:
        text: What to echo.
        seconds: How long to wait first.
    """
    await asyncio.sleep(seconds)
    return text


@tool(approval="ask")
def careful_echo(text: str) -> str:
    """Echo the text back, after the user allows it.

    Args:
        text: What to echo.
    """
    return f"echo: {text}"
