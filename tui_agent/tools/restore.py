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

import contextlib
import ctypes
import errno
import os
import secrets
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from tui_agent.regular_files import OPEN_FLAGS, not_regular
from tui_agent.tools.edits import UMASK


def located(work_dir: str, path: str, folders: dict[str, str] | None = None) -> Path:
    """Where recorded `path` is under `work_dir` ("" for the folder tui-agent runs in); ValueError when it
    leads out of that folder, to the folder itself, or into a `.git` folder. `folders`: the folders resolved
    so far, by their unresolved path (a plan of many files resolves each folder once, not each file's path)."""
    return Path(locate(work_dir, path, {} if folders is None else folders))


def locate(work_dir: str, path: str, folders: dict[str, str]) -> str:
    """`located` as a string: a plan locates every file it moves, and making a `Path` of each costs more than
    the rest of finding it."""
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
    return target


def _resolved(folder: str, folders: dict[str, str]) -> str:
    found = folders.get(folder)
    if found is None:
        found = folders[folder] = os.path.realpath(folder)
    return found


Seen = tuple[int, int, int]
"""A file's size, modification time (ns) and inode when it was read: what tells it changed since."""


def on_disk(target: Path | str) -> bytes | None:
    """The file's bytes now (None: there is no file); ValueError for something that is not a regular file."""
    return read_seen(target)[0]


def read_seen(target: Path | str) -> tuple[bytes | None, Seen | None]:
    """The file's bytes now and how it was when read (None, None: there is no file); ValueError for something
    that is not a regular file.

    Opened as `regular_files.open_regular` opens (never waiting on a FIFO, its status read from the open
    descriptor before anything is read), then read with one `read` of its size: a plan reads every file it
    moves, and a buffered file object costs three more system calls a file than the read itself."""
    try:
        descriptor = os.open(target, OPEN_FLAGS)
    except FileNotFoundError:
        return None, None
    except IsADirectoryError as error:
        raise ValueError(f"{target} is a folder now, not a file") from error
    try:
        status = os.fstat(descriptor)
        if (refused := _refuse(status)) is not None:
            raise refused
        os.set_blocking(descriptor, True)
        data = _read_all(descriptor, status.st_size)
    finally:
        os.close(descriptor)
    return data, (status.st_size, status.st_mtime_ns, status.st_ino)


def _read_all(descriptor: int, size: int) -> bytes:
    """Everything left to read from `descriptor`, a regular file of `size` bytes when its status was read (it
    may have grown since: a read short of what was asked is its end)."""
    data = os.read(descriptor, size + 1)
    if len(data) <= size:
        return data
    chunks = [data]
    while chunk := os.read(descriptor, 1024 * 1024):
        chunks.append(chunk)
    return b"".join(chunks)


def seen_now(target: Path | str) -> Seen | None:
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


def write_many(files: Sequence[tuple[Path | str, bytes | None]]) -> list[OSError | None]:
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

    files: Sequence[tuple[Path | str, bytes | None]]
    errors: list[OSError | None]
    temporaries: dict[int, str | None] = field(default_factory=dict)
    """By index into `files`: its temporary file (None: a deletion, nothing to stage)."""
    waiting: list[int] = field(default_factory=list)
    """Files whose folder does not exist yet: made only when put in place (staging writes no folder)."""
    targets: list[str] = field(default_factory=list)
    """Each file's path as a string (worked out once: every step below uses it)."""

    @classmethod
    def of(cls, files: Sequence[tuple[Path | str, bytes | None]]) -> Staged:
        """`files` staged (`stage_many`)."""
        staged = cls(files, [None] * len(files), targets=[os.fspath(target) for target, _ in files])
        for index in range(len(files)):
            staged._stage(index, make_folder=False)
        _flush_file_systems(staged._folders(index for index, temporary in staged.temporaries.items() if temporary))
        return staged

    def put_in_place(self, keep: Callable[[int], bool] = lambda index: True) -> list[OSError | None]:
        """Put each staged file in place, except those `keep` says no to (their temporary files removed);
        the error of each file (None: written or left out)."""
        for index in self.waiting:
            self._stage(index, make_folder=True)
        if self.waiting:
            _flush_file_systems(self._folders(self.waiting))
        for index, temporary in self.temporaries.items():
            target = self.targets[index]
            try:
                if not keep(index):
                    _remove(temporary)
                elif temporary is None:
                    _remove(target)
                else:
                    os.replace(temporary, target)
            except OSError as error:
                self.errors[index] = error
                _remove(temporary)
        _flush_file_systems(self._folders(self.temporaries))  # the renames, once
        return self.errors

    def discard(self) -> None:
        """Remove every temporary file: nothing is put in place."""
        for temporary in self.temporaries.values():
            _remove(temporary)

    def _stage(self, index: int, make_folder: bool) -> None:
        target, data = self.targets[index], self.files[index][1]
        try:
            if data is None:
                self.temporaries[index] = None
                return
            try:
                self.temporaries[index] = _temporary(target, data)
            except FileNotFoundError:  # its folder is not there (yet)
                if not make_folder:
                    self.waiting.append(index)
                    return
                os.makedirs(os.path.dirname(target), exist_ok=True)
                self.temporaries[index] = _temporary(target, data)
        except OSError as error:
            self.errors[index] = error

    def _folders(self, indexes: Iterable[int]) -> set[str]:
        return {os.path.dirname(self.targets[index]) for index in indexes}


def stage_many(files: Sequence[tuple[Path | str, bytes | None]]) -> Staged:
    """Each file's new content written to a temporary file beside it, and those flushed to disk (one flush of
    each file system); no file a person sees is touched, no folder made."""
    return Staged.of(files)


def _remove(path: str | None) -> None:
    if path is not None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _temporary(target: str, data: bytes) -> str:
    """`data` in a new temporary file beside `target`, with `target`'s mode bits (or the umask's).

    Made with `os.open(O_EXCL)` under a random name, as `tempfile.mkstemp` makes one, without its per-file
    Python (name sequences, a folder made or checked first): a restore makes one for every file it writes.
    FileNotFoundError: `target`'s folder does not exist."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~UMASK
    folder, name = os.path.split(target)
    for _ in range(10):  # a name taken (48 random bits: all but never): another
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tui-agent-tmp")
        try:
            descriptor = os.open(temporary, _CREATE, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        os.fchmod(descriptor, mode)
    except BaseException:
        os.close(descriptor)
        _remove(temporary)
        raise
    os.close(descriptor)
    return temporary


def _flush_file_systems(folders: Iterable[str]) -> None:
    """Flush the file systems holding `folders` to disk: `syncfs` once per file system where Linux has it,
    else `os.sync`."""
    seen: set[int] = set()
    for folder in folders:
        try:
            device = os.stat(folder).st_dev  # a stat per folder; a folder opened only for a file system not seen
            if device in seen:
                continue
            descriptor = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
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
