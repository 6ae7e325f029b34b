"""Provides `configure_sandbox`: the `[sandbox]` settings and the machine's real sandbox, given to a runner.

The runner then runs command-like tools' programs in the OS sandbox (`tui_agent.sandbox`) when the mode or
config says so, and auto mode's readiness asks the real `support()` instead of the stand-in.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tui_agent.config import SandboxSettings
from tui_agent.sandbox import SECRETS, Policy, support
from tui_agent.tools.command_hooks import CommandHooks, Confinement
from tui_agent.tools.runner import ToolRunner


def policy_from(settings: SandboxSettings) -> Policy:
    """What a sandboxed command may reach, as `[sandbox]` says."""
    allowed = {path.rstrip("/") for path in settings.allow_read}
    denied = [path for path in SECRETS if path not in allowed]
    return Policy(
        network=settings.network,
        deny_read=tuple(denied + [path for path in settings.deny_read if path not in denied]),
        writable=tuple(settings.writable),
    )


def sandbox_problem() -> str | None:
    """None when commands can run in the OS sandbox, else why not (`Permissions.sandbox_ready`)."""
    return support().problem


def configure_sandbox(runner: ToolRunner, settings: SandboxSettings) -> None:
    """Give `runner` the configured policy, `[sandbox] commands`, and the real readiness for auto mode."""
    runner.sandbox_policy = policy_from(settings)
    runner.sandbox_commands = settings.commands
    runner.permissions.sandbox_ready = sandbox_problem


def confine_hooks(hooks: CommandHooks, runner: ToolRunner) -> None:
    """Command hooks run in the OS sandbox whenever commands do (auto mode, `[sandbox] commands`), with the same
    policy; a hook the sandbox cannot start is said and changes nothing (`command_hooks`)."""

    @contextmanager
    def confine(cwd: Path) -> Iterator[Confinement]:
        if not runner.sandbox_commands:
            yield Confinement()
            return
        # deferred: the launcher and its backends load with the first sandboxed hook (`tui_agent.sandbox`)
        from tui_agent.sandbox.launch import prepare

        launch = prepare(runner.sandbox_policy, cwd)
        try:
            yield Confinement(launch.preexec_fn, launch.env(os.environ), launch.argv_prefix)
        finally:
            launch.close()

    hooks.confine = confine
