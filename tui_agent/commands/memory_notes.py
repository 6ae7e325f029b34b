"""Provides `memory_file_to_edit` and `add_note`: the file `/memory` opens and `#` adds a line to — the nearest
`AGENTS.md` from the working folder up to the git root, else a new one at the git root (`agents.memory`).

A file that others could change is refused (`tui_agent.file_trust`): opening it in an editor, or adding to it, would
put words in every later system prompt on their behalf. A new file is made with the umask's mode, as an editor would.
"""

from __future__ import annotations

from pathlib import Path

from tui_agent.agents.memory import nearest_memory_file
from tui_agent.file_trust import RefusedFileError, file_problem, folder_problem


def memory_file_to_edit(cwd: Path) -> Path:
    """The `AGENTS.md` to open or add to; raises `RefusedFileError` (saying what to run) for one others could
    change, or one in a folder others could change."""
    path = nearest_memory_file(cwd)
    problem = file_problem(path) if path.exists() else folder_problem(path.parent)
    if problem is not None:
        raise RefusedFileError(f"{path}: {problem}")
    return path


def add_note(cwd: Path, note: str) -> Path:
    """Add `note` (one line: line ends become spaces) as a `- ` item at the end of the memory file; returns its
    path. Raises `RefusedFileError` or an `OSError` that says why it could not be written."""
    path = memory_file_to_edit(cwd)
    line = " ".join(note.split())
    if not line:
        raise ValueError("There is nothing to add: type the note after #.")
    before = path.read_bytes() if path.exists() else b""
    gap = b"" if not before or before.endswith(b"\n") else b"\n"
    with path.open("ab") as file:
        file.write(gap + f"- {line}\n".encode())
    return path
