"""Provides `located`, `on_disk`, `write_back` and `stage_many`: the disk side of a rewind — a recorded file found
under the folder the agent changed it in, read as it is now, and written back atomically.

Confined as the edit tools are (`confinement.py`), but to the folder the change was recorded in rather than the
one tui-agent runs in now, so `tui-agent rewind` works from anywhere: a path that resolves outside it (`..`, a
symlink, a symlinked parent folder) or into a `.git` folder is refused, never written. A write is a temporary
file in the same folder, flushed and renamed over, with the file's mode bits kept: a kill at any moment leaves
the old or the new content. A deletion removes the file only (folders the agent made stay). Many files are
written together (`write_many`) with one flush of the file system, not one per file; `stage_many` is its first
half (the temporary files, flushed), so a rewind commits its record while they flush.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from tui_agent.regular_files import not_regular, open_regular
from tui_agent.tools.edits import UMASK


def located(work_dir: str, path: str, folders: dict[str, str] | None = None) -> Path:
    """Where recorded `path` is under `work_dir` ("" for the folder tui-agent runs in); ValueError when it
    leads out of that folder, to the folder itself, or into a `.git` folder. `folders`: the folders resolved
    so far, by their unresolved path (a plan of many files resolves each folder once, not each file's path)."""
    folders = {} if folders is None else folders
    root = _resolved(work_dir or os.getcwd(), folders)
    parent, name = os.path.split(os.path.join(root, path))
    if name in ("", ".", ".."):  # not a file's name: resolved whole
        target = os.path.realpath(os.path.join(parent, name))
    else:
        target = os.path.join(_resolved(parent, folders), name)
        if os.path.islink(target):  # the file itself a symlink: where it leads is what counts
            target = os.path.realpath(target)
    inside = target[len(root) :].lstrip(os.sep) if target.startswith(root + os.sep) or root == os.sep else None
    if not inside:
        raise ValueError(f"{path} leads outside {root}: not restored")
    if ".git" in inside.split(os.sep):
        raise ValueError(f"{path} is inside a .git folder: never written")
    return Path(target)


def _resolved(folder: str, folders: dict[str, str]) -> str:
    found = folders.get(folder)
    if found is None:
        found = folders[folder] = os.path.realpath(folder)
    return found


Seen = tuple[int, int, int]
"""A file's size, modification time (ns) and inode when it was read: what tells it changed since."""


def on_disk(target: Path) -> bytes | None:
    """The file's bytes now (None: there is no file); ValueError for something that is not a regular file."""
    return read_seen(target)[0]


def read_seen(target: Path) -> tuple[bytes | None, Seen | None]:
    """The file's bytes now and how it was when read (None, None: there is no file); ValueError for something
    that is not a regular file."""
    try:
        with open_regular(target, _refuse) as handle:
            status = os.fstat(handle.fileno())
            return handle.read(), (status.st_size, status.st_mtime_ns, status.st_ino)
    except FileNotFoundError:
        return None, None
    except IsADirectoryError as error:
        raise ValueError(f"{target} is a folder now, not a file") from error


def seen_now(target: Path) -> Seen | None:
    """How the file is now (None: there is none), without reading it."""
    try:
        status = os.stat(target)
    except FileNotFoundError:
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ino)


def _refuse(status: os.stat_result) -> Exception | None:
    what = not_regular(status.st_mode)
    return None if what is None else ValueError(f"it is {what} now, not a file")


def write_back(target: Path, data: bytes | None) -> None:
    """Make `target` hold `data` (None: no file), atomically, keeping its mode bits when it exists."""
    (error,) = write_many([(target, data)])
    if error is not None:
        raise error


def write_many(files: Sequence[tuple[Path, bytes | None]]) -> list[OSError | None]:
    """Make each file hold its content (None: no file), each atomically; the error of each (None: written).

    Durable as a write-then-fsync-each is, for less: every new content goes to a temporary file beside its
    file, then the file system is flushed once (`syncfs`: one journal commit, not one per file), then each
    temporary file is renamed over its file and the file system flushed again (the renames). A crash before the
    renames leaves every file as it was (and a `.tui-agent-tmp` file beside it); after, each file is old or new.
    The two halves are `stage_many` and `Staged.put_in_place`, for a caller with work to do in between."""
    return stage_many(files).put_in_place()


@dataclass
class Staged:
    """Files whose new contents sit flushed in temporary files beside them (`stage_many`), not yet in place:
    `put_in_place` renames them over their files, `discard` removes them. Nothing a person sees has changed."""

    files: Sequence[tuple[Path, bytes | None]]
    errors: list[OSError | None]
    temporaries: dict[int, str | None] = field(default_factory=dict)
    """By index into `files`: its temporary file (None: a deletion, nothing to stage)."""
    waiting: list[int] = field(default_factory=list)
    """Files whose folder does not exist yet: made only when put in place (staging writes no folder)."""

    @classmethod
    def of(cls, files: Sequence[tuple[Path, bytes | None]]) -> Staged:
        """`files` staged (`stage_many`)."""
        staged = cls(files, [None] * len(files))
        for index in range(len(files)):
            staged._stage(index, make_folder=False)
        _flush_file_systems({files[index][0].parent for index, temporary in staged.temporaries.items() if temporary})
        return staged

    def put_in_place(self, keep: Callable[[int], bool] = lambda index: True) -> list[OSError | None]:
        """Put each staged file in place, except those `keep` says no to (their temporary files removed);
        the error of each file (None: written or left out)."""
        for index in self.waiting:
            self._stage(index, make_folder=True)
        if self.waiting:
            _flush_file_systems({self.files[index][0].parent for index in self.waiting})
        for index, temporary in self.temporaries.items():
            target = self.files[index][0]
            try:
                if not keep(index):
                    _remove(temporary)
                elif temporary is None:
                    target.unlink(missing_ok=True)
                else:
                    os.replace(temporary, target)
            except OSError as error:
                self.errors[index] = error
                _remove(temporary)
        _flush_file_systems({self.files[index][0].parent for index in self.temporaries})  # the renames, once
        return self.errors

    def discard(self) -> None:
        """Remove every temporary file: nothing is put in place."""
        for temporary in self.temporaries.values():
            _remove(temporary)

    def _stage(self, index: int, make_folder: bool) -> None:
        target, data = self.files[index]
        try:
            if data is None:
                self.temporaries[index] = None
            elif not make_folder and not target.parent.is_dir():
                self.waiting.append(index)
            else:
                self.temporaries[index] = _temporary(target, data)
        except OSError as error:
            self.errors[index] = error


def stage_many(files: Sequence[tuple[Path, bytes | None]]) -> Staged:
    """Each file's new content written to a temporary file beside it, and those flushed to disk (one flush of
    each file system); no file a person sees is touched, no folder made."""
    return Staged.of(files)


def _remove(temporary: str | None) -> None:
    if temporary is not None:
        Path(temporary).unlink(missing_ok=True)


def _temporary(target: Path, data: bytes) -> str:
    """`data` in a new temporary file beside `target`, with `target`'s mode bits (or the umask's)."""
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~UMASK
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tui-agent-tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            os.fchmod(out.fileno(), mode)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def _flush_file_systems(folders: Iterable[Path]) -> None:
    """Flush the file systems holding `folders` to disk: `syncfs` once per file system where Linux has it,
    else `os.sync`."""
    seen: set[int] = set()
    for folder in folders:
        try:
            descriptor = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            device = os.fstat(descriptor).st_dev
            if device not in seen:
                seen.add(device)
                if _SYNCFS is None or _SYNCFS(descriptor) != 0:
                    os.sync()
        finally:
            os.close(descriptor)


def _syncfs() -> Callable[[int], int] | None:
    """libc's `syncfs(fd)` (Linux), None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
    return cast("Callable[[int], int]", function)


_SYNCFS = _syncfs()
