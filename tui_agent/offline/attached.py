"""Provides what the offline model makes of a prompt's files and images (OpenAI content lists).

tui-agent sends a prompt with attachments as a content list: its text, then per file a text part starting
`Attached file: NAME`, per image a text part `Attached image: NAME` and an `image_url` part. `received` splits
such a content into the prompt's own words and what came with it ("an image (shot.png)", "the file
notes.txt"), so the offline model can say, deterministically, what it got. A text-only scenario
(`text_only`) refuses any image with 400, as a model without a vision encoder does; one that checks images
(`check_images`) refuses an image that is not whole, as OpenAI does.
"""

from __future__ import annotations

import base64
from typing import Any

NO_IMAGES = "This model does not support image inputs (image_url content parts are not accepted)."
INVALID_IMAGE = (
    "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one the "
    "following formats: ['png', 'jpeg', 'gif', 'webp']."
)
"""OpenAI's 400 for an image it cannot read (a `check_images` scenario answers it to an image that is not whole)."""
_ENDINGS = {"image/png": b"IEND\xaeB`\x82", "image/jpeg": b"\xff\xd9", "image/gif": b";"}
FILE_MARK = "Attached file: "
IMAGE_MARK = "Attached image: "
TOOL_IMAGES_MARK = "The images the tool calls above returned:"
"""Starts the user message tui-agent sends a tool's images in, after the tool results
(`tui_agent.agent.content.TOOL_IMAGES_HEADING`)."""
LEFT_OUT_MARK = "(The image is left out"
"""How tui-agent's note for an image it no longer sends begins (`tui_agent.agent.content.IMAGE_LEFT_OUT`)."""


def has_image(messages: Any) -> bool:
    """Whether any message of a request has an `image_url` part."""
    return any(
        isinstance(part, dict) and part.get("type") == "image_url"
        for message in (messages if isinstance(messages, list) else [])
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for part in message["content"]
    )


def has_broken_image(messages: Any) -> bool:
    """Whether an `image_url` part of a request is a data URL whose bytes are not a whole PNG, JPEG or GIF (bad
    base64, a cut file, another format): what a server that decodes images refuses."""
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url" and not _whole(part.get("image_url")):
                return True
    return False


def _whole(image_url: Any) -> bool:
    url = image_url.get("url") if isinstance(image_url, dict) else None
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        return False
    mime, _, data = url[len("data:") :].partition(";base64,")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        return False
    ending = _ENDINGS.get(mime)
    return ending is not None and raw.endswith(ending)


def received(content: Any) -> tuple[str, list[str]]:
    """(the prompt's own text, what came with it in the user's words) of a message content."""
    if not isinstance(content, list):
        return (content if isinstance(content, str) else ""), []
    words: list[str] = []
    things: list[str] = []
    named_image: str | None = None
    for part in content:
        if not isinstance(part, dict):
            continue
        text = str(part.get("text", ""))
        if part.get("type") == "image_url":
            things.append(f"an image ({named_image})" if named_image else "an image")
            named_image = None
        elif text.startswith(FILE_MARK):
            things.append(f"the file {text[len(FILE_MARK) :].splitlines()[0]}")
        elif text.startswith(IMAGE_MARK):
            named_image = text[len(IMAGE_MARK) :].strip()
        elif text.startswith(LEFT_OUT_MARK):
            things.append(f"a note that the image {named_image or ''} was left out".replace("  ", " "))
            named_image = None
        elif text.strip():
            words.append(text.strip())
    return " ".join(words), things


def received_sentence(things: list[str]) -> str:
    """`I received an image (a.png) and the file b.txt.`"""
    listed = things[0] if len(things) == 1 else ", ".join(things[:-1]) + " and " + things[-1]
    return f"I received {listed}."
