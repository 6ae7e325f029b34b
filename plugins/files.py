"""Files plugin: list a directory, read a text file, search files for a string — read-only.

Everything is confined to the working directory (`tui_agent.tools.confinement`, shared with the edit tools):
a path is resolved (symlinks included) and refused when it lands outside. Reads and searches are
size-capped so a huge tree or file cannot flood the model.

Only regular files are read: a FIFO, device or socket in the tree would block the read (a FIFO until a writer
comes, /dev/zero forever), so `read_file` refuses them and `search_files` skips them, without blocking on the
open either. A file with more than one name (a hard link, `st_nlink > 1`) is refused and skipped too: a link
made inside the working directory to a file outside it (`ln ~/.ssh/id_ed25519 key`, same file system) looks
like any other file here, and its other names cannot be found without walking the whole file system, so no
check of where they are is possible. The cost: files that tools hard-link on purpose (pnpm's store, uv's
cache in a `.venv`, `git clone --local`) cannot be read with these tools.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from tui_agent.regular_files import not_regular, open_regular
from tui_agent.tools import tool
from tui_agent.tools.confinement import confined, shown

MAX_LISTED = 500
MAX_READ_BYTES = 24 * 1024
"""Below the runner's default output cap, so a read is never cut mid-way."""
MAX_SEARCHED_FILES = 5000
MAX_SEARCH_FILE_BYTES = 1024 * 1024
MAX_MATCHES = 100

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache"})


def _shown(path: Path) -> str:
    return shown(path)


@tool(approval="never", effect="read")
def list_directory(path: str = ".") -> str:
    """List the files and folders in a directory inside the working directory.

    Args:
        path: Directory to list, relative to the working directory.
    """
    folder = confined(path)
    if not folder.is_dir():
        raise ValueError(f"{path!r} is not a directory")
    entries = sorted(folder.iterdir(), key=lambda entry: (not entry.is_dir(), entry.name.lower()))
    lines = [_entry_line(entry) for entry in entries[:MAX_LISTED]]
    if len(entries) > MAX_LISTED:
        lines.append(f"… and {len(entries) - MAX_LISTED} more entries")
    return f"{_shown(folder)}/ ({len(entries)} entries)\n" + "\n".join(lines)


def _entry_line(entry: Path) -> str:
    if entry.is_symlink():
        return f"{entry.name} -> (symlink)"
    if entry.is_dir():
        return f"{entry.name}/"
    try:
        return f"{entry.name}  ({entry.stat().st_size} bytes)"
    except OSError:
        return entry.name


@tool(approval="never", effect="read")
def read_file(path: str, start_line: int = 1) -> str:
    """Read a text file inside the working directory, up to 24 KiB from a given line.

    Args:
        path: File to read, relative to the working directory.
        start_line: First line to show (1-based); use it to read a long file piece by piece.
    """
    target = confined(path)
    if target.is_dir():
        raise ValueError(f"{path!r} is a directory, not a file")
    if start_line < 1:
        raise ValueError("start_line counts from 1")
    with opened(target, path) as handle:
        if b"\0" in handle.read(8192):
            raise ValueError(f"{path!r} looks like a binary file; only text files can be read")
        handle.seek(0)
        return _lines_from(handle, start_line)


def opened(target: Path, shown: str) -> BinaryIO:
    """`target` opened for reading if it is a regular file with one name; ValueError (saying why) if not.

    Checked before the open (a device is never opened) and again on the open file (it cannot have been
    swapped in between)."""
    try:
        problem = _unreadable(os.stat(target))
    except FileNotFoundError:
        problem = "does not exist"
    if problem is not None:
        raise ValueError(f"{shown!r} {problem}")
    return open_regular(target, lambda info: _refused(info, shown))


def _refused(info: os.stat_result, shown: str) -> ValueError | None:
    return None if (problem := _unreadable(info)) is None else ValueError(f"{shown!r} {problem}")


def _unreadable(info: os.stat_result) -> str | None:
    """Why a file with this status is not read (see the module docstring), or None."""
    if (what := not_regular(info.st_mode)) is not None:
        return f"is {what}, not a regular file; only regular files are read"
    if info.st_nlink > 1:
        return (
            f"has {info.st_nlink} names (hard links); another may be outside the working directory, so it is "
            "not read (a copy of it can be)"
        )
    return None


def _lines_from(handle: BinaryIO, start_line: int) -> str:
    kept: list[bytes] = []
    size = 0
    for number, line in enumerate(handle, start=1):
        if number < start_line:
            continue
        if not kept and len(line) > MAX_READ_BYTES:
            start = line[:MAX_READ_BYTES].decode("utf-8", errors="ignore")
            return f"{start}\n[line {number} is longer than {MAX_READ_BYTES} bytes; only its start is shown]"
        if size + len(line) > MAX_READ_BYTES:
            text = b"".join(kept).decode("utf-8", errors="replace")
            separator = "" if text.endswith("\n") else "\n"
            return f"{text}{separator}[stopped at {MAX_READ_BYTES} bytes; continue with start_line={number}]"
        kept.append(line)
        size += len(line)
    if not kept and start_line > 1:
        return f"[the file has fewer than {start_line} lines]"
    return b"".join(kept).decode("utf-8", errors="replace")


@tool(approval="never", effect="read")
def search_files(text: str, path: str = ".") -> str:
    """Search the text files under a directory for lines containing a string (case-sensitive).

    Args:
        text: The exact string to look for.
        path: Directory to search, relative to the working directory.
    """
    if not text:
        raise ValueError("the search text must not be empty")
    folder = confined(path)
    if not folder.is_dir():
        raise ValueError(f"{path!r} is not a directory")
    matches: list[str] = []
    skipped = 0
    for file in _text_files(folder):
        found = _matches_in(file, text, MAX_MATCHES - len(matches))
        skipped += found is None
        matches.extend(found or [])
        if len(matches) >= MAX_MATCHES:
            matches.append(f"[stopped after {MAX_MATCHES} matches]")
            break
    if skipped:
        matches.append(
            f"[{skipped} files skipped: not regular files (FIFOs, devices) or with several names (hard links)]"
        )
    return "\n".join(matches) if matches else f"no lines containing {text!r} under {_shown(folder)}"


def _text_files(folder: Path) -> Iterator[Path]:
    root = Path.cwd().resolve()
    seen = 0
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if name not in SKIPPED_DIRS)
        for name in sorted(files):
            file = Path(current) / name
            if file.is_symlink() and not file.resolve().is_relative_to(root):
                continue
            seen += 1
            if seen > MAX_SEARCHED_FILES:
                return
            yield file


def _matches_in(file: Path, text: str, room: int) -> list[str] | None:
    """The lines of `file` containing `text` (at most `room`); None when the file is not read at all (see
    `opened`)."""
    try:
        if file.stat().st_size > MAX_SEARCH_FILE_BYTES:
            return []
        with opened(file, str(file)) as handle:
            data = handle.read(MAX_SEARCH_FILE_BYTES + 1)
    except ValueError:
        return None
    except OSError:
        return []
    if b"\0" in data[:8192]:
        return []
    found: list[str] = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        if text in line and len(found) < room:
            found.append(f"{_shown(file)}:{number}: {line.strip()[:200]}")
    return found
