"""Agents from the palette on the real stack: the picked agent answers (its prompt and tools reach the model
server), the status bar names it, and `--continue` runs it again; the system prompt can be edited too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import TextArea

from tests.ui.helpers import chat_ready, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, real_stack
from tests.ui.test_palette import picker, run_command
from tui_agent import paths
from tui_agent.agent.resume import ResumeRequest
from tui_agent.agents.profiles import load_catalog
from tui_agent.history.store import HistoryStore
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.system_prompt import SystemPromptScreen
from tui_agent.ui.textual_private import notifications

SIZE = (140, 40)
SHIPPED = load_catalog([paths.shipped_dir("agents")], []).agents
RESEARCHER, ASSISTANT = SHIPPED["researcher"], SHIPPED["assistant"]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    with real_stack(tmp_path, "Noted.") as running:
        yield running


def system_prompt_sent(stack: RealStack) -> str:
    first = stack.chat_requests()[-1]["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


async def test_an_agent_picked_from_the_palette_answers_and_runs_again_on_continue(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: screen.status_bar.agent == "assistant", "the default agent shown")
        await run_command(pilot, "Switch agent")
        await picker(pilot)
        await run_command(pilot, "researcher")
        assert screen.status_bar.agent == "researcher"
        await send(pilot, "Where is the config read?")
    assert system_prompt_sent(stack) == RESEARCHER.system_prompt
    tools = {tool["function"]["name"] for tool in stack.chat_requests()[-1].get("tools", [])}
    assert tools and tools <= set(RESEARCHER.tools)

    again, _ = stack.app(ResumeRequest(latest=True))
    async with again.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: screen.status_bar.agent == "researcher", "the stored agent shown")
        await send(pilot, "And the history?")
        assert system_prompt_sent(stack) == RESEARCHER.system_prompt
        await pilot.press("ctrl+n")  # the agent was the session's: a new session runs the run's agent again
        await wait_until(pilot, lambda: showing(again, ChatScreen) and again.screen is not screen, "a new session")
        fresh = await chat_ready(pilot)
        await wait_until(pilot, lambda: fresh.status_bar.agent == "assistant", lambda: fresh.status_bar.agent)
        await send(pilot, "Hello again")
    assert system_prompt_sent(stack) == ASSISTANT.system_prompt


async def test_the_system_prompt_edited_from_the_palette_is_sent_and_stored(stack: RealStack) -> None:
    mine = paths.config_dir() / "AGENTS.md"  # a memory file: listed by the palette, sent after the edited prompt
    mine.write_text("Call me Ishmael.")
    mine.chmod(0o600)
    app, built = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "hello")
        await run_command(pilot, "Memory files")
        listed = f"{mine} (16 bytes)"
        await wait_until(pilot, lambda: any(listed in n.message for n in notifications(app)), "the memory files")
        await run_command(pilot, "Edit system prompt")
        await wait_until(pilot, lambda: showing(app, SystemPromptScreen), "the prompt dialog")
        area = app.screen.query_one(TextArea)
        area.text = "Answer in one word."
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, SystemPromptScreen), "the dialog closed")
        await send(pilot, "again")
        agent = await built.ready()
        session_id = agent.current_session_id
    sent = system_prompt_sent(stack)
    assert sent.startswith("Answer in one word.\n\n<memory-files>") and "\nCall me Ishmael.\n" in sent
    store = await HistoryStore.open(stack.db)
    try:
        assert session_id is not None
        stored = await store.get_session(session_id)
    finally:
        await store.close()
    assert stored is not None and stored.system_prompt == "Answer in one word."
