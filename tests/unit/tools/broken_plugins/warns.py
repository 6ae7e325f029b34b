"""Imports fine but writes to stderr at import: loaded, and the text is reported."""

import sys

from tui_agent.tools import tool

print("deprecated: something", file=sys.stderr)


@tool(approval="never")
def warned_tool() -> str:
    """Loads despite the stderr output."""
    return "ok"
