"""Provides `load_attachment`: a file or image read from disk to send with a prompt (and the payload values).

An `Attachment` is the bytes sent (a text file's text, capped; an image's bytes) with its name (relative to the
working directory, or the file name: `sent_name`; never the absolute path), kind and type;
an `AttachmentRef` is what a message keeps: both live in `tui_agent.payloads` (a tool's result carries them
too) and are named here as well. `load_attachment` reads one from disk: an image is known by
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
from pathlib import Path

from tui_agent.errors import UserError
from tui_agent.payloads import KINDS as KINDS
from tui_agent.payloads import Attachment as Attachment
from tui_agent.payloads import AttachmentKind as AttachmentKind
from tui_agent.payloads import AttachmentRef as AttachmentRef
from tui_agent.payloads import human_size as human_size
from tui_agent.payloads import image_mime as image_mime
from tui_agent.regular_files import Refusal, not_regular, open_regular

DEFAULT_MAX_BYTES = 256_000
"""A text file is cut after this many bytes unless `[ui] attach_max_bytes` says otherwise."""
MAX_IMAGE_BYTES = 20_000_000
"""An image larger than this is refused (providers refuse ~20 MB; a data URL of more helps nobody)."""
SNIFF_BYTES = 8192


class AttachmentError(UserError, ValueError):
    """A file that cannot be attached (missing, unreadable, binary, an image too big); the message names it."""


def looks_binary(head: bytes) -> bool:
    """A NUL byte, or bytes that are not UTF-8 (a cut multi-byte character at the end is allowed)."""
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start < len(head) - 3
    return False


def sent_name(path: Path, cwd: Path | None = None) -> str:
    """What an attached file is called to the model (and in history, and on its chip): its path relative to the
    working directory `cwd` when it is inside it, else its file name. Never an absolute path: the model is told
    the name, and a remote provider would learn the user's directory layout."""
    given = path.expanduser()
    if not given.is_absolute() and ".." not in given.parts:
        return str(given)
    here = Path.cwd() if cwd is None else cwd
    full = Path(os.path.normpath(here / given))
    return str(full.relative_to(here)) if full.is_relative_to(here) and full != here else full.name


def load_attachment(path: Path, name: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> Attachment:
    """Read `path` as an attachment; `name` is the path as the user gave it (default: `path`), which errors
    say, and the attachment is named after it by `sent_name`. See the module docstring."""
    shown = name or str(path)
    named = sent_name(Path(shown))
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
        return Attachment("image", named, mime, data)
    if looks_binary(head):
        raise AttachmentError(
            f"{shown} is a binary file: only text files and PNG, JPEG, GIF or WebP images can be attached."
        )
    if len(data) <= limit:
        return Attachment("file", named, "text/plain", data)
    kept = data[:limit].decode("utf-8", errors="ignore").encode("utf-8")  # not inside a character
    note = f"cut at {human_size(len(kept))} of {human_size(total)}"
    return Attachment("file", named, "text/plain", kept, note)


def _refused(shown: str) -> Refusal:
    """What keeps a file from being attached: anything but a regular file (a FIFO would never end)."""

    def refuse(info: os.stat_result) -> Exception | None:
        if stat.S_ISDIR(info.st_mode):
            return AttachmentError(f"{shown} is a folder: only files can be attached.")
        if (what := not_regular(info.st_mode)) is not None:
            return AttachmentError(f"{shown} is {what}, not a regular file: only files can be attached.")
        return None

    return refuse
