"""Test helpers for session Pilot tests on the real stack: seed a SQLite history, build the app as `tui-agent` does.

`seed` writes sessions through the real `HistoryStore` (closed afterwards, as after an earlier run);
`RealStack.app(resume=...)` builds the real agent against a scripted offline model, the way `launch.run_app`
does, `--resume`/`--continue` included.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import FIXED_NOW, Built
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.resume import ResumeRequest
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.boot import early_page, resume_notice
from tui_agent.config import Settings
from tui_agent.history.models import Message, Session
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, ToolStatus
from tui_agent.ui.app import TuiAgentApp


@dataclass(frozen=True)
class Call:
    """A stored tool call: its final state (the store sets the timings)."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    status: ToolStatus
    result: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Turn:
    """A stored prompt and its reply."""

    prompt: str
    reply: str
    status: MessageStatus = MessageStatus.COMPLETE
    error: str | None = None
    calls: tuple[Call, ...] = ()


async def seed(db: Path, title: str, turns: Iterable[Turn], *, model: str = "scripted") -> Session:
    """Write one session into the history file (the store is closed after, like an earlier run's)."""
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session(title, model=model)
        for turn in turns:
            await add_turn(store, session.id, turn, model)
        return session
    finally:
        await store.close()


async def add_turn(store: HistoryStore, session_id: str, turn: Turn, model: str = "scripted") -> None:
    _, reply = await store.begin_turn(session_id, turn.prompt, model=model)
    for call in turn.calls:
        await store.record_tool_call(reply.id, call.call_id, call.name, _json(call.arguments), call.arguments)
        if call.status is not ToolStatus.PENDING:
            if call.status.is_final:  # timings: started on `running`, finished on the final status
                await store.update_tool_call(reply.id, call.call_id, ToolStatus.RUNNING)
            await store.update_tool_call(reply.id, call.call_id, call.status, result=call.result, error=call.error)
    await store.finish_message(reply.id, turn.status, content=turn.reply, error=turn.error)


def _json(arguments: dict[str, Any]) -> str:
    import json

    return json.dumps(arguments, ensure_ascii=False)


async def stored(db: Path, session_id: str | None = None) -> tuple[list[Session], list[Message]]:
    """Every session, most recent first, and the messages of `session_id` (default: the most recent)."""
    store = await HistoryStore.open(db)
    try:
        sessions = await store.list_recent(100)
        wanted = session_id or (sessions[0].id if sessions else None)
        messages = await store.load_tail(wanted, 10_000) if wanted else []
        return sessions, messages
    finally:
        await store.close()


def stack_serving(tmp_path: Path, scenario: object = None) -> Iterator[RealStack]:
    """A history file in `tmp_path` and a strict offline model playing `scenario` (None: its default
    behaviour), for a fixture to `yield from`."""
    with BackgroundServer(strict_scenario(scenario)) as server:
        yield RealStack(tmp_path / "history.db", server)


@contextmanager
def real_stack(tmp_path: Path, reply: str) -> Iterator[RealStack]:
    """A history file in `tmp_path` and a model server that answers every prompt with `reply`."""
    yield from stack_serving(tmp_path, {"replies": [{"text": reply}], "then": "repeat_last"})


@dataclass
class RealStack:
    """A history file and a scripted offline model server (default behaviour once the script runs out)."""

    db: Path
    server: BackgroundServer

    def app(
        self, resume: ResumeRequest | None = None, *, build_after: asyncio.Event | None = None
    ) -> tuple[TuiAgentApp, Built]:
        """The app as `tui-agent [--resume ID | --continue]` runs it (`build_after`: the engine waits for it)."""
        settings = Settings(db=self.db, tools={"demo_tools": True})  # the offline model plays "scripted": its weather
        choice = EndpointChoice(self.server.base_url, "scripted", "test-key")

        async def build() -> BuiltAgent:
            if build_after is not None:
                await build_after.wait()
            return await build_and_resume(settings, choice, resume)

        app = TuiAgentApp(
            build,
            model=choice.model,
            endpoint=choice.label,
            early_page=early_page(self.db, resume) if resume is not None else None,
            clock=lambda: FIXED_NOW,
            cursor_blink=False,
        )
        return app, Built(app)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of the chat-completion requests the model server received, in order."""
        return [r.body for r in self.server.requests if r.path.endswith("/chat/completions") and r.body]


async def build_and_resume(settings: Settings, choice: EndpointChoice, resume: ResumeRequest | None) -> BuiltAgent:
    """What `tui-agent --resume/--continue` does after the first paint (`boot.build_engine`, from settings)."""
    built = await build_agent(settings, choice)
    built.resume_failure = await resume_notice(built, resume)
    return built


def resumed_app(settings: Settings, choice: EndpointChoice, resume: ResumeRequest | None = None) -> TuiAgentApp:
    """The app as `tui-agent [--resume ID | --continue]` runs it on `settings` (its `db`) and `choice`."""
    assert settings.db is not None
    db = Path(settings.db)
    return TuiAgentApp(
        lambda: build_and_resume(settings, choice, resume),
        model=choice.model,
        endpoint=choice.label,
        early_page=early_page(db, resume) if resume is not None else None,
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
    )


def api_messages(body: dict[str, Any]) -> list[tuple[str, str | None, list[str]]]:
    """(role, content or tool_call_id, ids of tool calls made) of each message in a request, in order."""
    out = []
    for message in body["messages"]:
        calls = [call["id"] for call in message.get("tool_calls") or []]
        text = message.get("tool_call_id") if message["role"] == "tool" else message.get("content")
        out.append((message["role"], text, calls))
    return out
