"""The OS sandbox for commands: Landlock on Linux (else bubblewrap), `sandbox-exec` on macOS — writes only in
the working directory and a private temp dir, no reads of the user's secrets folders, no TCP unless allowed.
docs/sandbox.md says what it protects and what it does not.

- `support()`: what this machine offers, or why nothing (doctor, the status bar, auto mode's readiness).
- `Policy`: what a sandboxed command may reach (`[sandbox]` settings).
- `confined(policy)` / `current()`: the tool runner marks one call's programs as sandboxed, and learns what
  the sandbox blocked (`report_blocked`, from the programs' output).
- `prepare(policy, cwd)`: the `preexec_fn` and environment to start one program inside it.
- `blocked_lines(output, policy, cwd)`: "blocked by the sandbox: write to ~/.bashrc", read from the output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui_agent.sandbox.blocked import blocked_lines
from tui_agent.sandbox.policy import SECRETS, Policy, private_temp_dir
from tui_agent.sandbox.scope import Confined, confined, current, report_blocked
from tui_agent.sandbox.support import Support, support

if TYPE_CHECKING:
    from tui_agent.sandbox.launch import Launch, SandboxUnavailable, prepare

LAUNCHING = frozenset({"Launch", "SandboxUnavailable", "prepare"})
"""What `launch` provides: loaded when first asked for (its backends, Landlock's ctypes structures among them, are
~10 ms a run that starts no sandboxed program never needs: `-p` on an empty home)."""


def __getattr__(name: str) -> Any:
    if name in LAUNCHING:
        # deferred: the launcher and its three backends, for the first sandboxed program
        from tui_agent.sandbox import launch

        return getattr(launch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SECRETS",
    "Confined",
    "Launch",
    "Policy",
    "SandboxUnavailable",
    "Support",
    "blocked_lines",
    "confined",
    "current",
    "prepare",
    "private_temp_dir",
    "report_blocked",
    "support",
]
