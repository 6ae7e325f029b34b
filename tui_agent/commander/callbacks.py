"""Provides `Callback` (Agere's callback bundle) and the rules for which hook fits which node.

A callback entry is a dict: `{"function": f, "params": {"args": (...), "kwargs": {...}},
"inject_task_node": bool, "inject_exception": bool}`; `f` may be sync or async. With
`inject_task_node` the node is passed as `task_node=`; with `inject_exception` (our addition) the
node's exception, if any, is passed as `exception=`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from tui_agent.commander.errors import InvalidCallbackError
from tui_agent.commander.events import NodeKind

if TYPE_CHECKING:
    from tui_agent.commander.node import TaskNode

CallbackType = Literal[
    "at_job_start",
    "at_handler_start",
    "at_exception",
    "at_terminate",
    "at_handler_end",
    "at_job_end",
    "at_commander_end",
]
HOOKS: tuple[CallbackType, ...] = (
    "at_job_start",
    "at_handler_start",
    "at_exception",
    "at_terminate",
    "at_handler_end",
    "at_job_end",
    "at_commander_end",
)
HOOKS_BY_KIND: dict[NodeKind, frozenset[str]] = {
    NodeKind.JOB: frozenset({"at_job_start", "at_job_end", "at_exception", "at_terminate", "at_commander_end"}),
    NodeKind.HANDLER: frozenset(
        {"at_handler_start", "at_handler_end", "at_exception", "at_terminate", "at_commander_end"}
    ),
    NodeKind.COMMANDER: frozenset({"at_commander_end"}),
}


class Params(TypedDict, total=False):
    """Extra arguments for a callback function."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class CallbackDict(TypedDict):
    """One callback entry (see the module docstring)."""

    function: Callable[..., Any]
    params: NotRequired[Params]
    inject_task_node: NotRequired[bool]
    inject_exception: NotRequired[bool]


def check_hook(kind: NodeKind, which: str) -> None:
    """Reject a hook that can never fire on this kind of node, instead of silently ignoring it."""
    if which not in HOOKS:
        raise InvalidCallbackError(f"unknown callback hook {which!r}; expected one of {', '.join(HOOKS)}")
    if which not in HOOKS_BY_KIND[kind]:
        allowed = ", ".join(sorted(HOOKS_BY_KIND[kind]))
        raise InvalidCallbackError(f"{which!r} never fires on a {kind.value}; a {kind.value} supports: {allowed}")


class Callback:
    """A bundle of callback entries per hook, attachable to a job or a handler."""

    def __init__(
        self,
        at_job_start: list[CallbackDict] | None = None,
        at_handler_start: list[CallbackDict] | None = None,
        at_exception: list[CallbackDict] | None = None,
        at_terminate: list[CallbackDict] | None = None,
        at_handler_end: list[CallbackDict] | None = None,
        at_job_end: list[CallbackDict] | None = None,
        at_commander_end: list[CallbackDict] | None = None,
        task_node: TaskNode | None = None,
    ) -> None:
        self.at_job_start = list(at_job_start or [])
        self.at_handler_start = list(at_handler_start or [])
        self.at_exception = list(at_exception or [])
        self.at_terminate = list(at_terminate or [])
        self.at_handler_end = list(at_handler_end or [])
        self.at_job_end = list(at_job_end or [])
        self.at_commander_end = list(at_commander_end or [])
        self._task_node = task_node

    @property
    def task_node(self) -> TaskNode | None:
        """The node this bundle is attached to."""
        return self._task_node

    def entries(self, which: str) -> list[CallbackDict]:
        """The entries registered for one hook."""
        entries: list[CallbackDict] = getattr(self, which)
        return entries

    def used_hooks(self) -> Iterable[str]:
        """The hooks that have at least one entry."""
        return (which for which in HOOKS if self.entries(which))

    def add(self, which: CallbackType, functions_info: CallbackDict | list[CallbackDict]) -> None:
        """Add one entry or a list of entries to a hook."""
        entries = functions_info if isinstance(functions_info, list) else [functions_info]
        self.entries(which).extend(entries)

    def update(self, callbacks: Callback | None | list[Callback | None]) -> Callback:
        """Append every entry of the given bundles to this one; returns self."""
        others = [callbacks] if isinstance(callbacks, Callback) else [c for c in callbacks or [] if c is not None]
        for which in HOOKS:
            for other in others:
                self.entries(which).extend(other.entries(which))
        return self

    @classmethod
    def merge(cls, callbacks: list[Callback | None]) -> Callback:
        """A new bundle holding the entries of all given bundles."""
        return cls().update(callbacks)


def describe(function: Callable[..., Any]) -> str:
    """A readable name for a callback function, for error reports."""
    return getattr(function, "__qualname__", None) or repr(function)


async def call_entry(entry: CallbackDict, node: TaskNode) -> None:
    """Invoke one callback entry, awaiting it when it is async."""
    params = entry.get("params") or {}
    kwargs = dict(params.get("kwargs", {}))
    if entry.get("inject_task_node"):
        kwargs["task_node"] = node
    if entry.get("inject_exception"):
        kwargs["exception"] = node.exception
    outcome = entry["function"](*params.get("args", ()), **kwargs)
    if inspect.isawaitable(outcome):
        await outcome
