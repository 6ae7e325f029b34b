"""Provides `ToolResult`: what a tool returns when its answer carries more than text (an image it made).

A tool returns text (or anything `output.to_text` turns into text), an `Attachment` alone, or a `ToolResult`
of text and attachments. The runner caps the text as always and adds a stand-in line per attachment
(`[image: image/png, 4033 bytes]`); the call keeps the attachments (`ToolCall.attachments` and their bytes),
history stores each once, the chat shows a chip for each under the tool's panel, and a model that takes
images is sent them after the tool's text (`tui_agent.agent.content`). `Attachment.of_bytes(name, data)`
makes one from bytes; an image is known by its bytes (PNG, JPEG, GIF, WebP).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tui_agent.payloads import Attachment, FileChange

MAX_ATTACHMENT_BYTES = 20_000_000
"""An attachment larger than this is not kept (providers refuse ~20 MB images): its stand-in says so."""


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: `text` for the model, and `attachments` (images...) that go with it."""

    text: str = ""
    attachments: Sequence[Attachment] = ()
    changes: Sequence[FileChange] = ()
    """The files the call changed (an edit tool's own record of what it wrote)."""


def split_result(value: Any) -> tuple[Any, tuple[Attachment, ...], tuple[FileChange, ...]]:
    """The value whose text the model gets, the attachments that go with it and the files it says it changed
    (none of either for a plain value)."""
    if isinstance(value, Attachment):
        return "", (value,), ()
    if isinstance(value, ToolResult):
        attachments = tuple(a for a in value.attachments if isinstance(a, Attachment))
        return value.text, attachments, tuple(c for c in value.changes if isinstance(c, FileChange))
    return value, (), ()


def with_stand_ins(text: str, attachments: Sequence[Attachment]) -> tuple[str, tuple[Attachment, ...]]:
    """`text` with a stand-in line for each attachment, and the attachments kept (one too big is dropped, its
    line saying so)."""
    lines, kept = [], []
    for attachment in attachments:
        line = attachment.ref.stand_in
        if len(attachment.data) > MAX_ATTACHMENT_BYTES:
            line += " (too big to keep: left out)"
        else:
            kept.append(attachment)
        lines.append(line)
    return "\n".join([text, *lines] if text else lines), tuple(kept)
