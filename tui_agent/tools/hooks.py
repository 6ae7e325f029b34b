"""Provides `@hook` and `Hooks`: plugin functions run around agents and tools, isolated like tools.

A plugin file (found as tools are: the shipped and user `plugins/` folders, `--plugins DIR`, the
`tui_agent.plugins` entry-point group) marks functions with `@hook("<kind>")`. The kinds and what each gets:

- `before_agent(agent: str, text: str) -> str | None`: before an agent (the session's agent, a sub-agent or a
  team member, by name; "assistant" when the session runs no named one) is asked, with the new input it
  receives; a returned string replaces that input.
- `after_agent(agent: str, reply: str) -> None`: after the agent's turn, with its final reply text.
- `before_tool(name: str, arguments: dict) -> None`: before an allowed call runs (the arguments validated).
- `after_tool(name: str, arguments: dict, result: str) -> str | None`: after a call succeeded; a returned
  string replaces the result the model gets.

Hooks may be sync or async. One that raises (anything, `KeyboardInterrupt` included) or runs past its
timeout is reported once per failure through `on_notice` and skipped: what it was given goes on unchanged.
Sync hooks run in a daemon thread of their own (as sync tools do), so one that hangs is abandoned, never
awaited forever, and never holds up the app's exit.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Any, Literal, TypeVar, cast, get_args

from tui_agent.tools.daemon import in_daemon_thread

HookKind = Literal["before_agent", "after_agent", "before_tool", "after_tool"]
HOOK_KINDS: tuple[HookKind, ...] = get_args(HookKind)
MARKER = "__tui_agent_hook__"
DEFAULT_TIMEOUT = 5.0
"""Seconds a hook may take before it is skipped."""
F = TypeVar("F", bound=Callable[..., Any])


def hook(kind: HookKind) -> Callable[[F], F]:
    """Mark a function as a hook of `kind` (see the module docstring); the function stays as it is."""

    def mark(func: F) -> F:
        setattr(func, MARKER, kind)
        return func

    return mark


def hook_kind(obj: object) -> str | None:
    """The kind `@hook` gave `obj` (checked when loaded: an unknown one is reported), or None."""
    kind = getattr(obj, MARKER, None) if callable(obj) else None
    return kind if isinstance(kind, str) else None


def hooks_in(value: object) -> list[Callable[..., Any]]:
    """The `@hook` functions a loaded plugin provides (a module's, a single function, or a list)."""
    if isinstance(value, ModuleType):
        found = {id(obj): obj for obj in list(vars(value).values()) if hook_kind(obj) is not None}
        return list(found.values())
    items = value if isinstance(value, list | tuple) else [value]
    return [cast(Callable[..., Any], item) for item in items if hook_kind(item) is not None]


@dataclass
class Hooks:
    """The hooks of one run, by kind, and how a failing one is reported."""

    timeout: float = DEFAULT_TIMEOUT
    on_notice: Callable[[str], None] = field(default=lambda _notice: None)
    by_kind: dict[str, list[tuple[str, Callable[..., Any]]]] = field(default_factory=dict)

    def add(self, func: Callable[..., Any], source: str) -> str | None:
        """Register `func` (marked with `@hook`) from `source`; returns a problem when its kind is unknown."""
        kind = hook_kind(func)
        name = getattr(func, "__name__", repr(func))
        if kind not in HOOK_KINDS:
            return f"hook {name!r} has an unknown kind {kind!r} (one of {', '.join(HOOK_KINDS)}); skipped"
        self.by_kind.setdefault(kind, []).append((f"{name} ({source})", func))
        return None

    def add_all(self, funcs: Iterable[Callable[..., Any]], source: str) -> list[str]:
        """Register several; returns the problems."""
        return [problem for func in funcs if (problem := self.add(func, source)) is not None]

    def count(self) -> int:
        return sum(len(found) for found in self.by_kind.values())

    async def before_agent(self, agent: str, text: str) -> str:
        """`text` as the `before_agent` hooks leave it, in registration order."""
        for name, func in self.by_kind.get("before_agent", []):
            text = _text_or(await self._call(name, func, agent, text), text)
        return text

    async def after_agent(self, agent: str, reply: str) -> None:
        for name, func in self.by_kind.get("after_agent", []):
            await self._call(name, func, agent, reply)

    async def before_tool(self, tool: str, arguments: dict[str, Any]) -> None:
        for name, func in self.by_kind.get("before_tool", []):
            await self._call(name, func, tool, dict(arguments))

    async def after_tool(self, tool: str, arguments: dict[str, Any], result: str) -> str:
        """`result` as the `after_tool` hooks leave it, in registration order."""
        for name, func in self.by_kind.get("after_tool", []):
            result = _text_or(await self._call(name, func, tool, dict(arguments), result), result)
        return result

    async def _call(self, name: str, func: Callable[..., Any], *args: Any) -> Any:
        """Run one hook; a failure or a timeout is reported and gives None (nothing changes)."""
        try:
            async with asyncio.timeout(self.timeout):
                if inspect.iscoroutinefunction(func):
                    return await func(*args)
                outcome = await in_daemon_thread(partial(func, *args), f"hook:{name}")
                return await outcome if inspect.isawaitable(outcome) else outcome
        except TimeoutError:
            self.on_notice(f"Hook {name} took more than {self.timeout:g} s and was skipped.")
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # KeyboardInterrupt, SystemExit...: a failed hook, never the app's end
            self.on_notice(f"Hook {name} failed and was skipped: {type(error).__name__}: {error}")
        return None


def _text_or(value: Any, unchanged: str) -> str:
    return value if isinstance(value, str) else unchanged
