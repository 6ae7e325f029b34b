"""Provides `Conversation`: the messages sent to the model, in the order the chat-completions API requires.

Every assistant message that made tool calls is followed by one `tool` message per call, including
calls that never ran (denied, invalid, interrupted) — endpoints reject a history where a call has no
answer. `from_history` rebuilds the list from stored messages when a session is resumed (and after a
retry): a reply that was retried (`replaced_by` set) is left out, as if it had never been sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role, ToolStatus

INTERRUPTED_RESULT = "The tool call was interrupted before it finished; it did not complete and was not re-run."


@dataclass(frozen=True)
class AnsweredCall:
    """A tool call as the model made it, and the text it got back."""

    call_id: str
    name: str
    raw_arguments: str
    result: str


class Conversation:
    """The model's view of a session: system prompt, user turns, assistant replies, tool results."""

    def __init__(self, system_prompt: str | None = None) -> None:
        self.messages: list[dict[str, Any]] = []
        if system_prompt:
            self.messages.append({"role": "system", "content": system_prompt})

    def add_user(self, text: str) -> None:
        """Append the user's prompt."""
        self.messages.append({"role": "user", "content": text})

    def add_assistant(self, text: str, calls: Sequence[AnsweredCall] = ()) -> None:
        """Append an assistant reply and, when it made tool calls, their answers right after it."""
        if not text and not calls:
            return
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [_call_entry(call) for call in calls]
        self.messages.append(message)
        for call in calls:
            self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": call.result})

    @classmethod
    def from_history(cls, stored: Iterable[Message], system_prompt: str | None = None) -> Conversation:
        """Rebuild the model's view from stored messages (tool results and interruptions included)."""
        conversation = cls(system_prompt)
        for message in stored:
            if message.role is Role.USER:
                conversation.add_user(message.content)
            elif (message.role is Role.ASSISTANT and message.status is not MessageStatus.STREAMING
                  and message.replaced_by is None):
                conversation.add_assistant(message.content, [_answered(call) for call in message.tool_calls])
        return conversation


def _call_entry(call: AnsweredCall) -> dict[str, Any]:
    return {"id": call.call_id, "type": "function", "function": {"name": call.name, "arguments": call.raw_arguments}}


def _answered(call: Any) -> AnsweredCall:
    # The same text the live turn sent: the result, or for a failed or denied call its error (the runner
    # stores that as `error`, not `result`); calls that never finished get the interrupted answer.
    if call.status is ToolStatus.INTERRUPTED or not call.status.is_final:
        result = INTERRUPTED_RESULT
    elif call.result is not None:
        result = call.result
    elif call.status in (ToolStatus.FAILED, ToolStatus.DENIED):
        result = call.error or ("Denied." if call.status is ToolStatus.DENIED else "The tool call failed.")
    else:
        result = INTERRUPTED_RESULT
    # The parsed arguments are what the live turn sent (without `to_user`); unparseable ones become {}.
    raw = json.dumps(call.arguments, ensure_ascii=False) if call.arguments is not None else "{}"
    return AnsweredCall(call.call_id, call.name, raw, result)
