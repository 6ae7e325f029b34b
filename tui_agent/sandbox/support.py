"""Provides `support()`: which OS sandbox this machine offers for commands, or why there is none.

In order of preference: Landlock (Linux 6.7+, applied in the child between fork and exec: nothing to install),
bubblewrap (`bwrap`, Linux, when Landlock is missing or too old and bwrap is installed and works here), the
macOS `sandbox-exec` (a generated profile). `detect` decides from what was probed, so each platform's answer
is tested on every platform.
"""

from __future__ import annotations

import functools
import platform
import shutil
import subprocess
from dataclasses import dataclass
from typing import Literal

MIN_ABI = 1
NETWORK_ABI = 4
"""Landlock restricts TCP from this ABI on; below it, `network = false` cannot be enforced."""
SANDBOX_EXEC = "/usr/bin/sandbox-exec"
BWRAP_PROBE_SECONDS = 5.0
Backend = Literal["landlock", "bubblewrap", "sandbox-exec"]


@dataclass(frozen=True)
class Support:
    """The sandbox available here: `backend` and a line for `doctor`, or the reason it is missing; `program`:
    the backend's executable (bwrap, sandbox-exec), "" for Landlock."""

    backend: Backend | None
    detail: str
    program: str = ""

    @property
    def problem(self) -> str | None:
        """None when commands can be sandboxed, else why not (as `Permissions.sandbox_ready` wants it)."""
        return None if self.backend else self.detail

    @property
    def mark(self) -> str:
        """A word for the status bar."""
        return "sandbox" if self.backend else "no sandbox"


@dataclass(frozen=True)
class Probed:
    """What `detect` decides from: the system, the kernel, Landlock's ABI, and the sandbox programs found."""

    system: str
    release: str = ""
    abi: int = 0
    bwrap: str | None = None
    """bwrap's path, when it is installed."""
    bwrap_fails: str | None = None
    """Why bwrap could not start a sandbox here (no user namespaces...), None when it could."""
    sandbox_exec: str | None = None


def detect(found: Probed) -> Support:
    """The backend to use given what was probed, or the reason there is none."""
    if found.system == "Darwin":
        if found.sandbox_exec:
            return Support("sandbox-exec", "macOS sandbox-exec: files and network restricted", found.sandbox_exec)
        return Support(None, f"macOS without {SANDBOX_EXEC}: no sandbox for commands")
    if found.system != "Linux":
        return Support(None, f"no OS sandbox is built for {found.system} (Linux: Landlock or bubblewrap; macOS)")
    if found.abi >= NETWORK_ABI:
        return Support("landlock", f"Landlock ABI {found.abi}: files and TCP restricted")
    missing = (
        f"Landlock is not available in this kernel ({found.release}): it needs 5.13+ with lsm=landlock"
        if found.abi < MIN_ABI
        else f"Landlock ABI {found.abi} cannot restrict the network (needs ABI {NETWORK_ABI}, kernel 6.7+)"
    )
    if found.bwrap and found.bwrap_fails is None:
        return Support("bubblewrap", f"bubblewrap ({found.bwrap}): files and network restricted", found.bwrap)
    if found.bwrap:
        return Support(None, f"{missing}, and bubblewrap cannot start a sandbox here: {found.bwrap_fails}")
    return Support(None, f"{missing}, and bubblewrap (bwrap) is not installed")


@functools.cache
def support() -> Support:
    """What this machine offers, probed once per process (a system call, microseconds; bwrap is tried once
    only where Landlock cannot serve)."""
    system = platform.system()
    if system == "Darwin":
        return detect(Probed(system, sandbox_exec=SANDBOX_EXEC if shutil.which(SANDBOX_EXEC) else None))
    # deferred: Landlock's ctypes structures (~5 ms) are for a run that asks about or starts the sandbox
    from tui_agent.sandbox import landlock

    found = Probed(system, platform.release(), landlock.abi_version() if system == "Linux" else 0)
    if system != "Linux" or found.abi >= NETWORK_ABI or (bwrap := shutil.which("bwrap")) is None:
        return detect(found)
    return detect(Probed(system, found.release, found.abi, bwrap, bwrap_failure(bwrap)))


def bwrap_failure(bwrap: str) -> str | None:
    """Why bwrap cannot start a sandbox here (it needs unprivileged user namespaces), None when it can."""
    try:
        done = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--", "true"],
            capture_output=True,
            text=True,
            timeout=BWRAP_PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return None if done.returncode == 0 else (done.stderr.strip() or f"exit status {done.returncode}")
