"""Provides attachments: files and images sent with a prompt, what a message keeps of them, and reading one.

An `Attachment` is the bytes sent (a text file's text, capped; an image's bytes) with its name, kind and type;
an `AttachmentRef` is what a message keeps (its `file`/`image` part in `message_parts`, as JSON): the name,
type, size and the SHA-256 of the bytes, which are stored once in the `attachments` table however many messages
carry them (`tui_agent.history.attachment_rows`). `load_attachment` reads one from disk: an image is known by
its magic bytes (PNG, JPEG, GIF, WebP), anything else must be UTF-8 text (a binary file is refused by name),
and text longer than the cap is cut with a note saying so. Only a regular file (or a symlink to one) can be
attached: a FIFO would wait for a writer forever and a device never ends, so they are refused by name, and
the open itself never waits (`O_NONBLOCK`, the kind checked on the open file).

Standard library only, and what is heavier (hashlib, json) imported where it is used: the prompt loads this
module when it first attaches something.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tui_agent.errors import UserError
from tui_agent.regular_files import Refusal, not_regular, open_regular

AttachmentKind = Literal["file", "image"]
KINDS: tuple[AttachmentKind, ...] = ("file", "image")
"""The `message_parts` kinds an attachment is stored as."""
DEFAULT_MAX_BYTES = 256_000
"""A text file is cut after this many bytes unless `[ui] attach_max_bytes` says otherwise."""
MAX_IMAGE_BYTES = 20_000_000
"""An image larger than this is refused (providers refuse ~20 MB; a data URL of more helps nobody)."""
SNIFF_BYTES = 8192


class AttachmentError(UserError, ValueError):
    """A file that cannot be attached (missing, unreadable, binary, an image too big); the message names it."""


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


def looks_binary(head: bytes) -> bool:
    """A NUL byte, or bytes that are not UTF-8 (a cut multi-byte character at the end is allowed)."""
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start < len(head) - 3
    return False


def load_attachment(path: Path, name: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> Attachment:
    """Read `path` as an attachment named `name` (default: the path as given); see the module docstring."""
    shown = name or str(path)
    try:
        with open_regular(path, _refused(shown)) as file:
            head = file.read(SNIFF_BYTES)
            mime = image_mime(head)
            limit = MAX_IMAGE_BYTES if mime else max(max_bytes, 1)
            data = head + file.read(max(limit + 1 - len(head), 0))
            total = os.fstat(file.fileno()).st_size
    except OSError as error:
        raise AttachmentError(f"{shown} could not be read ({error.strerror or error}): not attached.") from None
    if mime is not None:
        if len(data) > MAX_IMAGE_BYTES:
            raise AttachmentError(f"{shown} is too big to send ({human_size(total)}; images up to 20 MB).")
        return Attachment("image", shown, mime, data)
    if looks_binary(head):
        raise AttachmentError(
            f"{shown} is a binary file: only text files and PNG, JPEG, GIF or WebP images can be attached."
        )
    if len(data) <= limit:
        return Attachment("file", shown, "text/plain", data)
    kept = data[:limit].decode("utf-8", errors="ignore").encode("utf-8")  # not inside a character
    note = f"cut at {human_size(len(kept))} of {human_size(total)}"
    return Attachment("file", shown, "text/plain", kept, note)


def _refused(shown: str) -> Refusal:
    """What keeps a file from being attached: anything but a regular file (a FIFO would never end)."""

    def refuse(info: os.stat_result) -> Exception | None:
        if stat.S_ISDIR(info.st_mode):
            return AttachmentError(f"{shown} is a folder: only files can be attached.")
        if (what := not_regular(info.st_mode)) is not None:
            return AttachmentError(f"{shown} is {what}, not a regular file: only files can be attached.")
        return None

    return refuse
