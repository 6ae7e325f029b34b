"""A sub-agent cut at its `max_tokens`, in the chat screen on the real stack (the offline model): the caller's call
gets the cut reply with a note, the caller's turn goes on to its own answer, and the panel says how the sub-agent
ended (it was stuck at "writing", under an error box naming `TurnEndReason.LENGTH`, the turn interrupted)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.helpers import chat, send, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tui_agent.status import CUT_OFF, MessageStatus, ToolStatus, TurnEndReason
from tui_agent.ui.widgets.messages import ErrorNotice
from tui_agent.ui.widgets.sub_agent import END_WORDS

TERSE_RESEARCHER = """name = "researcher"
description = "Answers in five tokens at most."
system_prompt = "You are a careful researcher."
tools = []
max_tokens = 5
"""


@pytest.fixture
def stack(tmp_path: Path, isolated_home: Path) -> Iterator[RealStack]:
    agents = isolated_home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "researcher.toml").write_text(TERSE_RESEARCHER, encoding="utf-8")
    (agents / "researcher.toml").chmod(0o600)
    yield from stack_serving(tmp_path)


async def test_a_sub_agent_cut_at_its_token_limit_answers_the_call_and_the_turn_goes_on(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "ask the researcher what the weather is in Paris")
        screen = chat(pilot)
        (panel,) = screen.tool_panels.panels
        assert panel.call.name == "ask_researcher" and panel.status is ToolStatus.DONE
        assert CUT_OFF in (panel.call.result or ""), "the cut reply is the call's result, with its note"
        await wait_until(pilot, lambda: "cut off" in str(panel.render()), lambda: str(panel.render()))
        assert "writing" not in str(panel.render()).split("\n", 1)[0], "the panel's header says it ended"
        assert "error:" not in str(panel.render()), "being cut is said as a note, not as the sub-agent's failure"
        assert not screen.query(ErrorNotice), [str(box.render()) for box in screen.query(ErrorNotice)]
        replies = screen.chat_log.assistant_messages  # the call's response, then the answer after it
        assert [reply.status for reply in replies] == [MessageStatus.COMPLETE] * len(replies)
        assert "The researcher says:" in replies[-1].text and CUT_OFF in replies[-1].text


def test_every_way_a_turn_ends_has_its_words_in_the_panel() -> None:
    assert set(END_WORDS) == set(TurnEndReason)
