"""A finished reply takes its exact height: the log ends on its last line, with no blank rows past it (while
it streams a reply grows in steps of a few rows), also after its thinking block above it is opened."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widget import Widget

from tests.ui.helpers import SIZE, chat_ready, make_app, wait_until
from tui_agent.status import MessageStatus
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.markdown_view import GROWTH_STEP
from tui_agent.ui.widgets.messages import AssistantMessage
from tui_agent.ui.widgets.thinking import ThinkingBlock

THOUGHT = "The user wants Paris weather. I should check the forecast first, then answer in one short sentence."


async def streamed_then_finished(pilot: Pilot[None], reply: str) -> tuple[ChatLog, AssistantMessage]:
    """A reply with reasoning, laid out while it streams, then finished with nothing else going on (no turn:
    a turn's other updates would lay the screen out again and hide a reply that kept its streaming height)."""
    log = (await chat_ready(pilot)).chat_log
    log.add_user("Weather in Paris?")
    log.append_part("m1", "reasoning", THOUGHT)
    log.append("m1", reply)
    message = log.assistant("m1")
    assert message is not None
    await wait_until(pilot, lambda: message.size.height > 0, "the streaming reply laid out")
    assert message.size.height % GROWTH_STEP == 0  # streaming: grown in steps
    log.finish("m1", MessageStatus.COMPLETE)
    return log, message


async def laid_out(pilot: Pilot[None], what: str, *checks: Callable[[], bool]) -> None:
    """Wait for the frame that lays the log out as `checks` say (each names what failed, for the message)."""
    await wait_until(pilot, lambda: all(check() for check in checks), lambda: f"{what}: {failing(checks)}")


def failing(checks: tuple[Callable[[], bool], ...]) -> list[int]:
    return [n for n, check in enumerate(checks) if not check()]


def last_shown(log: ChatLog) -> Widget:
    return [entry for entry in log.entries if entry.display][-1]


async def test_a_finished_reply_ends_on_the_logs_last_row_and_stays_there_when_its_thinking_opens() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        log, message = await streamed_then_finished(pilot, "Paris is sunny, 21 °C.")
        await laid_out(  # a finished reply drops its streaming height at the next frame
            pilot,
            "the finished reply one row high, on the log's last row (checks failing)",
            lambda: message.size.height == 1,
            lambda: last_shown(log) is message,
            lambda: message.region.bottom == log.content_region.bottom,
        )
        block = log.query_one(ThinkingBlock)
        await pilot.click(ThinkingBlock)
        await laid_out(
            pilot,
            "the thought open above the reply, the reply still on the last row (checks failing)",
            lambda: block.expanded,
            lambda: block.size.height == 2,  # its title and the thought (one line: no tool column yet)
            lambda: block.region.bottom + 1 == message.region.y,  # its margin row, then the reply
            lambda: message.region.bottom == log.content_region.bottom,
        )


async def test_a_long_finished_reply_scrolled_to_the_end_shows_its_last_line_on_the_last_row() -> None:
    lines = 3 * SIZE[1] + 1  # no multiple of the growth step: the streaming height is rounded up
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        log, message = await streamed_then_finished(pilot, "\n\n".join(f"Line {n}." for n in range(lines)))
        await laid_out(
            pilot,
            "the reply as high as its lines, scrolled to its end on the last row (checks failing)",
            lambda: message.size.height == len(message.shown_text().splitlines()),
            lambda: log.scroll_y == log.max_scroll_y > 0,
            lambda: message.region.bottom == log.content_region.bottom,
        )
        assert log.virtual_size.height == message.virtual_region.bottom
