"""Provides `Attachment` and `AttachmentRef`: a payload (bytes with a media type) and what is kept of it.

A payload is the bytes a message part carries — a prompt's file or image, an image a tool returned — with its
name, media type, size and SHA-256. `Attachment` holds the bytes (to send and to store); `AttachmentRef` is what
a message keeps of them (name, type, size, hash), stored as a `file`/`image` part in `message_parts`, the bytes
once in the `attachments` table however many messages carry them (`tui_agent.history.attachment_rows`).

It sits at the root beside `status`, under `tool_call`: a tool call's result carries refs of what it returned,
and tools make attachments without knowing history. Standard library only, and what is heavier (hashlib,
json) imported where it is used: `tool_call` (loaded early, by every layer) imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

AttachmentKind = Literal["file", "image"]
KINDS: tuple[AttachmentKind, ...] = ("file", "image")
"""The `message_parts` kinds an attachment is stored as."""


@dataclass(frozen=True)
class AttachmentRef:
    """What a message keeps of an attachment: shown as a chip, exported, and how to find its bytes."""

    kind: AttachmentKind
    name: str
    mime: str
    size: int
    """Bytes stored (a cut text file: what was kept)."""
    hash: str
    """SHA-256 hex of the bytes: the `attachments` row that holds them."""
    note: str = ""
    """Why the stored bytes are not the whole file ("cut at 256 KB of 1.2 MB"), or empty."""
    left_out: str = ""
    """Why it is no longer sent to the model ("the server said this image is invalid"), or empty: a note stands
    for it in every later request, resumed sessions included."""

    def to_json(self) -> str:
        import json  # here: the prompt imports this module before the first frame

        return json.dumps(self.fields())

    def fields(self) -> dict[str, str | int]:
        """What a stored part (or a prompt-history line) keeps, the kind aside."""
        fields: dict[str, str | int] = {"name": self.name, "mime": self.mime, "size": self.size, "hash": self.hash}
        fields |= {"note": self.note} if self.note else {}
        return fields | ({"left_out": self.left_out} if self.left_out else {})

    @classmethod
    def from_json(cls, kind: str, content: str) -> AttachmentRef | None:
        """The ref a stored part holds; None for a part that is not one (damaged, or a newer shape)."""
        import json

        try:
            return cls.from_fields(kind, json.loads(content))
        except ValueError:
            return None

    @classmethod
    def from_fields(cls, kind: object, data: object) -> AttachmentRef | None:
        """The ref `fields()` gave `data` for; None for anything else."""
        try:
            if kind not in KINDS or not isinstance(data, dict):
                return None
            size = int(data["size"])
            ref_kind: AttachmentKind = "image" if kind == "image" else "file"
            name, mime, digest = str(data["name"]), str(data["mime"]), str(data["hash"])
            note, left_out = str(data.get("note", "")), str(data.get("left_out", ""))
            return cls(ref_kind, name, mime, size, digest, note, left_out)
        except (ValueError, KeyError, TypeError):
            return None

    @property
    def label(self) -> str:
        """`[image shot.png 12 KB]`: the chip that stands for it."""
        cut = ", cut" if self.note else ""
        cut += ", left out" if self.left_out else ""
        return f"[{self.kind} {self.name} {human_size(self.size)}{cut}]"

    @property
    def stand_in(self) -> str:
        """`[image: image/png, 4033 bytes]`: what the model is sent in its place when it is not sent itself."""
        return f"[{self.kind}: {self.mime}, {self.size} bytes]"


@dataclass(frozen=True)
class Attachment:
    """An attachment with its bytes, ready to send (and to store)."""

    kind: AttachmentKind
    name: str
    mime: str
    data: bytes = field(repr=False)
    note: str = ""
    left_out: str = ""
    """See `AttachmentRef.left_out`: sent as a note saying why, not as itself."""

    @property
    def hash(self) -> str:
        import hashlib  # here: OpenSSL's loading is not for the first frame

        return hashlib.sha256(self.data).hexdigest()

    @property
    def ref(self) -> AttachmentRef:
        return AttachmentRef(self.kind, self.name, self.mime, len(self.data), self.hash, self.note, self.left_out)

    @property
    def text(self) -> str:
        """A file's text (an image has none)."""
        return "" if self.kind == "image" else self.data.decode("utf-8", errors="replace")

    @classmethod
    def of_text(cls, name: str, text: str) -> Attachment:
        """A text attachment not read from disk (a long paste)."""
        return cls("file", name, "text/plain", text.encode("utf-8", errors="replace"))

    @classmethod
    def of_bytes(cls, name: str, data: bytes, mime: str | None = None) -> Attachment:
        """An attachment of bytes not read from a file (a tool's image): an image when its bytes are one
        (PNG, JPEG, GIF, WebP: `mime` may say so, the bytes decide), else a file of type `mime`."""
        sniffed = image_mime(data[:16])
        if sniffed is not None:
            return cls("image", name, sniffed, data)
        return cls("file", name, mime or "application/octet-stream", data)

    @classmethod
    def restored(cls, ref: AttachmentRef, data: bytes) -> Attachment:
        """The attachment a stored ref names, with the bytes stored for it."""
        return cls(ref.kind, ref.name, ref.mime, data, ref.note, ref.left_out)


def human_size(size: int) -> str:
    """`12 KB`, `1.2 MB`, `800 B`."""
    if size >= 1_000_000:
        return f"{size / 1e6:.1f} MB"
    return f"{size / 1e3:.0f} KB" if size >= 1000 else f"{size} B"


def image_mime(head: bytes) -> str | None:
    """The image type `head` (a file's first bytes) starts like, or None: PNG, JPEG, GIF and WebP only."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class FileChange:
    """One file a tool call changed in the working directory: its bytes before and after, byte-exact.

    `path` is relative to the working directory, `/`-separated. `before` is None for a file the call created,
    `after` None for one it deleted. A tool that edits files returns its changes in `ToolResult.changes`; they
    travel on the call (`ToolCall.file_changes`) to the panel, history and undo.
    """

    path: str
    before: bytes | None
    after: bytes | None
