"""Provides `confined`: the policy tool code's programs run under, set by the tool runner for one call, and
what the sandbox blocked during it (`Confined.blocked`, which the runner offers to run again outside).

A context variable, so it reaches `tui_agent.tools.process.run_program` in the tool's task or thread
(both copy the caller's context, which holds this same `Confined`) without every command-like tool having
to pass it along.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field

from tui_agent.sandbox.policy import Policy


@dataclass
class Confined:
    """One call's sandbox: the policy its programs run under (None: unsandboxed) and what it blocked."""

    policy: Policy | None
    blocked: list[str] = field(default_factory=list)
    """"blocked by the sandbox: …" lines of the call's failed programs, each once, in order."""


_current: contextvars.ContextVar[Confined | None] = contextvars.ContextVar("sandbox_policy", default=None)


@contextlib.contextmanager
def confined(policy: Policy | None) -> Iterator[Confined]:
    """Programs started inside run under `policy` (None: unsandboxed); the value says what it blocked."""
    scope = Confined(policy)
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)


def current() -> Policy | None:
    """The policy the running tool call's programs must run under, None outside the sandbox."""
    scope = _current.get()
    return None if scope is None else scope.policy


def report_blocked(lines: list[str]) -> None:
    """The running call's program was blocked so (kept for the runner's offer to run it again outside)."""
    if (scope := _current.get()) is not None:
        scope.blocked.extend(line for line in lines if line not in scope.blocked)
