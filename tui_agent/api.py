"""tui-agent as a Python library: open a chat (new or resumed), send prompts, read the turn's typed events,
answer approvals, run a team, close. Everything here is public and listed in `__all__` (a test keeps it from
changing by accident); everything else in `tui_agent` is internal and may change.

    import asyncio
    from tui_agent.api import AssistantTextDelta, open_chat

    async def main() -> None:
        async with await open_chat(offline=True) as chat:
            async for event in chat.send("what is 2 + 2?"):
                if isinstance(event, AssistantTextDelta):
                    print(event.text, end="")
            print()
            print(await chat.reply("and times 3?"))  # the whole reply's text

    asyncio.run(main())

A chat runs one turn at a time: `send` while a turn of the same chat is running raises `ChatBusyError` (no two
turns ever interleave in one session). Tools that ask before running are put to `approve` (`reply`), or
arrive as an `ApprovalRequested` event whose `answer` future you set (`send`); unanswered they are denied, as
in `tui-agent -p`. Settings are read as the command does (flags here > environment > the config file), unless
`read_config=False`. The chat's history is stored in the same history file (`db`), so `tui-agent --resume ID`
and `tui-agent sessions` see it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from tui_agent import paths
from tui_agent.agent.endpoint import choose_endpoint
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    SubAgentEvent,
    TeamStopped,
    ToolCallUpdated,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from tui_agent.agent.resume import ResumeRequest, apply_resume
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings, resolve_settings
from tui_agent.errors import UserError
from tui_agent.status import MessageStatus, ToolStatus, TurnEndReason
from tui_agent.tool_call import Decision, ToolCall

__all__ = [
    "AgentEvent",
    "ApprovalRequested",
    "AssistantMessageFinished",
    "AssistantMessageStarted",
    "AssistantPartDelta",
    "AssistantTextDelta",
    "Chat",
    "ChatBusyError",
    "Decision",
    "MessageStatus",
    "SubAgentEvent",
    "TeamStopped",
    "ToolCall",
    "ToolCallUpdated",
    "ToolStatus",
    "TurnEndReason",
    "TurnFinished",
    "TurnStarted",
    "UsageUpdated",
    "open_chat",
]

Approver = Callable[[ToolCall], Decision]
"""Answers a tool call that asks before running (`Decision.ALLOW_ONCE`, `ALLOW_ALWAYS`, `DENY`)."""


class ChatBusyError(UserError, RuntimeError):
    """A prompt was sent while this chat's turn was still running."""


async def open_chat(
    *,
    offline: bool = False,
    base_url: str | None = None,
    model: str | None = None,
    agent: str | None = None,
    resume: str | None = None,
    allow: Sequence[str] = (),
    db: Path | None = None,
    read_config: bool = True,
    **settings: Any,
) -> Chat:
    """A chat on the offline model (`offline`), an endpoint (`base_url`, `model`; the key from the environment
    as the command reads it) or what the config file says; running `agent`; continuing session `resume` (an id
    or unique prefix); with the `ask` tools in `allow` run without asking. Other settings by name, as in the
    config file (`plugin_dirs=[...]`, `tools={...}`). Close it (`async with`, or `close()`)."""
    flags = {"offline": offline or None, "base_url": base_url, "model": model, "agent": agent, "db": db, **settings}
    flags = {key: value for key, value in flags.items() if value is not None}
    if read_config:
        chosen, _ = resolve_settings(flags, paths.config_file())
    else:
        chosen = Settings(**flags)
    built = await build_agent(chosen, choose_endpoint(chosen))
    try:
        if resume is not None:
            await apply_resume(built.agent, ResumeRequest(resume))
        built.agent.runner.preapproved = frozenset(allow)
    except BaseException:
        await built.close()
        raise
    return Chat(built)


class Chat:
    """One conversation with an agent (or a team), stored in history like any other session."""

    def __init__(self, built: BuiltAgent) -> None:
        self._built = built
        self._running = False

    @property
    def session_id(self) -> str | None:
        """The session's id once its first prompt is stored (None before)."""
        return self._built.agent.current_session_id

    @property
    def model(self) -> str:
        return self._built.agent.model

    @property
    def notices(self) -> list[str]:
        """What the start said (a config problem, an MCP server that failed...)."""
        return list(self._built.notices)

    def send(self, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run one turn for `prompt`, yielding its events up to `TurnFinished`; stopping the iteration early
        cancels the turn. Raises `ChatBusyError` while another turn of this chat runs."""
        return self._turn(lambda: self._built.agent.send(prompt))

    def run_team(self, team: str, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run team `team` (as `tui-agent --team`) on `prompt`: its members' events, then `TeamStopped`."""
        return self._turn(lambda: self._built.agent.run_team(team, prompt))

    async def reply(self, prompt: str, approve: Approver | None = None) -> str:
        """The text of the reply to `prompt` (every message of the turn, joined); tools that ask are put to
        `approve` (None: denied)."""
        texts: dict[str, str] = {}
        async for event in self.send(prompt):
            if isinstance(event, AssistantTextDelta):
                texts[event.message_id] = texts.get(event.message_id, "") + event.text
            elif isinstance(event, ApprovalRequested) and not event.answer.done():
                event.answer.set_result(approve(event.call) if approve is not None else Decision.DENY)
        return "\n\n".join(text.strip() for text in texts.values() if text.strip())

    async def _turn(self, start: Callable[[], AsyncIterator[AgentEvent]]) -> AsyncIterator[AgentEvent]:
        if self._running:
            raise ChatBusyError("A turn of this chat is still running: read its events to the end first.")
        self._running = True
        try:
            async for event in start():
                yield event
        finally:
            self._running = False

    async def close(self) -> None:
        """Stop what the chat started (the offline model, MCP servers) and flush its history."""
        await self._built.close()

    async def __aenter__(self) -> Chat:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()
