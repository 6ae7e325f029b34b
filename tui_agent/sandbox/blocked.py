"""Provides `blocked_lines`: what the sandbox probably blocked, read from a sandboxed program's output.

Landlock answers a refused access with EACCES/EPERM (bubblewrap: EROFS) and writes no log a user can read,
so this reads the program's own complaints ("Permission denied", "Operation not permitted"), takes the path
each names and says which rule it met — "blocked by the sandbox: write to ~/.bashrc". A path the policy
allows was refused by something else (file modes) and is not blamed on the sandbox.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tui_agent.sandbox.policy import Policy

REFUSED = re.compile(
    r"Permission denied|Operation not permitted|EACCES|EPERM|Read-only file system|EROFS|Network is unreachable"
)
"""Landlock and sandbox-exec refuse with EACCES/EPERM; bubblewrap's read-only mounts with EROFS, and its empty
network namespace with ENETUNREACH."""
PATH = re.compile(r"(?:^|[\s'\"`(:=‘“])((?:~|/|\.\.?/)[^\s'\"`:)’”]*)")
"""An absolute path, or one from the home folder, or relative from the working directory (`../notes`)."""
MOST = 5
"""Lines at most: a `find /` that met a thousand refusals needs a few examples, not all."""


def blocked_lines(output: str, policy: Policy, cwd: Path) -> list[str]:
    """One "blocked by the sandbox: …" line per distinct refusal the output shows (at most `MOST`)."""
    found: list[str] = []
    for line in output.splitlines():
        if (refused := REFUSED.search(line)) is None:
            continue
        what = _what(line[: refused.start()], policy, cwd)
        if what is not None and (text := f"blocked by the sandbox: {what}") not in found:
            found.append(text)
        if len(found) == MOST:
            break
    return found


def _what(complaint: str, policy: Policy, cwd: Path) -> str | None:
    """What the complaint (the line up to "Permission denied") met: the last path it names, else the network."""
    paths = [match for match in PATH.findall(complaint) if len(match) > 1]
    if not paths:
        return None if policy.network else "a network connection or another access (network is off)"
    path = Path(os.path.normpath(cwd / os.path.expanduser(paths[-1])))
    if any(_within(path, denied) for denied in policy.denied_paths()):
        return f"{_shown(path)} (a secrets folder: unreadable)"
    if not any(_within(path, writable) for writable in policy.writable_paths(cwd)):
        return f"write to {_shown(path)} (outside the working directory)"
    return None


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _shown(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if _within(path, home) and path != home else str(path)
