"""Provides `compact`'s parts: which messages of a session's active branch are compacted, what the model is
sent to summarise them, and what a compaction did.

The last `KEEP_TURNS` turns (from the user's prompt on) stay as they are; every message before them that is
not already under a summary is compacted. The model is sent those messages (as it would be for a reply,
valid for strict chat templates) with `SUMMARY_REQUEST` after them — in pieces that fit its context window
when they must (`tui_agent.agent.summariser`) — and its answer is stored as a `system` message at the end of
the branch, the compacted messages' `compacted_by` naming it. Nothing is deleted: the originals stay in
history and on screen (collapsed), and `Conversation.from_history` sends the summary in their place. A
failure (the model errs, says nothing, or is cut off) changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tui_agent.agent.conversation import Conversation, labelled, summary_for
from tui_agent.errors import UserError
from tui_agent.history.models import Message
from tui_agent.history.models import Usage as StoredUsage
from tui_agent.llm.events import Usage
from tui_agent.status import Role

KEEP_TURNS = 1
"""Turns at the end of the branch kept whole (the model needs the latest exchange word for word)."""
SUMMARY_REQUEST = (
    "Summarise the conversation so far, so that it can go on from your summary alone: what the person wants, "
    "the facts, decisions and tool results that matter, and what is still open. Write it for yourself, as "
    "plain notes, at most 300 words, and say nothing else."
)


class NothingToCompactError(UserError, RuntimeError):
    """There are no older turns to compact yet."""


class CompactionFailedError(UserError, RuntimeError):
    """The model could not summarise the conversation; nothing was changed."""


@dataclass(frozen=True)
class Compaction:
    """What a compaction did."""

    summary: Message
    """The stored summary (a `system` message at the end of the branch)."""
    compacted: list[str]
    """Ids of the messages it stands for from now on."""
    usage: Usage | None
    """What asking for the summary used (it is paid for like any reply)."""
    pieces: int = 1
    """Requests the summary was asked in: more than one when the conversation did not fit the window at once."""


def older_turns(path: Sequence[Message], keep_turns: int = KEEP_TURNS) -> tuple[list[Message], list[Message]]:
    """(the messages to compact, the messages they end before): everything before the `keep_turns`-th last
    prompt that no summary on the branch stands for yet."""
    prompts = [index for index, message in enumerate(path) if message.role is Role.USER]
    if len(prompts) <= keep_turns:
        return [], list(path)
    cut = prompts[-keep_turns] if keep_turns > 0 else len(path)
    summaries = {message.id: message for message in path if message.role is Role.SYSTEM}
    older = [message for message in path[:cut] if summary_for(message, summaries) is None]
    return older, list(path[:cut])


def to_summarise(before_cut: Sequence[Message], system_prompt: str | None) -> list[dict[str, object]]:
    """The conversation the summary is asked of: the older turns as the model knows them (`SUMMARY_REQUEST` is
    put after it, or after each piece of it). A team's replies are the answers to the person's prompts,
    labelled with who gave them (sent as one agent's input they would merge with the prompts, and the request,
    into one message)."""
    told = [as_told(message) for message in before_cut]
    return Conversation.from_history(told, system_prompt).messages


def as_told(message: Message) -> Message:
    """`message` as the session's own words, a team member's reply labelled with its name."""
    if message.role is not Role.ASSISTANT or message.agent is None:
        return message
    said = labelled(message.agent, message.content) if message.content.strip() else message.content
    return replace(message, agent=None, content=said)


def stored_usage(usage: Usage | None) -> StoredUsage | None:
    if usage is None:
        return None
    return StoredUsage(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens, usage.cache_write_tokens)
