"""Test plugin: a tool that really writes a file in the working directory and reports the change, as the edit
tools do (`ToolResult(changes=[FileChange(...)])`)."""

from __future__ import annotations

from pathlib import Path

from tui_agent.payloads import FileChange
from tui_agent.tools import ToolResult, tool


@tool(approval="never", effect="edit")
def scribe(path: str, text: str) -> ToolResult:
    """Write `text` to the file `path` (created or replaced)."""
    target = Path(path)
    before = target.read_bytes() if target.exists() else None
    after = text.encode("utf-8")
    target.write_bytes(after)
    return ToolResult(f"wrote {path}", changes=[FileChange(path, before, after)])
