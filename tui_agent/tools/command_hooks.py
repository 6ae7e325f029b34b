"""Provides `CommandHooks`: the shell commands config runs on a session's events, and their contract (version 1).

A command gets the event as one JSON object on its stdin (`version`, `event`, `session_id`, `cwd`, `agent`, and the
event's own fields), runs with `/bin/sh -c` in the working directory, bounded by its `timeout`, and answers:

- exit 0: its stdout, when a JSON object, says what to do (`decision: "block"` + `reason`, `context` for the model,
  `arguments` replacing a tool call's, `message` for the person); plain text is context for the model on the
  events that take it (prompt submitted, session start, after tool).
- exit 2: block, the reason being its stderr (before tool: the call is denied; prompt submitted: the prompt is
  refused; after tool: the reason is added to what the model gets).
- anything else, or a timeout: the hook failed; the person is told, and nothing changes.

Claude Code's field names are read too (`hookSpecificOutput.permissionDecision: "deny"`, `updatedInput`,
`additionalContext`, `systemMessage`), so its scripts port with little change. The output never reaches the
terminal: each run is appended to the log file. `confine` is the seam for running the command in the sandbox
(`Confinement`: a child-side function run before exec, as Landlock needs, the environment, an argv prefix, as
bubblewrap or sandbox-exec need).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from tui_agent.config import CommandHookSettings, HooksSettings
from tui_agent.sanitize import sanitize

CONTRACT_VERSION = 1
"""The version of the JSON a command is given and may answer with (docs/hooks.md); a change that breaks a script
gets a new number."""
HookEvent = Literal["session_start", "prompt_submitted", "before_tool", "after_tool", "turn_end", "notification"]
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
TOOL_EVENTS = frozenset({"before_tool", "after_tool"})
TAKES_PLAIN_CONTEXT = frozenset({"session_start", "prompt_submitted", "after_tool"})
"""Events whose command's plain (non-JSON) stdout is context for the model, as in Claude Code."""
BLOCK_EXIT = 2
LOG_CAP = 1_000_000
"""Bytes the log grows to before it is moved to `hooks.log.1` (the one before is dropped)."""
OUTPUT_CAP = 64_000
"""Characters of a command's stdout or stderr kept in the log and read as its answer."""


@dataclass(frozen=True)
class Confinement:
    """How one hook's command is started confined (the sandbox's seam); the default confines nothing."""

    preexec_fn: Callable[[], None] | None = None
    """Run in the child before exec (Landlock's `restrict_self`)."""
    env: Mapping[str, str] | None = None
    """The whole environment the command gets (None: this process's)."""
    argv_prefix: tuple[str, ...] = ()
    """Put before `/bin/sh -c COMMAND` (`bwrap ... --`, `sandbox-exec -p ...`)."""


Confine = Callable[[Path], AbstractContextManager[Confinement]]
"""Given the folder a hook runs in, a context that holds a `Confinement` while the command starts (and may
raise, e.g. when the sandbox is required and missing: the hook then fails to start, said, changing nothing)."""


def _unconfined(_cwd: Path) -> AbstractContextManager[Confinement]:
    return nullcontext(Confinement())


@dataclass(frozen=True)
class HookAnswer:
    """What the commands of one event said, together: a block (its reason and who), context for the model,
    replaced arguments (before tool) and who changed them (messages for the person are told as they come)."""

    blocked_by: str | None = None
    reason: str = ""
    context: tuple[str, ...] = ()
    arguments: dict[str, Any] | None = None
    changed_by: tuple[str, ...] = ()

    @property
    def context_text(self) -> str:
        return "\n".join(self.context)


@dataclass
class CommandHooks:
    """The command hooks of one run, by event, and where their output goes."""

    settings: HooksSettings = field(default_factory=HooksSettings)
    log_path: Path | None = None
    on_notice: Callable[[str], None] = field(default=lambda _notice: None)
    confine: Confine = _unconfined
    cwd: Path | None = None
    """The folder commands run in (and `cwd` says); None: the process's working directory at the run."""

    def of(self, event: HookEvent, tool: str | None = None) -> list[CommandHookSettings]:
        """The hooks of `event` (those whose matcher takes `tool`, for a tool event)."""
        found: list[CommandHookSettings] = getattr(self.settings, event)
        if event not in TOOL_EVENTS or tool is None:
            return list(found)
        return [hook for hook in found if _matches(hook.matcher, tool)]

    def count(self) -> int:
        return sum(len(self.of(event)) for event in HOOK_EVENTS)

    async def run(
        self,
        event: HookEvent,
        fields: Mapping[str, Any],
        *,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> HookAnswer:
        """Run the hooks of `event` in order, each given `fields` (and the arguments as the ones before left
        them); stops at the first that blocks."""
        context: list[str] = []
        changed_by: list[str] = []
        for hook in self.of(event, tool):
            payload = {**self._common(event), **fields}
            if arguments is not None:
                payload["arguments"] = arguments
            said = await self._one(event, hook, payload)
            if said is None:
                continue
            context.extend(said.context)
            if said.blocked_by is not None:
                return HookAnswer(said.blocked_by, said.reason, tuple(context), None, tuple(changed_by))
            if arguments is not None and said.arguments is not None and said.arguments != arguments:
                arguments = said.arguments
                changed_by.append(_name(hook))
        final = arguments if changed_by else None
        return HookAnswer(None, "", tuple(context), final, tuple(changed_by))

    def _common(self, event: HookEvent) -> dict[str, Any]:
        return {"version": CONTRACT_VERSION, "event": event, "cwd": str(self.cwd or Path.cwd())}

    async def _one(self, event: HookEvent, hook: CommandHookSettings, payload: dict[str, Any]) -> HookAnswer | None:
        """Run one hook; None when it failed (said, and logged)."""
        name = _name(hook)
        started = time.monotonic()
        stdin = json.dumps(payload, ensure_ascii=False, default=str).encode()
        try:
            code, out, err = await _run_bounded(["/bin/sh", "-c", hook.command], stdin, hook.timeout, self._start)
        except TimeoutError:
            self._log(event, name, "timed out", "", "", started)
            self.on_notice(f"Hook {name} took more than {hook.timeout:g} s and was stopped; it changed nothing.")
            return None
        except Exception as error:  # a start refused for any reason (the sandbox's too) is said
            self._log(event, name, f"could not start: {error}", "", "", started)
            self.on_notice(f"Hook {name} could not start: {error}")
            return None
        self._log(event, name, f"exit {code}", out, err, started)
        if code == BLOCK_EXIT:
            return HookAnswer(name, err.strip() or out.strip() or "blocked by a hook")
        if code != 0:
            first = sanitize(err.strip() or out.strip()).splitlines()[:1]
            self.on_notice(f"Hook {name} failed (exit {code}){': ' + first[0] if first else ''}; it changed nothing.")
            return None
        return self._answer(event, name, out)

    def _answer(self, event: HookEvent, name: str, out: str) -> HookAnswer | None:
        """A successful command's stdout read by the contract."""
        text = out.strip()
        if not text.startswith("{"):
            return HookAnswer(context=(text,)) if text and event in TAKES_PLAIN_CONTEXT else HookAnswer()
        try:
            said = json.loads(text)
        except json.JSONDecodeError as error:
            self.on_notice(f"Hook {name} printed JSON that cannot be read ({error}); it changed nothing.")
            return None
        if not isinstance(said, dict):
            return HookAnswer()
        specific = said.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        for message in _texts(said.get("message"), said.get("systemMessage")):
            self.on_notice(f"Hook {name}: {sanitize(message)}")
        context = _texts(said.get("context"), specific.get("additionalContext"))
        blocked = said.get("decision") in ("block", "deny") or specific.get("permissionDecision") == "deny"
        if blocked:
            reason = said.get("reason") or specific.get("permissionDecisionReason") or "blocked by a hook"
            return HookAnswer(name, str(reason), context)
        arguments = said.get("arguments", specific.get("updatedInput"))
        if arguments is not None and not isinstance(arguments, dict):
            self.on_notice(f"Hook {name} gave arguments that are not an object; they were ignored.")
            arguments = None
        return HookAnswer(context=context, arguments=arguments)

    async def _start(self, argv: list[str]) -> asyncio.subprocess.Process:
        """Start `argv` in the hooks' folder, confined as `confine` says, its stdin and output piped."""
        cwd = self.cwd or Path.cwd()
        with self.confine(cwd) as how:
            return await asyncio.create_subprocess_exec(
                *how.argv_prefix,
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=None if how.env is None else dict(how.env),
                preexec_fn=how.preexec_fn,
                start_new_session=True,
            )

    def _log(self, event: str, name: str, outcome: str, out: str, err: str, started: float) -> None:
        """Append one run to the log (moved aside past `LOG_CAP`); a log that cannot be written is said once."""
        if self.log_path is None:
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        lines = [f"{stamp} {event} {name}: {outcome} in {time.monotonic() - started:.2f} s"]
        lines += [f"  stdout: {line}" for line in out[:OUTPUT_CAP].splitlines()]
        lines += [f"  stderr: {line}" for line in err[:OUTPUT_CAP].splitlines()]
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                if self.log_path.stat().st_size > LOG_CAP:
                    self.log_path.replace(self.log_path.with_name(self.log_path.name + ".1"))
            with self.log_path.open("a", encoding="utf-8") as log:
                log.write("\n".join(lines) + "\n")
        except OSError as error:
            self.on_notice(f"The hooks' log {self.log_path} cannot be written: {error}; output dropped.")
            self.log_path = None


def _texts(*values: object) -> tuple[str, ...]:
    """The values that are non-empty strings (what a hook's JSON says may be anything)."""
    return tuple(value for value in values if isinstance(value, str) and value)


def _name(hook: CommandHookSettings) -> str:
    """How a hook is named to the person and the model: its name, else its command, shortened."""
    if hook.name:
        return sanitize(hook.name)
    command = sanitize(" ".join(hook.command.split()))
    return f"`{command[:60]}…`" if len(command) > 60 else f"`{command}`"


def _matches(matcher: str, tool: str) -> bool:
    return matcher in ("", "*") or re.fullmatch(matcher, tool) is not None


Start = Callable[[list[str]], Awaitable[asyncio.subprocess.Process]]


async def _run_bounded(argv: list[str], stdin: bytes, limit: float, start: Start) -> tuple[int, str, str]:
    """Run `argv` with `stdin`, the first `OUTPUT_CAP` bytes of its output kept (the rest read and dropped, so a
    hook that floods costs no memory); past `limit` seconds its whole process group is killed and `TimeoutError`
    raised (a hook's children too: nothing it started outlives it)."""
    process = await start(argv)
    try:
        async with asyncio.timeout(limit):
            out, err, _ = await asyncio.gather(
                _capped(process.stdout), _capped(process.stderr), _feed(process.stdin, stdin)
            )
            code = await process.wait()
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise
    return code, _text(out), _text(err)


async def _capped(stream: asyncio.StreamReader | None) -> bytes:
    kept = bytearray()
    while stream is not None and (chunk := await stream.read(65536)):
        kept += chunk[: max(OUTPUT_CAP - len(kept), 0)]
    return bytes(kept)


async def _feed(stream: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write the event to the hook's stdin and close it; a hook that does not read it is no error."""
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(data)
        await stream.drain()
    stream.close()


def _text(data: bytes) -> str:
    return data[:OUTPUT_CAP].decode("utf-8", "replace")
