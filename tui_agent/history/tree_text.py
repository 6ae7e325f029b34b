"""Provides `tree_lines`: a session's messages drawn as a tree, one line per message (`sessions show --tree`).

A line holds the branch markers, `●` for a message on the active branch (`○` off it), the role, the first
words and the status when it is not `complete`. A run of messages with one child each stays at the same
indentation, so a linear session reads as a plain list; a message with several children draws `├─`/`└─`.
"""

from __future__ import annotations

from collections.abc import Iterator

from tui_agent.history.models import Message
from tui_agent.status import MessageStatus

WORDS = 48
"""Characters of a message's text shown on its line."""
ACTIVE, OTHER = "●", "○"


def active_path(messages: list[Message], leaf_id: str | None) -> set[str]:
    """The ids on the path from the first message to `leaf_id`."""
    parents = {m.id: m.parent_id for m in messages}
    path: set[str] = set()
    node = leaf_id
    while node is not None and node in parents and node not in path:
        path.add(node)
        node = parents[node]
    return path


def tree_lines(messages: list[Message], leaf_id: str | None) -> Iterator[str]:
    """The tree of `messages` (in creation order, each naming its parent), one line per message, depth first."""
    on_path = active_path(messages, leaf_id)
    known = {m.id for m in messages}
    children: dict[str | None, list[Message]] = {}
    for message in messages:  # a parent missing from the list (not expected) makes a root of its child
        children.setdefault(message.parent_id if message.parent_id in known else None, []).append(message)
    # A stack instead of recursion: a linear session of 10,000 messages is 10,000 levels deep.
    stack: list[tuple[Message, str, str]] = []
    _push(stack, children.get(None, []), "")
    while stack:
        message, lead, rest = stack.pop()
        yield f"{lead}{describe(message, message.id in on_path)}"
        _push(stack, children.get(message.id, []), rest)


def _push(stack: list[tuple[Message, str, str]], below: list[Message], rest: str) -> None:
    """Push the messages after one (each with its line's lead and its own children's), the first on top."""
    if len(below) == 1:  # no branch here: the same indentation
        stack.append((below[0], rest, rest))
        return
    for index, child in reversed(list(enumerate(below))):
        last = index == len(below) - 1
        stack.append((child, rest + ("└─ " if last else "├─ "), rest + ("   " if last else "│  ")))


def describe(message: Message, active: bool) -> str:
    """One message's line without its branch markers."""
    text = " ".join(message.content.split()) or "(no text)"
    words = text if len(text) <= WORDS else text[: WORDS - 1] + "…"
    calls = len(message.tool_calls)
    if calls:
        words += f" (+{calls} tool call{'s' if calls != 1 else ''})"
    notes = [] if message.status is MessageStatus.COMPLETE else [message.status.value]
    notes += ["retried"] if message.replaced_by else []
    status = f"  [{', '.join(notes)}]" if notes else ""
    return f"{ACTIVE if active else OTHER} {message.role.value:<9} {words}{status}  {message.id[:8]}"
