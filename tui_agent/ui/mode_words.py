"""Provides `describe_mode`: the sentence a notice says when the permission mode changes (Shift+Tab, the palette).

Kept apart from `tui_agent.tools.modes`: the chat screen imports this before the first frame, and the tools
package loads pydantic with the engine.
"""

from __future__ import annotations

SAID = {
    "read-only": "read-only: only tools that change nothing run; edits and commands are refused",
    "ask": "ask: each tool asks as configured (the default)",
    "auto-edit": "auto-edit: file edits run without asking; commands still ask",
    "auto": "auto: everything runs without asking; commands run in the OS sandbox",
    "plan": "plan: the agent only reads and thinks, then shows a plan for you to edit and approve",
}


def describe_mode(mode: str) -> str:
    """What `mode` lets run, in one line."""
    return SAID.get(mode, mode)
