"""Provides `support()`: which OS sandbox this machine offers for commands, or why there is none."""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass

from tui_agent.sandbox import landlock

MIN_ABI = 1
NETWORK_ABI = 4
"""Landlock restricts TCP from this ABI on; below it, `network = false` cannot be enforced."""


@dataclass(frozen=True)
class Support:
    """The sandbox available here: `backend` ("landlock") and a line for `doctor`, or the reason it is missing."""

    backend: str | None
    detail: str

    @property
    def problem(self) -> str | None:
        """None when commands can be sandboxed, else why not (as `Permissions.sandbox_ready` wants it)."""
        return None if self.backend else self.detail

    @property
    def mark(self) -> str:
        """A word for the status bar."""
        return "sandbox" if self.backend else "no sandbox"


@functools.cache
def support() -> Support:
    """What this machine offers, probed once per process (a system call, microseconds)."""
    system = platform.system()
    if system != "Linux":
        return Support(None, f"no OS sandbox is built for {system} yet (Landlock is Linux only)")
    abi = landlock.abi_version()
    if abi < MIN_ABI:
        return Support(
            None, f"Landlock is not available in this kernel ({platform.release()}): it needs 5.13+ with lsm=landlock"
        )
    if abi < NETWORK_ABI:
        return Support(None, f"Landlock ABI {abi} cannot restrict the network (needs ABI {NETWORK_ABI}, kernel 6.7+)")
    return Support("landlock", f"Landlock ABI {abi}: files and TCP restricted")
