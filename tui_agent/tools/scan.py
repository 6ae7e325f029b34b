"""Provides `WorkTree`: the files a shell command, an MCP tool or a plugin tool changed in the working directory,
found by a bounded scan before and after its call, so a rewind can take them back like an edit tool's.

A tool that reports its changes (`ToolResult(changes=...)`, the edit tools) is trusted; one whose effect is
"command" or "unknown" is watched: before it runs, every file under the working directory is stat'ed (size,
modification time, inode) and the content of each file new or changed since the last scan is read into a cache
(the first scan reads them all; later ones read only what changed, so a warm scan costs about a directory walk);
after it, a second walk finds the files whose stat changed, and each becomes a `FileChange` from the cached
content to what it holds now. Folders of tools and caches (`.git`, `node_modules`, virtualenvs,
`__pycache__`) are not watched, nor symlinks, nor SQLite's `-wal`/`-shm`/`-journal` files. The scan is bounded
(`[tools] scan_max_files`, `scan_max_bytes`): over the bound, or for a changed file whose content before was not
cached (too big), the call is **not undoable** and its result says so. Watched calls may overlap: each scan
holds the tree's lock while it reads, and a file another call changed meanwhile is put on the call whose scan
saw it first (the other then finds its content unchanged). One tree per process (`shared`): the folder is read
once, whichever agent runs the command.
"""

from __future__ import annotations

import itertools
import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.payloads import FileChange

SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
    }
)
"""Folders not watched: a repository's own data, installed packages, caches."""
SIDE_FILES = ("-wal", "-shm", "-journal")
"""SQLite's files beside a database (a history kept in the folder): they change on every write of it."""
MAX_FILE = 1024 * 1024
"""A file bigger than this is not cached: a command that changes it makes its call not undoable."""

Seen = tuple[int, int, int]
"""A file's size, modification time (ns) and inode."""


@dataclass(frozen=True)
class Walk:
    """The files under the root by relative path, and whether the walk saw all of them (within the bound)."""

    files: dict[str, Seen]
    complete: bool


@dataclass(frozen=True)
class Watched:
    """What a watched call changed: the files, and why it is not undoable (None: it is)."""

    changes: tuple[FileChange, ...]
    not_undoable: str | None = None


def walk(root: Path, max_files: int) -> Walk:
    """Every regular file under `root` (skipped folders and symlinks aside), stat'ed, up to `max_files`.

    The loop is the bare walk's (`entry.is_dir`, `entry.stat`) with as little beside it as can be: it runs once
    per file, twice per watched call (the bound is checked once per folder, not once per file)."""
    files: dict[str, Seen] = {}
    top = str(root)
    cut = len(top) + 1
    folders = [top]
    while folders:
        try:
            entries = os.scandir(folders.pop())
        except OSError:  # gone or unreadable meanwhile: what is in it is not watched
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIPPED:
                            folders.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        status = entry.stat(follow_symlinks=False)
                        files[entry.path[cut:]] = (status.st_size, status.st_mtime_ns, status.st_ino)
                except OSError:
                    continue
        if len(files) > max_files:
            return Walk(dict(itertools.islice(files.items(), max_files)), False)
    return Walk(files, True)


@dataclass
class WorkTree:
    """The working directory as the last scan left it: each file's stat and the content of those small enough
    to keep, within `max_bytes` in all."""

    max_files: int = 20_000
    max_bytes: int = 64 * 1024 * 1024
    root: Path | None = None
    seen: dict[str, Seen] = field(default_factory=dict)
    kept: dict[str, bytes] = field(default_factory=dict)
    kept_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def before(self) -> Walk:
        """Scan before a call: the tree's stat, the content of every file new or changed since kept."""
        with self.lock:
            return self._before()

    def after(self, before: Walk) -> Watched:
        """Scan after a call: the files whose stat changed since `before`, as changes from what was kept."""
        with self.lock:
            return self._after(before)

    def _before(self) -> Walk:
        root = Path.cwd().resolve()
        if root != self.root:  # another folder: nothing known there
            self.root, self.seen, self.kept, self.kept_bytes = root, {}, {}, 0
        found = walk(root, self.max_files)
        for path in self.kept.keys() - found.files.keys():
            self._forget(path)
        # Set operations on the dicts' views (in C), not a loop over every file: a warm scan finds few or none.
        stale = found.files.keys() - self.kept.keys()  # new, or not kept last time (too big then, maybe not now)
        if found.files != self.seen:
            stale.update(path for path, _ in found.files.items() - self.seen.items())
        for path in sorted(stale):
            self._keep(path, found.files[path])
        self.seen = found.files
        return found

    def _after(self, before: Walk) -> Watched:
        assert self.root is not None
        found = walk(self.root, self.max_files)
        changes: list[FileChange] = []
        unknown: list[str] = []
        moved = (
            set() if found.files == before.files else {path for path, _ in before.files.items() ^ found.files.items()}
        )
        for path in sorted(moved):
            if path in before.files and path not in self.kept:
                unknown.append(path)
                continue
            if self.seen.get(path) == found.files.get(path):  # another call's scan took it already
                continue
            old = self.kept.get(path) if path in before.files else None
            new = _read(self.root / path) if path in found.files else None
            if old != new:
                changes.append(FileChange(path, old, new))
        for path in moved & found.files.keys():  # what the call left is the next call's "before"
            self._keep(path, found.files[path])
        for path in self.kept.keys() - found.files.keys():
            self._forget(path)
        self.seen = found.files
        return Watched(tuple(changes), _why_not(before, found, unknown, self.max_files))

    def _keep(self, path: str, seen: Seen) -> None:
        self._forget(path)
        if seen[0] > MAX_FILE or self.kept_bytes + seen[0] > self.max_bytes or self.root is None:
            return
        data = _read(self.root / path)
        if data is not None:
            self.kept[path] = data
            self.kept_bytes += len(data)

    def _forget(self, path: str) -> None:
        data = self.kept.pop(path, None)
        if data is not None:
            self.kept_bytes -= len(data)


def _why_not(before: Walk, after: Walk, unknown: list[str], max_files: int) -> str | None:
    if not (before.complete and after.complete):
        return f"the working directory has more than {max_files:,} files (tools.scan_max_files)"
    if unknown:
        shown = ", ".join(unknown[:3]) + (f" and {len(unknown) - 3} more" if len(unknown) > 3 else "")
        return f"the content of {shown} before the call was not kept (too big: tools.scan_max_bytes)"
    return None


def _read(target: Path) -> bytes | None:
    """The file's bytes (None: gone, or not a regular file now)."""
    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            return None
        return target.read_bytes()
    except OSError:
        return None


_SHARED = WorkTree()


def shared(max_files: int, max_bytes: int) -> WorkTree:
    """The process's tree, with the bounds of the call about to be watched."""
    _SHARED.max_files, _SHARED.max_bytes = max_files, max_bytes
    return _SHARED
