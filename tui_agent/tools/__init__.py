"""Tool definitions, plugin discovery and the tool runner.

A plugin module needs only `from tui_agent.tools import tool` (and `hook`, for hooks around agents and tools);
the registry, runner and subprocess helper live in their own modules (`registry`, `runner`, `process`).
"""

from tui_agent.tools.hooks import hook
from tui_agent.tools.spec import tool

__all__ = ["hook", "tool"]
