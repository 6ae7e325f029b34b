"""Provides `persona_reply`: the offline model playing a team member, so teams run (and are tested) offline.

Told by the system prompt who it is:

- a critic (the prompt says "you are a (demanding) editor" or "... critic", or has the word APPROVED): it asks
  for one revision with a concrete note, and approves the draft that follows (`APPROVED`), so each run of a
  writer/critic team takes two rounds, also in a session where the team ran before;
- a writer (the prompt says "You are a writer"): a short post on the topic (the person's latest prompt); when
  another member answered its post, the post again, revised from the notes it was given; when the person
  answered it (a team paused for them) with words that are not a new topic, the post revised "as you asked".

- a team's router (offered `next_speaker`): `done` once the latest reply says APPROVED, else `next_speaker`
  with the member after the last one who spoke (the first, when none has).

A member receives the session's earlier turns and the person's prompt as one input when nothing it said came
between them (consecutive inputs are joined by a blank line), so the person's latest prompt is found at the
end of the latest input that does not end with another member's labelled words (`[critic] ...`).

Any other request gets None, and the default behaviour answers it as before. The team's control tools
(`done`, `next_speaker`) are never called from a prompt's words: `without_control` takes them out of what
the intent rules match against.
"""

from __future__ import annotations

import re
from typing import Any

from tui_agent.offline.scenario import Reply, ToolCallSpec

Message = dict[str, Any]
CONTROL_TOOLS = frozenset({"done", "next_speaker"})
CRITIC = re.compile(r"\b[Yy]ou are an? (?:\w+ )?(?:editor|critic)\b|\bAPPROVED\b")
WRITER = re.compile(r"\byou are a writer\b", re.IGNORECASE)
ABOUT = re.compile(
    r"^(?:please\s+)?(?:write\s+)?(?:a\s+)?(?:short\s+)?(?:post\s+|blog post\s+)?(?:about|on)\s+", re.IGNORECASE
)
NOTE = (
    "One revision, please: the post tells more than it shows. Open with one concrete image (a sound, a "
    "smell, a place) and end on a sentence the reader will remember."
)


def persona_reply(messages: list[Message], tools: list[dict[str, Any]] | None = None) -> Reply | None:
    """The reply of the writer, critic or team router the request describes; None for anyone else."""
    if (members := _members(tools or [])) and messages and messages[-1].get("role") == "user":
        return _route(members, _text(messages[-1]))
    system = _text(messages[0]) if messages and messages[0].get("role") == "system" else ""
    if not system or not messages or messages[-1].get("role") != "user":
        return None
    own = [_text(m) for m in messages if m.get("role") == "assistant" and _text(m).strip()]
    if WRITER.search(system):
        if note := _persons_note(messages, own):  # the person spoke while the team paused: a revision for them
            return Reply(text=_post(_own_topic(own[-1]), revised=True) + f"\n(As you asked: {note})\n", chunk_size=12)
        answered = bool(own) and _labelled(_blocks(messages[-1]))
        return Reply(text=_post(_topic(messages), revised=answered), chunk_size=12)
    if CRITIC.search(system):
        return Reply(text="APPROVED" if own and "APPROVED" not in own[-1] else NOTE, chunk_size=12)
    return None


def _members(tools: list[dict[str, Any]]) -> list[str]:
    """The members a `next_speaker` tool offers (a router's request), else none."""
    for tool in tools:
        function = tool.get("function") or {}
        if function.get("name") == "next_speaker":
            name = ((function.get("parameters") or {}).get("properties") or {}).get("name") or {}
            return [str(member) for member in name.get("enum") or []]
    return []


def _route(members: list[str], latest: str) -> Reply:
    """A router's choice: `done` once a reply says APPROVED, else the member after the last one who spoke."""
    if "APPROVED" in latest:
        return Reply(tool_calls=[ToolCallSpec(name="done", arguments={"reason": "the work is approved"})])
    spoke = [label for label in re.findall(r"^\[([\w-]+)\] ", latest, re.MULTILINE) if label in members]
    after = members[(members.index(spoke[-1]) + 1) % len(members)] if spoke else members[0]
    return Reply(tool_calls=[ToolCallSpec(name="next_speaker", arguments={"name": after})])


def without_control(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The offered tools but the team's control tools."""
    return [tool for tool in tools if (tool.get("function") or {}).get("name") not in CONTROL_TOOLS]


def _text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _blocks(message: Message) -> list[str]:
    """The paragraphs of a message (joined inputs are separated by a blank line)."""
    return [block.strip() for block in _text(message).split("\n\n") if block.strip()]


def _labelled(blocks: list[str]) -> bool:
    """Whether the last of `blocks` is another member's words (`[critic] ...`)."""
    return bool(blocks) and blocks[-1].startswith("[")


def _topic(messages: list[Message]) -> str:
    """The topic: the person's latest prompt (see the module docstring), without "write a post about"."""
    inputs = [_blocks(m) for m in messages if m.get("role") == "user"]
    blocks = next((found for found in reversed(inputs) if found and not _labelled(found)), [])
    prompt = next((block for block in reversed(blocks) if ABOUT.match(block)), blocks[-1] if blocks else "")
    line = next((part.strip() for part in prompt.splitlines() if part.strip()), "the sea")
    return ABOUT.sub("", line).strip(" .!?") or "the sea"


def _persons_note(messages: list[Message], own: list[str]) -> str | None:
    """The person's words after the writer's post that are not a new topic ("make it shorter", said while
    the team paused for them), else None."""
    blocks = _blocks(messages[-1])
    if not own or not blocks or _labelled(blocks) or ABOUT.match(blocks[-1]):
        return None
    return blocks[-1].splitlines()[0].strip()


def _own_topic(post: str) -> str:
    """The topic of the writer's own post, from its heading ("## Tea, again" -> "tea")."""
    heading = post.strip().splitlines()[0].removeprefix("## ").removesuffix(", again")
    return heading[:1].lower() + heading[1:] or "the sea"


def _post(topic: str, *, revised: bool) -> str:
    if revised:
        return (
            f"## {topic[:1].upper()}{topic[1:]}, again\n\n"
            f"Listen first: {topic} has a sound, and a smell, and a place where it is most itself. Stand "
            "there for a minute and it stops being an idea and becomes something you could touch.\n\n"
            f"Come for {topic}; stay for the quiet it makes.\n"
        )
    return (
        f"## {topic[:1].upper()}{topic[1:]}\n\n"
        f"{topic[:1].upper()}{topic[1:]} is worth a moment of anyone's day. It is simple, it is everywhere, "
        "and it rewards a little attention: the more you look, the more there is to see.\n"
    )
