"""Provides `refusal_of` and what to say: why a server answered 400 to a request that carried images.

Two different things come back as a 400: the image itself is broken (OpenAI: "You uploaded an unsupported
image", "does not represent a valid image"; llama.cpp: "Failed to load image", "failed to decode image"),
or the model takes no images at all (OpenAI: "image_url is only supported by certain models"; llama.cpp:
"image input is not supported", without an mmproj; Ollama and others: "does not support images"). A broken
image is left out for good (stored with its prompt, so a resumed session does not send it again); images a
model does not take are left out while that model is used. A 400 that says neither keeps the old wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from tui_agent.history.errors import HistoryError
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.status import Role
from tui_agent.tool_call import CallKey

Refusal = Literal["invalid", "unsupported", "unknown"]

_INVALID = re.compile(
    r"invalid[ _]image|unsupported image|image_parse_error|does not represent a valid image"
    r"|image[^.\n]{0,40}?(invalid|corrupt|malformed|could not be (decoded|processed|read)|not (a )?valid)"
    r"|(failed|unable|could not|cannot) to? ?(load|decode|process|read|parse)[^.\n]{0,20}?image",
    re.IGNORECASE,
)
_UNSUPPORTED = re.compile(
    r"(not support|does ?n[o']t support|cannot (read|accept)|no support for)[^.\n]{0,30}?(image|vision|multimodal)"
    r"|image[^.\n]{0,30}?(not supported|is only supported|not enabled|not accepted)"
    r"|multimodal[^.\n]{0,30}?(not supported|disabled|not enabled)|mmproj|invalid content type",
    re.IGNORECASE,
)

INVALID_WHY = "the server said this image is invalid"
"""Stored with each image left out because the server said it is invalid (the note the model is sent says it)."""


def refusal_of(message: str) -> Refusal:
    """Which refusal a 400's message (for a request with images) is."""
    if _INVALID.search(message):
        return "invalid"
    if _UNSUPPORTED.search(message):
        return "unsupported"
    return "unknown"


def invalid_sentence() -> str:
    return (
        "The server says the image is invalid (it could not read it). Your prompt is kept; the image is left out "
        "of this session from now on, stored so that resuming it does not send it again (a note stands for "
        "it): press Ctrl+R to ask again without it, or attach the image again in another format."
    )


def unsupported_sentence() -> str:
    return (
        "This model does not take images. Your prompt and its image are kept; while this model is used the image "
        "is left out of what is sent (a note stands for it): press Ctrl+R to ask again without it, or switch to "
        "a model that reads images."
    )


async def store_left_out(store: HistoryStore, session_id: str, why: str) -> None:
    """Mark the newest prompt on the session's branch that still sends images as leaving them out (`why`)."""
    try:
        shown = await store.load_tail(session_id, await store.count_messages(session_id))
        prompt = next((m for m in reversed(shown) if m.role is Role.USER and _sends_images(m)), None)
        if prompt is not None:
            await store.leave_out_images(prompt.id, why)
    except HistoryError:  # the store is closed or unreadable: this run still leaves the image out
        return


async def store_calls_left_out(store: HistoryStore, calls: Sequence[CallKey], why: str) -> None:
    """Mark the images these tool calls returned as left out (`why`), so a resumed session does not send them."""
    try:
        for message_id, call_id in calls:
            await store.leave_out_call_images(message_id, call_id, why)
    except HistoryError:  # the store is closed or unreadable: this run still leaves them out
        return


def _sends_images(message: Message) -> bool:
    """Whether a stored prompt still has images sent to the model (not compacted, not left out)."""
    return message.compacted_by is None and any(ref.kind == "image" and not ref.left_out for ref in message.attachments)
