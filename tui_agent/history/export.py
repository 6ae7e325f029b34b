"""Provides Markdown and JSON exports of a session, and `write_private`.

Each message comes with its parts: a reply's parts other than its text, by kind (a quoted section each before its
text, "Reasoning" for its reasoning; `parts` in JSON, any kind), its text, and its tool calls with their results.
A prompt's attachments come after its text: name, type, size and SHA-256, and a text file's text (`texts`, by hash).
What a tool call returned besides its text (an image) is a line after its result naming it, its type, size and
SHA-256 (Markdown; never its bytes), and its ref in the call's `attachments` (JSON). The files a call changed
(`ToolCall.file_changes`) come after it as `path +N −M` and a unified diff each (`file_changes` in JSON: path,
lines added and removed, and the diff; never the bytes).

A session's sub-agent runs (the sessions its `ask_<agent>` calls ran) come after its messages, each as a whole
session export of its own (its own sub-agent runs included), under a line naming the agent and the call's reply.

An export is text Python can always encode: a lone surrogate that reached an older database (tool
arguments saved as JSON escapes) comes out as U+FFFD.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from tui_agent.file_diffs import line_counts, unified_diff
from tui_agent.history.attachments import AttachmentRef
from tui_agent.history.models import Message, Session, ToolCall, ToolCallPart, utc_from_epoch
from tui_agent.sanitize import replace_surrogates, replace_surrogates_in
from tui_agent.status import MessageStatus

PRIVATE_FILE_MODE = 0o600
ExportFormat = Literal["markdown", "json"]


@dataclass
class SubAgentRun:
    """A sub-agent's run, as exported with the session whose call ran it."""

    agent: str
    session: Session
    messages: list[Message]
    runs: list[SubAgentRun] = field(default_factory=list)
    """The sub-agent's own sub-agent runs."""


def to_markdown(
    session: Session,
    messages: list[Message],
    all_branches: bool = False,
    runs: list[SubAgentRun] | None = None,
    agent: str | None = None,
    texts: Mapping[str, str] | None = None,
) -> str:
    """The messages as Markdown: a branch (a note says how many messages are on others), or with `all_branches`
    every message, its heading naming its id and its parent's; then the sub-agent `runs` (`agent`: the
    sub-agent this session is the run of)."""
    lines = [f"# {session.title}", "", f"- Session: `{session.id}`", f"- Created: {_when(session.created_at)}"]
    elsewhere = session.message_count - len(messages)
    if elsewhere > 0 and not all_branches:
        lines.append(
            f"- Other branches: {elsewhere} message{'s' if elsewhere != 1 else ''} not shown (this is the "
            "active branch; `tui-agent sessions show ID --tree` shows them all)"
        )
    if session.model:
        lines.append(f"- Model: {session.model}")
    if session.stop_reason:  # a team's session: why the team last stopped
        lines.append(f"- {session.agent or 'Team'} stopped: {session.stop_reason}")
    if agent is not None:
        lines.append(
            f"- Sub-agent `{agent}` of `{session.parent_session_id}`, asked in reply `{session.parent_message_id}`"
        )
    elif session.parent_session_id:
        lines.append(f"- Forked from: `{session.parent_session_id}` at message `{session.parent_message_id}`")
    if session.system_prompt:
        lines += ["", "## System prompt", "", session.system_prompt]
    for message in messages:
        lines += ["", *_message_markdown(message, all_branches)]
        lines += [line for ref in message.attachments for line in _attachment_markdown(ref, texts or {})]
    text = replace_surrogates("\n".join(lines) + "\n")
    for run in runs or []:
        text += "\n---\n\n" + to_markdown(run.session, run.messages, all_branches, run.runs, run.agent, texts)
    return text


def _message_markdown(message: Message, with_ids: bool = False) -> list[str]:
    notes = [] if message.status is MessageStatus.COMPLETE else [message.status.value]
    notes += ["replaced by a retry"] if message.replaced_by else []
    notes += ["compacted into a summary"] if message.compacted_by else []
    status = f" ({', '.join(notes)})" if notes else ""
    who = f": {message.agent}" if message.agent else ""  # a team member's reply
    lines = [f"## {message.role.value.capitalize()}{who}{status}", ""]
    if with_ids:
        lines[1:1] = [
            "",
            f"`{message.id}` after `{message.parent_id}`" if message.parent_id else f"`{message.id}` (first)",
        ]
    kinds = [kind for kind, text in message.part_texts.items() if text]
    for kind in kinds:
        lines += [f"### {kind.replace('_', ' ').capitalize()}", "", *_quoted(message.part_texts[kind]), ""]
    lines.append(message.content or (f"_({' and '.join(kinds)} only, no answer)_" if kinds else "_(no text)_"))
    if message.error:
        lines += ["", f"> Error: {message.error}"]
    for call in message.tool_calls:
        lines += ["", *_tool_markdown(call)]
    return lines


def _attachment_markdown(ref: AttachmentRef, texts: Mapping[str, str]) -> list[str]:
    note = f", {ref.note}" if ref.note else ""
    about = f"{ref.mime}, {ref.size:,} bytes{note}, sha256 `{ref.hash}`"
    lines = ["", f"### Attached {ref.kind} `{ref.name}`", "", about]
    return lines + (["", _fence(texts[ref.hash])] if ref.hash in texts else [])


def _quoted(text: str) -> list[str]:
    return [f"> {line}" if line else ">" for line in text.splitlines()]


def _tool_markdown(call: ToolCall) -> list[str]:
    lines = [f"### Tool call `{call.name}` ({call.status.value})", "", "Arguments:", "", _fence(call.raw_arguments)]
    if call.result is not None:
        lines += ["", "Result:", "", _fence(call.result)]
    if call.error:
        lines += ["", f"> Error: {call.error}"]
    for ref in call.attachments:
        lines += ["", f"Returned {ref.kind} `{ref.name}`: {ref.mime}, {ref.size:,} bytes, sha256 `{ref.hash}`"]
    for change in call.file_changes:
        added, removed = line_counts(change)
        lines += [
            "",
            f"Changed `{change.path}` +{added} −{removed}:",
            "",
            _fence_as(unified_diff(change).rstrip("\n"), "diff"),
        ]
    return lines


def _changes_json(call: ToolCall) -> list[dict[str, Any]]:
    """The files `call` changed, as exported: path, lines added and removed, the unified diff."""
    changes = []
    for change in call.file_changes:
        added, removed = line_counts(change)
        changes.append({"path": change.path, "added": added, "removed": removed, "diff": unified_diff(change)})
    return changes


def _fence(text: str) -> str:
    return _fence_as(text, "")


def _fence_as(text: str, language: str) -> str:
    # A fence longer than any backtick run inside, so tool output can't close it early.
    ticks = "`" * max(3, _longest_backticks(text) + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


def _longest_backticks(text: str) -> int:
    best = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        best = max(best, run)
    return best


def _when(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def to_json(
    session: Session,
    messages: list[Message],
    runs: list[SubAgentRun] | None = None,
    texts: Mapping[str, str] | None = None,
) -> str:
    """The session as JSON; its sub-agent `runs` (when it has some) under `sub_agents`, each a session's JSON
    with its `agent`; a text file's text (`texts`, by hash) with its attachment."""
    payload = _session_json(session, messages, runs or [], texts or {})
    return json.dumps(replace_surrogates_in(payload), indent=2, ensure_ascii=False)


def _session_json(
    session: Session, messages: list[Message], runs: list[SubAgentRun], texts: Mapping[str, str]
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "format": "tui-agent-session",
        "version": 1,
        "session": _plain(asdict(session)),
        "messages": [_message_json(m, texts or {}) for m in messages],
    }
    if runs:
        payload["sub_agents"] = [
            {"agent": run.agent, **_session_json(run.session, run.messages, run.runs, texts)} for run in runs
        ]
    return payload


def _message_json(message: Message, texts: Mapping[str, str]) -> dict[str, Any]:
    """A message as exported: its fields (a tool call's epoch times as ISO dates, like every other time), and
    its `parts` in order (a tool call part names its call in `tool_calls`)."""
    plain: dict[str, Any] = _plain(asdict(message))
    plain.pop("part_texts")  # they are in `parts`, by kind
    plain["reasoning"] = message.reasoning  # this format's field since version 1
    for attached in plain["attachments"]:  # name, kind, mime, size, hash (and note); a text file's text
        if attached["hash"] in texts and attached["kind"] == "file":
            attached["text"] = texts[attached["hash"]]
    for call, live in zip(plain["tool_calls"], message.tool_calls, strict=True):
        call["file_changes"] = _changes_json(live)  # diffs, not the bytes `asdict` left there
        call.pop("command", None)  # live-only: what "always" would allow while a call awaits approval
        call.pop("attachment_data", None)  # live-only: the bytes of what it returned (refs are in `attachments`)
        call["attachments"] = list(call["attachments"])
        for key in ("started_at", "finished_at"):
            if call[key] is not None:
                call[key] = utc_from_epoch(call[key]).isoformat()
    plain["parts"] = [
        {"kind": part.kind, "call_id": part.call.call_id}
        if isinstance(part, ToolCallPart)
        else {"kind": part.kind, "text": part.text}
        for part in message.parts
    ]
    return plain


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def write_private(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path`, readable and writable by its owner only, whatever the umask: an
    export holds the whole conversation. An existing file is truncated and made private too."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with open(fd, "w", encoding="utf-8") as handle:
        os.fchmod(fd, PRIVATE_FILE_MODE)
        handle.write(text)
