"""Failures a person can act on, on the real stack (offline model over HTTP, real agent, real SQLite file):
retries shown as they happen, errors with their details, Retry and Continue."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, chat, send
from tui_agent.agent.deferred import DeferredAgent
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.messages import ErrorNotice

Make = Callable[..., tuple[TuiAgentApp, BackgroundServer]]
LONG_MESSAGE = " ".join(f"reason{n}" for n in range(120)) + " THE-END"


@pytest.fixture
async def scripted_app(tmp_path: Path) -> AsyncIterator[Make]:
    """`scripted_app(scenario, **settings)`: the app on a real agent talking to a scripted offline model."""
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any], **values: Any) -> tuple[TuiAgentApp, BackgroundServer]:
        server = BackgroundServer(scenario)
        server.start()
        servers.append(server)
        choice = EndpointChoice(server.base_url, "scripted", "test-key")
        settings = Settings(db=tmp_path / "history.db", **values)
        backend = DeferredAgent(lambda: build_agent(settings, choice), model=choice.model, endpoint=choice.label)
        return TuiAgentApp(backend, clock=lambda: FIXED_NOW, cursor_blink=False), server

    yield make
    for server in servers:
        server.stop()


async def stored(path: Path) -> list[Message]:
    store = await HistoryStore.open(path)
    try:
        (session,) = await store.list_recent()
        return await store.load_tail(session.id, 100)
    finally:
        await store.close()


async def watch_status(pilot: Pilot[None], until: Callable[[], bool], limit: float = 30.0) -> list[str]:
    """Every distinct status line shown until `until()` holds (polled as a person would glance at it)."""
    bar = chat(pilot).status_bar
    seen: list[str] = []
    deadline = time.monotonic() + limit
    while True:
        done = until()
        await pilot.pause(0.05)
        text = str(bar.render()).split("│")[0].strip()
        if not seen or seen[-1] != text:
            seen.append(text)
        if done:
            return seen
        assert time.monotonic() < deadline, f"never finished; the status line said {seen}"


async def test_retries_and_the_wait_for_a_first_token_show_in_the_status_line_with_moving_timers(
    scripted_app: Make,
) -> None:
    app, server = scripted_app({"replies": [{"status": 429, "retry_after": 2}, {"status": 500, "retry_after": 1},
                                            {"text": "Finally here.", "first_token_delay": 1.6}]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)
        seen = await watch_status(pilot, lambda: screen.idle)
        assert screen.chat_log.assistant_messages[-1].shown_text().strip() == "Finally here."
    assert "◌ rate limited — retrying in 2 s (1 of 2) — Esc stops" in seen
    assert "◌ rate limited — retrying in 1 s (1 of 2) — Esc stops" in seen  # the timer moved
    assert "◌ server error 500 — retrying in 1 s (2 of 2) — Esc stops" in seen
    assert "◌ waiting for the server 1 s (retry 2 of 2) — Esc stops" in seen
    assert seen[-1] == "○ ready"
    assert [r.outcome for r in server.requests] == ["status 429", "status 500", "ok"]


async def test_a_slow_first_token_shows_the_wait_then_replying(scripted_app: Make) -> None:
    app, _ = scripted_app({"replies": [{"text": "Slow start, then " + "more words " * 30, "first_token_delay": 1.3,
                                        "chunk_size": 4, "chunk_delay": 0.02}]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)
        seen = await watch_status(pilot, lambda: screen.idle)
    waits = [text for text in seen if "waiting for the server" in text]
    assert waits[:2] == ["◌ waiting for the server 0 s — Esc stops", "◌ waiting for the server 1 s — Esc stops"]
    assert seen.index(waits[-1]) < seen.index("● replying — Esc stops")


async def test_an_error_keeps_its_whole_message_request_id_and_endpoint_shown_wrapped_and_stored(
    scripted_app: Make, tmp_path: Path,
) -> None:
    app, server = scripted_app({"replies": [{"status": 400, "error_message": LONG_MESSAGE}]})
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "hello")
        (notice,) = chat(pilot).query(ErrorNotice)
        lines = [line.text.rstrip() for line in notice.render_lines(notice.region.reset_offset)]
        shown = " ".join(line.strip("│╭╮╰╯─ ") for line in lines)
        assert len(lines) > 8 and all(len(line) <= 100 for line in lines)  # wrapped, not cut off at the edge
    assert "THE-END" in shown and "request id req_offline_1" in shown and server.base_url in shown
    (_, reply) = await stored(tmp_path / "history.db")
    assert reply.status is MessageStatus.FAILED and reply.error is not None
    assert LONG_MESSAGE in reply.error and "req_offline_1" in reply.error and server.base_url in reply.error
