"""Provides `user_content`: a prompt and its attachments as the chat-completions API takes them.

A prompt without attachments is its text. With attachments it is a content list (OpenAI's shape, which
vLLM, llama.cpp, Ollama and LM Studio accept too): the prompt's text, then per text file a text part that names
it and holds its text in a fence (and says when it was cut), per image a text part naming it followed by an
`image_url` part with a `data:` URL. `without_images` turns the image parts of a request into a short note,
for a model that refused them (a text-only model answers 400); an attachment stored as left out
(`Attachment.left_out`: the server said the image is invalid) is sent as such a note from the start.

An image a tool call returned cannot go in its `tool` message (many servers take only text there): the tool
message has the result's text with a stand-in line for it (`[image: image/png, 4033 bytes]`), and
`tool_images_content` makes the content of one user message after the round's tool results: per call a text
part naming it, then its images as a prompt's are sent (what opencode and the AI SDK send to
OpenAI-compatible servers). The conversation leaves that message out for a model that takes no images.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tui_agent.history.attachments import Attachment
from tui_agent.tool_call import ToolCall

IMAGE_LEFT_OUT = "(The image is left out: this model did not accept images.)"  # as `left_out_note` words it
IMAGE_LABEL = "Attached image: "
"""Starts the text part naming an image, sent before it."""


def user_content(text: str, attachments: Sequence[Attachment] = ()) -> str | list[dict[str, Any]]:
    """The `content` of the user message for `text` with `attachments` (see the module docstring)."""
    if not attachments:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for attachment in attachments:
        parts.extend(attachment_parts(attachment))
    return parts


def attachment_parts(attachment: Attachment) -> list[dict[str, Any]]:
    """The content parts one attachment is sent as (an image left out: a note saying so and why)."""
    if attachment.kind == "image":
        url = f"data:{attachment.mime};base64,{base64.b64encode(attachment.data).decode('ascii')}"
        image = {"type": "image_url", "image_url": {"url": url}}
        if attachment.left_out:
            image = {"type": "text", "text": left_out_note(attachment.left_out)}
        return [{"type": "text", "text": f"{IMAGE_LABEL}{attachment.name}"}, image]
    note = f" ({attachment.note})" if attachment.note else ""
    body = attachment.text
    ticks = "`" * max(3, _longest_backticks(body) + 1)
    return [{"type": "text", "text": f"Attached file: {attachment.name}{note}\n{ticks}\n{body}\n{ticks}"}]


TOOL_IMAGES_HEADING = "The images the tool calls above returned:"
"""Starts the user message that carries the images tool calls returned."""


def tool_images_content(calls: Sequence[ToolCall], payloads: Mapping[str, bytes]) -> list[dict[str, Any]]:
    """The content of the user message carrying the images `calls` returned, with their bytes from each
    call's `attachment_data` or `payloads` (by hash); empty when there is none to send."""
    parts: list[dict[str, Any]] = []
    for call in calls:
        images = [
            Attachment.restored(ref, data)
            for ref in call.attachments
            if ref.kind == "image" and (data := call.attachment_data.get(ref.hash, payloads.get(ref.hash))) is not None
        ]  # (one left out is sent as a note saying why)
        if images:
            parts.append({"type": "text", "text": f"From {call.name} (call {call.call_id}):"})
            parts.extend(part for image in images for part in attachment_parts(image))
    return [{"type": "text", "text": TOOL_IMAGES_HEADING}, *parts] if parts else []


def left_out_note(why: str) -> str:
    """What the model is sent in place of an image that is left out (after the part that names it)."""
    return f"(The image is left out: {why}.)"


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


def leave_out_newest_images(messages: list[dict[str, Any]], why: str) -> bool:
    """Replace the image parts of the newest message that has any by a note saying `why` (in place: what the
    server refused is not sent again); False when no message has an image."""
    for message in reversed(messages):
        content = message.get("content")
        if isinstance(content, list) and any(_is_image(part) for part in content):
            note = {"type": "text", "text": left_out_note(why)}
            message["content"] = [note if _is_image(part) else part for part in content]
            return True
    return False


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
