"""Provides `member_conversation`: what one team member is sent, built from the session's stored messages.

Every member sees the whole team conversation, from its own seat: its own replies (and their tool calls) are
its `assistant` messages; the person's prompts and the other members' replies are `user` input, each reply
labelled with its speaker (`[critic] ...`). So whatever the flow, the history a member gets alternates as
strict chat templates demand, and no empty assistant turn is ever put in its mouth (`Conversation.request`
joins consecutive inputs and repairs the rest). A team's `[prefix]` text for the member goes before the
input it receives this time (what came after its own last reply).
"""

from __future__ import annotations

from collections.abc import Sequence

from tui_agent.agent.conversation import Conversation
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role

DEFAULT_SPEAKER = "assistant"
"""The label of a reply written by the session's own agent (no member name stored)."""


def labelled(speaker: str, text: str) -> str:
    """A reply as another member receives it."""
    return f"[{speaker}] {text}"


def member_conversation(
    stored: Sequence[Message], member: str, system_prompt: str | None, prefix: str = ""
) -> Conversation:
    """Member `member`'s view of the active branch `stored` (oldest first), with its system prompt."""
    conversation = Conversation(system_prompt)
    ids = {message.id for message in stored}
    retried = {message.id for message in stored if message.replaced_by in ids}
    for message in stored:
        if message.role is Role.USER:
            conversation.add_user(message.content)
        elif message.role is Role.ASSISTANT and message.status is not MessageStatus.STREAMING:
            if message.id in retried:
                continue
            speaker = message.agent or DEFAULT_SPEAKER
            if speaker == member:
                conversation.add_assistant(message.content, message.tool_calls)
            elif message.content.strip():
                conversation.add_user(labelled(speaker, message.content))
    if prefix:
        _put_prefix(conversation, prefix)
    return conversation


def _put_prefix(conversation: Conversation, prefix: str) -> None:
    """Put `prefix` before the first input after the member's own last reply (or alone, if there is none)."""
    messages = conversation.messages
    own = [index for index, message in enumerate(messages) if message["role"] == "assistant"]
    start = own[-1] + 1 if own else 0
    for index in range(start, len(messages)):
        if messages[index]["role"] == "user":
            messages[index] = {**messages[index], "content": prefix + str(messages[index]["content"] or "")}
            return
    conversation.add_user(prefix.strip())
