"""Provides `check_sandbox`: doctor's line on the OS sandbox for commands (auto mode needs it)."""

from __future__ import annotations

from tui_agent.doctor.check import Check
from tui_agent.sandbox import support
from tui_agent.tools.modes import UNSANDBOXED_FLAG


def check_sandbox() -> Check:
    """Whether commands can run in the OS sandbox here, and what it restricts; a warning saying why not."""
    found = support()
    if found.problem is None:
        return Check("ok", "sandbox", f"{found.detail} (docs/sandbox.md)")
    return Check(
        "warn",
        "sandbox",
        f"no OS sandbox for commands: {found.problem}",
        f"auto mode will not start without it (unless {UNSANDBOXED_FLAG}); ask and auto-edit modes work as before",
    )
