"""Provides `confined` and `writable`: a path the model gave, resolved inside the working directory or refused.

Shared by the read tools (plugins/files.py) and the edit tools (plugins/edit.py, `tui_agent.tools.edits`), so
both refuse the same escapes: `..`, an absolute path elsewhere, a symlink (the file itself or any parent
folder) leading out — the path is resolved, symlinks followed, before it is checked. A file with more than one
name (a hard link) is refused by the callers that open it (its other names cannot be found). Writes never go
into a `.git` folder: an agent's edit must not touch a repository's index, refs or hooks.
"""

from __future__ import annotations

from pathlib import Path


def working_root() -> Path:
    """The working directory, symlinks resolved: what every path is confined to."""
    return Path.cwd().resolve()


def confined(path: str) -> Path:
    """Resolve `path` against the working directory; refuse anything that ends up outside it."""
    root = working_root()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise ValueError(f"{path!r} is outside the working directory ({root}); only paths inside it can be used")
    return target


def writable(path: str) -> Path:
    """`confined(path)`, also refused when it is the working directory itself or inside a `.git` folder."""
    if not path.strip():
        raise ValueError("the path must not be empty")
    target = confined(path)
    relative = target.relative_to(working_root())
    if not relative.parts:
        raise ValueError(f"{path!r} is the working directory itself, not a file")
    if ".git" in relative.parts:
        raise ValueError(f"{path!r} is inside a .git folder; the edit tools never write there")
    return target


def shown(path: Path) -> str:
    """`path` relative to the working directory, `/`-separated ("." for the directory itself)."""
    return path.relative_to(working_root()).as_posix() or "."
