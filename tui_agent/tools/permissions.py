"""Provides `folder_problem` and `plugin_problem`: why plugin code must not be loaded, as ssh refuses keys
that others could change.

A plugin runs with all your rights, so anyone who can change its code, or swap it for other code, can act
as you. The rule (POSIX only; shipped plugins and installed packages' entry points are not checked):

- the plugin file (after following symlinks; for a package, its folder and `__init__.py`) must be owned
  by you or root and not writable by others;
- the plugin folder it was found in must be owned by you or root and not writable by others — not even
  with the sticky bit, since anyone could then add a plugin to it;
- every other folder on the way — those above the plugin folder, and for a symlink those holding its
  target — must be owned by you or root and not writable by others unless it has the sticky bit (like
  `/tmp`, where others can add names but not replace yours).

Writable by the group is allowed: many systems give each user a group of their own (umask 002).
"""

from __future__ import annotations

import os
import stat
import sys
from functools import lru_cache
from pathlib import Path

if sys.platform != "win32":  # elsewhere nothing is checked
    import pwd


def folder_problem(folder: Path) -> str | None:
    """Why nothing in the plugin folder may be loaded, or None when it is safe."""
    if sys.platform == "win32":
        return None
    real = folder.resolve()
    return _strict(real, folder) or _on_the_way(folder.absolute().parent, real.parent)


def plugin_problem(path: Path, folder: Path) -> str | None:
    """Why the plugin file or package at `path`, found in the (safe) plugin `folder`, may not be loaded."""
    if sys.platform == "win32":
        return None
    real = path.resolve()
    problem = _strict(real, path)
    if problem is None and real.is_dir():
        problem = _strict(real / "__init__.py", path)
    if problem is None and real.parent != folder.resolve():  # a symlink to somewhere else: that way too
        problem = _on_the_way(real.parent)
    return problem


def _strict(path: Path, reported: Path) -> str | None:
    """Owned by you or root, and not writable by others (`reported`: the name the problem is filed under)."""
    info = _stat(path)
    if info is None:
        return None  # gone since it was listed: the import will say so
    return _foreign(path, info, reported) or (_writable(path, reported) if info.st_mode & stat.S_IWOTH else None)


def _on_the_way(*starts: Path) -> str | None:
    """Each folder from `starts` up to `/`: owned by you or root, writable by others only if sticky."""
    for start in starts:
        for folder in (start, *start.parents):
            info = _stat(folder)
            if info is None:
                continue
            if problem := _foreign(folder, info, None):
                return problem
            if info.st_mode & stat.S_IWOTH and not info.st_mode & stat.S_ISVTX:
                return _writable(folder, None)
    return None


def _foreign(path: Path, info: os.stat_result, reported: Path | None) -> str | None:
    if info.st_uid in (0, os.geteuid()):
        return None
    return (
        f"{_subject(path, reported)}owned by {_user(info.st_uid)}, not by you or root, who could change code "
        f"that runs as you; run `chown {_user(os.geteuid())} {path}` (as root) or move the plugin somewhere "
        "of your own"
    )


def _writable(path: Path, reported: Path | None) -> str:
    return (
        f"{_subject(path, reported)}writable by others, who could change code that runs as you; run `chmod o-w {path}`"
    )


def _subject(path: Path, reported: Path | None) -> str:
    """Names `path` unless the problem is filed under that very name."""
    return "" if reported is not None and path == reported.absolute() else f"{path} is "


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


@lru_cache(maxsize=32)
def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"
