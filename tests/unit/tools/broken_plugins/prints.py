"""Broken on purpose: prints to stdout at import."""

from tui_agent.tools import tool

print("hello from a noisy plugin")


@tool(approval="never")
def noisy_tool() -> str:
    """Never registered: its plugin printed at import."""
    return "noise"
