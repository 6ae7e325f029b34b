"""Provides the ACP `session/update`s for our values: a tool call as a tool-call update (edits as diffs), the todo
list as the plan, a stored message replayed (for `session/load`).

Pure functions, no connection: the session (`tui_agent.acp.session`) sends what they return. A call's ACP id is
its message id and call id together, since servers may number calls per response (`call_0` in every reply).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from tui_agent.agent.edit_preview import EDIT_TOOLS, preview
from tui_agent.agent.records import Message
from tui_agent.payloads import FileChange
from tui_agent.status import Role, ToolStatus
from tui_agent.todo import TODO_TOOL, todo_items
from tui_agent.tool_call import ToolCall

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
CallStatus = Literal["pending", "in_progress", "completed", "failed"]
ToolContent = ContentToolCallContent | FileEditToolCallContent
Replayed = UserMessageChunk | AgentMessageChunk | AgentThoughtChunk | ToolCallStart | AgentPlanUpdate

_KIND_OF_EFFECT: dict[str, ToolKind] = {"read": "read", "edit": "edit", "command": "execute", "unknown": "other"}
_STATUS: dict[ToolStatus, CallStatus] = {
    ToolStatus.PENDING: "pending",
    ToolStatus.AWAITING_APPROVAL: "pending",
    ToolStatus.RUNNING: "in_progress",
    ToolStatus.DONE: "completed",
    ToolStatus.FAILED: "failed",
    ToolStatus.DENIED: "failed",
    ToolStatus.INTERRUPTED: "failed",
}
_PLAN_STATUS: dict[str, Literal["pending", "in_progress", "completed"]] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
}
PATH_ARGUMENTS = ("path", "file", "file_path", "filename")
"""Arguments that name the file a call is about (its ACP location: the editor can follow it)."""


def call_id(call: ToolCall, prefix: str = "") -> str:
    """The call's ACP id: unique in the session (`prefix`: a sub-agent's session, for its calls)."""
    return f"{prefix}{call.message_id}/{call.call_id}"


def tool_kind(name: str, effect: str | None) -> ToolKind:
    """What kind of tool the editor is told it is (its icon): from what the tool declares it can change."""
    if name == "web_fetch":
        return "fetch"
    if name.startswith("search") or name.startswith("grep"):
        return "search"
    return _KIND_OF_EFFECT.get(effect or "unknown", "other")


def call_status(call: ToolCall) -> CallStatus:
    return _STATUS[call.status]


def title(call: ToolCall, agent: str | None = None) -> str:
    """The call in a few words, `get_weather(Paris)`; a sub-agent's named first (`researcher: read_file(a.md)`)."""
    return call.headline(60) if agent is None else f"{agent}: {call.headline(60)}"


def started(call: ToolCall, effect: str | None, cwd: Path, prefix: str = "", agent: str | None = None) -> ToolCallStart:
    """The first update of a call: its title, kind, arguments and the file it is about (`prefix`, `agent`: the
    sub-agent's session and name, for its calls)."""
    return start_tool_call(
        call_id(call, prefix),
        title(call, agent),
        kind=tool_kind(call.name, effect),
        status=call_status(call),
        locations=locations(call, cwd) or None,
        raw_input=dict(call.arguments) if call.arguments is not None else None,
    )


def progressed(call: ToolCall, cwd: Path, prefix: str = "", agent: str | None = None) -> ToolCallProgress:
    """A later update of a call: its status, arguments once they parse and, when it ended, its result (edits as
    diffs)."""
    ended = call.status in (ToolStatus.DONE, ToolStatus.FAILED, ToolStatus.DENIED, ToolStatus.INTERRUPTED)
    return update_tool_call(
        call_id(call, prefix),
        title=title(call, agent),
        status=call_status(call),
        locations=locations(call, cwd) or None,
        raw_input=dict(call.arguments) if call.arguments is not None else None,
        content=outcome(call, cwd) if ended else None,
        raw_output=call.outcome if ended else None,
    )


def outcome(call: ToolCall, cwd: Path) -> list[ToolContent]:
    """What a call that ended shows: a diff per file it changed, then its result (or error) as text."""
    shown: list[ToolContent] = [*diffs(call.file_changes, cwd)]
    if call.outcome:
        shown.append(tool_content(text_block(call.outcome)))
    return shown


def proposed(call: ToolCall, cwd: Path) -> list[ToolContent]:
    """What an edit call asking to run would write, as diffs (nothing for other tools, or an edit that would
    fail: its error comes with its result)."""
    if call.name not in EDIT_TOOLS or call.arguments is None:
        return []
    try:
        return diffs(preview(call.name, call.arguments), cwd)
    except (ValueError, OSError):
        return []


def diffs(changes: Iterable[FileChange], cwd: Path) -> list[ToolContent]:
    """ACP diffs (absolute path, old and new text) of the text files among `changes` (binary files are left out:
    a diff shows text)."""
    shown: list[ToolContent] = []
    for change in changes:
        try:
            old = change.before.decode() if change.before is not None else None
            new = change.after.decode() if change.after is not None else ""
        except UnicodeDecodeError:
            continue
        shown.append(tool_diff_content(str(cwd / change.path), new, old))
    return shown


def locations(call: ToolCall, cwd: Path) -> list[ToolCallLocation]:
    """The files a call names (an absolute path each), or those it changed."""
    arguments = call.arguments or {}
    named = [value for key in PATH_ARGUMENTS if isinstance(value := arguments.get(key), str) and value]
    named.extend(change.path for change in call.file_changes if change.path not in named)
    return [ToolCallLocation(path=str(cwd / path)) for path in named]


def plan_of(call: ToolCall) -> AgentPlanUpdate | None:
    """The todo list a `todo` call that ran sets, as the editor's plan; None for any other call."""
    if call.name != TODO_TOOL or call.status is not ToolStatus.DONE:
        return None
    items = todo_items(call.arguments)
    if items is None:
        return None
    return update_plan(plan_entry(item.text, priority="medium", status=_PLAN_STATUS[item.status]) for item in items)


def replayed(messages: Iterable[Message], effects: Mapping[str, str], cwd: Path) -> list[Replayed]:
    """A stored conversation as the updates that show it again, in order: prompts, reasoning, replies, each call
    as it ended, the todo list."""
    updates: list[Replayed] = []
    for message in messages:
        if message.compacted_by is not None or message.replaced_by is not None:
            continue
        if message.role is Role.USER:
            updates.append(update_user_message_text(message.content))
        elif message.role is Role.ASSISTANT:
            if message.reasoning:
                updates.append(update_agent_thought_text(message.reasoning))
            if message.content:
                updates.append(update_agent_message_text(message.content))
            for call in message.tool_calls:
                start = started(call, effects.get(call.name), cwd)
                updates.append(start.model_copy(update={"content": outcome(call, cwd), "raw_output": call.outcome}))
                if (plan := plan_of(call)) is not None:
                    updates.append(plan)
    return updates
