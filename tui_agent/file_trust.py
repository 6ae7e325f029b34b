"""Provides `file_problem`, `folder_problem` and `read_user_file`: why a file from the user's folders must
not be used, as ssh (`StrictModes`) refuses a config or key file that others could change.

Config, agent and team profiles, themes and plugins all decide what tui-agent does as you: a config
file's `[mcp_servers]` commands run as you, an agent file can let the shell run unasked, a plugin is
code. Anyone who can change such a file, or swap it for another, can act as you. So every loader of a
file from a user folder reads it through `read_user_file` (or asks `file_problem` first), and a file
that fails is refused with a sentence saying what to `chmod` or `chown`. The rules (POSIX only; the
files shipped with tui-agent are part of its installation and are not checked):

- the file (after following symlinks) must be a regular file, owned by you or root, and writable by
  nobody else: not by others, and not by its group unless that group is the owner's own (the owner is
  its only member, as on systems that give each user a group and a umask of 002; Debian's ssh allows
  the same);
- the folder holding it must be owned by you or root and writable by nobody else, not even with the
  sticky bit: anyone who may add a name there could add a symlink to a file that passes the first rule;
- every folder above it, and for a symlink every folder holding its target and above, must be owned by
  you or root and writable by nobody else unless it has the sticky bit (like `/tmp`, where others can
  add names but not replace yours).

Many files at once (a folder of 1000 plugins) are checked with one `TrustScan`, which works out each folder's
verdict once instead of once a file.
"""

from __future__ import annotations

import os
import stat
import sys
from functools import lru_cache
from pathlib import Path

from tui_agent.regular_files import open_regular

if sys.platform != "win32":  # elsewhere nothing is checked
    import grp
    import pwd


class RefusedFileError(PermissionError):
    """A user file that others could change; the message says why and what to run (an OSError, so a
    loader that only expects read errors still refuses the file and says why)."""


def read_user_file(path: Path, *, shipped: Path | None = None) -> bytes:
    """The bytes of the user file at `path`, checked as the module docstring says (the file's owner and mode
    are read from the opened file, so it cannot be swapped between check and read). A file directly in
    `shipped` (the folder of those shipped with tui-agent) is read unchecked. Raises `RefusedFileError` for a
    file that others could change, OSError when it cannot be read."""
    checked = shipped is None or path.absolute().parent.resolve() != shipped.resolve()

    def refuse(info: os.stat_result) -> RefusedFileError | None:
        problem = TrustScan().problem(path, info, path) if checked else None
        return None if problem is None else RefusedFileError(problem)

    with open_regular(path, refuse) as file:  # a FIFO does not hang the open
        return file.read()


def file_problem(path: Path, *, name: Path | None = None) -> str | None:
    """Why the user file at `path` must not be used, or None when only you (or root) can change it (or it
    is gone: reading it will say so). `name`: the path the problem is filed under (default `path`); the
    sentence names the culprit unless it is that very path."""
    return TrustScan().file_problem(path, name=name)


def folder_problem(folder: Path) -> str | None:
    """Why no file in `folder` may be used (the second and third rules), or None when it is safe."""
    return TrustScan().folder_problem(folder)


class TrustScan:
    """`file_problem` and `folder_problem` for many files checked together: the folders holding them and those
    above are looked at once per scan (a scan is short-lived; a later one looks again)."""

    def __init__(self) -> None:
        self._real: dict[Path, Path] = {}
        self._holders: dict[Path, str | None] = {}
        self._ways: dict[Path, str | None] = {}

    def file_problem(self, path: Path, *, name: Path | None = None) -> str | None:
        """Like the module's `file_problem`."""
        if sys.platform == "win32":
            return None
        try:
            info = path.stat()
        except OSError:
            return None
        return self.problem(path, info, path if name is None else name)

    def folder_problem(self, folder: Path) -> str | None:
        """Like the module's `folder_problem`."""
        if sys.platform == "win32":
            return None
        return self._folder(folder, folder)

    def problem(self, path: Path, info: os.stat_result, name: Path) -> str | None:
        """Why the file at `path`, whose (followed) stat is `info`, must not be used; filed under `name`."""
        if sys.platform == "win32":
            return None
        holder = path.absolute().parent
        real = path.resolve() if path.is_symlink() else self._resolve(holder) / path.name
        if not stat.S_ISREG(info.st_mode):
            return f"{_subject(real, name)}not a regular file"
        if problem := _owned_and_closed(real, info, name, sticky_ok=False):
            return problem
        if holder not in self._holders:
            self._holders[holder] = self._folder(holder, None)
        if self._holders[holder]:
            return self._holders[holder]
        return self._on_the_way(real.parent) if real.parent != self._resolve(holder) else None  # a symlink's way

    def _resolve(self, folder: Path) -> Path:
        if folder not in self._real:
            self._real[folder] = folder.resolve()
        return self._real[folder]

    def _folder(self, folder: Path, name: Path | None) -> str | None:
        info = _stat(folder)
        if info is None:
            return None
        real = folder.resolve()
        return _owned_and_closed(real, info, name, sticky_ok=False) or self._on_the_way(
            folder.absolute().parent, real.parent
        )

    def _on_the_way(self, *starts: Path) -> str | None:
        """Each folder from `starts` up to `/`: owned by you or root, writable by nobody else unless sticky."""
        for start in starts:
            if start not in self._ways:
                self._ways[start] = _way_up(start)
            if self._ways[start]:
                return self._ways[start]
        return None


def _way_up(start: Path) -> str | None:
    for folder in (start, *start.parents):
        info = _stat(folder)
        if info is not None and (problem := _owned_and_closed(folder, info, None, sticky_ok=True)):
            return problem
    return None


def _owned_and_closed(path: Path, info: os.stat_result, name: Path | None, *, sticky_ok: bool) -> str | None:
    """Owned by you or root, and writable by nobody else (`sticky_ok`: unless the sticky bit is set)."""
    if info.st_uid not in (0, os.geteuid()):
        return (
            f"{_subject(path, name)}owned by {_user(info.st_uid)}, not by you or root (they could use it to act "
            f"as you); run `chown {_user(os.geteuid())} {path}` (as root), or use a copy of your own"
        )
    if sticky_ok and info.st_mode & stat.S_ISVTX:
        return None
    others = bool(info.st_mode & stat.S_IWOTH)
    group = bool(info.st_mode & stat.S_IWGRP) and not _own_group(info.st_gid, info.st_uid)
    if not (others or group):
        return None
    who = " and ".join([*(["others"] if others else []), *([f"the group {_group(info.st_gid)}"] if group else [])])
    bits = ("g" if group else "") + ("o" if others else "")
    return f"{_subject(path, name)}writable by {who} (who could use it to act as you); run `chmod {bits}-w {path}`"


def _subject(path: Path, name: Path | None) -> str:
    """Names `path` unless the problem is filed under that very name."""
    return "" if name is not None and path == name.absolute() else f"{path} is "


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


@lru_cache(maxsize=32)
def _own_group(gid: int, owner: int) -> bool:
    """Whether group `gid` has `owner` as its only member (as its primary group or listed), like Debian's ssh:
    a group of no one (often a program's) or of several people is not the owner's own."""
    try:
        members = set(grp.getgrgid(gid).gr_mem)
        name = pwd.getpwuid(owner).pw_name
    except KeyError:
        return False
    primary = {user.pw_name for user in pwd.getpwall() if user.pw_gid == gid}
    return members | primary == {name}


@lru_cache(maxsize=32)
def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


@lru_cache(maxsize=32)
def _group(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)
