"""An empty session opens on a welcome that explains itself (what this is, which model answers and how to point
it at another, the keys in force); the tool column waits folded until the first tool call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import app_on_real_agent, chat_ready, make_app, send, wait_until
from tui_agent.agent.endpoint import OFFLINE_NOTICE, OPENAI_URL, EndpointChoice, choose_endpoint
from tui_agent.config import Settings
from tui_agent.ui.widgets.messages import SystemLine
from tui_agent.ui.widgets.welcome import Welcome


def welcome_text(welcome: Welcome) -> str:
    return str(welcome.render())


async def test_a_new_session_explains_itself_until_the_first_prompt_and_the_tool_column_waits(tmp_path: Path) -> None:
    app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(None, "offline"))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: bool(screen.query(Welcome)), "the welcome shown (after the first frame)")
        welcome = screen.query_one(Welcome)
        text = welcome_text(welcome)
        assert "built-in offline model" in text and "“what's the weather in Paris and Tokyo?”" in text
        assert "--base-url http://localhost:11434/v1" in text and "LM Studio" in text
        assert all(key in text for key in ("escape", "ctrl+p", "ctrl+s", "f1"))
        assert not screen.tool_panels.display, "an empty tool column would take a third of the screen"
        await wait_until(pilot, lambda: bool(screen.chat_log.query(SystemLine)), "the offline model's line")
        line = screen.chat_log.query_one(SystemLine)
        assert OFFLINE_NOTICE in str(line.render()) and line.region.y < welcome.region.y, "the line stays above"

        await send(pilot, "What's the weather in Paris?")
        assert not screen.query(Welcome) and not screen.chat_log.welcome_shown
        assert screen.tool_panels.display and len(screen.tool_panels.panels) == 1
        log = screen.chat_log  # laid out anew at the next frame after the column is shown
        await wait_until(pilot, lambda: log.size.width < 100, lambda: f"room made for the tool column ({log.size})")


async def test_the_welcome_names_the_keys_in_force_and_a_real_endpoint() -> None:
    app, _ = make_app(model="llama3.2", endpoint="http://localhost:11434/v1")
    app._apply_keys({"sessions": "ctrl+o", "cancel_turn": "ctrl+g"})
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: bool(screen.query(Welcome)), "the welcome shown (after the first frame)")
        text = welcome_text(screen.query_one(Welcome))
        assert "Answering: llama3.2 at http://localhost:11434/v1" in text
        assert "ctrl+o" in text and "ctrl+g" in text and "ctrl+s " not in text
        assert "offline model understands" not in text


async def test_a_person_who_hides_the_tool_column_keeps_it_hidden_when_calls_come(tmp_path: Path) -> None:
    app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(None, "offline"))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await chat_ready(pilot)
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: screen.tool_panels.display, "Ctrl+B shows the empty column")
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: not screen.tool_panels.display, "Ctrl+B again hides it")
        await send(pilot, "What's the weather in Paris?")
        assert not screen.tool_panels.display and len(screen.tool_panels.panels) == 1


async def test_at_80x24_the_welcome_reads_from_its_top_and_the_first_reply_is_followed(tmp_path: Path) -> None:
    app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(None, "offline"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: bool(screen.chat_log.query(SystemLine)), "the offline model's line")
        log = screen.chat_log
        await wait_until(pilot, lambda: log.max_scroll_y > 0, "the welcome taller than the log")
        await pilot.pause()
        assert log.scroll_y == 0, "what this is and which model answers are at the welcome's top, in view"
        for prompt in ("explain streaming in markdown", "list the files", "what is 12 * (3 + 4)?"):
            await send(pilot, prompt)  # more than the log holds
        await wait_until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y, "the end shown")


async def test_a_key_alone_says_on_the_first_line_that_openai_answers_and_how_to_use_the_offline_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):  # what the app asks OpenAI goes nowhere
        monkeypatch.setenv(proxy, "http://127.0.0.1:9")
    for bypass in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(bypass, raising=False)
    settings = Settings(db=tmp_path / "history.db")
    choice = choose_endpoint(settings)
    assert choice.base_url == OPENAI_URL
    app, _ = app_on_real_agent(settings, choice)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: bool(screen.chat_log.query(SystemLine)), "the line saying who answers")
        line = str(screen.chat_log.query_one(SystemLine).render())
        assert "OPENAI_API_KEY is set: using OpenAI" in line and "--offline" in line, line
