"""Defines `duplicate_tool`; dup_b.py defines it again and, loading later, wins."""

from tui_agent.tools import tool


@tool(approval="never")
def duplicate_tool() -> str:
    """The first definition."""
    return "from dup_a"
