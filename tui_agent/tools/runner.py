"""Provides `ToolRunner`: runs one tool call to its final `ToolCall` (a turn runs each in a node of its own).

Per call: check the tool is one the agent may use (`ToolPolicy`: an agent profile's tools and approval
overrides; none means every tool, the config's policies), validate the arguments, apply the approval policy
(asking the user, through the `Asker` the caller passes, for `ask` tools unless `tui_agent.tools.approvals`
says they may run unasked), run with a timeout, cap the output (an image it returns is kept beside the text:
`results`). Every outcome — unknown tool, bad arguments, denial, exception (any `BaseException`), timeout — is
the call's final value with a text for the model, never an exception for the caller; only a real cancellation
propagates. Sync tools run in a daemon thread of their own (which cannot be killed: on timeout or cancel it is
abandoned and its result discarded, and the programs it started are killed: `tools/daemon.py`); async tools
are cancelled for real.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Protocol, cast

from pydantic import ValidationError

from tui_agent.payloads import Attachment, FileChange
from tui_agent.sandbox import Policy, confined
from tui_agent.status import ToolStatus
from tui_agent.tool_call import HOOK_CHANGED, Decision, ToolCall
from tui_agent.tools.approvals import Grants, edited_file, pattern_allows
from tui_agent.tools.daemon import in_daemon_thread
from tui_agent.tools.hooks import DEFAULT_AGENT, HookDenied
from tui_agent.tools.modes import Permissions, refusal
from tui_agent.tools.output import cap_output, capped_text, let_go
from tui_agent.tools.progress import reporting_progress
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.results import split_result, with_stand_ins
from tui_agent.tools.sandbox_rerun import KEPT, NETWORK, rerun_for
from tui_agent.tools.scan import Watched, shared
from tui_agent.tools.spec import Approval, ToolSpec, describe_validation_error

Asker = Callable[[ToolCall], Awaitable[Decision]]
"""Puts a call (status AWAITING_APPROVAL) to the user and returns the answer."""
OnChange = Callable[[ToolCall], None]
"""Told the call's new value at every change."""
log = logging.getLogger(__name__)
Answer = tuple[str, tuple[Attachment, ...], tuple[FileChange, ...]]
"""A tool's result: its capped text (a stand-in line per attachment) and the attachments it returned."""
WATCHED = frozenset({"command", "unknown"})
"""The effects whose calls the working directory is scanned around (an edit tool reports its own changes)."""
UNWATCHED_SOURCES = frozenset({"agents", "team"})
"""Tools that run other agents (delegates, a team's controls): their agents' own calls are watched instead."""
INLINE_TEXT = 64 * 1024
"""Characters of an async tool's plain-text result capped on the loop (tens of microseconds); more goes to a thread."""


class ToolPolicy(Protocol):
    """Which tools one agent may use and its approval overrides (`tui_agent.agents.profiles.AgentProfile`)."""

    def allows_tool(self, tool: str) -> bool:
        """Whether `tool` is offered to this agent (and may run when called)."""
        ...

    def approval_for(self, tool: str) -> Approval | None:
        """This agent's approval policy for `tool`, None when it keeps the configured one."""
        ...


class _Finished(Exception):
    """Ends a call early with its final state (denied, invalid, unknown)."""

    def __init__(self, status: ToolStatus, text: str, changes: tuple[FileChange, ...] = ()) -> None:
        super().__init__(text)
        self.status, self.text, self.changes = status, text, changes


class ToolRunner:
    """Runs tool calls against a registry; remembers "allow always" answers for one session at a time.

    `timeout` and `output_cap` default to the registry's settings (30 s and 32 KiB unless configured);
    a tool's own `timeout` wins over both.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        timeout: float | None = None,
        output_cap: int | None = None,
        policy: ToolPolicy | None = None,
    ) -> None:
        self.registry = registry
        self.policy = policy
        """The agent's tools and approval overrides (None: every tool, as configured); switching agents sets it."""
        self.timeout = timeout
        self.output_cap = output_cap if output_cap is not None else registry.settings.output_cap
        self.preapproved: frozenset[str] = frozenset()
        """`ask` tools the command line allowed for the whole run (`-p --allow TOOL`)."""
        self.grants = Grants("")
        """The "always" answers of the session being run; another session starts with none."""
        self.permissions = Permissions()
        """The permission mode (`tui_agent.tools.modes`), shared with the sub-agents' runners made from this one."""
        self._sandboxed_by_config = False
        self.sandbox_policy = Policy()
        """What a sandboxed command may reach (`[sandbox]` config)."""
        self._asking = asyncio.Lock()

    def with_policy(self, policy: ToolPolicy | None) -> ToolRunner:
        """A runner over the same tools and limits for another agent (a sub-agent): its own policy and grants."""
        runner = ToolRunner(self.registry, timeout=self.timeout, output_cap=self.output_cap, policy=policy)
        runner.preapproved = self.preapproved
        runner.permissions = self.permissions
        runner.sandbox_commands = self._sandboxed_by_config
        runner.sandbox_policy = self.sandbox_policy
        return runner

    @property
    def sandbox_commands(self) -> bool:
        """Whether command-like tools run inside the OS sandbox (`tui_agent.sandbox`): always in auto mode, and
        whenever `[sandbox]` config sets it."""
        return self._sandboxed_by_config or self.permissions.mode == "auto"

    @sandbox_commands.setter
    def sandbox_commands(self, value: bool) -> None:
        self._sandboxed_by_config = value

    def _sandbox_for(self, spec: ToolSpec, network: bool = False) -> Policy | None:
        """The sandbox policy the call's programs run under (`tui_agent.sandbox`), None for none: auto mode
        started with the loud unsandboxed flag on a machine without a sandbox runs commands as they are.
        `network`: the user allowed this call the network."""
        if spec.effect != "command" or not self.sandbox_commands:
            return None
        unsandboxed = self.permissions.unsandboxed_auto and self.permissions.sandbox_ready() is not None
        if unsandboxed and not self._sandboxed_by_config:
            return None
        return replace(self.sandbox_policy, network=True) if network else self.sandbox_policy

    def allows(self, tool: str) -> bool:
        """Whether the agent may use `tool` (every enabled tool without a policy)."""
        return self.policy is None or self.policy.allows_tool(tool)

    def offered_tools(self) -> list[dict[str, Any]]:
        """The `tools` list of a chat request: the enabled tools this agent may use."""
        return [tool for tool in self.registry.openai_tools() if self.allows(tool["function"]["name"])]

    def approval_for(self, tool: str) -> Approval:
        """The policy a call of `tool` runs under: a tool turned off or denied by the config stays denied,
        then the agent's override, then the configured or the tool's own policy."""
        configured = self.registry.approval_for(tool)
        if configured == "deny" or self.policy is None:
            return configured
        return self.policy.approval_for(tool) or configured

    def begin_session(self, session_id: str) -> None:
        """Calls of `session_id` follow: "always this session" answers of another session end here."""
        if self.grants.session_id != session_id:
            self.grants = Grants(session_id)

    async def run(
        self, calls: Sequence[ToolCall], on_change: OnChange, ask: Asker | None = None, session_id: str = ""
    ) -> list[ToolCall]:
        """Run `calls` of session `session_id` concurrently outside any turn (tools, tests, benchmarks); a
        turn runs each call in a commander node of its own instead. Cancelling cancels them all."""
        self.begin_session(session_id)
        tasks = [asyncio.create_task(self.run_one(call, on_change, ask), name=f"tool:{call.name}") for call in calls]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def run_one(
        self, call: ToolCall, on_change: OnChange, ask: Asker | None = None, agent: str = DEFAULT_AGENT
    ) -> ToolCall:
        """Run one call of `agent` (as tool hooks are told it) to its final value; `ask` puts `ask` tools to the
        user (None: nobody can answer, so they are denied). Cancelling this coroutine ends the call `interrupted`
        (reported) and re-raises."""
        report = _Reporter(call, on_change)
        report.change(status=ToolStatus.PENDING)
        hooks, spec, arguments, note = self.registry.hooks, None, dict(call.arguments or {}), ""
        try:
            spec, arguments = self._prepare(call)
            spec, arguments, note = await self._hooked(spec, arguments, agent)
            network = await self._approve(spec, spec.command_in(arguments), report, ask, edited_file(spec, arguments))
            text, attachments, changes = await self._watched(spec, arguments, report, ask, network)
            text = note + await hooks.after_tool(
                spec.name, arguments, text, agent=agent, session_id=self.grants.session_id
            )
        except _Finished as end:
            text = note + end.text
            if spec is not None:  # a known tool with valid arguments: its after_tool hooks see the failure too
                text = await hooks.after_tool(
                    spec.name, arguments, text, failed=True, agent=agent, session_id=self.grants.session_id
                )
            return report.finish(end.status, text, changes=end.changes)
        except asyncio.CancelledError:
            report.finish(ToolStatus.INTERRUPTED, f"The call to {call.name} was cancelled.")
            raise
        return report.finish(ToolStatus.DONE, text, attachments, changes)

    async def _hooked(
        self, spec: ToolSpec, arguments: dict[str, Any], agent: str
    ) -> tuple[ToolSpec, dict[str, Any], str]:
        """The call as the `before_tool` hooks leave it (`tui_agent.tools.hooks`), with the note the result
        starts with when they changed its arguments (validated again); a refusal ends the call denied."""
        try:
            plan = await self.registry.hooks.before_tool(spec.name, arguments, agent, self.grants.session_id)
        except HookDenied as denied:
            raise _Finished(ToolStatus.DENIED, str(denied)) from denied
        if not plan.changed_by:
            return spec, arguments, ""
        try:
            arguments = spec.validate(plan.arguments)
        except ValidationError as error:
            by = ", ".join(plan.changed_by)
            raise _Finished(
                ToolStatus.FAILED,
                f"A hook ({by}) changed the arguments to invalid ones: " + describe_validation_error(spec.name, error),
            ) from error
        shown = json.dumps(arguments, ensure_ascii=False, default=str)
        return spec, arguments, f"{HOOK_CHANGED[0]}{', '.join(plan.changed_by)}): {shown}]\n"  # (the panel reads it)

    def _prepare(self, call: ToolCall) -> tuple[ToolSpec, dict[str, Any]]:
        spec = self.registry.get(call.name) if self.allows(call.name) else None
        if spec is None:
            known = ", ".join(name for name in self.registry.names() if self.allows(name)) or "none"
            raise _Finished(ToolStatus.FAILED, f"no tool named {call.name} (available tools: {known})")
        try:
            return spec, spec.validate(call.arguments or {})
        except ValidationError as error:
            raise _Finished(ToolStatus.FAILED, describe_validation_error(spec.name, error)) from error

    async def _approve(
        self, spec: ToolSpec, command: str | None, report: _Reporter, ask: Asker | None, file: str | None = None
    ) -> bool:
        """Whether the call may run (else `_Finished`), and whether the user allowed it the network."""
        policy = self.approval_for(spec.name)
        if policy == "deny":
            raise _Finished(
                ToolStatus.DENIED,
                f"The tool {spec.name} is not allowed to run (its approval policy is 'deny'). Do not call it again.",
            )
        verdict = self.permissions.verdict(spec.effect)  # the mode, after config's deny and before asking
        if verdict == "refuse":
            raise _Finished(ToolStatus.DENIED, refusal(self.permissions.mode, spec.name, spec.effect))
        if (
            policy == "never"
            or verdict == "run"
            or self._allowed(spec.name, command)
            or self.grants.covers(spec.name, command, effect=spec.effect, file=file)
        ):
            return False
        if ask is None:
            raise _Finished(
                ToolStatus.DENIED,
                f"The tool {spec.name} needs the user's approval, and nobody can "
                "give it in this non-interactive run (where `--allow "
                f"{spec.name}` would), so it was not run.",
            )
        sandboxed = self._sandbox_for(spec)
        offline = sandboxed is not None and not sandboxed.network
        report.change(status=ToolStatus.AWAITING_APPROVAL, command=command, network_off=offline)
        async with self._asking:  # one question at a time; an "always" answer covers the calls queued behind it
            if self.grants.covers(spec.name, command, effect=spec.effect, file=file):
                return False
            grants = self.grants  # the session asked for, even if another one starts while the user thinks
            decision = await _asked(ask, report.call)
        if decision == Decision.DENY:
            raise _Finished(ToolStatus.DENIED, f"The user denied the call to {spec.name}.")
        if decision == Decision.ALLOW_ALWAYS:
            grants.add(spec.name, command)
        elif decision == Decision.ALLOW_FILE and file is not None:
            grants.files.add(file)
        elif decision == Decision.ALLOW_EDITS:
            grants.effects.add("edit")
        return decision == Decision.ALLOW_NETWORK and offline

    def _allowed(self, tool: str, command: str | None) -> bool:
        """Whether the call may run unasked: `--allow`, an "always" answer, or a configured pattern."""
        if tool in self.preapproved or self.grants.covers(tool, command):
            return True
        return command is not None and pattern_allows(self.registry.settings.rules_for(tool).allow, command)

    async def _watched(
        self, spec: ToolSpec, arguments: dict[str, Any], report: _Reporter, ask: Asker | None, network: bool
    ) -> Answer:
        """`_execute`, with the working directory scanned around a call that may change files without saying
        (`tools/scan.py`): what it changed goes on the call (a failed one too), for history and rewind. A
        sub-agent's or a team's own tools are not watched: the calls they make are."""
        settings = self.registry.settings
        if spec.effect not in WATCHED or spec.source in UNWATCHED_SOURCES or settings.scan_max_files <= 0:
            return await self._execute(spec, arguments, report, ask, network)
        tree = shared(settings.scan_max_files, settings.scan_max_bytes)
        before = await asyncio.to_thread(tree.before)
        try:
            text, attachments, changes = await self._execute(spec, arguments, report, ask, network)
        except _Finished as end:
            watched = await asyncio.to_thread(tree.after, before)
            raise _Finished(end.status, end.text + _undoable(watched), watched.changes) from end
        watched = await asyncio.to_thread(tree.after, before)
        return text + _undoable(watched), attachments, (*changes, *watched.changes)

    async def _execute(
        self, spec: ToolSpec, arguments: dict[str, Any], report: _Reporter, ask: Asker | None, network: bool
    ) -> Answer:
        """Run the call, in the sandbox when it is command-like and the mode or config says so; when the sandbox
        blocked it and someone can answer, ask whether to run it once more outside (`tools/sandbox_rerun.py`)."""
        policy = self._sandbox_for(spec, network)
        answer, blocked = await self._run(spec, arguments, report, policy)
        if network and policy is not None:
            answer = (NETWORK + answer[0], *answer[1:])
        if not blocked or ask is None or policy is None:
            return answer
        report.change(status=ToolStatus.AWAITING_APPROVAL, blocked=tuple(blocked), network_off=not policy.network)
        try:
            async with self._asking:
                decision = await _asked(ask, report.call)
        except _Finished:  # nobody could answer: the blocked result stands
            decision = Decision.DENY
        if (again := rerun_for(decision, policy, blocked)) is None:
            return answer[0] + KEPT, answer[1], answer[2]
        text, attachments, changes = (await self._run(spec, arguments, report, again.policy))[0]
        return again.note + text, attachments, (*answer[2], *changes)

    async def _run(
        self, spec: ToolSpec, arguments: dict[str, Any], report: _Reporter, policy: Policy | None
    ) -> tuple[Answer, list[str]]:
        """One run under `policy` (None: unsandboxed), and what the sandbox blocked in it."""
        report.change(status=ToolStatus.RUNNING, started_at=time.monotonic())
        timeout = spec.timeout if spec.timeout is not None else self.timeout or self.registry.settings.timeout
        try:
            async with asyncio.timeout(timeout) as deadline:
                with reporting_progress(lambda text: report.change(progress=text)), confined(policy) as scope:
                    return await _call(spec, arguments, self.output_cap), scope.blocked
        except TimeoutError as exc:
            if not deadline.expired():  # the tool's own TimeoutError is an ordinary failure
                raise _Finished(ToolStatus.FAILED, f"{spec.name} failed: {_describe(exc)}") from exc
            raise _Finished(ToolStatus.FAILED, f"{spec.name} timed out after {timeout:g} s and was stopped.") from exc
        except asyncio.CancelledError as exc:
            if _cancelled_by_us():
                raise
            raise _Finished(ToolStatus.FAILED, f"{spec.name} failed: {_describe(exc)}") from exc
        except BaseException as exc:  # KeyboardInterrupt, SystemExit, GeneratorExit...: a failed call, never ours
            raise _Finished(ToolStatus.FAILED, f"{spec.name} failed: {_describe(exc)}") from exc


def _undoable(watched: Watched) -> str:
    """What the result says when the call's changes cannot all be taken back ("" when they can)."""
    return "" if watched.not_undoable is None else f"\n[not undoable: {watched.not_undoable}]"


async def _call(spec: ToolSpec, arguments: Mapping[str, Any], cap: int) -> Answer:
    """Run the tool and turn its value into capped text off the loop, in pieces: a result of tens of
    megabytes must not stall the UI. A sync tool's value never leaves its thread (even freeing a million
    objects takes a while). Its __str__ is tool code too, so all of it runs under the caller's timeout.
    What it returns besides text (`ToolResult`'s attachments) is kept, a stand-in line for each."""
    if spec.is_async:
        value, attachments, changes = split_result(await spec.func(**arguments))
        if type(value) is str and len(value) <= INLINE_TEXT:  # an MCP tool's text: a thread costs more than this
            return (*with_stand_ins(cap_output(value, cap), attachments), changes)
        box = [value]
    else:
        outcome = await in_daemon_thread(partial(_run_capped, spec.func, arguments, cap), f"tool:{spec.name}")
        if not asyncio.iscoroutine(outcome):
            return cast(Answer, outcome)
        value, attachments, changes = split_result(await outcome)
        box = [value]
    text = str(await in_daemon_thread(partial(_capped_in_thread, box, cap), f"tool:{spec.name}"))
    return (*with_stand_ins(text, attachments), changes)


def _run_capped(func: Callable[..., Any], arguments: Mapping[str, Any], cap: int) -> Any:
    """A sync tool's call in its thread: its value as capped text with its attachments (`Answer`); a coroutine
    it returns is awaited after."""
    value = func(**arguments)
    if asyncio.iscoroutine(value):
        return value
    value, attachments, changes = split_result(value)
    text = capped_text(value, cap)
    let_go(value)
    return (*with_stand_ins(text, attachments), changes)


def _capped_in_thread(box: list[Any], cap: int) -> str:
    """The value as capped text; the value is let go in the thread too."""
    value = box.pop()
    text = capped_text(value, cap)
    let_go(value)
    return text


async def _asked(ask: Asker, call: ToolCall) -> Decision:
    try:
        return Decision(await ask(call))
    except Exception as exc:  # a broken approval callback must not run the tool
        log.warning("approval for %s failed: %s", call.name, exc)
        raise _Finished(
            ToolStatus.DENIED, f"Approval for {call.name} could not be obtained ({exc}), so it was not run."
        ) from exc


def _cancelled_by_us() -> bool:
    """Whether the running task was really cancelled (the turn, Esc, a timeout) rather than handed a
    `CancelledError` a tool raised on its own, which must not pass for the turn being stopped."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _describe(exc: BaseException) -> str:
    message = str(exc)
    if not message:
        return type(exc).__name__
    return message if isinstance(exc, ValueError) else f"{type(exc).__name__}: {message}"


class _Reporter:
    """Holds one call's value and tells `on_change` about each change (a failing callback is only logged)."""

    def __init__(self, call: ToolCall, on_change: OnChange) -> None:
        self.call, self._on_change = call, on_change

    def change(self, **changes: Any) -> None:
        self.call = self.call.replace(**changes)
        try:
            self._on_change(self.call)
        except Exception:
            log.exception("on_change failed for tool call %s", self.call.call_id)

    def finish(
        self,
        status: ToolStatus,
        text: str,
        attachments: Sequence[Attachment] = (),
        changes: tuple[FileChange, ...] = (),
    ) -> ToolCall:
        failed = status in (ToolStatus.FAILED, ToolStatus.DENIED, ToolStatus.INTERRUPTED)
        self.change(
            status=status,
            finished_at=time.monotonic(),
            result=None if failed else text,
            error=text if failed else None,
            attachments=tuple(a.ref for a in attachments),
            attachment_data={a.hash: a.data for a in attachments},
            file_changes=changes,
        )
        return self.call
