"""Provides `member_conversation`: what one team member is sent, built from the session's stored messages.

Every member sees the whole team conversation from its own seat (`Conversation.from_history` with the member
as `speaker`): its own replies (and their tool calls) are its `assistant` messages; the person's prompts and
the other members' replies are `user` input, each reply labelled with its speaker (`[critic] ...`). So whatever
the flow, the history a member gets alternates as strict chat templates demand, and no empty assistant turn is
ever put in its mouth (`Conversation.request` joins consecutive inputs and repairs the rest). A team's
`[prefix]` text for the member goes before the input it receives this time (what came after its own last reply).
"""

from __future__ import annotations

from collections.abc import Sequence

from tui_agent.agent.conversation import Conversation
from tui_agent.history.models import Message


def member_conversation(
    stored: Sequence[Message], member: str, system_prompt: str | None, prefix: str = ""
) -> Conversation:
    """Member `member`'s view of the active branch `stored` (oldest first), with its system prompt."""
    conversation = Conversation.from_history(stored, system_prompt, speaker=member)
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
