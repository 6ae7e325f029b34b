"""Provides `AcpSession`: one ACP session, a chat of ours (its own built agent, stored in history) whose turns
are told to the editor as `session/update`s.

Its ACP id is the history session's id, so `session/load` — in this process or a later one — and `tui-agent
--resume ID` find it. The session is stored when the editor opens it (with a stand-in title that its first
prompt replaces, as the app titles a session), and removed again when it ends without a prompt, so opening and
closing an editor's thread leaves nothing in `tui-agent sessions`.

A turn's events become updates in order: text as message chunks, reasoning as thought chunks, each tool call as
a tool call and its updates (an edit's diff when it ends), the todo list as the plan; a sub-agent's tool calls
too, named after it. A call that asks before it runs is put to the editor (`permission.ask_client`) while the
turn's other updates go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Literal

from acp import RequestError, plan_entry, update_agent_message_text, update_agent_thought_text, update_plan
from acp.helpers import update_available_commands
from acp.interfaces import Client
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    Cost,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfoUpdate,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
    UsageUpdate,
)

from tui_agent.acp import updates
from tui_agent.acp.permission import ask_client
from tui_agent.acp.prompt_blocks import Block, read_prompt
from tui_agent.agent.chat_state import title_from_prompt
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantPartDelta,
    AssistantTextDelta,
    SubAgentEvent,
    ToolCallUpdated,
    TurnFinished,
    TurnStarted,
)
from tui_agent.agent.plan import plan_steps
from tui_agent.agent.services import BuiltAgent
from tui_agent.agent.slash_commands import BUILTIN_NAMES, prompt_to_send
from tui_agent.commands.catalogue import invocation
from tui_agent.errors import UserError
from tui_agent.status import TurnEndReason
from tui_agent.tool_call import CallKey, ToolCall
from tui_agent.tools.modes import MODES, Mode, parse_mode

log = logging.getLogger(__name__)
NEW_TITLE = "New session"
MODEL_OPTION = "model"
MODELS_WAIT = 5.0
"""Seconds the model list may take (`/v1/models`) before the picker shows the current model alone."""
"""A session's title until its first prompt names it."""
MODE_NAMES: dict[Mode, tuple[str, str]] = {
    "ask": ("Ask", "Ask before each tool that changes something"),
    "auto-edit": ("Auto-edit", "Edit files without asking; ask before commands"),
    "auto": ("Auto", "Run everything without asking; commands in the OS sandbox"),
    "plan": ("Plan", "Read and plan only; change nothing"),
    "read-only": ("Read-only", "Only tools that change nothing run"),
}
"""Each permission mode as the editor's mode menu shows it (docs/modes.md says more)."""
StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
STOP_REASONS: dict[TurnEndReason, StopReason] = {
    TurnEndReason.DONE: "end_turn",
    TurnEndReason.CANCELLED: "cancelled",
    TurnEndReason.LENGTH: "max_tokens",
    TurnEndReason.BUDGET: "max_turn_requests",
}


class AcpSession:
    """One editor's session over one built agent of ours."""

    def __init__(self, built: BuiltAgent, client: Client, session_id: str, cwd: Path, attach_max_bytes: int) -> None:
        self.built = built
        self.client = client
        self.id = session_id
        self.cwd = cwd
        self.attach_max_bytes = attach_max_bytes
        self.untitled = False
        """Stored by `session/new` with the stand-in title, no prompt yet (removed at the end if none comes)."""
        self._running = False
        self._asking: set[asyncio.Task[None]] = set()
        self._seen: set[tuple[str, CallKey]] = set()
        self._commands: list[AvailableCommand] | None = None
        self._announcer: asyncio.Task[None] | None = None
        self._models: list[str] | None = None
        self._notices = list(built.notices)
        """What the start said, told with the first reply."""

    @property
    def running(self) -> bool:
        """A prompt of this session is being answered."""
        return self._running

    # -- modes and commands ---------------------------------------------------------------------------
    def modes(self) -> SessionModeState:
        """The permission modes, as the editor's mode menu."""
        return SessionModeState(
            current_mode_id=self.built.agent.permissions.mode,
            available_modes=[
                SessionMode(id=mode, name=MODE_NAMES[mode][0], description=MODE_NAMES[mode][1]) for mode in MODES
            ],
        )

    def set_mode(self, mode_id: str) -> None:
        """Switch the permission mode; an unknown mode, or auto where the sandbox is missing, is refused."""
        mode = parse_mode(mode_id)
        if mode is None:
            raise RequestError.invalid_params({"message": f"There is no mode {mode_id!r}: {', '.join(MODES)}."})
        reason = self.built.agent.permissions.switch(mode)
        if reason is not None:
            raise RequestError.invalid_params({"message": f"Not switched to {mode} mode: {reason}."})

    async def config_options(self) -> list[SessionConfigOptionSelect]:
        """The editor's model picker: the endpoint's chat models (asked once, bounded), the session's selected."""
        agent = self.built.agent
        if self._models is None:
            try:
                async with asyncio.timeout(MODELS_WAIT):
                    self._models = await agent.list_models()
            except Exception as error:  # an endpoint without /v1/models, or slow: the current model alone
                log.info("the endpoint's models are not listed: %s", error)
                self._models = []
        names = sorted({*self._models, agent.model} - {""})
        return [
            SessionConfigOptionSelect(
                type="select",
                id=MODEL_OPTION,
                name="Model",
                category="model",
                current_value=agent.model,
                options=[SessionConfigSelectOption(value=name, name=name) for name in names],
            )
        ]

    def set_option(self, option: str, value: str | bool) -> None:
        """Set a config option the editor shows (only the model: from the next request on, the conversation kept)."""
        if option != MODEL_OPTION or not isinstance(value, str) or not value.strip():
            raise RequestError.invalid_params({"message": f"There is no option {option!r} taking {value!r}."})
        self.built.agent.switch_model(value.strip())

    def announce(self) -> None:
        """Tell the editor the slash commands, once the session is known to it (the reply to `session/new` goes
        first), and again when the MCP servers' prompts come."""
        self._announcer = asyncio.create_task(self._announce())

    async def _announce(self) -> None:
        try:
            await asyncio.sleep(0)  # after the response that names the session
            await self._send_commands()
            await self.built.agent.registry.settled()  # the MCP servers started (bounded by their start-up timeout)
            await self._send_commands()
        except Exception as error:  # the editor went away: nobody to tell
            log.info("the slash commands were not sent: %s", error)

    async def _send_commands(self) -> None:
        commands = [
            AvailableCommand(
                name=command.name,
                description=command.description,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint=command.hint)) if command.hint else None,
            )
            for command in self.built.agent.slash_commands()
        ]
        if commands != self._commands:
            self._commands = commands
            await self.client.session_update(self.id, update_available_commands(commands))

    # -- history ----------------------------------------------------------------------------------------
    async def replay(self) -> None:
        """Show the session's conversation (its active branch) again, for `session/load`."""
        agent = self.built.agent
        messages = await agent.load_history(None, 100_000)
        for update in updates.replayed(messages, self._effects(), self.cwd):
            await self.client.session_update(self.id, update)

    def _effects(self) -> dict[str, str]:
        registry = self.built.agent.registry
        return {name: spec.effect for name in registry.names() if (spec := registry.get(name)) is not None}

    # -- a turn -----------------------------------------------------------------------------------------
    async def prompt(self, blocks: list[Block]) -> StopReason:
        """Run one turn for the editor's prompt, telling it what happens; returns the ACP stop reason."""
        if self._running:
            raise RequestError.invalid_request({"message": "A prompt of this session is still running."})
        self._running = True
        try:
            return await self._prompt(blocks)
        finally:
            self._running = False
            for task in self._asking:
                task.cancel()
            self._asking.clear()

    async def _prompt(self, blocks: list[Block]) -> StopReason:
        read = read_prompt(blocks, self.cwd, self.attach_max_bytes)
        notices, self._notices = self._notices, []
        for problem in [*notices, *read.problems]:
            await self._say(f"({problem})\n\n")
        text = read.text
        called = invocation(text)
        if called is not None and called.name in BUILTIN_NAMES:
            await self._say(
                f"/{called.name} is one of the tui-agent app's own commands: here, use the editor's "
                "(a new thread, the mode menu). Your own commands and MCP prompts work."
            )
            return "end_turn"
        try:
            text, notice = await prompt_to_send(self.built.agent, text)
        except UserError as error:
            await self._say(error.user_message)
            return "end_turn"
        if notice is not None:
            await self._say(f"({notice})\n\n")
        if not text.strip() and not read.attachments:
            return "end_turn"
        finished: TurnFinished | None = None
        replies: dict[str, str] = {}
        events = self.built.agent.send(text, read.attachments)
        try:
            async for event in events:
                if isinstance(event, TurnFinished):
                    finished = event
                elif isinstance(event, AssistantTextDelta):
                    replies[event.message_id] = replies.get(event.message_id, "") + event.text
                await self._tell(event)
        finally:
            close = getattr(events, "aclose", None)  # a generator's: the turn is cancelled when we stop early
            if close is not None:
                await close()
        await self._usage()
        if finished is not None and finished.reason is TurnEndReason.DONE and replies:
            await self._plan(list(replies.values())[-1])
        if finished is None or finished.reason is TurnEndReason.ERROR:
            failure = finished.error if finished is not None else None
            raise RequestError(-32603, failure or "The turn failed.")
        return STOP_REASONS[finished.reason]

    async def _plan(self, reply: str) -> None:
        """In plan mode, the reply's checklist as the editor's plan (the app offers it to approve; here the person
        switches mode and says go)."""
        if self.built.agent.permissions.mode != "plan":
            return
        steps = plan_steps(reply)
        if steps:
            await self.client.session_update(
                self.id, update_plan(plan_entry(step, priority="medium") for step in steps)
            )

    async def _usage(self) -> None:
        """How full the model's context is and what the session cost (the editor's gauge), when the window is
        known (ACP needs its size)."""
        meter = self.built.agent.meter
        if not meter.context_window:
            return
        cost = Cost(amount=float(meter.session_cost), currency="USD") if meter.session_cost is not None else None
        used = max(meter.context_tokens, 0)
        update = UsageUpdate(session_update="usage_update", used=used, size=meter.context_window, cost=cost)
        await self.client.session_update(self.id, update)

    def cancel(self) -> None:
        """Stop the running turn (the editor's `session/cancel`): it ends `cancelled`, what was said kept."""
        self.built.agent.cancel()
        for task in self._asking:
            task.cancel()

    async def _tell(self, event: AgentEvent, prefix: str = "", agent: str | None = None) -> None:
        if isinstance(event, TurnStarted) and self.untitled and not prefix:
            await self._title(event.prompt)
        elif isinstance(event, AssistantTextDelta) and not prefix:
            await self.client.session_update(self.id, update_agent_message_text(event.text))
        elif isinstance(event, AssistantPartDelta) and event.kind == "reasoning" and not prefix:
            await self.client.session_update(self.id, update_agent_thought_text(event.text))
        elif isinstance(event, ToolCallUpdated):
            await self._call(event.call, prefix, agent)
        elif isinstance(event, ApprovalRequested):
            task = asyncio.create_task(self._ask(event, prefix, agent))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)
        elif isinstance(event, SubAgentEvent):  # its calls and questions; its text is its call's result
            await self._tell(event.event, f"{prefix}{event.session_id}:", event.agent)

    async def _call(self, call: ToolCall, prefix: str, agent: str | None) -> None:
        spec = self.built.agent.registry.get(call.name)
        effect = spec.effect if spec is not None else None
        key = (prefix, call.key)
        if key not in self._seen:
            self._seen.add(key)
            await self.client.session_update(self.id, updates.started(call, effect, self.cwd, prefix, agent))
        else:
            await self.client.session_update(self.id, updates.progressed(call, self.cwd, prefix, agent))
        if not prefix and (plan := updates.plan_of(call)) is not None:
            await self.client.session_update(self.id, plan)

    async def _ask(self, event: ApprovalRequested, prefix: str, agent: str | None) -> None:
        spec = self.built.agent.registry.get(event.call.name)
        effect = spec.effect if spec is not None else None
        decision = await ask_client(self.client, self.id, event.call, effect, self.cwd, agent=agent, prefix=prefix)
        if not event.answer.done():
            event.answer.set_result(decision)

    async def _title(self, prompt: str) -> None:
        self.untitled = False
        title = title_from_prompt(prompt)
        await self.built.agent.rename_session(self.id, title)
        await self.client.session_update(self.id, SessionInfoUpdate(session_update="session_info_update", title=title))

    async def _say(self, text: str) -> None:
        await self.client.session_update(self.id, update_agent_message_text(text))

    # -- the end ----------------------------------------------------------------------------------------
    async def close(self) -> None:
        """Stop the turn and what the session started; a session never prompted is removed from history."""
        if self._announcer is not None:
            self._announcer.cancel()
        if self.untitled:
            with contextlib.suppress(Exception):  # best effort: an empty session left behind harms nothing
                await self.built.agent.delete_session(self.id)
        await self.built.close()
