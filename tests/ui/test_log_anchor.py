"""The conversation follows its newest entry while it streams, until the person scrolls up; having read back
down to the newest entry (mounted again after scrolling far up), it follows again."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.helpers import chat, make_app, read_to_the_bottom, scroll_to_the_top, send, wait_until
from tui_agent.testing.scripted import Gate, ScriptItem, reply_script
from tui_agent.ui.widgets.chat_log import ChatLog

PARAGRAPHS = ["\n\n".join(f"Paragraph {n} of part {part}." for n in range(15)) + "\n\n" for part in range(3)]


def gated_reply(message_id: str, gates: list[Gate]) -> list[ScriptItem]:
    """A long reply streamed in three parts, pausing at a gate after each of the first two."""
    script = reply_script(PARAGRAPHS, message_id=message_id)
    return [*script[:2], gates[0], script[2], gates[1], *script[3:]]


async def streams_at_the_bottom(pilot: Pilot[None], log: ChatLog, gates: list[Gate], first: int = 0) -> list[bool]:
    """Open the gates one by one (the first one after part `first`); whether the log was at its bottom after
    each part was drawn."""
    at_bottom = []
    for part, gate in enumerate(gates, start=first):
        await part_shown(pilot, gate, part)
        await pilot.pause()
        at_bottom.append(log.scroll_y == log.max_scroll_y > 0)
        gate.open()
    return at_bottom


async def part_shown(pilot: Pilot[None], gate: Gate, part: int) -> None:
    await wait_until(pilot, lambda: gate.reached, f"part {part} streamed")
    await wait_until(pilot, lambda: f"of part {part}." in app_text(pilot), f"part {part} shown")


def app_text(pilot: Pilot[None]) -> str:
    return "".join(entry.text for entry in chat(pilot).chat_log.assistant_messages)


async def test_a_streaming_reply_is_followed_until_the_person_scrolls_up() -> None:
    gates = [Gate(), Gate()]
    app, _ = make_app([gated_reply("m1", gates)])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go", wait=False)
        log = chat(pilot).chat_log
        assert await streams_at_the_bottom(pilot, log, gates[:1]) == [True]
        log.scroll_up(animate=False)
        await pilot.pause()
        assert await streams_at_the_bottom(pilot, log, gates[1:], first=1) == [False]  # it stays where the person is


async def test_having_read_back_down_a_retried_reply_is_followed_again() -> None:
    gates = [Gate(), Gate()]
    scripts = [reply_script([f"Answer {n}."], message_id=f"a{n}") for n in range(30)]
    app, _ = make_app([*scripts, gated_reply("retry", gates)])
    async with app.run_test(size=(100, 30)) as pilot:
        for n in range(30):
            await send(pilot, f"question {n}")
        screen = chat(pilot)
        await scroll_to_the_top(pilot, screen)
        assert screen.chat_log.later_count > 0  # the newest entries were let go below
        await read_to_the_bottom(pilot, screen)
        screen.chat_log.scroll_end(animate=False)
        await pilot.pause()
        await pilot.press("ctrl+r")
        assert await streams_at_the_bottom(pilot, screen.chat_log, gates) == [True, True]
