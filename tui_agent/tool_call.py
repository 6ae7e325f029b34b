"""Provides `ToolCall`, the one value a tool call is everywhere, and `Decision`, the answer to an approval.

It sits beside `status` at the root: the runner, the agent, history and the UI all use it, and it imports
nothing of theirs (nor pydantic: history loads it before the first page of a session is shown).

The collector builds a call as the model writes it, the runner moves it on (status, times, result), the
turn records it, events carry it to the UI and history stores and loads it; each change is a new value
(`call.replace(...)`). Nothing else describes a tool call.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tui_agent.payloads import AttachmentRef, FileChange
from tui_agent.status import ToolStatus

CallKey = tuple[str, str]
"""(message id, call id): what tells one call of a session from another."""
HEADLINE_CHARS = 28
"""Characters of argument values a call's headline keeps (the task tree's lines are 40 to 60 wide)."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call as it stands.

    Times are seconds on one clock: `time.monotonic()` while live, epoch seconds when loaded from history
    (only their difference means anything).
    """

    call_id: str
    name: str
    raw_arguments: str = ""
    """The argument text as the model wrote it (so far, while PENDING)."""
    arguments: Mapping[str, Any] | None = None
    """The parsed arguments (`to_user` removed); None while streaming, or when they do not parse."""
    message_id: str = ""
    """The assistant message that made the call."""
    status: ToolStatus = ToolStatus.PENDING
    started_at: float | None = None
    finished_at: float | None = None
    result: str | None = None
    error: str | None = None
    command: str | None = None
    """What "always" would allow, for a tool whose grants are narrower than the tool: a command-like tool's
    command, `web_fetch`'s host."""
    attachments: tuple[AttachmentRef, ...] = ()
    """What the result carries besides its text (an image the tool returned), in order; `result` has a
    stand-in line for each (`AttachmentRef.stand_in`)."""
    attachment_data: Mapping[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    """The bytes of `attachments` by hash, while the call is live (a call loaded from history has none: its
    bytes are read from the store when they are sent)."""
    progress: str | None = None
    """How far a running call has come, as its tool said ("3/10 · indexing"); None when it said nothing."""
    file_changes: tuple[FileChange, ...] = field(default=(), repr=False, compare=False)
    """The files the call changed in the working directory, as the tool reported them (`ToolResult.changes`)."""
    network_off: bool = False
    """The call's programs run in the OS sandbox with the network off: its approval may allow the network for
    this one call (`Decision.ALLOW_NETWORK`)."""
    blocked: tuple[str, ...] = ()
    """What the OS sandbox blocked when the call ran ("blocked by the sandbox: write to ~/.bashrc"). Asked about
    with it, the question is whether to run the call once more: outside the sandbox (`ALLOW_ONCE`), in it with
    the network (`ALLOW_NETWORK`), or not (`DENY`: the blocked result stands)."""

    @property
    def key(self) -> CallKey:
        """The call id alone does not tell calls apart: many servers number calls per response (`call_0`)."""
        return (self.message_id, self.call_id)

    @property
    def outcome(self) -> str:
        """What the call came to: its result, else its error ("" before either)."""
        return self.result if self.result is not None else (self.error or "")

    def replace(self, **changes: Any) -> ToolCall:
        """This call with `changes` (a new value; calls are never changed in place)."""
        return dataclasses.replace(self, **changes)

    @property
    def hook_verdict(self) -> str | None:
        """What a hook did to the call, in plain words for its panel ("denied by a hook (guard)", "arguments
        changed by a hook (guard)"), read from the text the runner gives it; None when no hook did anything."""
        if self.status is ToolStatus.DENIED and (self.error or "").startswith(HOOK_DENIED[0]):
            name = (self.error or "")[len(HOOK_DENIED[0]) :].partition(HOOK_DENIED[1])[0]
            return f"denied by a hook ({_short(name)})"
        first = (self.result or "").partition("\n")[0]
        if first.startswith(HOOK_CHANGED[0]) and HOOK_CHANGED[1] in first:
            name = first[len(HOOK_CHANGED[0]) :].partition(HOOK_CHANGED[1])[0]
            return f"arguments changed by a hook ({_short(name)})"
        return None

    def readable_arguments(self) -> Mapping[str, Any]:
        """The parsed arguments, read from the raw text when they were not parsed (a stored call); `{}` while
        they do not parse."""
        if self.arguments is not None:
            return self.arguments
        try:
            parsed = json.loads(self.raw_arguments)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    def headline(self, width: int = HEADLINE_CHARS) -> str:
        """The call in a few words, as a person would write it: `get_weather(Paris)`, its argument values (not
        `to_user`, which the chat shows) folded to `width` characters."""
        values = [value for key, value in self.readable_arguments().items() if key != "to_user"]
        shown = ", ".join(
            " ".join(v.split()) if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in values
        )
        if len(shown) > width:
            shown = shown[: width - 1].rstrip() + "…"
        return f"{self.name}({shown})"

    def arguments_for_model(self) -> str:
        """The arguments as sent back to the model: the parsed ones (no `to_user`), `{}` when unparseable."""
        return json.dumps(dict(self.arguments), ensure_ascii=False) if self.arguments is not None else "{}"


class Decision(StrEnum):
    """The user's answer to an approval request."""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    """Allow this tool (a command-like tool: this exact command) for the rest of this session."""
    ALLOW_FILE = "allow_file"
    """Allow edits of this call's file (by any edit tool) for the rest of this session."""
    ALLOW_EDITS = "allow_edits"
    """Allow every edit (tools whose effect is "edit") for the rest of this session."""
    ALLOW_NETWORK = "allow_network"
    """Allow this call once, its programs in the OS sandbox but with the network (`ToolCall.network_off`)."""
    DENY = "deny"


HOOK_DENIED = ("A hook (", ") denied the call: ")
"""How the error of a call a hook denied starts, around the hook's name (`tui_agent.tools.hooks.HookDenied`)."""
HOOK_CHANGED = ("[arguments changed by a hook (", "): {")
"""How the result of a call whose arguments a hook changed starts, around the hooks' names (the runner's note)."""
VERDICT_NAME_CHARS = 24
"""Characters of a hook's name in a panel's status line (the panel is ~50 wide)."""


def _short(name: str) -> str:
    return name if len(name) <= VERDICT_NAME_CHARS else name[: VERDICT_NAME_CHARS - 1] + "…"
