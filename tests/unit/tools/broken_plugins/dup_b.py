"""Defines `duplicate_tool` again; loaded after dup_a.py, so this one wins."""

from tui_agent.tools import tool


@tool(approval="never")
def duplicate_tool() -> str:
    """The second definition."""
    return "from dup_b"
