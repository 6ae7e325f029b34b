"""Provides `confined`: the policy tool code's programs run under, set by the tool runner for one call.

A context variable, so it reaches `tui_agent.tools.process.run_program` in the tool's task or thread
(both copy the caller's context) without every command-like tool having to pass it along.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from tui_agent.sandbox.policy import Policy

_current: contextvars.ContextVar[Policy | None] = contextvars.ContextVar("sandbox_policy", default=None)


@contextlib.contextmanager
def confined(policy: Policy | None) -> Iterator[None]:
    """Programs started inside run under `policy` (None: unsandboxed)."""
    token = _current.set(policy)
    try:
        yield
    finally:
        _current.reset(token)


def current() -> Policy | None:
    """The policy the running tool call's programs must run under, None outside the sandbox."""
    return _current.get()
