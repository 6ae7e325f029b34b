"""Provides `bwrap_prefix`: the bubblewrap command line that confines a program to a `Policy` (Linux without
Landlock ABI 4: the second choice, `support.py`).

The whole file system is mounted read-only, the writable folders are bound read-write over it, then each
secrets folder is hidden under an empty read-only tmpfs and each secrets file under `/dev/null` — after the
writable binds, so a secrets folder inside the working directory stays shut. No network namespace unless
the policy allows the network (then UDP and Unix sockets are cut too, not only TCP as with Landlock). A new
PID namespace with its own /proc: the program sees and signals only its own processes. `--die-with-parent`:
killing bwrap (the tool runner kills the process group on timeout) kills what it started.

Mount targets are resolved (`realpath`): bubblewrap follows symlinks, and a secrets folder reached through one
must be hidden where it really is. Paths that do not exist are left out (there is nothing to hide, and a
mount point cannot be made on the read-only root).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from tui_agent.sandbox.policy import Policy


def bwrap_prefix(bwrap: str, policy: Policy, cwd: str, writable: Sequence[str]) -> list[str]:
    """`bwrap ... --` for a program started in `cwd`, writing only in `writable` (the working directory, the
    private temp dir, the configured folders), reading everything but `policy`'s denied paths."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--proc", "/proc", "--die-with-parent"]
    if not policy.network:
        argv.append("--unshare-net")
    for folder in _existing(writable):
        argv += ["--bind", folder, folder]
    for path in _existing(str(path) for path in policy.denied_paths()):
        if os.path.isdir(path):
            argv += ["--tmpfs", path, "--remount-ro", path]
        else:
            argv += ["--ro-bind", "/dev/null", path]
    return [*argv, "--chdir", os.path.realpath(cwd), "--"]


def _existing(paths: Iterable[str]) -> list[str]:
    """The paths that exist, resolved, each once, in order."""
    seen: list[str] = []
    for path in paths:
        if os.path.exists(path) and (real := os.path.realpath(path)) not in seen:
            seen.append(real)
    return seen
