"""Provides `find_memory` (`Memory`, `MemoryFile`) and `with_memory`: the memory files every agent is told.

Memory files hold a project's conventions for the agent, as Codex, Crush and opencode read `AGENTS.md` (Claude
Code its `CLAUDE.md`, gemini-cli its `GEMINI.md`). Which are read, in this order (general first, the nearest
last, so a nearer file has the last word):

1. the user's own, `AGENTS.md` in the config folder;
2. one per folder from the git root (the nearest folder above holding `.git`; without one, the working folder
   alone) down to the working folder.

In a folder without `AGENTS.md`, `CLAUDE.md` (else `GEMINI.md`) stands in unless `[memory] fallbacks = false`.
Each file is read like any other file that decides what tui-agent does as you (`tui_agent.file_trust`): one
that others could change is refused with the sentence saying why, and left out. A file over `max_bytes` is cut
with a notice. The files go into the system prompt in one delimited block naming each file's path; an agent
whose profile says `memory = false` is sent none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui_agent.config import MemorySettings
from tui_agent.file_trust import read_user_file

MEMORY_FILE = "AGENTS.md"
"""The memory file's name: the one `/memory` opens and `#` appends to."""
FALLBACKS = ("CLAUDE.md", "GEMINI.md")
"""Read, the first found, in a folder without `AGENTS.md` (other tools' names for the same file)."""
BLOCK_START = "<memory-files>"
BLOCK_END = "</memory-files>"
BLOCK_INTRO = (
    "The user's memory files: instructions and conventions for this project and this user, from the most "
    "general to the nearest (where they disagree, the nearer file wins)."
)


@dataclass(frozen=True)
class MemoryFile:
    """One memory file in force: where it is and what of it is told (cut to the cap)."""

    path: Path
    text: str
    size: int
    """Its length in bytes, before any cut."""
    cut: bool = False

    def summary(self) -> str:
        """One line for a listing: the path, its size, whether it was cut."""
        note = " — cut to the size cap (memory.max_bytes)" if self.cut else ""
        return f"{self.path} ({self.size} bytes){note}"


@dataclass(frozen=True)
class Memory:
    """The memory files in force for a working folder, and why any were left out."""

    files: tuple[MemoryFile, ...] = ()
    problems: tuple[str, ...] = ()
    """One sentence per file refused or unreadable (`file_trust`'s, with what to run)."""

    def block(self) -> str:
        """The delimited block the system prompt gets ("" when no file is in force)."""
        if not self.files:
            return ""
        parts = [BLOCK_START, BLOCK_INTRO]
        for file in self.files:
            parts.append(f'<memory-file path="{file.path}">\n{file.text.rstrip()}\n</memory-file>')
        parts.append(BLOCK_END)
        return "\n\n".join(parts)

    def listing(self) -> list[str]:
        """A line per file in force (then one per file refused), for `config show` and the palette."""
        if not self.files and not self.problems:
            return ["no memory files (AGENTS.md) in force"]
        return [file.summary() for file in self.files] + [f"refused: {problem}" for problem in self.problems]


def find_memory(cwd: Path, settings: MemorySettings, user_folder: Path) -> Memory:
    """The memory files in force in `cwd` (`user_folder`: the config folder holding the user's own)."""
    if not settings.enabled:
        return Memory()
    files: list[MemoryFile] = []
    problems: list[str] = []
    for folder in [user_folder, *project_folders(cwd)]:
        path = _file_in(folder, settings.fallbacks)
        if path is None:
            continue
        try:
            data = read_user_file(path)
        except OSError as error:  # RefusedFileError included: its sentence says what to run
            problems.append(f"{path}: {error.strerror or error}")
            continue
        text = data[: settings.max_bytes].decode("utf-8", errors="replace")
        cut = len(data) > settings.max_bytes
        if cut:
            text += f"\n[… cut: the file has {len(data)} bytes, only the first {settings.max_bytes} are read]"
        files.append(MemoryFile(path, text, len(data), cut))
    return Memory(tuple(files), tuple(problems))


def project_folders(cwd: Path) -> list[Path]:
    """The folders whose memory files count, from the git root down to `cwd` (`cwd` alone outside git)."""
    here = cwd.absolute()
    for index, folder in enumerate([here, *here.parents]):
        if (folder / ".git").exists():
            return [folder, *reversed([here, *here.parents][:index])]
    return [here]


def nearest_memory_file(cwd: Path) -> Path:
    """The `AGENTS.md` that `/memory` opens and `#` appends to: the nearest existing one from `cwd` up to the
    git root, else a new one at the git root (the working folder outside git)."""
    folders = project_folders(cwd)
    existing = [folder / MEMORY_FILE for folder in folders if (folder / MEMORY_FILE).is_file()]
    return existing[-1] if existing else folders[0] / MEMORY_FILE


def with_memory(messages: Sequence[dict[str, Any]], block: str) -> list[dict[str, Any]]:
    """`messages` as sent, with `block` at the end of the system prompt (a system message of its own when there
    is none); the stored conversation is unchanged."""
    sent = list(messages)
    if not block:
        return sent
    if sent and sent[0].get("role") == "system" and isinstance(sent[0].get("content"), str):
        sent[0] = {**sent[0], "content": f"{sent[0]['content']}\n\n{block}"}
    else:
        sent.insert(0, {"role": "system", "content": block})
    return sent


def _file_in(folder: Path, fallbacks: bool) -> Path | None:
    names: tuple[str, ...] = (MEMORY_FILE, *FALLBACKS) if fallbacks else (MEMORY_FILE,)
    for name in names:
        path = folder / name
        if path.is_file():
            return path
    return None
