"""Provides `FileIndex`: the working directory's files, listed in a thread and streamed, and `best_matches`, the
fuzzy filter the file picker (`@` in the prompt) shows.

In a git repository the list is `git ls-files --cached --others --exclude-standard` (what git tracks plus new
files `.gitignore` does not exclude: git applies every ignore rule, nested ones and the global excludes
included, faster than Python could). Elsewhere, or when git is missing, it is a walk that skips hidden
folders and the usual heavy ones (`node_modules`, virtualenvs, caches, build output). Names arrive in batches,
so the first can be shown after a few milliseconds on a tree of 100,000 files; the list stops at
`MAX_FILES`. No Textual here: the picker polls `files`, and `bench/picker.py` times the same code.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import re
import subprocess
import threading
from pathlib import Path

MAX_FILES = 200_000
"""Names listed at most (a picker over more is no help; the walk stops there)."""
BATCH = 512
"""Names added to `files` at once (each addition takes the lock)."""
SKIPPED_FOLDERS = frozenset(
    {"node_modules", "__pycache__", "venv", "env", "dist", "build", "target", "site-packages", "vendor"}
)
"""Folders the walk outside git skips, besides hidden ones (`.git`, `.venv`, `.mypy_cache`...)."""
SHOWN = 50
"""Matches the picker lists."""


class FileIndex:
    """The files under `root` (paths relative to it, `/`-separated), listed by a daemon thread after `start`."""

    def __init__(self, root: Path, limit: int = MAX_FILES) -> None:
        self.root, self.limit = root, limit
        self.files: list[str] = []
        """Listed so far (grows until `done`); read it from any thread, it only ever grows."""
        self.done = threading.Event()
        self.source = ""
        """"git" or "walk", once known."""
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> FileIndex:
        threading.Thread(target=self._run, name="file-index", daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listing (the picker closed); what is listed stays."""
        self._stop.set()

    def _run(self) -> None:
        try:
            if not self._from_git():
                self.source = "walk"
                self._walk()
        finally:
            self.done.set()

    def _add(self, batch: list[str]) -> bool:
        """Add a batch; False when the list is full or listing was stopped."""
        with self._lock:
            room = self.limit - len(self.files)
            self.files.extend(batch[: max(room, 0)])
        return room > len(batch) and not self._stop.is_set()

    def _from_git(self) -> bool:
        """List with git; False when `root` is not in a repository (or git is missing) and nothing was listed."""
        command = ["git", "-C", str(self.root), "ls-files", "--cached", "--others", "--exclude-standard", "-z"]
        try:
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
            )
        except OSError:
            return False
        assert process.stdout is not None
        self.source = "git"
        listed, rest = 0, b""
        with process:
            while chunk := process.stdout.read(65536):  # unbuffered: whatever git has written, at once
                names = (rest + chunk).split(b"\0")
                rest = names.pop()
                batch = [os.fsdecode(name) for name in names if name]
                listed += len(batch)
                if not self._add(batch):
                    process.kill()
                    break
            process.stdout.close()
        return listed > 0 or process.returncode == 0

    def _walk(self) -> None:
        folders, batch = [self.root], []
        while folders:
            folder = folders.pop()
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=False):
                            if not entry.name.startswith(".") and entry.name not in SKIPPED_FOLDERS:
                                folders.append(Path(entry.path))
                        elif entry.is_file():
                            batch.append(os.path.relpath(entry.path, self.root).replace(os.sep, "/"))
            if len(batch) >= BATCH or not folders:
                if not self._add(batch):
                    return
                batch = []


def best_matches(query: str, files: list[str], count: int = SHOWN) -> list[str]:
    """The `count` files that best match `query` as a fuzzy pattern (its characters in order, case ignored):
    a match in the file's name before one in its folders, then the shorter path; all in listing order for an
    empty query."""
    query = query.strip()
    if not query:
        return files[:count]
    pattern = re.compile(".*?".join(map(re.escape, query)), re.IGNORECASE)
    whole = query.lower()
    scored = ((_rank(path, whole, pattern), path) for path in files if pattern.search(path))
    return [path for _, path in heapq.nsmallest(count, scored)]


def _rank(path: str, whole: str, pattern: re.Pattern[str]) -> tuple[int, int]:
    name = path.rsplit("/", 1)[-1]
    lowered = name.lower()
    if lowered.startswith(whole):
        tier = 0
    elif whole in lowered:
        tier = 1
    elif pattern.search(name):
        tier = 2
    else:
        tier = 3
    return tier, len(path)
