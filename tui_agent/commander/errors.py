"""Provides the commander's exceptions, each with a message that says what to do instead."""

from __future__ import annotations


class CommanderError(RuntimeError):
    """Base class for misuse of the commander."""


class CommanderAlreadyRunningError(CommanderError):
    """`run`/`run_async` was called while this commander is already running."""


class RunInsideLoopError(CommanderError):
    """The blocking `run()` was called from inside a running event loop."""


class NotTaskerError(CommanderError, TypeError):
    """A Job's `task` method is not decorated with `@tasker(PASS_WORD)`."""


class NotHandlerError(CommanderError, TypeError):
    """Something that is not a handler was passed to `call_handler`."""


class NodeEndedError(CommanderError):
    """A child was added to a node that has already ended."""


class InvalidCallbackError(CommanderError, ValueError):
    """A callback hook that can never fire on this kind of node (e.g. `at_job_start` on a handler)."""


class WrongPasswordError(CommanderError, ValueError):
    """`tasker`/`handler` was given the wrong password."""
