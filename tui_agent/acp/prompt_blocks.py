"""Provides `read_prompt`: an ACP prompt (content blocks) as what our turn takes, the prompt's text and its
attachments.

Text blocks are the prompt. A file the editor embeds (an @-mention: a text resource) or links (`file://`) is
attached as `--attach` / `@` attach one: the model gets it with the prompt, and history keeps it. An image
(PNG, JPEG, GIF, WebP) is attached as an image. What cannot be attached (audio, a binary resource, a link that
is no local file, a file that cannot be read) is named in the text instead and said in `problems`, never dropped
without a word.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

from tui_agent.history.attachments import AttachmentError, load_attachment, sent_name
from tui_agent.payloads import Attachment

Block = TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock


@dataclass
class Prompt:
    """A prompt as our turn takes it."""

    text: str = ""
    attachments: list[Attachment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """What was not attached, and why (said to the editor as the reply's first words)."""


def read_prompt(blocks: Sequence[Block], cwd: Path, max_bytes: int) -> Prompt:
    """The text and attachments of `blocks` (text files cut at `max_bytes`, as `[ui] attach_max_bytes` says)."""
    prompt = Prompt()
    texts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ImageContentBlock):
            _attach_bytes(prompt, block.uri or "image", block.data, block.mime_type)
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            name = _name(resource.uri, cwd)
            if isinstance(resource, BlobResourceContents):
                _attach_bytes(prompt, name, resource.blob, resource.mime_type)
            else:
                prompt.attachments.append(Attachment.of_text(name, resource.text))
        elif isinstance(block, ResourceContentBlock):
            _attach_link(prompt, block, cwd, max_bytes, texts)
        else:
            prompt.problems.append("audio is not supported: left out")
    prompt.text = "\n".join(text for text in texts if text)
    return prompt


def _attach_link(prompt: Prompt, block: ResourceContentBlock, cwd: Path, max_bytes: int, texts: list[str]) -> None:
    """A linked file, read from disk; a link that is no local file stays in the text as the link."""
    path = _local_path(block.uri)
    if path is None:
        texts.append(block.uri)
        return
    try:
        prompt.attachments.append(load_attachment(path, sent_name(path, cwd), max_bytes))
    except AttachmentError as error:
        prompt.problems.append(error.user_message)
        texts.append(block.uri)


def _attach_bytes(prompt: Prompt, name: str, data: str, mime: str | None) -> None:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        prompt.problems.append(f"{name} is not valid base64: left out")
        return
    attachment = Attachment.of_bytes(name, raw, mime)
    if attachment.kind != "image":
        prompt.problems.append(f"{name} is neither text nor a PNG, JPEG, GIF or WebP image: left out")
        return
    prompt.attachments.append(attachment)


def _local_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))


def _name(uri: str, cwd: Path) -> str:
    path = _local_path(uri)
    return sent_name(path, cwd) if path is not None else uri
