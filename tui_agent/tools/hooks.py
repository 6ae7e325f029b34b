"""Provides `@hook`, `Deny` and `Hooks`: plugin functions run around agents and tools, isolated like tools.

A plugin file (found as tools are: the shipped and user `plugins/` folders, `--plugins DIR`, the
`tui_agent.plugins` entry-point group) marks functions with `@hook("<kind>")`. The kinds and what each gets:

- `before_agent(agent: str, text: str) -> str | None`: before an agent (the session's agent, a sub-agent or a
  team member, by name; "assistant" when the session runs no named one) is asked, with the new input it
  receives; a returned string replaces that input.
- `after_agent(agent: str, reply: str) -> None`: after the agent's turn, with its final reply text.
- `before_tool(name: str, arguments: dict) -> dict | Deny | None`: before a call of a known tool with valid
  arguments is put to the approval policy and run. It can **deny** the call (raise any exception, e.g.
  `PermissionError("no writes under /etc")`, or return `Deny("why")`: the call fails with that message and the
  model is told it) or **change its arguments** (return a new dict: validated again, the call runs with it, the
  panel and the model are told a hook changed them). `None` leaves the call as it is.
- `after_tool(name: str, arguments: dict, result: str) -> str | None`: after a call ran, succeeded or failed
  (`result` is then the error text); a returned string replaces the text the model gets.

- `team_done(team: str, member: str, reply: str) -> bool | str | None`: run only for a team whose file names
  it (`done_when.hook`), after each member's reply; true (or a string: the reason said) ends the team.

A tool hook that names a parameter `agent` is also told the agent whose call it is (as `before_agent` is), and an
`after_tool` hook that names `failed` is told whether the call failed.

Hooks may be sync or async. One that runs past its timeout is reported once through `on_notice` and skipped;
one that raises is reported and skipped too, except a `before_tool` hook, whose exception denies the call.
Sync hooks run in a daemon thread of their own (as sync tools do), so one that hangs is abandoned, never
awaited forever, and never holds up the app's exit.

`Hooks` is the one place both kinds run: after a kind's Python hooks come the command hooks config names for the
same moment (`commands`, `tui_agent.tools.command_hooks`), which can deny or change a call just as they can, and
the events only commands have (prompt submitted, session start, turn end, notification).
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, partial
from types import ModuleType
from typing import Any, Literal, TypeVar, cast, get_args

from tui_agent.tool_call import HOOK_DENIED
from tui_agent.tools.command_hooks import CommandHooks, HookAnswer
from tui_agent.tools.daemon import in_daemon_thread

HookKind = Literal["before_agent", "after_agent", "before_tool", "after_tool", "team_done"]
HOOK_KINDS: tuple[HookKind, ...] = get_args(HookKind)
MARKER = "__tui_agent_hook__"
DEFAULT_TIMEOUT = 5.0
"""Seconds a hook may take before it is skipped."""
F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_AGENT = "assistant"
"""The agent name tool hooks are told when the caller names none."""


@dataclass(frozen=True)
class Deny:
    """What a `before_tool` hook returns to refuse a call: `reason` is what the model and the person are told."""

    reason: str = "denied by a hook"


class HookDenied(Exception):
    """A `before_tool` hook refused the call (raised or returned `Deny`)."""

    def __init__(self, hook: str, reason: str) -> None:
        super().__init__(f"{HOOK_DENIED[0]}{hook}{HOOK_DENIED[1]}{reason}")
        self.hook, self.reason = hook, reason


@dataclass(frozen=True)
class ToolCallPlan:
    """A call as the `before_tool` hooks leave it: its arguments and the hooks that changed them."""

    arguments: dict[str, Any]
    changed_by: tuple[str, ...] = ()


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
    commands: CommandHooks = field(default_factory=CommandHooks)
    """The command hooks config names (`[hooks]`); they report through `on_notice` too."""

    _running: set[asyncio.Task[None]] = field(default_factory=set)
    _said: deque[str] = field(default_factory=lambda: deque(maxlen=20))

    def __post_init__(self) -> None:
        self.commands.on_notice = self._say

    def _say(self, notice: str) -> None:
        """A command hook's notice: told, and remembered so that it is not handed to the notification hooks
        (one failing there would otherwise be told about its own failure, for ever)."""
        self._said.append(notice)
        self.on_notice(notice)

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
        """The Python hooks (command hooks: `commands.count()`)."""
        return sum(len(found) for found in self.by_kind.values())

    async def prompt_submitted(self, prompt: str, agent: str = DEFAULT_AGENT, session_id: str = "") -> HookAnswer:
        """What the command hooks say of a prompt the person sent, before it is stored: a block refuses it."""
        return await self.commands.run("prompt_submitted", {"session_id": session_id, "agent": agent, "prompt": prompt})

    async def session_start(self, agent: str = DEFAULT_AGENT, session_id: str = "") -> HookAnswer:
        """What the command hooks say when a session begins (its first prompt): context for the model."""
        return await self.commands.run("session_start", {"session_id": session_id, "agent": agent, "source": "new"})

    async def turn_end(self, agent: str, reply: str, reason: str, session_id: str = "") -> None:
        """Tell the command hooks an agent's turn ended (`reason`: done, cancelled, error...)."""
        fields = {"session_id": session_id, "agent": agent, "reply": reply, "reason": reason}
        await self.commands.run("turn_end", fields)

    def notify(self, message: str, session_id: str = "") -> None:
        """Tell the notification hooks what the person is told (a notice, a question waiting for an answer),
        without waiting for them (needs a running loop; without one, or hooks, it does nothing)."""
        if not self.commands.of("notification") or message in self._said:
            return
        try:
            task = asyncio.get_running_loop().create_task(self._notification(message, session_id))
        except RuntimeError:
            return
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _notification(self, message: str, session_id: str) -> None:
        await self.commands.run("notification", {"session_id": session_id, "message": message})

    async def before_agent(self, agent: str, text: str) -> str:
        """`text` as the `before_agent` hooks leave it, in registration order."""
        for name, func in self.by_kind.get("before_agent", []):
            text = _text_or(await self._call(name, func, agent, text), text)
        return text

    async def after_agent(self, agent: str, reply: str) -> None:
        for name, func in self.by_kind.get("after_agent", []):
            await self._call(name, func, agent, reply)

    async def before_tool(
        self, tool: str, arguments: dict[str, Any], agent: str = DEFAULT_AGENT, session_id: str = ""
    ) -> ToolCallPlan:
        """The call's arguments as the `before_tool` hooks leave them, the Python ones in registration order and
        then the commands; raises `HookDenied` when one refuses it (raises, returns `Deny`, blocks)."""
        changed_by: list[str] = []
        for name, func in self.by_kind.get("before_tool", []):
            extra = _keywords(func, agent=agent)
            value = await self._call(name, func, tool, dict(arguments), refuses=True, **extra)
            if isinstance(value, Deny):
                raise HookDenied(name, value.reason)
            if isinstance(value, dict) and value != arguments:
                arguments = value
                changed_by.append(name)
        fields = {"session_id": session_id, "agent": agent, "tool": tool}
        said = await self.commands.run("before_tool", fields, tool=tool, arguments=dict(arguments))
        if said.blocked_by is not None:
            raise HookDenied(said.blocked_by, said.reason)
        if said.arguments is not None:
            arguments = said.arguments
            changed_by.extend(said.changed_by)
        return ToolCallPlan(arguments, tuple(changed_by))

    async def after_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        result: str,
        *,
        failed: bool = False,
        agent: str = DEFAULT_AGENT,
        session_id: str = "",
    ) -> str:
        """`result` (the error text of a failed call) as the `after_tool` hooks leave it, in registration order,
        with what the command hooks add for the model (their context, a block's reason)."""
        for name, func in self.by_kind.get("after_tool", []):
            extra = _keywords(func, agent=agent, failed=failed)
            result = _text_or(await self._call(name, func, tool, dict(arguments), result, **extra), result)
        fields = {"session_id": session_id, "agent": agent, "tool": tool, "result": result, "failed": failed}
        said = await self.commands.run("after_tool", fields, tool=tool, arguments=dict(arguments))
        added = [*said.context, *([f"{said.blocked_by}: {said.reason}"] if said.blocked_by else [])]
        return result + "".join(f"\n[from a hook] {text}" for text in added)

    def named(self, kind: HookKind, function: str) -> tuple[str, Callable[..., Any]] | None:
        """The hook of `kind` whose function is called `function` (the last registered wins), or None."""
        found = [entry for entry in self.by_kind.get(kind, []) if getattr(entry[1], "__name__", "") == function]
        return found[-1] if found else None

    async def team_done(self, function: str, team: str, member: str, reply: str) -> Any:
        """What the `team_done` hook `function` answers for `member`'s reply; None when there is no such hook,
        or it failed or timed out (reported)."""
        if (found := self.named("team_done", function)) is None:
            return None
        return await self._call(found[0], found[1], team, member, reply)

    async def _call(
        self, name: str, func: Callable[..., Any], *args: Any, refuses: bool = False, **keywords: Any
    ) -> Any:
        """Run one hook; a timeout, or a failure of a hook that cannot refuse, is reported and gives None
        (nothing changes); a failure of one that can (`refuses`) raises `HookDenied`."""
        try:
            async with asyncio.timeout(self.timeout):
                if inspect.iscoroutinefunction(func):
                    return await func(*args, **keywords)
                outcome = await in_daemon_thread(partial(func, *args, **keywords), f"hook:{name}")
                return await outcome if inspect.isawaitable(outcome) else outcome
        except TimeoutError:
            self.on_notice(f"Hook {name} took more than {self.timeout:g} s and was skipped.")
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # KeyboardInterrupt, SystemExit...: a failed hook, never the app's end
            if refuses:
                raise HookDenied(name, str(error) or type(error).__name__) from error
            self.on_notice(f"Hook {name} failed and was skipped: {type(error).__name__}: {error}")
        return None


def _keywords(func: Callable[..., Any], **offered: Any) -> dict[str, Any]:
    """The keywords of `offered` that `func` takes (by name, or through `**kwargs`): older hooks take none."""
    takes, takes_any = _parameters(func)
    return {key: value for key, value in offered.items() if takes_any or key in takes}


@cache
def _parameters(func: Callable[..., Any]) -> tuple[frozenset[str], bool]:
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return frozenset(), False
    named = frozenset(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    return named, any(p.kind is p.VAR_KEYWORD for p in parameters)


def _text_or(value: Any, unchanged: str) -> str:
    return value if isinstance(value, str) else unchanged
