"""Provides the edit tools' work: `plan_write`, `plan_edit` (what a call would change, nothing written) and
`write_atomically`.

The tools themselves are in the shipped plugin plugins/edit.py; the approval dialog previews a call with the
same planning code (`edit_preview.preview`), so the diff the user approves is the diff that is written.

A file is edited only when it is a regular file with one name (`confinement` explains the hard-link
refusal), at most `edit_limit.max_bytes` (config `[tools] edit_max_bytes`, 2 MB by default), without NUL
bytes (binary), and UTF-8 with or without a BOM. What the file was is kept: its line endings (CRLF when
every line ends so), its BOM, its mode bits and whether it ends with a newline. A write goes to a temporary
file in the same folder, is flushed to disk and renamed over the old file, so a crash at any moment leaves
the old file or the new one, never half of one.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui_agent.content_names import name_soon
from tui_agent.payloads import FileChange
from tui_agent.regular_files import not_regular, open_regular
from tui_agent.tools.confinement import shown, writable

MAX_EDIT_BYTES = 2 * 1024 * 1024
"""The largest file the edit tools change (or write) by default: bigger ones are refused, so a call cannot
flood memory."""
BOM = b"\xef\xbb\xbf"


@dataclass
class EditLimit:
    """The edit tools' size cap, set from config (`[tools] edit_max_bytes`) when the tool registry is built:
    the tools are plugin functions and see no settings."""

    max_bytes: int = MAX_EDIT_BYTES


edit_limit = EditLimit()


@dataclass(frozen=True)
class Planned:
    """What one call would write: the resolved file, its change, and the mode the new file gets (None: new)."""

    target: Path
    change: FileChange
    mode: int | None


@dataclass(frozen=True)
class _Shape:
    """What is kept of a file across an edit: BOM, line endings and final newline."""

    bom: bool
    crlf: bool
    final_newline: bool


def existing_file(target: Path, shown_path: str, cap: int) -> tuple[bytes, int] | None:
    """The bytes and mode of the file at `target`, None when there is none; ValueError when it is refused."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    if (what := not_regular(info.st_mode)) is not None:
        raise ValueError(f"{shown_path!r} is {what}, not a regular file; only regular files are edited")
    if info.st_nlink > 1:
        raise ValueError(
            f"{shown_path!r} has {info.st_nlink} names (hard links); another may be outside the working directory, "
            "so it is not written"
        )
    if info.st_size > cap:
        raise ValueError(f"{shown_path!r} is {info.st_size} bytes, over the edit tools' cap of {cap} bytes")
    with open_regular(target, lambda _info: None) as handle:
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise ValueError(f"{shown_path!r} is over the edit tools' cap of {cap} bytes")
    return data, info.st_mode & 0o7777


def _text(data: bytes, shown_path: str) -> tuple[str, _Shape]:
    """The file's text with LF line endings, and its shape; ValueError for binary or non-UTF-8 content."""
    if b"\0" in data:
        raise ValueError(f"{shown_path!r} looks like a binary file; the edit tools change only text files")
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{shown_path!r} is not UTF-8 text (byte {error.start} cannot be read as UTF-8); the edit tools "
            "only change UTF-8 files, with or without a BOM"
        ) from None
    line_ends = text.count("\n")
    crlf = line_ends > 0 and text.count("\r\n") == line_ends
    if crlf:
        text = text.replace("\r\n", "\n")
    return text, _Shape(bom, crlf, text.endswith("\n"))


def _encoded(text: str, shape: _Shape | None) -> bytes:
    """`text` (LF endings) written back in the file's shape (as given for a new file)."""
    if shape is None:
        return text.encode("utf-8")
    if text and shape.final_newline and not text.endswith("\n"):
        text += "\n"
    elif not shape.final_newline and text.endswith("\n"):
        text = text[:-1]
    if shape.crlf:
        text = text.replace("\n", "\r\n")
    return (BOM if shape.bom else b"") + text.encode("utf-8")


def plan_write(path: str, content: str, *, cap: int | None = None) -> Planned:
    """What `write_file(path, content)` would write; ValueError saying why when it would be refused."""
    cap = cap or edit_limit.max_bytes
    target = writable(path)
    if target.is_dir():
        raise ValueError(f"{path!r} is a directory, not a file")
    shown_path = shown(target)
    existing = existing_file(target, shown_path, cap)
    content = content.replace("\r\n", "\n")
    if existing is None:
        after = content.encode("utf-8")
        planned = Planned(target, FileChange(shown_path, None, after), None)
    else:
        before, mode = existing
        _, shape = _text(before, shown_path)
        after = _encoded(content, shape)
        planned = Planned(target, FileChange(shown_path, before, after), mode)
    if len(after) > cap:
        raise ValueError(f"the new content is {len(after)} bytes, over the edit tools' cap of {cap} bytes")
    return planned


def plan_edit(path: str, edits: Sequence[Mapping[str, Any]], *, cap: int | None = None) -> Planned:
    """What `edit_file(path, edits)` would write: each edit's `old` replaced by its `new`, in order.

    Each `old` must occur exactly once in the text as the earlier edits left it; otherwise ValueError naming
    the edit, with the nearest lines (none found) or the lines of every match (several)."""
    cap = cap or edit_limit.max_bytes
    target = writable(path)
    shown_path = shown(target)
    if not edits:
        raise ValueError("no edits given: each edit is {old, new}")
    existing = existing_file(target, shown_path, cap)
    if existing is None:
        raise ValueError(f"{shown_path!r} does not exist; create it with write_file")
    before, mode = existing
    text, shape = _text(before, shown_path)
    for number, edit in enumerate(edits, start=1):
        text = _replaced(text, edit, number, len(edits), shown_path)
    after = _encoded(text, shape)
    if len(after) > cap:
        raise ValueError(f"the edited file would be {len(after)} bytes, over the edit tools' cap of {cap} bytes")
    return Planned(target, FileChange(shown_path, before, after), mode)


def _replaced(text: str, edit: Mapping[str, Any], number: int, count: int, shown_path: str) -> str:
    which = f"edit {number} of {count}" if count > 1 else "the edit"
    old, new = edit.get("old"), edit.get("new")
    if not isinstance(old, str) or not isinstance(new, str):
        raise ValueError(f"{which}: each edit needs `old` and `new` strings")
    old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if not old:
        raise ValueError(f"{which}: `old` is empty; give the exact text to replace (or use write_file)")
    found = text.count(old)
    if found == 0:
        raise ValueError(
            f"{which}: `old` was not found in {shown_path}; it must match the file exactly (spaces and "
            f"indentation too). The nearest lines:\n{_nearest(text, old)}"
        )
    if found > 1:
        lines = _match_lines(text, old)
        raise ValueError(
            f"{which}: `old` matches {found} times in {shown_path} (lines {', '.join(map(str, lines))}); "
            "include more of the surrounding text so it matches exactly once"
        )
    return text.replace(old, new, 1)


def _match_lines(text: str, old: str) -> list[int]:
    lines, start = [], 0
    while (at := text.find(old, start)) != -1:
        lines.append(text.count("\n", 0, at) + 1)
        start = at + 1
    return lines[:20]


def _nearest(text: str, old: str) -> str:
    """The file's lines most like the first line of `old`, numbered, with a line of context each side."""
    lines = text.splitlines()
    wanted = next((line.strip() for line in old.splitlines() if line.strip()), old.strip())
    scored = [
        (difflib.SequenceMatcher(None, wanted, line.strip()).ratio(), number) for number, line in enumerate(lines)
    ]
    best = sorted((item for item in scored if item[0] >= 0.5), reverse=True)[:2]
    if not best:
        return "(no line resembles it; read the file again)"
    shown_lines: list[str] = []
    for _, number in sorted(best, key=lambda item: item[1]):
        for index in range(max(0, number - 1), min(len(lines), number + 2)):
            entry = f"{index + 1:>5}: {lines[index]}"
            if entry not in shown_lines:
                shown_lines.append(entry)
    return "\n".join(shown_lines)


def write_atomically(planned: Planned, *, recorded: bool = True) -> None:
    """Write `planned.change.after` to its file: a temporary file in the same folder, flushed, renamed over
    (a deletion, `after` None: the file removed). `recorded`: the change will be recorded in history, whose
    names for its contents are started on another thread as the file's flush starts, so that the hashing fills
    the wait for the disk rather than competing with this thread's own work (False: a write nothing records)."""
    data = planned.change.after
    if data is None:
        if recorded:
            name_soon(planned.change.before)
        planned.target.unlink()
        sync_folder(planned.target.parent)
        return
    folder = planned.target.parent
    folder.mkdir(parents=True, exist_ok=True)
    writable(shown(planned.target))  # the folders just made (or found) must still resolve inside
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{planned.target.name}.", suffix=".tui-agent-tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            if recorded:  # now, not before: the hashing overlaps the flush's wait, not this thread's own work
                name_soon(planned.change.before, data)
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), planned.mode if planned.mode is not None else 0o666 & ~UMASK)
        os.replace(temporary, planned.target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_folder(folder)


def sync_folder(folder: Path) -> None:
    """Flush the rename itself to disk (where a folder can be opened: not on Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _read_umask() -> int:
    """The process's umask: from /proc on Linux (reading it changes nothing); elsewhere set and put back at
    once, at import, while no file is being made."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _read_umask()
