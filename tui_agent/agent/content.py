"""Provides `user_content`: a prompt and its attachments as the chat-completions API takes them.

A prompt without attachments is its text. With attachments it is a content list (OpenAI's shape, which
vLLM, llama.cpp, Ollama and LM Studio accept too): the prompt's text, then per text file a text part that names
it and holds its text in a fence (and says when it was cut), per image a text part naming it followed by an
`image_url` part with a `data:` URL. `without_images` turns the image parts of a request into a short note,
for a model that refused them (a text-only model answers 400).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import Any

from tui_agent.history.attachments import Attachment

IMAGE_LEFT_OUT = "(The image is left out: this model did not accept images.)"


def user_content(text: str, attachments: Sequence[Attachment] = ()) -> str | list[dict[str, Any]]:
    """The `content` of the user message for `text` with `attachments` (see the module docstring)."""
    if not attachments:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for attachment in attachments:
        parts.extend(attachment_parts(attachment))
    return parts


def attachment_parts(attachment: Attachment) -> list[dict[str, Any]]:
    """The content parts one attachment is sent as."""
    if attachment.kind == "image":
        url = f"data:{attachment.mime};base64,{base64.b64encode(attachment.data).decode('ascii')}"
        return [
            {"type": "text", "text": f"Attached image: {attachment.name}"},
            {"type": "image_url", "image_url": {"url": url}},
        ]
    note = f" ({attachment.note})" if attachment.note else ""
    body = attachment.text
    ticks = "`" * max(3, _longest_backticks(body) + 1)
    return [{"type": "text", "text": f"Attached file: {attachment.name}{note}\n{ticks}\n{body}\n{ticks}"}]


def has_images(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether any message carries an image part."""
    return any(_is_image(part) for message in messages for part in _parts(message))


def without_images(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with every image part replaced by a note saying it was left out (the input is unchanged)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(_is_image(part) for part in content):
            content = [{"type": "text", "text": IMAGE_LEFT_OUT} if _is_image(part) else part for part in content]
            message = {**message, "content": content}
        out.append(message)
    return out


def as_parts(content: Any) -> list[dict[str, Any]]:
    """A message's content as a list of parts (a plain text becomes one text part)."""
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": str(content or "")}]


def _parts(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def _longest_backticks(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
