"""Provides the translation of what an ACP agent sends into our values, and of our answers into ACP's.

Pure functions over the SDK's objects, read by attribute (its `sessionUpdate`/`type` names), so this module
imports nothing of the SDK: a tool call (`tool_call` / `tool_call_update`, merged over what came before) becomes
a `ToolCall` value — its title the name, its raw input the arguments, its content the result text, a diff inside
the working folder a `FileChange` (the panel shows it, rewind can undo it); an approval answer (`Decision`)
becomes the agent's option of the matching kind.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall

STATUSES = {
    "pending": ToolStatus.PENDING,
    "in_progress": ToolStatus.RUNNING,
    "completed": ToolStatus.DONE,
    "failed": ToolStatus.FAILED,
}
"""ACP's tool-call statuses and ours."""
CHOICES: dict[Decision, tuple[str, ...]] = {
    Decision.ALLOW_ONCE: ("allow_once", "allow_always"),
    Decision.ALLOW_ALWAYS: ("allow_always", "allow_once"),
    Decision.ALLOW_FILE: ("allow_always", "allow_once"),
    Decision.ALLOW_EDITS: ("allow_always", "allow_once"),
    Decision.DENY: ("reject_once", "reject_always"),
}
"""For each answer, the kinds of the agent's options that say it, the closest first."""


def block_text(block: Any) -> str:
    """What a content block says, as text: its text, or a stand-in for an image, audio or a resource."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource_link":
        return f"[{getattr(block, 'name', None) or block.uri}]({block.uri})"
    if kind == "resource":
        resource = block.resource
        return str(getattr(resource, "text", None) or f"[resource: {resource.uri}]")
    return f"[{kind or 'content'}]"


def call_value(update: Any, earlier: ToolCall | None, message_id: str, folder: Path) -> ToolCall:
    """The call `update` (a `tool_call` or `tool_call_update`, or a permission request's call) describes, over
    what `earlier` said of it; fields the update leaves out keep their earlier values."""
    call = earlier or ToolCall(update.tool_call_id, "tool", "{}", {}, message_id)
    name = update.title or (call.name if earlier is not None else None) or update.kind or "tool"
    changes: dict[str, Any] = {"name": " ".join(str(name).split())}
    if update.raw_input is not None:
        changes.update(_arguments(update.raw_input))
    status = STATUSES.get(update.status or "")
    if status is not None and not call.status.is_final:  # a call we denied stays denied
        changes.update(_moved(call, status))
    result, files = _content(update.content, folder)
    if result is None and update.raw_output is not None:
        result = update.raw_output if isinstance(update.raw_output, str) else _json(update.raw_output)
    if result is not None:
        changes["result"] = result
    if files:
        changes["file_changes"] = files
    moved = call.replace(**changes)
    if moved.status is ToolStatus.FAILED and moved.error is None:
        moved = moved.replace(error=moved.result or "failed")
    return moved


def _arguments(raw_input: Any) -> dict[str, Any]:
    raw = _json(raw_input)
    return {"raw_arguments": raw, "arguments": raw_input if isinstance(raw_input, dict) else {"input": raw_input}}


def _moved(call: ToolCall, status: ToolStatus) -> dict[str, Any]:
    now = time.monotonic()
    changes: dict[str, Any] = {"status": status}
    if status is not ToolStatus.PENDING and call.started_at is None:
        changes["started_at"] = now
    if status.is_final:
        changes["finished_at"] = now
    return changes


def _content(content: Sequence[Any] | None, folder: Path) -> tuple[str | None, tuple[FileChange, ...]]:
    """A call's content as result text, and the edits among it inside `folder` as file changes."""
    if not content:
        return None, ()
    lines: list[str] = []
    files: list[FileChange] = []
    for item in content:
        kind = getattr(item, "type", "")
        if kind == "content":
            lines.append(block_text(item.content))
        elif kind == "diff":
            lines.append(f"edited {item.path}")
            change = _file_change(item.path, item.old_text, item.new_text, folder)
            files += [change] if change is not None else []
        elif kind == "terminal":
            lines.append(f"[terminal {item.terminal_id}]")
    return "\n".join(lines), tuple(files)


def _file_change(path: str, before: str | None, after: str, folder: Path) -> FileChange | None:
    """A diff as a `FileChange` (relative, `/`-separated), None for a file outside the working folder."""
    try:
        relative = Path(path).resolve().relative_to(folder.resolve()) if Path(path).is_absolute() else Path(path)
    except ValueError:
        return None
    if relative.is_absolute() or ".." in relative.parts:
        return None
    return FileChange(relative.as_posix(), None if before is None else before.encode(), after.encode())


def option_for(decision: Decision, options: Sequence[Any]) -> str | None:
    """The id of the agent's option that says `decision` (the closest kind it offers), None when none does."""
    for kind in CHOICES[decision]:
        for option in options:
            if option.kind == kind:
                return str(option.option_id)
    return None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
