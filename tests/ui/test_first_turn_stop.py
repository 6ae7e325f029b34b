"""Esc right after Enter on a new session's first prompt stops the turn, on the real engine: the offline model
over HTTP, the real agent and commander, a real SQLite file.

The first turn of a new session is set up before anything runs it (the engine may still be starting, the
session and the prompt are stored, the context windows awaited): an Esc then met nothing to cancel, the screen
said "ready" while the reply streamed in and was stored complete, and prompts sent meanwhile waited behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import FIXED_NOW, chat, newest_prompt, send, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, Role
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.messages import MessageMarker, UserMessage

SIZE = (140, 40)
SLOW = {"text": "A long reply that takes its time. " * 40, "chunk_size": 8, "chunk_delay": 0.02}
"""A reply streaming for seconds: run to its end, it is stored complete."""
MakeApp = Callable[..., TuiAgentApp]


@pytest.fixture
def slow_server() -> Iterator[BackgroundServer]:
    """A model whose first reply is slow (then the offline model's own answers)."""
    server = BackgroundServer(strict_scenario({"replies": [SLOW]}))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def answer_at_once(server: BackgroundServer) -> None:
    """The slow reply dropped if the stopped turn never asked for it: the next prompt is answered at once."""
    server.server.script([])


@pytest.fixture
async def slow_app(tmp_path: Path, slow_server: BackgroundServer) -> AsyncIterator[MakeApp]:
    """`slow_app(build_gate=None)`: the app on a real agent on `slow_server`; with `build_gate`, the engine's
    build waits for it (an engine still starting)."""
    server = slow_server

    def make(build_gate: asyncio.Event | None = None) -> TuiAgentApp:
        settings = Settings(db=tmp_path / "history.db")
        choice = EndpointChoice(server.base_url, "scripted", "test-key")

        async def build() -> BuiltAgent:
            if build_gate is not None:
                await build_gate.wait()
            return await build_agent(settings, choice)

        return TuiAgentApp(build, model="scripted", endpoint="scripted", clock=lambda: FIXED_NOW, cursor_blink=False)

    yield make


async def stored(path: Path) -> list[Message]:
    store = await HistoryStore.open(path)
    try:
        sessions = await store.list_recent()
        return [m for s in reversed(sessions) for m in await store.load_tail(s.id, 100)]
    finally:
        await store.close()


def keys_at_once(pilot: Pilot[None], *keys: str) -> None:
    """The keys as a terminal delivers keys typed in one go: queued together, none waiting for the app to settle
    after the one before (as `press` does, which lets a whole reply stream in between)."""
    for key in keys:
        pilot.app.post_message(events.Key(key, "\r" if key == "enter" else None))


def prompts_shown(screen: ChatScreen) -> list[str]:
    return [entry.prompt for entry in screen.query(UserMessage)]


async def stopped_and_idle(pilot: Pilot[None], screen: ChatScreen) -> None:
    """The turn stopped by Esc has ended: nothing runs, the reply is marked interrupted."""
    await wait_until(
        pilot,
        lambda: screen.idle and any(marker.has_class("-interrupted") for marker in screen.query(MessageMarker)),
        lambda: f"stopped (idle: {screen.idle}, busy: {screen.busy})",
    )


async def test_escape_right_after_enter_on_a_new_sessions_first_prompt_stops_the_turn(
    slow_app: MakeApp, slow_server: BackgroundServer, tmp_path: Path
) -> None:
    app = slow_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.engine()
        screen = chat(pilot)
        await wait_until(pilot, lambda: screen.backend is not None, "the screen on the engine")
        await wait_until(pilot, lambda: app.focused is screen.prompt_input, "the prompt focused")
        screen.prompt_input.insert("tell me a long story")
        keys_at_once(pilot, "enter", "escape")
        await wait_until(pilot, lambda: prompts_shown(screen) == ["tell me a long story"], "the prompt sent")
        await stopped_and_idle(pilot, screen)
        assert not screen.busy
        answer_at_once(slow_server)
        await send(pilot, "go 1")  # sent at once, as its own prompt, and answered
        assert prompts_shown(screen) == ["tell me a long story", "go 1"] and not screen.queued.prompts
    messages = await stored(tmp_path / "history.db")
    assert [(m.role, m.content) for m in messages if m.role is Role.USER] == [
        (Role.USER, "tell me a long story"),
        (Role.USER, "go 1"),
    ]
    replies = [m.status for m in messages if m.role is Role.ASSISTANT]
    assert replies == [MessageStatus.INTERRUPTED, MessageStatus.COMPLETE]


async def test_escape_while_the_engine_is_still_starting_stops_the_first_turn(
    slow_app: MakeApp, slow_server: BackgroundServer, tmp_path: Path
) -> None:
    """Enter then Esc before the engine is built: the turn waits for it, and is stopped as soon as it begins."""
    gate = asyncio.Event()
    app = slow_app(build_gate=gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(pilot)
        await send(pilot, "tell me a long story", wait=False)
        await wait_until(pilot, lambda: newest_prompt(screen) is not None and screen.busy, "the prompt sent")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.busy, "ready again")
        gate.set()  # the engine is built now
        await stopped_and_idle(pilot, screen)
        answer_at_once(slow_server)
        await send(pilot, "go 1")
        assert prompts_shown(screen) == ["tell me a long story", "go 1"]
    statuses = [m.status for m in await stored(tmp_path / "history.db") if m.role is Role.ASSISTANT]
    assert statuses == [MessageStatus.INTERRUPTED, MessageStatus.COMPLETE]
