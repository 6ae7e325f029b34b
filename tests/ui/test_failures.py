"""Failures a person can act on, on the real stack (offline model over HTTP, real agent, real SQLite file):
retries shown as they happen, errors with their details, Retry and Continue."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from tests.ui.helpers import FIXED_NOW, WAIT_LIMIT, chat, newest_prompt, send, under_the_pointer, wait_until
from tests.ui.test_real_stack import history as stored
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.commands import redo
from tui_agent.ui.widgets.messages import AssistantMessage, ErrorNotice, MessageMarker, ReplyActions, replaced_text

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
        return TuiAgentApp(
            lambda: build_agent(settings, choice),
            model=choice.model,
            endpoint=choice.label,
            clock=lambda: FIXED_NOW,
            cursor_blink=False,
        ), server

    yield make
    for server in servers:
        server.stop()


async def watch_status(pilot: Pilot[None], until: Callable[[], bool], limit: float = WAIT_LIMIT) -> list[str]:
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
    app, server = scripted_app(
        {
            "replies": [
                {"status": 429, "retry_after": 2},
                {"status": 500, "retry_after": 1},
                {"text": "Finally here.", "first_token_delay": 1.6},
            ]
        }
    )
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)
        seen = await watch_status(pilot, lambda: newest_prompt(screen) is not None and screen.idle)
        assert screen.chat_log.assistant_messages[-1].shown_text().strip() == "Finally here."
    assert "◌ rate limited — retrying in 2 s (1 of 2) — Esc stops" in seen
    assert "◌ rate limited — retrying in 1 s (1 of 2) — Esc stops" in seen  # the timer moved
    assert "◌ server error 500 — retrying in 1 s (2 of 2) — Esc stops" in seen
    assert "◌ waiting for the server 1 s (retry 2 of 2) — Esc stops" in seen
    assert seen[-1] == "○ ready"
    chats = [r for r in server.requests if r.method == "POST"]  # the app also asks GET /v1/models (context windows)
    assert [r.outcome for r in chats] == ["status 429", "status 500", "ok"]


async def test_a_slow_first_token_shows_the_wait_then_replying(scripted_app: Make) -> None:
    app, _ = scripted_app(
        {
            "replies": [
                {
                    "text": "Slow start, then " + "more words " * 30,
                    "first_token_delay": 1.3,
                    "chunk_size": 4,
                    "chunk_delay": 0.02,
                }
            ]
        }
    )
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)
        seen = await watch_status(pilot, lambda: newest_prompt(screen) is not None and screen.idle)
    waits = [text for text in seen if "waiting for the server" in text]
    assert waits[:2] == ["◌ waiting for the server 0 s — Esc stops", "◌ waiting for the server 1 s — Esc stops"]
    # "replying" once the text comes (the line may say it for a moment as the turn starts, before the request
    # is sent: a first glance then can see it before the wait)
    assert "● replying — Esc stops" in seen[seen.index(waits[-1]) :], seen


async def test_an_error_keeps_its_whole_message_request_id_and_endpoint_shown_wrapped_and_stored(
    scripted_app: Make,
    tmp_path: Path,
) -> None:
    app, server = scripted_app({"replies": [{"status": 400, "error_message": LONG_MESSAGE}]})
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "hello")
        (notice,) = chat(pilot).query(ErrorNotice)
        lines = [line.text.rstrip() for line in notice.render_lines(notice.region.reset_offset)]
        shown = " ".join(line.strip("│╭╮╰╯─ ") for line in lines)
        assert len(lines) > 8 and all(len(line) <= 100 for line in lines)  # wrapped, not cut off at the edge
    request_id = server.requests[-1].request_id  # the chat request's (after the app's GET /v1/models)
    assert "THE-END" in shown and f"request id {request_id}" in shown and server.base_url in shown
    (_, reply) = await stored(tmp_path / "history.db")
    assert reply.status is MessageStatus.FAILED and reply.error is not None
    assert LONG_MESSAGE in reply.error and request_id in reply.error and server.base_url in reply.error


def last_request_messages(server: BackgroundServer) -> list[dict[str, Any]]:
    """The conversation of the last request (the agent's system prompt left out)."""
    body = server.requests[-1].body
    assert body is not None
    return [message for message in body["messages"] if message["role"] != "system"]


async def test_a_failed_turn_is_retried_with_one_key_and_the_failed_reply_is_kept_as_replaced(
    scripted_app: Make,
    tmp_path: Path,
) -> None:
    failing = {"status": 500, "retry_after": 0.01}
    app, server = scripted_app({"replies": [failing, failing, failing, {"text": "Second try works."}]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "first")
        failed = screen.chat_log.assistant_messages[-1]
        assert failed.status is MessageStatus.FAILED
        assert screen.chat_log.actions is not None and "retry" in str(screen.chat_log.actions.render())
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.idle and len(screen.chat_log.assistant_messages) == 2, "retried")
        retried = screen.chat_log.assistant_messages[-1]
        assert retried.shown_text().strip() == "Second try works." and retried.status is MessageStatus.COMPLETE
        assert failed.replaced and failed.is_attached and screen.chat_log.actions is None
        assert failed.has_class("-replaced")
    user, old, new = await stored(tmp_path / "history.db")
    assert old.status is MessageStatus.FAILED and old.error and old.replaced_by == new.id
    assert new.status is MessageStatus.COMPLETE and new.content == "Second try works."
    assert last_request_messages(server) == [{"role": "user", "content": "first"}]


async def test_a_retry_does_not_send_the_failed_replys_text_and_the_next_turn_alternates(
    scripted_app: Make,
    tmp_path: Path,
) -> None:
    app, server = scripted_app(
        {
            "replies": [
                {"text": "Partial answer that breaks", "chunk_size": 5, "cut_after": 2},
                {"text": "Whole answer."},
                {"text": "Next."},
            ]
        }
    )
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "first")
        partial = screen.chat_log.assistant_messages[-1].text
        assert partial and "Partial answer that breaks".startswith(partial)
        actions = screen.query_one(ReplyActions)
        await wait_until(pilot, lambda: under_the_pointer(pilot, actions, (2, 0)), "the links laid out")
        await pilot.click(ReplyActions, offset=(2, 0))  # the "↻ retry" link under the error
        await wait_until(pilot, lambda: screen.idle and len(screen.chat_log.assistant_messages) == 2, "retried")
        await send(pilot, "second")
    assert last_request_messages(server) == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Whole answer."},
        {"role": "user", "content": "second"},
    ]
    replies = [m for m in await stored(tmp_path / "history.db") if m.role.value == "assistant"]
    assert [(m.content, m.replaced_by is not None) for m in replies] == [
        (partial, True),
        ("Whole answer.", False),
        ("Next.", False),
    ]


async def test_esc_mid_reply_then_continue_goes_on_on_screen_and_stores_the_whole_reply(
    scripted_app: Make,
    tmp_path: Path,
) -> None:
    app, server = scripted_app(
        {
            "replies": [
                {"text": "One two three four five six seven eight nine ten " * 6, "chunk_size": 4, "chunk_delay": 0.05},
                {"text": " and the rest."},
            ]
        }
    )
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "count", wait=False)
        await wait_until(
            pilot,
            lambda: bool(screen.chat_log.assistant_messages) and len(screen.chat_log.assistant_messages[0].text) > 12,
            "some text",
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.idle and screen.chat_log.actions is not None, "interrupted")
        (reply,) = screen.chat_log.assistant_messages
        partial = reply.text
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: screen.idle and reply.status is MessageStatus.COMPLETE, "continued")
        assert screen.chat_log.assistant_messages == [reply] and reply.text == partial + " and the rest."
    (_, saved) = await stored(tmp_path / "history.db")
    assert saved.status is MessageStatus.COMPLETE and saved.content == partial + " and the rest."
    sent = last_request_messages(server)
    assert sent[:2] == [{"role": "user", "content": "count"}, {"role": "assistant", "content": partial}]
    assert sent[2]["role"] == "user" and sent[2]["content"].startswith("Continue exactly where you stopped")


async def test_a_reply_cut_at_the_token_limit_is_continued_from_the_palette(
    scripted_app: Make,
    tmp_path: Path,
) -> None:
    app, _ = scripted_app({"replies": [{"text": "Cut at the", "finish_reason": "length"}, {"text": " token limit."}]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await send(pilot, "tell me")
        titles = [command.title for command in app.get_system_commands(screen)]
        assert "Retry last reply" in titles and "Continue reply" in titles
        redo(app, False)
        await wait_until(
            pilot, lambda: screen.idle and "limit" in screen.chat_log.assistant_messages[-1].text, "continued"
        )
    (_, saved) = await stored(tmp_path / "history.db")
    assert saved.content == "Cut at the token limit."


async def test_retry_with_no_reply_yet_says_so_inline(scripted_app: Make) -> None:
    app, _ = scripted_app({"replies": []})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: bool(screen.query(ErrorNotice)), "an error")
        assert "no reply to retry" in str(screen.query_one(ErrorNotice).render())
        await send(pilot, "hello")  # and the app carries on
        assert screen.chat_log.assistant_messages[-1].shown_text().strip()


async def test_a_resumed_session_shows_the_replaced_reply_dimmed_and_offers_redo_for_a_failed_last_reply(
    tmp_path: Path,
) -> None:
    server = BackgroundServer(
        {
            "replies": [
                {"text": "Broken off", "chunk_size": 4, "cut_after": 2},
                {"text": "Also broken", "chunk_size": 4, "cut_after": 2},
            ]
        }
    )
    server.start()
    try:
        settings = Settings(db=tmp_path / "history.db")
        choice = EndpointChoice(server.base_url, "scripted", "test-key")
        built = await build_agent(settings, choice)
        async for _ in built.agent.send("first"):
            pass
        async for _ in built.agent.retry():
            pass
        session = built.agent.session
        assert session is not None
        await built.close()

        async def resumed() -> Any:
            again = await build_agent(settings, choice)
            await again.agent.resume(session.id)
            return again

        app = TuiAgentApp(
            resumed, model=choice.model, endpoint=choice.label, clock=lambda: FIXED_NOW, cursor_blink=False
        )
        async with app.run_test(size=(140, 40)) as pilot:
            screen = chat(pilot)
            await wait_until(pilot, lambda: screen.chat_log.actions is not None, "the history shown, redo offered")
            old, new = [entry for entry in screen.chat_log.entries if isinstance(entry, AssistantMessage)]
            assert old.replaced and not new.replaced
            assert old.has_class("-replaced") and not new.has_class("-replaced")  # dimmed by its CSS
            said = replaced_text(0, 2)  # which version it is, once its mark is known
            await wait_until(pilot, lambda: notes(screen)[0] == said, lambda: f"{said!r} under it: {notes(screen)}")
            assert notes(screen)[1].startswith("✗ failed")
            assert screen.chat_log.actions is not None and screen.chat_log.actions.can_continue
    finally:
        server.stop()


def notes(screen: Widget) -> list[str]:
    """The notes under the replies (failed, interrupted, retried)."""
    return [str(marker.render()) for marker in screen.query(MessageMarker)]
