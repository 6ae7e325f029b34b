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


async def streams_at_the_bottom(
    pilot: Pilot[None], log: ChatLog, gates: list[Gate], first: int = 0, *, followed: bool
) -> None:
    """Open the gates one by one (the first one after part `first`); after each part is drawn the log is at its
    bottom (`followed`: it scrolls there after the frame that lays the new text out), or stays where it was."""
    for part, gate in enumerate(gates, start=first):
        await part_shown(pilot, gate, part)

        def where(part: int = part) -> str:
            return f"part {part}: y={log.scroll_y}, max={log.max_scroll_y}"

        if followed:
            await wait_until(pilot, lambda: at_the_bottom(log), lambda: f"followed to the bottom ({where()})")
        else:
            await pilot.pause()  # a frame for a scroll that must not come
            assert not at_the_bottom(log), f"the log stays where the person is ({where()})"
        gate.open()


def at_the_bottom(log: ChatLog) -> bool:
    return log.scroll_y == log.max_scroll_y > 0


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
        await streams_at_the_bottom(pilot, log, gates[:1], followed=True)
        log.scroll_up(animate=False)  # taken after the next refresh
        await wait_until(pilot, lambda: 0 < log.scroll_y < log.max_scroll_y, lambda: f"scrolled up (y={log.scroll_y})")
        await streams_at_the_bottom(pilot, log, gates[1:], first=1, followed=False)  # it stays where the person is


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
        log = screen.chat_log
        log.scroll_end(animate=False)
        await wait_until(pilot, lambda: at_the_bottom(log), lambda: f"at the bottom (y={log.scroll_y})")
        await pilot.press("ctrl+r")
        await streams_at_the_bottom(pilot, log, gates, followed=True)
