"""Tool definitions, plugin discovery and the tool runner.

A plugin module needs only `from tui_agent.tools import tool` (and `hook`, `Deny`, for hooks around agents and tools;
`ToolResult` and `Attachment` for a tool whose answer carries an image, see `results`; `report_progress` for a
long one that says how far it has come, see `progress`);
the registry, runner and subprocess helper live in their own modules (`registry`, `runner`, `process`).
"""

from tui_agent.payloads import Attachment
from tui_agent.tools.hooks import Deny, hook
from tui_agent.tools.progress import report_progress
from tui_agent.tools.results import ToolResult
from tui_agent.tools.spec import tool

__all__ = ["Attachment", "Deny", "ToolResult", "hook", "report_progress", "tool"]
