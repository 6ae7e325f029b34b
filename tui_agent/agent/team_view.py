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
from tui_agent.status import Role


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


def handed_only(stored: Sequence[Message], member: str, team: set[str]) -> list[Message]:
    """`stored` as a member with a private memory remembers it: everything but the other members' replies,
    except the one handed to it now (the newest with words since its own last reply).

    So a critic reviews the latest draft beside its own earlier notes, never the drafts before it, nor talk
    between other members; the person's prompts and what came before the team stay.
    """

    def others(message: Message) -> bool:
        return message.role is Role.ASSISTANT and message.agent != member and message.agent in team

    own = [at for at, message in enumerate(stored) if message.role is Role.ASSISTANT and message.agent == member]
    since = own[-1] + 1 if own else 0
    handed = [at for at in range(since, len(stored)) if others(stored[at]) and stored[at].content.strip()]
    return [message for at, message in enumerate(stored) if not others(message) or handed[-1:] == [at]]
