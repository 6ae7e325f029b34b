"""Snapshots of the conversation tree in the chat screen, on the real stack (the offline model's default answers
over HTTP, real SQLite): a prompt with three versions showing `‹2/3›` (and the status line on an older branch),
and the message cursor on a reply's code block. Regenerate with --snapshot-update."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import chat, chat_ready, send, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tests.ui.test_branching import select, start_editing
from tui_agent.ui.widgets.messages import AssistantMessage, UserMessage

SnapCompare = Callable[..., bool]
SIZE = (110, 34)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"replies": [], "then": "default"})


async def edit_newest_prompt(pilot: Pilot[None], text: str) -> None:
    screen = chat(pilot)
    newest = next(u.prompt for u in reversed(screen.chat_log.entries) if isinstance(u, UserMessage))
    await select(pilot, newest)  # one key at a time, each waited for
    await start_editing(pilot)  # the old text loaded, the prompt focused: the new text is not overwritten
    screen.prompt_input.load_text(text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: screen.idle and text in [u.prompt for u in screen.query(UserMessage)], "edited")


async def three_versions_on_the_second(pilot: Pilot[None]) -> None:
    screen = await chat_ready(pilot)
    await send(pilot, "Say hi")
    await edit_newest_prompt(pilot, "Say hello")
    await edit_newest_prompt(pilot, "Say good morning")
    await select(pilot, "Say good morning")
    await pilot.press("left")
    await wait_until(pilot, lambda: "Say hello" in [u.prompt for u in screen.query(UserMessage)], "version 2")
    prompt = next(u for u in screen.query(UserMessage) if u.prompt == "Say hello")
    await wait_until(pilot, lambda: str(prompt.border_title) == "‹2/3›", "its mark")
    await wait_until(pilot, lambda: screen.status_bar.branch_note is not None, "the status line")
    await pilot.press("escape")
    await wait_until(pilot, lambda: pilot.app.focused is screen.prompt_input, "the prompt focused again")
    await pilot.pause()


async def cursor_on_a_code_block(pilot: Pilot[None]) -> None:
    screen = await chat_ready(pilot)
    await send(pilot, "Show me some python")
    await pilot.press("ctrl+up")
    await wait_until(pilot, lambda: screen.message_cursor.selected is not None, "the newest reply selected")
    await pilot.press("tab")
    reply = screen.message_cursor.selected
    assert isinstance(reply, AssistantMessage)
    await wait_until(pilot, lambda: reply.branch_mark.code_rows is not None, "the code block selected")
    await pilot.pause()


def test_a_prompt_with_three_versions(snap_compare: SnapCompare, stack: RealStack) -> None:
    app, _ = stack.app()
    assert snap_compare(app, terminal_size=SIZE, run_before=three_versions_on_the_second)


def test_the_cursor_on_a_code_block(snap_compare: SnapCompare, stack: RealStack) -> None:
    app, _ = stack.app()
    assert snap_compare(app, terminal_size=SIZE, run_before=cursor_on_a_code_block)
