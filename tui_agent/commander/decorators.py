"""Provides the decorators that turn functions into tasks and handlers: Agere's `tasker(PASS_WORD)` and
`handler(PASS_WORD)`, and the native `as_handler` without the password ritual.

A handler function receives its own node as the first parameter after `self` (for methods) — named
`self_handler` by convention. Calling the decorated function does not run it: it returns a
`HandlerCoroutine` to pass to `call_handler` (or to return from a job's task, or to await).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

from tui_agent.commander.callbacks import Callback
from tui_agent.commander.errors import WrongPasswordError
from tui_agent.commander.node import HandlerCoroutine

PASS_WORD: Final[str] = "I assure all time-consuming tasks are delegated externally."
"""The tutorial's reminder: a task or handler must never block the event loop."""

F = TypeVar("F", bound=Callable[..., Any])


def _check_password(password: str) -> None:
    if password != PASS_WORD:
        raise WrongPasswordError(
            "wrong password: tasks and handlers must delegate slow work; pass tui_agent.commander.PASS_WORD"
        )


def tasker(password: str) -> Callable[[F], F]:
    """Mark a Job's `task` method (sync or async) as its body."""
    _check_password(password)

    def decorate(func: F) -> F:
        if inspect.iscoroutinefunction(func):
            func._tasker_ = True  # type: ignore[attr-defined]
            return func

        @functools.wraps(func)
        async def run_sync_task(self: Any) -> Any:
            outcome = func(self)
            return await outcome if inspect.isawaitable(outcome) else outcome

        run_sync_task._tasker_ = True  # type: ignore[attr-defined]
        return run_sync_task  # type: ignore[return-value]

    return decorate


class HandlerFunction:
    """A handler function: calling it (or the bound method) builds a `HandlerCoroutine` node."""

    def __init__(self, func: Callable[..., Awaitable[Any]]) -> None:
        if not inspect.iscoroutinefunction(func):
            raise TypeError(f"{func.__qualname__} must be an async function to be a handler")
        self._func = func
        functools.update_wrapper(self, func)

    @property
    def name(self) -> str:
        """The name its nodes get: the function's qualified name."""
        return self._func.__qualname__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return functools.partial(self._build, (instance,))

    def __call__(self, *args: Any, **kwargs: Any) -> HandlerCoroutine:
        return self._build((), *args, **kwargs)

    def _build(self, bound: tuple[Any, ...], *args: Any, **kwargs: Any) -> HandlerCoroutine:
        node = HandlerCoroutine(self._func.__qualname__)
        node.coro = self._func(*bound, node, *args, **kwargs)
        callbacks = [value for value in (*args, *kwargs.values()) if isinstance(value, Callback)]
        if callbacks:
            node.add_callback(callbacks)
        return node


def handler(password: str) -> Callable[[Callable[..., Awaitable[Any]]], HandlerFunction]:
    """Agere's handler decorator: `@handler(PASS_WORD) async def h(self_handler, ...)`."""
    _check_password(password)
    return HandlerFunction


def as_handler(func: Callable[..., Awaitable[Any]]) -> HandlerFunction:
    """The native handler decorator: `@as_handler async def h(node, ...)`."""
    return HandlerFunction(func)
