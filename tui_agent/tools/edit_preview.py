"""Provides `preview` and `EDIT_TOOLS`: the changes an edit tool's call would make, computed without writing.

The approval dialog shows them as the diff to approve (through `tui_agent.agent.edit_preview`); they come from
the same planning code the tools write with (`edits`, `patches`), so the diff approved is the diff written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tui_agent.payloads import FileChange
from tui_agent.tools.edits import plan_edit, plan_write
from tui_agent.tools.patches import plan_patch

EDIT_TOOLS = frozenset({"write_file", "edit_file", "apply_patch"})
"""The tools `preview` knows: their arguments say exactly what they would write."""


def preview(tool: str, arguments: Mapping[str, Any]) -> tuple[FileChange, ...]:
    """The changes `tool` would make with `arguments`, nothing written: () for a tool not in `EDIT_TOOLS`;
    ValueError (the reason the call would fail) when it would be refused."""
    if tool == "write_file":
        return (plan_write(str(arguments.get("path", "")), str(arguments.get("content", ""))).change,)
    if tool == "edit_file":
        edits = arguments.get("edits")
        return (plan_edit(str(arguments.get("path", "")), edits if isinstance(edits, list) else []).change,)
    if tool == "apply_patch":
        return tuple(planned.change for planned in plan_patch(str(arguments.get("patch", ""))))
    return ()
